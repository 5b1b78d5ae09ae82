"""Widgets 9-11 (§8, "Where is each word?"), server side: the fallback prints numbers that agree
with the definitions written out here (self-attention by loops, the paper's sines and cosines,
2-D turns by hand), not with the renderer's own engine calls; the state carries what the
script recomputes from; example data that cannot work is refused with a message naming the
problem."""

from __future__ import annotations

import copy
import itertools
import json
import math
import re
from typing import Any

import pytest
from support import unit18_examples, widget_context

from mathmachine.coursebook import widgets
from mathmachine.coursebook.widgets import WidgetOptionError

STATE = re.compile(r'<script type="application/json" data-state>(.*?)</script>', re.S)
MINUS = "\u2212"


@pytest.fixture(scope="module")
def examples() -> dict[str, Any]:
    return unit18_examples()


def render(name: str, examples: dict[str, Any], uid: str, **options: str) -> str:
    ctx = widget_context(examples)
    widget = widgets.get(name)
    assert widget is not None
    return widget({"id": uid, **options}, ctx)


def state(html: str) -> dict[str, Any]:
    m = STATE.search(html)
    assert m is not None
    return json.loads(m.group(1))  # type: ignore[no-any-return]


def fmt(x: float, places: int = 3) -> str:
    s = f"{x:.{places}f}"
    return (s.lstrip("-") if float(s) == 0 else s).replace("-", MINUS)


def v(xs: list[float], places: int = 3) -> str:
    return "(" + ", ".join(fmt(x, places) for x in xs) + ")"


def pe(pos: int, d: int) -> list[float]:
    return [
        (math.sin if j % 2 == 0 else math.cos)(pos / 10000 ** ((j - j % 2) / d)) for j in range(d)
    ]


def attention(x: list[list[float]], wq: Any, wk: Any, wv: Any) -> list[list[float]]:
    def mm(a: Any, b: Any) -> list[list[float]]:
        return [[sum(r[t] * b[t][c] for t in range(len(b))) for c in range(len(b[0]))] for r in a]

    q, k, vv = mm(x, wq), mm(x, wk), mm(x, wv)
    out = []
    for qi in q:
        s = [sum(a * b for a, b in zip(qi, kj, strict=True)) / math.sqrt(len(qi)) for kj in k]
        e = [math.exp(t) for t in s]
        w = [t / sum(e) for t in e]
        out.append([sum(w[j] * vv[j][c] for j in range(len(vv))) for c in range(len(vv[0]))])
    return out


def tables(html: str) -> dict[str, list[list[str]]]:
    """Every <table> by its caption's text: its body rows, each cell's text."""
    out = {}
    for cap, body in re.findall(r"<caption>(.*?)</caption>(.*?)</table>", html, re.S):
        rows = []
        for row in re.findall(r"<tr>(.*?)</tr>", body.split("<tbody>")[-1], re.S):
            rows.append([re.sub(r"<[^>]+>", "", c) for c in re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>",
                                                                       row, re.S)])  # fmt: skip
        out[re.sub(r"<[^>]+>", "", cap)] = rows
    return out


# -- widget 9, shuffle test ------------------------------------------------------------------------


def test_shuffle_fallback_without_and_with_positions(examples: dict[str, Any]) -> None:
    ex = examples["shuffle"]
    html = render("shuffle-test", examples, "w9")
    t = tables(html)
    words, x = ex["words"], ex["X"]
    order = ex["default_order"]
    base = attention(x, ex["W_Q"], ex["W_K"], ex["W_V"])
    shuffled = attention([x[i] for i in order], ex["W_Q"], ex["W_K"], ex["W_V"])
    assert t["“dog bites man”, without positions"] == [[w, v(base[i])] for i, w in enumerate(words)]
    assert t["“man bites dog”, without positions"] == [
        [words[i], v(shuffled[p]), "yes, the same"] for p, i in enumerate(order)
    ]
    assert all(v(shuffled[p]) == v(base[i]) for p, i in enumerate(order))
    places = [pe(p, 2) for p in range(3)]
    with_pe = [[a + b for a, b in zip(x[p], places[p], strict=True)] for p in range(3)]
    base_pe = attention(with_pe, ex["W_Q"], ex["W_K"], ex["W_V"])
    xs = [[a + b for a, b in zip(x[i], places[p], strict=True)] for p, i in enumerate(order)]
    shuffled_pe = attention(xs, ex["W_Q"], ex["W_K"], ex["W_V"])
    assert t["“dog bites man”, with positions"] == [[w, v(base_pe[i])] for i, w in enumerate(words)]
    assert t["“man bites dog”, with positions"] == [
        [words[i], v(shuffled_pe[p]), "no, changed"] for p, i in enumerate(order)
    ]
    # the live tables and controls are named for the script; the with-positions pair is fallback
    for target in ("order", "positions", "out1", "out2", "same", "sentence", "how1", "how2"):
        assert f'data-target="{target}"' in html
    assert html.count("data-nojs") == 1 and "data-js hidden" in html


