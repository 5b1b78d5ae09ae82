"""Unit 18 §9: every figure the section prints agrees with the definitions written out here
(LayerNorm by the mean and the mean of squares, ReLU and matrix products by loops on the tiny
translator's weights, products of slopes, weights counted matrix by matrix), not by calling the
engine's functions for them; the arena's LayerNorm and block problems agree over many seeds."""

from __future__ import annotations

import math
from itertools import combinations
from pathlib import Path

import numpy as np
import pytest

from mathmachine.coursebook.passes.load import load_figures
from mathmachine.engine import tiny

UNIT_DIR = (
    Path(__file__).resolve().parents[2] / "content" / "units" / "18-attention-and-transformers"
)
MINUS = "\u2212"
FIGURES = load_figures(UNIT_DIR, 18)
F = FIGURES.values


def d(x: float, places: int = 3) -> str:
    text = f"{x:.{places}f}"
    return (text.lstrip("-") if float(text) == 0 else text).replace("-", MINUS)


def v(xs, places: int = 3) -> str:
    return "(" + ", ".join(d(float(x), places) for x in xs) + ")"


def num(text: str) -> float:
    return float(text.replace(MINUS, "-").replace(",", ""))


def vec(text: str) -> list[float]:
    return [num(x) for x in text.strip("()").split(",")]


def ln(x: list[float], gain=None, bias=None, ddof: int = 0) -> list[float]:
    mean = sum(x) / len(x)
    var = sum((a - mean) ** 2 for a in x) / (len(x) - ddof)
    out = [(a - mean) / math.sqrt(var) for a in x]
    if gain is not None:
        out = [g * o for g, o in zip(gain, out, strict=True)]
    if bias is not None:
        out = [o + b for o, b in zip(out, bias, strict=True)]
    return out


def test_layer_norm_by_hand() -> None:
    assert F["blk_ln_answer"] == v(ln([1, 2, 3])) == "(−1.225, 0.000, 1.225)"
    assert F["blk_ln_mean"] == "2" and F["blk_ln_var_frac"] == "2/3"
    assert F["blk_ln_std"] == d(math.sqrt(2 / 3)) and F["blk_ln_n1"] == v([-1, 0, 1])
    assert F["blk_ln_by_var"] == v([-1.5, 0, 1.5])
    assert F["blk_ln_gained"] == v(ln([1, 2, 3], [2, 2, 2], [1, 1, 1]))
    assert F["blk_ln_eps_top"] == d(1 / math.sqrt(2 / 3 + 1e-5), 6)
    assert F["blk_ln_no_eps_top"] == d(1 / math.sqrt(2 / 3), 6)
    assert F["blk_ln_eps"] == "10^{\u22125}"


def test_tea_through_the_tiny_block_by_loops() -> None:
    """The post-LN block recomputed with plain numpy from its weights (no engine block)."""
    model = tiny.load()
    p = model.params["enc"]["0"]
    x = model.walk("I drink tea")["encoder"]["input"]  # the engine's input: words + places
    h, dk = 4, 8

    def norm(z: np.ndarray, i: int) -> np.ndarray:
        mu = z.mean(axis=-1, keepdims=True)
        var = ((z - mu) ** 2).mean(axis=-1, keepdims=True)
        return p[f"ln{i}_g"] * (z - mu) / np.sqrt(var + 1e-5) + p[f"ln{i}_b"]

    q, k, vv = (x @ p[f"W_{c}"] + p[f"b_{c}"] for c in "qkv")
    heads, weights = [], []
    for i in range(h):
        cols = slice(i * dk, (i + 1) * dk)
        s = q[:, cols] @ k[:, cols].T / math.sqrt(dk)
        w = np.exp(s - s.max(axis=1, keepdims=True))
        w /= w.sum(axis=1, keepdims=True)
        weights.append(w)
        heads.append(w @ vv[:, cols])
    attn = np.hstack(heads) @ p["W_o"] + p["b_o"]
    r1 = x + attn
    l1 = norm(r1, 1)
    hid = np.maximum(l1 @ p["W1"] + p["b1"], 0)
    ffn = hid @ p["W2"] + p["b2"]
    out = norm(l1 + ffn, 2)
    t = 2
    assert F["blk_word"] == "tea"
    assert F["blk_post_x_head"] == v(x[t, :3])
    assert F["blk_post_out_head"] == v(out[t, :3])
    assert F["blk_post_attn_spread"] == d(attn[t].std(), 2)
    assert F["blk_post_ln1_spread"] == d(l1[t].std(), 2)
    assert F["blk_post_out_spread"] == d(out[t].std(), 2)
    assert F["blk_hidden_zero"] == str(int((hid[t] == 0).sum()))
    assert int(F["blk_hidden_zero"]) + int(F["blk_hidden_kept"]) == 64
    assert F["blk_weights_tea"] == v(np.mean([w[t] for w in weights], axis=0))
    assert num(F["blk_enc_weights"]) == sum(a.size for a in p.values()) == 8544
    assert num(F["blk_enc_matrices"]) == 4 * 32 * 32 + 2 * 32 * 64


