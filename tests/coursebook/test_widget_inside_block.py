"""Widget 12 (§9, "Inside one block"), server side: the state holds, for every word of the
example and both orders of the block (post-LN as trained, pre-LN), every stage's numbers as a
block written out here with numpy from the tiny translator's weights computes them (no engine
block), with their shades, average and spread, and the word's weights in each head printed to add
up to 1; the fallback shows every stage of the example's word and the counts of a block at every
width, counted matrix by matrix; the golden cases of blockWeights are those counts too; example
data that cannot work is refused with a message that names the problem."""

from __future__ import annotations

import copy
import json
import re
from typing import Any

import numpy as np
import pytest
from support import unit18_examples, widget_context

from mathmachine.coursebook import widgets
from mathmachine.coursebook.widgets import WidgetContext, WidgetOptionError
from mathmachine.coursebook.widgets.inside_block import golden
from mathmachine.engine import tiny

STATE = re.compile(r'<script type="application/json" data-state>(.*?)</script>', re.S)
MINUS = "\u2212"
POST = ["x", "attn", "resid1", "ln1", "hidden_in", "hidden", "ffn", "resid2", "out"]
PRE = ["x", "ln1", "attn", "resid1", "ln2", "hidden_in", "hidden", "ffn", "out"]


@pytest.fixture(scope="module")
def examples() -> dict[str, Any]:
    return unit18_examples()


def ctx(examples: dict[str, Any]) -> WidgetContext:
    return widget_context(examples)


def render(examples: dict[str, Any], **options: str) -> str:
    widget = widgets.get("inside-block")
    assert widget is not None
    return widget({"id": "w12", **options}, ctx(examples))


def state(html: str) -> dict[str, Any]:
    m = STATE.search(html)
    assert m is not None
    return json.loads(m.group(1))  # type: ignore[no-any-return]


def fmt(x: float, places: int = 3) -> str:
    s = f"{x:.{places}f}"
    return (s.lstrip("-") if float(s) == 0 else s).replace("-", MINUS)