def test_shuffle_state_and_the_orders(examples: dict[str, Any]) -> None:
    html = render("shuffle-test", examples, "w9")
    s = state(html)
    assert s["order"] == [2, 1, 0] and s["words"] == ["dog", "bites", "man"]
    for got, want in zip(s["positions"], [pe(p, 2) for p in range(3)], strict=True):
        assert got == pytest.approx(want, abs=1e-15)
    buttons = re.findall(r'data-order="([\d,]+)"', html)
    every = [",".join(map(str, o)) for o in itertools.permutations(range(3))]
    assert buttons == every[1:]  # every order but the first sentence itself
    assert re.findall(r'data-order="2,1,0"[^>]*aria-pressed="true"', html)


def test_shuffle_refuses_examples_that_cannot_work(examples: dict[str, Any]) -> None:
    bad = copy.deepcopy(examples)
    bad["shuffle"]["default_order"] = [0, 1, 2]
    with pytest.raises(WidgetOptionError, match="default_order must change the order"):
        render("shuffle-test", bad, "w9")
    bad = copy.deepcopy(examples)
    bad["shuffle"]["default_order"] = [0, 0, 1]
    with pytest.raises(WidgetOptionError, match=r"not a shuffle test.*permutation"):
        render("shuffle-test", bad, "w9")
    bad = copy.deepcopy(examples)
    bad["shuffle"]["X"] = [[1.0, 2.0, 3.0]] * 3
    with pytest.raises(WidgetOptionError, match="even width"):
        render("shuffle-test", bad, "w9")


# -- widget 10, sinusoidal clock -------------------------------------------------------------------