def test_the_gradient_highway() -> None:
    slopes = [0.3, -0.2, 0.1, -0.4, 0.2, -0.1]
    assert F["blk_res_without"] == d(math.prod(slopes), 6)
    assert F["blk_res_with"] == d(math.prod(1 + s for s in slopes))
    assert F["blk_res_paths"] == str(2 ** len(slopes))
    assert F["blk_res_first"] == d(sum(slopes))
    # the roads: every subset of the sublayers, its slopes multiplied, add up to the product
    roads = [math.prod(c) for j in range(7) for c in combinations(slopes, j)]
    assert len(roads) == 64 and sum(roads) == pytest.approx(math.prod(1 + s for s in slopes))
    assert (F["blk_res_check_one"], F["blk_res_check_with"]) == ("1.1", "1.331")
    assert F["blk_res_check_without"] == "0.001" and F["blk_res_check_sum"] == "1.300"


def test_the_weight_counts() -> None:
    dd = 768
    assert F["blk_check_total"] == str(4 * dd * dd + 2 * dd * 4 * dd) == "7077888"
    assert F["blk_check_total_printed"] == "7,077,888"
    assert F["blk_check_attn"] == f"{4 * dd * dd:,}" and F["blk_check_ffn"] == f"{8 * dd * dd:,}"
    assert F["blk_check_no_wo"] == str(11 * dd * dd) and F["blk_check_no_w2"] == str(8 * dd * dd)
    # GPT-2 small, counted here matrix by matrix
    v_, n_ctx, L = 50257, 1024, 12
    block = 4 * dd * dd + 4 * dd + 2 * dd * 4 * dd + 4 * dd + dd + 2 * 2 * dd
    total = L * block + v_ * dd + n_ctx * dd + 2 * dd
    assert total == 124_439_808 and F["blk_gpt2_total"] == "124,439,808"
    assert F["blk_gpt2_block"] == f"{block:,}" and F["blk_gpt2_blocks"] == f"{L * block:,}"
    assert F["blk_gpt2_12d2L"] == f"{12 * dd * dd * L:,}"


@pytest.mark.parametrize("seed", range(1, 101))
def test_the_arena_variants_agree_with_the_definitions(seed: int) -> None:
    f = FIGURES.variants["layer_norm_affine"](seed)
    x, g, b = vec(f["x"]), vec(f["gain"]), vec(f["bias"])
    assert f["answer"] == v(ln(x, g, b))
    assert f["n_minus_1"] == v(ln(x, g, b, ddof=1)) and f["no_gain_bias"] == v(ln(x))
    # the hand path is exact: the printed normalised vector times the gain, plus the bias
    by_hand = [gi * ni + bi for gi, ni, bi in zip(g, vec(f["normalised"]), b, strict=True)]
    assert v(by_hand) == f["answer"]
    assert num(f["std"]) ** 2 == pytest.approx(num(f["variance"]))

    f = FIGURES.variants["block_weights"](seed)
    dd, ff = int(f["d"]), int(f["d_ff"])
    assert f["attn"] == str(4 * dd * dd) and f["ffn"] == str(2 * dd * ff)
    assert f["total"] == str(4 * dd * dd + 2 * dd * ff + 4 * dd + ff + dd + 4 * dd)
    assert ff != 4 * dd and f["four_d"] == str(8 * dd * dd)
    assert num(f["matrices"]) == num(f["attn"]) + num(f["ffn"])
    assert num(f["total"]) == sum(num(f[k]) for k in ("matrices", "attn_bias", "ffn_bias", "norms"))
