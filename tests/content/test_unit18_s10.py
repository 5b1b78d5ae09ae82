"""Unit 18 §10: every figure the section prints agrees with the engine and with a closed form
written out here from the definitions (loops, math.exp, plain arithmetic): §3's "I drink tea"
masked and scaled, the two checks, no peeking when "tea" becomes "water", -inf against a finite
fill, the padded batch, the KV cache; widget 13's sentence; problem 15's variants against the
softmax of the allowed scores."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from mathmachine.coursebook.passes.load import load_figures
from mathmachine.engine.masking import kv_cache_steps, masked_self_attention_steps

UNIT_DIR = (
    Path(__file__).resolve().parents[2] / "content" / "units" / "18-attention-and-transformers"
)
MINUS = "\u2212"
FIGURES = load_figures(UNIT_DIR, 18)
F = FIGURES.values
SA = FIGURES.examples["self_attention"]
EX = FIGURES.examples["mask"]
WORDS = ["I", "drink", "tea"]


def d(x: float, places: int = 3) -> str:
    text = f"{x:.{places}f}"
    return (text.lstrip("-") if float(text) == 0 else text).replace("-", MINUS)


def v(xs: list[float], places: int = 3) -> str:
    return "(" + ", ".join(d(x, places) for x in xs) + ")"


def matmul(a: list[list[float]], b: list[list[float]]) -> list[list[float]]:
    return [[sum(r[t] * b[t][c] for t in range(len(b))) for c in range(len(b[0]))] for r in a]


def by_loops(x: list[list[float]], causal: bool) -> tuple[list[list[float]], list[list[float]]]:
    q, k, vv = matmul(x, SA["W_Q"]), matmul(x, SA["W_K"]), matmul(x, SA["W_V"])
    dk = len(q[0])
    rows, outs = [], []
    for i, qi in enumerate(q):
        seen = range(i + 1) if causal else range(len(k))
        e = {j: math.exp(sum(a * b for a, b in zip(qi, k[j], strict=True)) / math.sqrt(dk))
             for j in seen}  # fmt: skip
        w = [e[j] / sum(e.values()) if j in e else 0.0 for j in range(len(k))]
        rows.append(w)
        outs.append([sum(w[j] * vv[j][c] for j in range(len(vv))) for c in range(len(vv[0]))])
    return rows, outs


def test_the_section_uses_section_3s_sentence_and_matrices() -> None:
    assert FIGURES.examples["self_attention"]["words"] == WORDS
    for i, w in enumerate(WORDS):
        assert EX["vectors"][w] == SA["X"][i]
    assert F["mk_n"] == "3" and F["mk_all"] == "9" and F["mk_pairs"] == "6"
    assert F["mk_sqrt_dk"] == d(math.sqrt(2))


@pytest.mark.parametrize("causal", [True, False])
def test_the_maps_and_outputs(causal: bool) -> None:
    rows, outs = by_loops(SA["X"], causal)
    tag = "" if causal else "free_"
    for i, w in enumerate(WORDS):
        assert F[f"mk_w_{tag}{w}"] == v(rows[i])
        assert F[f"mk_out_{tag}{w}"] == v(outs[i])
    if causal:
        assert F["mk_w_I"] == v([1.0, 0.0, 0.0])
        assert F["mk_out_I"] == v(matmul([SA["X"][0]], SA["W_V"])[0])
    assert F["mk_w_tea"] == F["mk_w_free_tea"]  # the last word sees everything either way
    assert F["mk_peek_I_drink"] == d(by_loops(SA["X"], False)[0][0][1])


def test_the_two_checks() -> None:
    assert F["mk_ck_pairs"] == str(sum(range(1, 6))) == "15"
    assert F["mk_ck_all"] == "25" and F["mk_ck_no_diag"] == "10" and F["mk_ck_hidden"] == "10"
    # the row of "drink": scores (1, 0, 1) / sqrt 2, "tea" hidden
    s = [1 / math.sqrt(2), 0.0]
    e = [math.exp(x) for x in s]
    assert F["mk_ck2_answer"] == v([e[0] / sum(e), e[1] / sum(e), 0.0])
    full = [math.exp(x) for x in (1 / math.sqrt(2), 0.0, 1 / math.sqrt(2))]
    assert F["mk_ck2_free"] == v([x / sum(full) for x in full])
    assert F["mk_ck2_zeroed"] == v([full[0] / sum(full), full[1] / sum(full), 0.0])
    assert F["mk_ck2_zeroed_sum"] == d((full[0] + full[1]) / sum(full))
    raw = [math.exp(1.0), 1.0]
    assert F["mk_ck2_unscaled"] == v([raw[0] / sum(raw), raw[1] / sum(raw), 0.0])
    # by hand: e^0.707 printed, then the total and the shares of the printed numbers
    assert F["mk_ck2_e_I"] == d(math.exp(0.707))
    assert F["mk_ck2_total"] == d(float(F["mk_ck2_e_I"]) + 1)


def test_no_peeking_when_tea_becomes_water() -> None:
    x2 = [SA["X"][0], SA["X"][1], EX["vectors"]["water"]]
    _, outs = by_loops(x2, True)
    _, free = by_loops(x2, False)
    assert F["mk_out2_I"] == F["mk_out_I"] == v(outs[0])
    assert F["mk_out2_drink"] == F["mk_out_drink"] == v(outs[1])
    assert F["mk_out2_water"] == v(outs[2]) != F["mk_out_tea"]
    assert F["mk_out2_free_I"] == v(free[0]) != F["mk_out_free_I"]
    assert F["mk_out2_free_drink"] == v(free[1]) != F["mk_out_free_drink"]
    assert F["mk_same_bits"] == "yes"


def test_minus_infinity_against_a_finite_fill() -> None:
    s = [-math.sqrt(2), math.sqrt(2), 0.0]  # the row of "I", scaled
    e = [math.exp(s[0]), math.exp(-5.0), math.exp(-5.0)]
    assert F["mk_fill_small_w"] == v([x / sum(e) for x in e])
    assert F["mk_fill_small_future"] == d((e[1] + e[2]) / sum(e))
    assert F["mk_fill_big"] == "10,000" and F["mk_fill_big_zero"] == "yes"
    assert F["mk_big_pow"] == "4343"  # 10000 / ln 10 = 4342.9
    assert F["mk_tiny_pow"] == "324"  # the smallest subnormal double, about 4.9e-324
    assert F["mk_fp16_max"] == "65,504"
    assert F["mk_all_hidden"] == v([1 / 3] * 3)


def test_the_padded_batch_and_the_kv_cache() -> None:
    assert F["mk_pad_pairs_1"] == str(6 + 3) and F["mk_pad_pairs_2"] == "10"
    assert F["mk_pad_M"].count(r"\infty") == 16 - 9
    kv = kv_cache_steps(SA["X"], SA["W_Q"], SA["W_K"], SA["W_V"])
    assert F["mk_kv_tea"] == F["mk_out_tea"] == v(kv.output[2].tolist())
    assert F["mk_kv_made"] == "3" and F["mk_kv_made_without"] == "6"
    assert F["mk_kv_with"] == "1,000" and F["mk_kv_without"] == "500,500"
    assert F["mk_kv_ratio"] == "500"


def test_the_widgets_sentence() -> None:
    first = [c[0] for c in EX["choices"]]
    assert first == ["I", "drink", "hot", "tea"]
    assert F["mk_w4_n"] == "4" and F["mk_w4_pairs"] == "10"
    vectors = [tuple(x) for x in EX["vectors"].values()]
    assert len(set(vectors)) == len(vectors)  # every word changes something
    st = masked_self_attention_steps(
        [EX["vectors"][w] for w in first], SA["W_Q"], SA["W_K"], SA["W_V"], True
    )
    rows, _ = by_loops([EX["vectors"][w] for w in first], True)
    np.testing.assert_allclose(st.weights, rows, rtol=0, atol=1e-12)


@pytest.mark.parametrize("seed", [1, 2, 3, 17, 99, 250])
def test_problem_15_is_the_softmax_of_the_allowed_scores(seed: int) -> None:
    f = FIGURES.variants["masked_row"](seed)
    s = [float(x.replace(MINUS, "-")) for x in f["scores"].strip("()").split(",")]
    e = [math.exp(x) for x in s[:3]]
    assert f["weights"] == v([x / sum(e) for x in e] + [0.0])
    every = [math.exp(x) for x in s]
    assert f["forgot_mask"] == v([x / sum(every) for x in every])
    assert f["zeroed"] == v([x / sum(every) for x in every[:3]] + [0.0])
    two = [math.exp(x) for x in s[:2]]
    assert f["no_self"] == v([x / sum(two) for x in two] + [0.0, 0.0])
    ahead = [math.exp(x) for x in s[2:]]
    assert f["ahead"] == v([0.0, 0.0] + [x / sum(ahead) for x in ahead])
    printed = [float(f[f"e{j}"]) for j in range(3)]
    assert f["total"] == d(sum(printed))
    assert f["weights_by_hand"] == v([p / float(f["total"]) for p in printed] + [0.0])
