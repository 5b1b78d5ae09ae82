"""Unit 18 §8: every figure the section prints agrees with the definitions written out here
(self-attention by loops, math.sin and math.cos, 2-D rotations by hand), not by calling the
engine; the shuffle test passes without positions and fails with them; the arena's position
problems agree with the same formulas over many seeds."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import pytest

from mathmachine.coursebook.passes.load import load_figures

UNIT_DIR = (
    Path(__file__).resolve().parents[2] / "content" / "units" / "18-attention-and-transformers"
)
MINUS = "\u2212"
FIGURES = load_figures(UNIT_DIR, 18)
F = FIGURES.values
S3 = FIGURES.examples["self_attention"]
DOG = FIGURES.examples["shuffle"]


def d(x: float, places: int = 3) -> str:
    text = f"{x:.{places}f}"
    return (text.lstrip("-") if float(text) == 0 else text).replace("-", MINUS)


def v(xs: list[float], places: int = 3) -> str:
    return "(" + ", ".join(d(x, places) for x in xs) + ")"


def num(text: str) -> float:
    return float(text.replace(MINUS, "-"))


def vec(text: str) -> list[float]:
    return [num(x) for x in text.strip("()").split(",")]


def matmul(a: list[list[float]], b: list[list[float]]) -> list[list[float]]:
    return [[sum(r[t] * b[t][c] for t in range(len(b))) for c in range(len(b[0]))] for r in a]


def attention(x: list[list[float]], wq, wk, wv, scaled: bool) -> list[list[float]]:
    q, k, vv = matmul(x, wq), matmul(x, wk), matmul(x, wv)
    scale = 1 / math.sqrt(len(q[0])) if scaled else 1.0
    out = []
    for qi in q:
        s = [scale * sum(a * b for a, b in zip(qi, kj, strict=True)) for kj in k]
        e = [math.exp(t) for t in s]
        w = [t / sum(e) for t in e]
        out.append([sum(w[j] * vv[j][c] for j in range(len(vv))) for c in range(len(vv[0]))])
    return out


def pe(pos: int, d_model: int) -> list[float]:
    """The paper's formula, entry by entry."""
    row = []
    for j in range(d_model):
        angle = pos / 10000 ** ((j - j % 2) / d_model)
        row.append(math.sin(angle) if j % 2 == 0 else math.cos(angle))
    return row


def turn(p: list[float], degrees: float) -> list[float]:
    a = math.radians(degrees)
    return [p[0] * math.cos(a) - p[1] * math.sin(a), p[0] * math.sin(a) + p[1] * math.cos(a)]


def test_the_shuffle_by_hand_is_section_3_reordered() -> None:
    words = S3["words"]
    order = [words.index(w) for w in F["pos_hand_sentence"].split()]
    assert sorted(order) == [0, 1, 2] and order != [0, 1, 2]
    x = S3["X"]
    out = attention(x, S3["W_Q"], S3["W_K"], S3["W_V"], scaled=False)
    shuffled = attention([x[i] for i in order], S3["W_Q"], S3["W_K"], S3["W_V"], scaled=False)
    for place, i in enumerate(order):
        assert shuffled[place] == pytest.approx(out[i], abs=1e-12)
        assert F[f"pos_hand_out_{words[i]}"] == v(out[i]) == F[f"sa_out_{words[i]}"]
        assert F[f"pos_hand_place_{words[i]}"] == str(place + 1)
    assert F["pos_hand_scores_tea"] == F["sa_scores_tea"]


def test_dog_bites_man_with_and_without_positions() -> None:
    words, x = DOG["words"], DOG["X"]
    wq, wk, wv = DOG["W_Q"], DOG["W_K"], DOG["W_V"]
    places = [pe(p, 2) for p in range(3)]
    assert F["pos_dog_orders"] == "6"
    for order in itertools.permutations(range(3)):
        xs = [x[i] for i in order]
        plain_out = attention(xs, wq, wk, wv, scaled=True)
        base = attention(x, wq, wk, wv, scaled=True)
        for place, i in enumerate(order):  # without positions: the same vectors, moved
            assert v(plain_out[place]) == v(base[i])
        if list(order) == [0, 1, 2]:
            continue
        with_pe = attention([[a + b for a, b in zip(xs[p], places[p], strict=True)] for p in
                             range(3)], wq, wk, wv, scaled=True)  # fmt: skip
        base_pe = attention([[a + b for a, b in zip(x[p], places[p], strict=True)] for p in
                             range(3)], wq, wk, wv, scaled=True)  # fmt: skip
        moved = [i for place, i in enumerate(order) if place != i]
        assert any(v(with_pe[order.index(i)]) != v(base_pe[i]) for i in moved)
    base = attention(x, wq, wk, wv, scaled=True)
    assert F["pos_dog_out_dog"] == v(base[0])
    order = DOG["default_order"]
    assert F["pos_dog_sentence"] == " ".join(words[i] for i in order) == "man bites dog"
    xs = [[a + b for a, b in zip(x[i], places[p], strict=True)] for p, i in enumerate(order)]
    with_pe = attention(xs, wq, wk, wv, scaled=True)
    assert F["pos_dog_pe_out_shuffled_dog"] == v(with_pe[order.index(0)])
    assert F["pos_dog_pe_out_dog"] != F["pos_dog_pe_out_shuffled_dog"]


