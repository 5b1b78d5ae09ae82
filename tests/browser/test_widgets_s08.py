"""Widgets 9-11 (§8, "Where is each word?") in real Chromium at 360 px, opened by a member of
staff who bought the unit (so the section opens while it is a draft, and as any buyer once it
is published): each Try box walked by keyboard alone with reduced motion asked for, every
number shown compared with formulas written out here (self-attention by loops, math.sin and
math.cos, 2-D turns); axe clean after the walk. Without JavaScript: the fallback shows the same
numbers, and no control."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from typing import Any

import pytest
from support import unit18_examples

from .conftest import UNIT, tab_to

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

OpenPage = Callable[..., Any]
Axe = Callable[..., list[dict[str, Any]]]
EXAMPLES = unit18_examples()
SECTION = f"/units/{UNIT}/8/"
MINUS = "\u2212"


def fmt(x: float, places: int = 3) -> str:
    s = f"{x:.{places}f}"
    return (s.lstrip("-") if float(s) == 0 else s).replace("-", MINUS)


def v(xs: list[float], places: int = 3) -> str:
    return "(" + ", ".join(fmt(x, places) for x in xs) + ")"


def pe(pos: int, d: int) -> list[float]:
    return [
        (math.sin if j % 2 == 0 else math.cos)(pos / 10000 ** ((j - j % 2) / d)) for j in range(d)
    ]


def attention(x: list[list[float]], ex: dict[str, Any]) -> list[list[float]]:
    def mm(a: Any, b: Any) -> list[list[float]]:
        return [[sum(r[t] * b[t][c] for t in range(len(b))) for c in range(len(b[0]))] for r in a]

    q, k, vv = mm(x, ex["W_Q"]), mm(x, ex["W_K"]), mm(x, ex["W_V"])
    out = []
    for qi in q:
        s = [sum(a * b for a, b in zip(qi, kj, strict=True)) / math.sqrt(len(qi)) for kj in k]
        e = [math.exp(t) for t in s]
        out.append([sum(e[j] / sum(e) * vv[j][c] for j in range(3)) for c in range(len(vv[0]))])
    return out


def texts(page: Any, w: str, name: str) -> list[str]:
    sel = f'{w} [data-target~="{name}"]'
    return [s.strip() for s in page.locator(sel).evaluate_all("els => els.map(e => e.textContent)")]


def status(page: Any, w: str) -> str:
    return page.locator(f'{w} [data-target="status"]').inner_text()


# -- widget 9 ------------------------------------------------------------------------------------

W9 = "#w9"
DOG = EXAMPLES["shuffle"]


def shuffle_shown(page: Any, order: list[int], positions: bool) -> None:
    x, words = DOG["X"], DOG["words"]
    places = [pe(p, 2) for p in range(3)] if positions else [[0.0, 0.0]] * 3
    add = [[a + b for a, b in zip(x[p], places[p], strict=True)] for p in range(3)]
    base = attention(add, DOG)
    xs = [[a + b for a, b in zip(x[i], places[p], strict=True)] for p, i in enumerate(order)]
    out = attention(xs, DOG)
    assert texts(page, W9, "out1") == [v(r) for r in base]
    assert texts(page, W9, "word2") == [words[i] for i in order]
    assert texts(page, W9, "out2") == [v(r) for r in out]
    same = ["yes, the same" if v(out[p]) == v(base[i]) else "no, changed" for p, i in
            enumerate(order)]  # fmt: skip
    assert texts(page, W9, "same") == same
    assert texts(page, W9, "sentence") == [" ".join(words[i] for i in order)]


def test_widget_9_the_try_walk_by_keyboard(open_page: OpenPage, axe: Axe) -> None:
    page = open_page(SECTION, staff=True, reduced_motion="reduce").page
    shuffle_shown(page, [2, 1, 0], False)
    assert "every word's output is the same vector as before" in status(page, W9)
    # "Try every other order: the answer stays yes"
    for order in itertools.permutations(range(3)):
        if list(order) == [0, 1, 2]:
            continue
        key = ",".join(map(str, order))
        page.locator(W9).scroll_into_view_if_needed()
        tab_to(page, f'{W9} [data-target="order"][data-order="{key}"]')
        page.keyboard.press("Enter")
        shuffle_shown(page, list(order), False)
        assert set(texts(page, W9, "same")) == {"yes, the same"}
        page.locator(f'{W9} [data-target="order"]').first.focus()
    # "man bites dog", then switch add positions on: every output changes
    tab_to(page, f'{W9} [data-target="order"][data-order="2,1,0"]')
    page.keyboard.press("Enter")
    tab_to(page, f'{W9} [data-target="positions"]')
    page.keyboard.press("Space")
    shuffle_shown(page, [2, 1, 0], True)
    assert set(texts(page, W9, "same")) == {"no, changed"}
    assert status(page, W9) == "“man bites dog” with positions: every word's output changed."
    assert page.locator(f'{W9} [data-target="live"]').inner_text() == status(page, W9)
    # switched off again: the same vectors, moved
    page.keyboard.press("Space")
    shuffle_shown(page, [2, 1, 0], False)
    assert page.evaluate("document.getAnimations().length") == 0
    assert axe(page, W9) == []
    assert page.evaluate("document.documentElement.scrollWidth") <= 360


def test_widget_9_without_javascript(open_page: OpenPage) -> None:
    page = open_page(SECTION, staff=True, js=False).page
    tables = page.locator(f"{W9} table")
    assert tables.count() == 4 and all(t.is_visible() for t in tables.all())
    assert page.locator(f'{W9} [data-target="positions"]').is_hidden()
    rows = tables.nth(3).locator("tbody tr")
    assert rows.nth(2).locator("td").all_inner_texts()[1] == "no, changed"
    body = page.locator("article").inner_text()
    assert "Without JavaScript: The first pair of tables is “dog bites man”" in body


# -- widget 10 -----------------------------------------------------------------------------------

W10 = "#w10"
CLOCK = EXAMPLES["clock"]


def clock_shown(page: Any, p: int, dim: int, k: int) -> None:
    d = CLOCK["d"]
    dot = sum(a * b for a, b in zip(pe(p, d), pe(p + k, d), strict=True))
    assert texts(page, W10, "e-value") == [fmt(pe(p, d)[dim])]
    assert texts(page, W10, "e-fn") == ["cos" if dim % 2 else "sin"]
    assert texts(page, W10, "dot") == [fmt(dot)]
    starts = [s for s in (0, 10, 20, 30, 40) if s < CLOCK["positions"]]
    assert texts(page, W10, "at-start") == [fmt(dot)] * len(starts)
    assert texts(page, W10, "term") == [
        fmt(math.cos(k / 10000 ** (2 * i / d))) for i in range(d // 2)
    ]
    j = 2 * (dim // 2)
    assert texts(page, W10, "r-before") == [v(pe(p, d)[j : j + 2])]
    assert texts(page, W10, "r-after") == [v(pe(p + k, d)[j : j + 2])]
    a = k / 10000 ** (j / d)
    assert texts(page, W10, "m") == [
        fmt(math.cos(a)), fmt(-math.sin(a)), fmt(math.sin(a)), fmt(math.cos(a))
    ]  # fmt: skip
    mark = page.locator(f"{W10} rect.wk-hm-row")
    assert mark.get_attribute("data-row") == str(dim)


def test_widget_10_the_try_walk_by_keyboard(open_page: OpenPage, axe: Axe) -> None:
    page = open_page(SECTION, staff=True, reduced_motion="reduce").page
    p, dim, k = CLOCK["pos"], CLOCK["dim"], CLOCK["gap"]
    clock_shown(page, p, dim, k)
    # "Set the gap k to 2 and drag p": the dot product does not move
    tab_to(page, f'{W10} [data-target="pos"]')
    for step in range(1, 6):
        page.keyboard.press("ArrowRight")
        clock_shown(page, p + step, dim, k)
    assert page.locator(f'{W10} [data-target="pos"]').get_attribute("aria-valuetext") == (
        f"position {p + 5}"
    )
    # a gap of 0: d/2
    tab_to(page, f'{W10} [data-target="gap"]')
    page.keyboard.press("Home")
    clock_shown(page, p + 5, dim, 0)
    assert texts(page, W10, "dot") == [fmt(CLOCK["d"] / 2)]
    page.keyboard.press("ArrowRight")
    clock_shown(page, p + 5, dim, 1)
    # another dimension: a cosine of a slower pair
    tab_to(page, f'{W10} [data-target="dim"]', backwards=True)
    for _ in range(5):
        page.keyboard.press("ArrowRight")
    clock_shown(page, p + 5, 5, 1)
    assert "the same from every start" in status(page, W10)
    assert page.evaluate("document.getAnimations().length") == 0
    assert axe(page, W10) == []
    assert page.evaluate("document.documentElement.scrollWidth") <= 360


# -- widget 11 -----------------------------------------------------------------------------------

W11 = "#w11"
DIAL = EXAMPLES["dial"]


def turn(p: list[float], degrees: float) -> list[float]:
    a = math.radians(degrees)
    return [p[0] * math.cos(a) - p[1] * math.sin(a), p[0] * math.sin(a) + p[1] * math.cos(a)]


def dial_shown(page: Any, m: int, n: int) -> str:
    deg = DIAL["theta_degrees"]
    a, b = turn(DIAL["q"], m * deg), turn(DIAL["k"], n * deg)
    score = fmt(a[0] * b[0] + a[1] * b[1])
    assert texts(page, W11, "q-rot") == [v(a)] and texts(page, W11, "k-rot") == [v(b)]
    assert texts(page, W11, "q-len") == [fmt(math.hypot(*DIAL["q"]))]
    assert texts(page, W11, "k-len") == [fmt(math.hypot(*DIAL["k"]))]
    assert texts(page, W11, "gap") == [str(n - m).replace("-", MINUS)]
    assert texts(page, W11, "score") == [score]
    assert texts(page, W11, "m-deg") == [str(m * deg)]
    return score


def test_widget_11_the_try_walk_by_keyboard(open_page: OpenPage, axe: Axe) -> None:
    page = open_page(SECTION, staff=True, reduced_motion="reduce").page
    m, n = DIAL["m"], DIAL["n"]
    first = dial_shown(page, m, n)
    # "Press one place on a few times": the score does not move
    tab_to(page, f'{W11} [data-target="on"]')
    for step in range(1, 4):
        page.keyboard.press("Enter")
        assert dial_shown(page, m + step, n + step) == first
    live = page.locator(f'{W11} [data-target="live"]').inner_text()
    assert live.startswith("Both moved.") and "The gap is the same, and so is the score." in live
    # "Now drag only n": the score changes
    tab_to(page, f'{W11} [data-target="n"]', backwards=True)
    page.keyboard.press("ArrowRight")
    assert dial_shown(page, m + 3, n + 4) != first
    # "with m = 0, where must n be?" at the gap of 2
    tab_to(page, f'{W11} [data-target="m"]', backwards=True)
    page.keyboard.press("Home")
    assert dial_shown(page, 0, n + 4) != first
    tab_to(page, f'{W11} [data-target="n"]')
    page.keyboard.press("Home")
    for _ in range(n - m):
        page.keyboard.press("ArrowRight")
    assert dial_shown(page, 0, n - m) == first
    back = page.locator(f'{W11} [data-target="back"]')
    assert back.get_attribute("aria-disabled") == "true"  # m is at 0: nothing to move back
    tab_to(page, f'{W11} [data-target="back"]', backwards=True)
    page.keyboard.press("Enter")  # says why, changes nothing, keeps the focus
    assert dial_shown(page, 0, n - m) == first
    assert page.evaluate("document.activeElement.dataset.target") == "back"
    live = page.locator(f'{W11} [data-target="live"]').inner_text()
    assert live == (
        "Both cannot move: one of them is at the first place, 0. Move it with its slider."
    )
    assert page.evaluate("document.getAnimations().length") == 0
    assert axe(page, W11) == []
    assert page.evaluate("document.documentElement.scrollWidth") <= 360


def test_widgets_10_and_11_without_javascript(open_page: OpenPage) -> None:
    page = open_page(SECTION, staff=True, js=False).page
    for w, part in ((W10, "pos"), (W11, "m"), (W11, "on")):
        assert page.locator(f'{w} [data-target="{part}"]').is_hidden()
    gaps = page.locator(f"{W10} table.sc-gaps")
    assert gaps.is_visible()
    d = CLOCK["d"]
    row = gaps.locator("tbody tr").nth(CLOCK["gap"]).locator("td").all_inner_texts()
    want = sum(math.cos(CLOCK["gap"] / 10000 ** (2 * i / d)) for i in range(d // 2))
    assert row == [fmt(want)] * len([s for s in (0, 10, 20, 30, 40) if s < CLOCK["positions"]])
    scores = page.locator(f"{W11} table.rd-table")
    assert scores.is_visible()
    a = turn(DIAL["q"], DIAL["m"] * DIAL["theta_degrees"])
    b = turn(DIAL["k"], DIAL["n"] * DIAL["theta_degrees"])
    assert texts(page, W11, "score") == [fmt(a[0] * b[0] + a[1] * b[1])]
    body = page.locator("article").inner_text()
    assert (
        "Without JavaScript: The numbers of the first ten positions are in the table under the map."
        in body
    )
    assert "Without JavaScript: The plane shows the query turned" in body
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