def test_clock_map_and_readouts(examples: dict[str, Any]) -> None:
    ex = examples["clock"]
    d, n, p, dim, k = ex["d"], ex["positions"], ex["pos"], ex["dim"], ex["gap"]
    html = render("sinusoidal-clock", examples, "w10")
    t = tables(html)
    (cap,) = [c for c in t if c.startswith("PE(pos, i): a row per dimension")]
    assert t[cap] == [[str(j), *(fmt(pe(c, d)[j]) for c in range(n))] for j in range(d)]
    assert 'data-own-page="numbers"' in html  # on a page of its own (test_pictures_and_own_pages)
    assert len(re.findall(r"<rect [^>]*data-r=", html)) == d * n  # the map: every position
    assert t[cap][0][2] == fmt(math.sin(1))  # PE(1, 0) = sin 1
    # the chosen entry, the dot product and its terms, at the example's sliders
    assert re.search(rf'data-target="e-value">{fmt(pe(p, d)[dim])}<', html)
    dot = sum(a * b for a, b in zip(pe(p, d), pe(p + k, d), strict=True))
    assert re.search(rf'data-target="dot">{fmt(dot)}<', html)
    terms = re.findall(r'data-target="term">([^<]*)<', html)
    assert terms == [fmt(math.cos(k / 10000 ** (2 * i / d))) for i in range(d // 2)]
    starts = [p for p in (0, 10, 20, 30, 40) if p < n]
    assert re.findall(r'data-target="at-start">([^<]*)<', html) == [fmt(dot)] * len(starts)
    # the fallback's table of gaps: each row one number, the dot product at that gap
    (gaps,) = [c for c in t if c.startswith("PE(p) · PE(p + k), d = 16")]
    for gap, row in enumerate(t[gaps]):
        want = sum(math.cos(gap / 10000 ** (2 * i / d)) for i in range(d // 2))
        assert row == [f"k = {gap}", *[fmt(want)] * len(starts)]
    # the turn of pair 0 over the gap, as a 2 x 2 matrix, and the pair before and after
    a = k  # omega_0 = 1
    assert re.findall(r'data-target="m">([^<]*)<', html) == [
        fmt(math.cos(a)),
        fmt(-math.sin(a)),
        fmt(math.sin(a)),
        fmt(math.cos(a)),
    ]
    assert re.search(rf'data-target="r-before">{re.escape(v(pe(p, d)[:2]))}<', html)
    assert re.search(rf'data-target="r-after">{re.escape(v(pe(p + k, d)[:2]))}<', html)
    s = state(html)
    assert (s["d"], s["positions"], s["pos"], s["dim"], s["gap"]) == (d, n, p, dim, k)
    assert 'data-target="pos"' in html and 'data-target="gap"' in html


def test_clock_refuses_examples_that_cannot_work(examples: dict[str, Any]) -> None:
    for change, message in (
        ({"d": 15}, "d must be even"),
        ({"pos": 99}, "pos, dim and gap must be on their sliders"),
        ({"max_gap": 0}, "gaps below them"),
    ):
        bad = copy.deepcopy(examples)
        bad["clock"].update(change)
        with pytest.raises(WidgetOptionError, match=message):
            render("sinusoidal-clock", bad, "w10")


# -- widget 11, rotary dial ------------------------------------------------------------------------


def turn(p: list[float], degrees: float) -> list[float]:
    a = math.radians(degrees)
    return [p[0] * math.cos(a) - p[1] * math.sin(a), p[0] * math.sin(a) + p[1] * math.cos(a)]


def score(ex: dict[str, Any], m: int, n: int) -> float:
    a, b = turn(ex["q"], m * ex["theta_degrees"]), turn(ex["k"], n * ex["theta_degrees"])
    return a[0] * b[0] + a[1] * b[1]


def test_dial_readout_and_the_table_of_scores(examples: dict[str, Any]) -> None:
    ex = examples["dial"]
    m, n = ex["m"], ex["n"]
    html = render("rotary-dial", examples, "w11")
    assert re.search(rf'data-target="q-rot">{re.escape(v(turn(ex["q"], m * 30)))}<', html)
    assert re.search(rf'data-target="k-rot">{re.escape(v(turn(ex["k"], n * 30)))}<', html)
    assert re.search(rf'data-target="score">{fmt(score(ex, m, n))}<', html)
    assert re.search(rf'data-target="q-len">{fmt(math.hypot(*ex["q"]))}<', html)
    assert re.search(r'data-target="gap-deg">60<', html)
    t = tables(html)
    (cap,) = [c for c in t if c.startswith("The score: a row per query place")]
    assert t[cap] == [[f"m = {a}", *(fmt(score(ex, a, b)) for b in range(6))] for a in range(6)]
    # each diagonal one number
    for a in range(5):
        for b in range(5):
            assert t[cap][a + 1][b + 2] == t[cap][a][b + 1]
    s = state(html)
    assert (s["m"], s["n"], s["deg"], s["last"]) == (m, n, 30, ex["positions"] - 1)
    for target in ("m", "n", "back", "on", "q-arrow", "k-arrow"):
        assert f'data-target="{target}"' in html


def test_dial_refuses_examples_that_cannot_work(examples: dict[str, Any]) -> None:
    for change, message in (
        ({"q": [1.0, 2.0, 3.0]}, "not a query and a key in a plane"),
        ({"n": 40}, "m and n must be on the sliders"),
        ({"k": [0.0, 0.0]}, "must not be 0"),
        ({"theta_degrees": 0}, "theta_degrees"),
    ):
        bad = copy.deepcopy(examples)
        bad["dial"].update(change)
        with pytest.raises(WidgetOptionError, match=message):
            render("rotary-dial", bad, "w11")