def test_the_encoding_by_hand() -> None:
    assert F["pos_check_sin1"] == "0.841" == d(math.sin(1))
    assert F["pos_check_cos1"] == d(math.cos(1)) and F["pos_check_degrees"] == "0.017"
    for p in range(4):
        assert F[f"pos_pe{p}"] == v(pe(p, 4))
    assert F["pos_w"] == "(1, 0.01)" and F["pos_w1"] == "0.01"
    dot = [sum(a * b for a, b in zip(pe(p, 4), pe(p + 1, 4), strict=True)) for p in range(3)]
    assert dot == pytest.approx([math.cos(1) + math.cos(0.01)] * 3, abs=1e-12)
    assert F["pos_dot_gap1"] == d(dot[0]) == "1.540"
    assert F["pos_dot_terms1"] == v([math.cos(1), math.cos(0.01)])
    assert F["pos_dot_0_2"] == d(math.cos(2) + math.cos(0.02))
    # the printed products of the by-hand line add up to the printed dot product
    products = [a * b for a, b in zip(vec(F["pos_pe1"]), vec(F["pos_pe2"]), strict=True)]
    assert d(sum(products)) == F["pos_dot_gap1"]
    assert F["pos_rot_block"] == (
        r"\begin{pmatrix} " + f"{d(math.cos(1))} & {d(-math.sin(1))} \\\\ "
        f"{d(math.sin(1))} & {d(math.cos(1))}" + r" \end{pmatrix}"
    )


def test_the_clock() -> None:
    ex = FIGURES.examples["clock"]
    dw, gap = ex["d"], ex["gap"]
    assert (F["pos_clock_d"], F["pos_clock_pairs"]) == ("16", "8")
    dots = [sum(a * b for a, b in zip(pe(p, dw), pe(p + gap, dw), strict=True))
            for p in range(ex["positions"])]  # fmt: skip
    assert max(dots) - min(dots) < 1e-9
    assert F["pos_clock_dot"] == d(sum(math.cos(gap / 10000 ** (2 * i / dw)) for i in range(8)))
    assert F["pos_clock_dot0"] == d(dw / 2)
    assert F["pos_clock_slowest"] == d(10000 ** (-14 / 16), 5)


def test_the_rotary_dial_by_hand() -> None:
    ex = FIGURES.examples["dial"]
    q, k, deg = ex["q"], ex["k"], ex["theta_degrees"]
    m, n = ex["m"], ex["n"]
    qr, kr = turn(q, m * deg), turn(k, n * deg)
    assert F["pos_rot_q_rot"] == v(qr) and F["pos_rot_k_rot"] == v(kr)
    score = qr[0] * kr[0] + qr[1] * kr[1]
    assert F["pos_rot_score"] == d(score) == F["pos_rot_score2"]
    shift = int(F["pos_rot_shift"])
    q2, k2 = turn(q, (m + shift) * deg), turn(k, (n + shift) * deg)
    assert F["pos_rot_q_rot2"] == v(q2) and F["pos_rot_k_rot2"] == v(k2)
    assert F["pos_rot_offset_angle"] == str((n - m) * deg)
    assert F["pos_rot_len_q"] == d(math.hypot(*q))
    # check s8-length: (3, 4) turned 5 x 30 degrees is still 5 long
    t = turn([3.0, 4.0], 5 * deg)
    assert math.hypot(*t) == pytest.approx(5) and F["pos_len_answer"] == "5"
    assert F["pos_len_turned"] == v(t)

    # check s8-offset: only the pair with the same n - m scores the same
    def s(mm: int, nn: int) -> float:
        a, b = turn(q, mm * deg), turn(k, nn * deg)
        return a[0] * b[0] + a[1] * b[1]

    assert s(12, 15) == pytest.approx(s(2, 5))
    for pair in ((5, 2), (4, 10), (2, 9)):
        assert abs(s(*pair) - s(2, 5)) > 0.1, pair
    assert F["pos_off_both-moved"] == "m = 12, n = 15"


@pytest.mark.parametrize("seed", range(1, 101))
def test_the_arena_variants_agree_with_the_formulas(seed: int) -> None:
    f = FIGURES.variants["pe_entries"](seed)
    dd, i, pos = int(f["d"]), int(f["i"]), int(f["pos"])
    angle = pos / 10000 ** (2 * i / dd)
    assert f["sin"] == d(math.sin(angle)) and f["cos"] == d(math.cos(angle))
    assert num(f["angle"]) == pytest.approx(angle, abs=1e-9)
    assert f["swapped_sin"] == f["cos"] and f["degrees_sin"] == d(math.sin(math.radians(angle)))
    assert f["half_exponent_sin"] == d(math.sin(pos / 10000 ** (i / dd)))
    assert pe(pos, dd)[2 * i] == pytest.approx(math.sin(angle))

    f = FIGURES.variants["rotary_score"](seed)
    q, k = vec(f["q"]), vec(f["k"])
    m, n, deg = int(f["m"]), int(f["n"]), int(f["theta"])
    a, b = turn(q, m * deg), turn(k, n * deg)
    score = a[0] * b[0] + a[1] * b[1]
    assert f["score"] == d(score, 2)
    assert f["q_rot"] == v(a) and f["k_rot"] == v(b)
    # the solution's printed path gives the key to the tolerance the problem allows
    by_hand = num(f["cos"]) * num(f["qk"]) + num(f["sin"]) * num(f["cross"])
    assert abs(by_hand - score) <= 0.01
    r = turn(k, (m - n) * deg)
    assert f["reversed"] == d(q[0] * r[0] + q[1] * r[1], 2)