def by_hand(sentence: str, pre: bool) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """The encoder block written out: every stage for every word, and the heads' weights."""
    model = tiny.load()
    p = model.params["enc"]["0"]
    x = model.walk(sentence)["encoder"]["input"]
    n_heads, d = 4, x.shape[1]
    dk = d // n_heads

    def norm(z: np.ndarray, i: int) -> np.ndarray:
        mu = z.mean(axis=-1, keepdims=True)
        var = ((z - mu) ** 2).mean(axis=-1, keepdims=True)
        return p[f"ln{i}_g"] * (z - mu) / np.sqrt(var + 1e-5) + p[f"ln{i}_b"]

    def mha(z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        q, k, v = (z @ p[f"W_{c}"] + p[f"b_{c}"] for c in "qkv")
        heads, maps = [], []
        for i in range(n_heads):
            cols = slice(i * dk, (i + 1) * dk)
            s = q[:, cols] @ k[:, cols].T / np.sqrt(dk)
            w = np.exp(s - s.max(axis=1, keepdims=True))
            w /= w.sum(axis=1, keepdims=True)
            maps.append(w)
            heads.append(w @ v[:, cols])
        return np.hstack(heads) @ p["W_o"] + p["b_o"], np.array(maps)

    st: dict[str, np.ndarray] = {"x": x}
    if pre:
        st["ln1"] = norm(x, 1)
        st["attn"], maps = mha(st["ln1"])
        st["resid1"] = x + st["attn"]
        st["ln2"] = norm(st["resid1"], 2)
        ffn_in = st["ln2"]
    else:
        st["attn"], maps = mha(x)
        st["resid1"] = x + st["attn"]
        st["ln1"] = norm(st["resid1"], 1)
        ffn_in = st["ln1"]
    st["hidden_in"] = ffn_in @ p["W1"] + p["b1"]
    st["hidden"] = np.maximum(st["hidden_in"], 0)
    st["ffn"] = st["hidden"] @ p["W2"] + p["b2"]
    if pre:
        st["out"] = st["resid1"] + st["ffn"]
    else:
        st["resid2"] = st["ln1"] + st["ffn"]
        st["out"] = norm(st["resid2"], 2)
    return st, maps


def counted(d: int, d_ff: int, extras: bool) -> int:
    """One block, matrix by matrix: W_Q, W_K, W_V, W_O; W1, W2; then the biases and norms."""
    matrices = [(d, d)] * 4 + [(d, d_ff), (d_ff, d)]
    total = sum(a * b for a, b in matrices)
    if extras:
        total += sum(b for _, b in matrices)  # one bias per column of each matrix
        total += 2 * (d + d)  # two LayerNorms, a gain and a bias each
    return total


def test_every_stage_of_every_word_in_both_orders(examples: dict[str, Any]) -> None:
    s = state(render(examples))
    ex = examples["block"]
    assert s["words"] == ["I", "drink", "tea"] and s["word"] == ex["token"] and s["pre"] is False
    for mode, names in (("post", POST), ("pre", PRE)):
        stages, maps = by_hand(ex["sentence"], mode == "pre")
        assert len(s["modes"][mode]) == 3
        for t, walk in enumerate(s["modes"][mode]):
            assert [st["name"] for st in walk["stages"]] == names
            for st in walk["stages"]:
                v = stages[st["name"]][t]
                assert st["n"] == v.size == (64 if st["name"].startswith("hidden") else 32)
                assert np.allclose([float(a.replace(MINUS, "-")) for a in st["numbers"]], v,
                                   atol=5e-4 + 1e-9)  # fmt: skip
                # the palette's level of |v| on 0..3, linear: 0..10
                assert st["shades"] == [int(np.floor(min(1.0, abs(a) / 3) * 10 + 0.5)) for a in v]
                assert st["mean"] == fmt(float(v.mean()), 2)
                assert st["spread"] == fmt(float(np.sqrt(np.mean((v - v.mean()) ** 2))), 2)
            printed = np.array([[float(a) for a in row] for row in walk["weights"]])
            assert np.allclose(printed.sum(axis=1), 1.0, atol=1e-12)
            assert np.allclose(printed, maps[:, t, :], atol=1e-3)
    # post-LN: the block's last word is a LayerNorm; pre-LN: an addition, no LayerNorm
    post_out = s["modes"]["post"][2]["stages"][-1]
    pre_out = s["modes"]["pre"][2]["stages"][-1]
    assert (post_out["label"], pre_out["label"]) == ("LayerNorm", "add")
    assert post_out["spread"] == "1.00" and pre_out["spread"] != "1.00"
    relu = s["modes"]["post"][2]["stages"][5]
    zeros = sum(1 for a in relu["numbers"] if a == "0.000")
    assert f"{zeros} of the 64 are 0" in relu["text"]


def test_the_fallback_and_the_counter(examples: dict[str, Any]) -> None:
    html = render(examples)
    ex = examples["block"]
    fallback = html[html.index('class="ib-fallback"') :]
    stages, _ = by_hand(ex["sentence"], False)
    summaries = re.findall(r"<summary>([^<]*)</summary>", fallback)
    assert len(summaries) == 9
    assert summaries[0].startswith("1. in, x: 32 numbers")
    assert summaries[-1].endswith(f"spread {fmt(float(stages['out'][2].std()), 2)}")
    for k, name in enumerate(POST):
        block = fallback.split('<details class="ib-stage"')[k + 1]
        cells = re.findall(r'<td class="wk-h\d+">([^<]*)</td>', block.split("</table>")[0])
        assert cells == [fmt(a) for a in stages[name][2]], name
    assert fallback.count("<details") == 9 and fallback.count(" open>") == 2
    rows = re.findall(r'<tr><th scope="row">([\d,]+)</th><td>([\d,]+)</td><td>([\d,]+)</td></tr>',
                      fallback)  # fmt: skip
    assert [int(r[0].replace(",", "")) for r in rows] == ex["widths"]
    for d_text, bare, full in rows:
        d = int(d_text.replace(",", ""))
        assert bare == f"{counted(d, 4 * d, False):,}" == f"{12 * d * d:,}"
        assert full == f"{counted(d, 4 * d, True):,}" == f"{12 * d * d + 13 * d:,}"
    # the counter starts at the example's width
    s = state(html)
    assert ex["widths"][s["width"]] == ex["d_default"]
    assert f'data-target="total">{12 * ex["d_default"] ** 2:,}<' in html


def test_golden_cases_are_the_counts_matrix_by_matrix(examples: dict[str, Any]) -> None:
    opts = widgets.get("inside-block").parse({"id": "w12"}, ctx(examples))  # type: ignore[union-attr]
    (g,) = golden(opts, ctx(examples))
    assert g.module == "widgets/layer-math.js"
    seen = set()
    for case in g.cases:
        d, d_ff, bias, norm = case["args"]
        out = case["out"]
        ff = 4 * d if d_ff is None else d_ff
        assert bias == norm and out["total"] == counted(d, ff, bias), case["args"]
        assert out["matrices"] == counted(d, ff, False)
        assert out["dFf"] == ff and out["w1"] == d * ff and out["attention"] == 4 * d * d
        assert out["biases"] == (4 * d + ff + d if bias else 0)
        seen.add((d, ff))
    assert {(d, 4 * d) for d in examples["block"]["widths"]} <= seen and (32, 64) in seen


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"sentence": "I drink coffee"}, "not a sentence the tiny model reads"),
        ({"token": 3}, "token must be a word index 0..2"),
        ({"token": "tea"}, "token must be a word index"),
        ({"widths": [64, 32]}, "widths must be rising whole numbers"),
        ({"widths": [32]}, "widths must be rising whole numbers"),
        ({"d_default": 100}, "d_default must be one of the widths"),
    ],
)
def test_bad_example_data_is_refused(
    examples: dict[str, Any], change: dict[str, Any], message: str
) -> None:
    bad = copy.deepcopy(examples)
    bad["block"].update(change)
    with pytest.raises(WidgetOptionError, match=re.escape(message)):
        render(bad)
