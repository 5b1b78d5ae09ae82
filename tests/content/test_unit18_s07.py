"""Unit 18 §7: every figure the section prints agrees with a closed form written out here from
the definitions (loops, math.exp, plain arithmetic), not by calling the engine; the two heads ask
what the prose says they ask; the arena's multi-head variants agree with the same closed forms."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from mathmachine.coursebook.passes.load import load_figures

UNIT_DIR = (
    Path(__file__).resolve().parents[2] / "content" / "units" / "18-attention-and-transformers"
)
MINUS = "\u2212"
FIGURES = load_figures(UNIT_DIR, 18)
EX = FIGURES.examples["two_heads"]
F = FIGURES.values
WORDS = EX["words"]


def d(x: float, places: int = 3) -> str:
    text = f"{x:.{places}f}"
    return (text.lstrip("-") if float(text) == 0 else text).replace("-", MINUS)


def v(xs: list[float], places: int = 3) -> str:
    return "(" + ", ".join(d(x, places) for x in xs) + ")"


def matmul(a: list[list[float]], b: list[list[float]]) -> list[list[float]]:
    return [[sum(r[t] * b[t][c] for t in range(len(b))) for c in range(len(b[0]))] for r in a]


def head_by_loops(k: int) -> tuple[list[list[float]], list[list[float]]]:
    """Head k's map and output from the definitions: softmax(q_i . k_j / sqrt(d_k)) and the
    blend of the values."""
    head = EX["heads"][k]
    x = EX["X"]
    q, kk, vv = matmul(x, head["W_Q"]), matmul(x, head["W_K"]), matmul(x, head["W_V"])
    dk = len(q[0])
    rows, outs = [], []
    for qi in q:
        s = [sum(a * b for a, b in zip(qi, kj, strict=True)) / math.sqrt(dk) for kj in kk]
        e = [math.exp(t) for t in s]
        w = [t / sum(e) for t in e]
        rows.append(w)
        outs.append([sum(w[j] * vv[j][c] for j in range(len(vv))) for c in range(len(vv[0]))])
    return rows, outs


def test_the_toy_sentence_and_its_sizes() -> None:
    assert WORDS == ["I", "always", "drink", "tea"]
    x = EX["X"]
    assert len(x) == 4 and all(len(r) == 8 for r in x)
    # every word: one role mark (first four numbers) and one place mark (last four), its own place
    for i, row in enumerate(x):
        assert sum(row[:4]) == 1 and sum(row[4:]) == 1 and row[4 + i] == 1
    assert (F["mh_n"], F["mh_d"], F["mh_h"], F["mh_dk"], F["mh_sqrt_dk"]) == (
        "4",
        "8",
        "2",
        "4",
        "2",
    )
    assert F["mh_wq_shape"] == "8 × 4" and F["mh_wo_shape"] == "8 × 8"
    assert F["mh_concat_shape"] == F["mh_out_shape"] == "4 × 8" and F["mh_head_shape"] == "4 × 4"


def test_head_1_looks_at_the_word_before_and_head_2_finds_the_subject() -> None:
    a1, o1 = head_by_loops(0)
    a2, o2 = head_by_loops(1)
    for i in range(1, 4):  # every word but the first looks mostly at the word before it
        assert max(range(4), key=lambda j: a1[i][j]) == i - 1
    assert a1[0] == pytest.approx([0.25] * 4)  # "I" has no word before it
    drink = WORDS.index("drink")
    assert max(range(4), key=lambda j: a2[drink][j]) == WORDS.index("I")
    for i in (0, 1, 3):  # only the verb asks head 2 anything
        assert a2[i] == pytest.approx([0.25] * 4)
    e3 = math.exp(3)
    top, rest = e3 / (e3 + 3), 1 / (e3 + 3)
    assert F["mh_top"] == d(top) == "0.870" and F["mh_rest"] == d(rest) == "0.043"
    assert F["mh_e_top"] == d(e3, 2) and F["mh_e_total"] == d(e3 + 3, 2)
    assert F["mh_even"] == "0.25" and F["mh_even_frac"] == "1/4"
    assert F["mh_sharp"] == "6" and F["mh_sharp_scaled"] == "3"
    for k, (a, o) in enumerate(((a1, o1), (a2, o2)), start=1):
        for i, word in enumerate(WORDS):
            assert F[f"mh_w{k}_{word}"] == v(a[i])
            assert F[f"mh_o{k}_{word}"] == v(o[i])
    assert F["mh_q1_drink"] == "(0, 6, 0, 0)" and F["mh_ss1_drink"] == "(0, 3, 0, 0)"
    assert F["mh_q2_drink"] == "(6, 0, 0, 0)" and F["mh_ss2_drink"] == "(3, 0, 0, 0)"


def test_concat_and_w_o() -> None:
    _, o1 = head_by_loops(0)
    _, o2 = head_by_loops(1)
    drink = WORDS.index("drink")
    concat = o1[drink] + o2[drink]
    assert F["mh_concat_drink"] == v(concat)
    out = matmul([concat], EX["W_O"])[0]
    assert F["mh_out_drink"] == v(out)
    # W_O = [[I, I], [I, -I]]: the sum of the two heads' answers, then their difference
    assert out[:4] == pytest.approx([a + b for a, b in zip(o1[drink], o2[drink], strict=True)])
    assert out[4:] == pytest.approx([a - b for a, b in zip(o1[drink], o2[drink], strict=True)])
    assert F["mh_out_drink_sum"] == v(out[:4]) and F["mh_out_drink_diff"] == v(out[4:])
    # each head's share: its output times its block of W_O's rows
    part1 = matmul([o1[drink]], EX["W_O"][:4])[0]
    part2 = matmul([o2[drink]], EX["W_O"][4:])[0]
    assert F["mh_part1_drink"] == v(part1) and F["mh_part2_drink"] == v(part2)


def test_the_weight_counts() -> None:
    d_model, h, dk = 8, 2, 4
    assert F["mh_toy_heads"] == str(h * 3 * d_model * dk)
    assert F["mh_toy_per_head"] == str(3 * d_model * dk) == "96"
    assert F["mh_toy_heads"] == "192" and F["mh_toy_wo"] == "64"
    assert F["mh_toy_weights"] == F["mh_toy_wide"] == str(4 * d_model**2) == "256"
    D, H, N = 512, 8, 10
    assert F["mh_real_dk"] == str(D // H) == "64"
    assert F["mh_real_weights"] == str(4 * D * D) == "1048576"
    assert F["mh_real_weights_printed"] == "1,048,576"
    assert F["mh_real_forgot_wo"] == str(3 * D * D)
    assert F["mh_real_biases"] == str(4 * D * D + 4 * D) and F["mh_real_bias_count"] == "2048"
    assert F["mh_real_twice"] == str(H * 3 * 64 * 64 + D * D)
    assert F["mh_real_full_width"] == str(H * 3 * D * D + D * D)
    assert F["mh_real_per_head"] == f"{3 * D * 64:,}" and F["mh_real_wo"] == f"{D * D:,}"
    # multiplications of one layer over N words: Q, K, V, scores, blend, W_O; the same for any h
    assert F["mh_real_mults"] == f"{3 * N * D * D + 2 * N * N * D + N * D * D:,}"
    assert (
        F["mh_real_scores"] == f"{N * N * D:,}"
        and F["mh_real_per_head_scores"] == f"{N * N * 64:,}"
    )
    assert (F["mh_real_concat_rows"], F["mh_real_concat_cols"]) == ("10", "512")
    assert F["mh_real_stacked_rows"] == "80" and F["mh_one_wide"] == "1"
    assert (F["mh_mini_d"], F["mh_mini_h"], F["mh_mini_dk"]) == ("384", "12", "32")
    # the paper's big model; and what grows with h: one n x n map per head
    assert (F["mh_big_d"], F["mh_big_h"], F["mh_big_dk"]) == ("1024", "16", "64")
    assert (F["mh_real_maps"], F["mh_real_map_one"]) == (f"{H * N * N:,}", f"{N * N:,}")


def _pmatrix(rows: list[list[float]]) -> str:
    body = r" \\ ".join(" & ".join(f"{x:g}".replace("-", MINUS) for x in r) for r in rows)
    return r"\begin{pmatrix} " + body + r" \end{pmatrix}"


def test_the_heads_matrices_are_printed_and_every_shape_is_right() -> None:
    for k, head in enumerate(EX["heads"], start=1):
        for m in ("W_Q", "W_K", "W_V"):
            assert F[f"mh_{m.replace('_', '').lower()}{k}"] == _pmatrix(head[m])
    assert EX["heads"][0]["W_V"] == EX["heads"][1]["W_V"]  # "head 1's W_V again"
    n, d, h = 4, 8, 2
    dk = dv = d // h
    want = {"X": (n, d), "W": (d, dk), "WV": (d, dv), "QK": (n, dk), "V": (n, dv), "A": (n, n),
            "head": (n, dv), "WO": (h * dv, d), "wide": (d, d)}  # fmt: skip
    assert {k: F[f"mh_shape_{k}"] for k in want} == {k: f"{a} × {b}" for k, (a, b) in want.items()}
    assert F["mh_concat_shape"] == f"{n} × {h * dv}" and F["mh_out_shape"] == f"{n} × {d}"
    assert F["mh_dv"] == str(dv)
    # each head's Q is X times its W_Q, as printed
    for k in range(2):
        q = matmul(EX["X"], EX["heads"][k]["W_Q"])
        assert F[f"mh_Q{k + 1}"] == _pmatrix(q)


@pytest.mark.parametrize("seed", range(1, 61))
def test_the_arena_variants_agree_with_closed_forms(seed: int) -> None:
    f = FIGURES.variants["head_shapes"](seed)
    D, H, N = int(f["d"]), int(f["h"]), int(f["n"])
    assert D % H == 0 and int(f["dk"]) == D // H and f["dk"] != f["h"]
    assert (f["rows"], f["cols"]) == (str(N), str(D))
    assert f["times"] == str(D * H) and f["stacked_rows"] == str(N * H)
    f = FIGURES.variants["layer_weights"](seed)
    D, H = int(f["d"]), int(f["h"])
    dk = D // H
    assert f["per_head"] == str(3 * D * dk) and f["total"] == str(4 * D * D)
    assert f["biased"] == str(4 * D * D + 4 * D)
    assert f["twice"] == str(3 * dk * dk) and f["forgot_wo"] == str(3 * D * D)
    assert f["full_width"] == str(3 * H * D * D + D * D) and f["one_bias"] == str(4 * D * D + D)


# ---------------------------------------------------------------- the compiled page


@pytest.fixture(scope="module")
def page() -> tuple[str, str]:
    """§7's HTML, and its visible text with the spaces squeezed."""
    import re

    from mathmachine.coursebook import compile_unit
    from mathmachine.coursebook.passes.answers import visible_text

    html = compile_unit(UNIT_DIR).section(7).html
    return html, re.sub(r"\s+", " ", visible_text(html))


def test_the_page_prints_the_worked_numbers(page: tuple[str, str]) -> None:
    _, text = page
    for name in (
        "mh_w1_drink",
        "mh_o1_drink",
        "mh_w2_drink",
        "mh_o2_drink",
        "mh_concat_drink",
        "mh_out_drink",
        "mh_out_drink_sum",
        "mh_out_drink_diff",
        "mh_part1_drink",
        "mh_part2_drink",
        "mh_real_mults",
    ):
        assert F[name] in text, name
    assert f"total {F['mh_e_total']}, so the weights are {F['mh_w1_drink']}" in text
    assert f"in all {F['mh_toy_weights']}" in text
    # the Try switches head 2 on again and head 1 off (not "head 2" twice)
    assert "Switch head 2 on again and head 1 off" in text
    assert f"{F['mh_real_maps']} weights with {F['mh_real_h']} heads" in text


def test_no_answer_before_its_check(page: tuple[str, str]) -> None:
    """Beyond the compiler's own rule: the count with thousands separators, too."""
    import re

    from mathmachine.coursebook.passes.answers import visible_text

    html, _ = page
    before = {
        m: visible_text(html.split(f"<!--check:{m}-->", 1)[0]) for m in ("s7-width", "s7-weights")
    }
    assert not re.search(r"(?<![\d.,])64(?![\d])", before["s7-width"])
    for form in ("1,048,576", "1048576", "10,48,576"):
        assert form not in before["s7-weights"]
    # the three checks come in the order the prose needs them
    order = [html.index(f"<!--check:{c}-->") for c in ("s7-width", "s7-concat", "s7-weights")]
    assert order == sorted(order) and html.index('id="w8"') < order[2]
