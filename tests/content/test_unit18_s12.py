"""Unit 18 §12: every figure the section prints agrees with a closed form written out here
(plain integer arithmetic, math.exp, loops), not by calling the engine; the online softmax worked
by hand on two tiles of one row ends exactly where the full softmax ends, in the printed
numbers and with every digit; problem 16's fresh numbers against the same closed forms."""

from __future__ import annotations

import math
import re
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import pytest

from mathmachine.coursebook import compile_unit
from mathmachine.coursebook.passes.load import load_figures

UNIT_DIR = (
    Path(__file__).resolve().parents[2] / "content" / "units" / "18-attention-and-transformers"
)
MINUS = "\u2212"
FIGURES = load_figures(UNIT_DIR, 18)
F = FIGURES.values
EX = FIGURES.examples


def grouped(n: int) -> str:
    return f"{n:,}"


def d(x: float, places: int = 3) -> str:
    text = f"{x:.{places}f}"
    return (text.lstrip("-") if float(text) == 0 else text).replace("-", MINUS)


def hand(x: float) -> float:
    """As printed to three decimals and read back (half away from zero, as by hand)."""
    return float(Decimal(f"{x:.9f}").quantize(Decimal("0.001"), rounding=ROUND_HALF_UP))


def test_the_counts_of_the_by_hand_box() -> None:
    n, h, L, b = 1024, 12, 6, 4
    assert EX["by_hand"] == {"n": n, "heads": h, "layers": L, "bytes": b}
    assert F["pr_bh_per_head"] == grouped(n * n) == grouped(2**20) == F["pr_mib"]
    assert F["pr_bh_per_layer"] == grouped(n * n * h)
    assert F["pr_bh_bytes"] == grouped(n * n * h * b)
    assert F["pr_bh_mib"] == str(h * b) == "48"
    assert F["pr_bh_mb"] == d(n * n * h * b / 10**6, 1)
    assert F["pr_bh_all_mib"] == str(h * b * L) and F["pr_bh_all_scores"] == grouped(n * n * h * L)
    dm = 64 * h
    assert F["pr_bh_d"] == str(dm) == "768"
    assert F["pr_bh_mults_scores"] == grouped(n * n * dm)
    assert F["pr_bh_mults"] == grouped(2 * n * n * dm)
    assert F["pr_bh_kv"] == grouped(2 * L * n * dm)
    assert F["pr_bh_kv_mib"] == str(2 * L * n * dm * b // 2**20)
    assert F["pr_bh_rnn"] == grouped(n)
    assert F["pr_small_scores"] == "9"


def test_the_checks_keys_and_their_slips() -> None:
    # doubling n: four times the scores; the slips 2 (like n) and 3 (only the new ones)
    assert (F["pr_double_key"], F["pr_double_twice"], F["pr_double_extra"]) == ("4", "2", "3")
    assert F["pr_double_scores"] == grouped(2048 * 2048)
    # n = 4096, 16 heads, 2 bytes: 512 MiB a layer (SPEC §12)
    n, h, b = 4096, 16, 2
    assert F["pr_c2_key"] == "512" == str(n * n * h * b // 2**20)
    assert F["pr_c2_bytes"] == grouped(n * n * h * b) == "536,870,912"
    assert F["pr_c2_forgot_heads"] == str(n * n * b // 2**20)
    assert F["pr_c2_bits"] == str(n * n * h * 16 // 2**20)
    assert F["pr_c2_mb"] == "536.871" and F["pr_c2_mb_short"] == "536.9"
    assert F["pr_c2_no_square"] == d(n * h * b / 2**20)
    assert F["pr_win_times"] == str(n // 256) and F["pr_tile_times"] == grouped(n * n // 128**2)
    assert F["pr_w_all_gib"] == str(n * n * h * b * 24 // 2**30)
    assert F["pr_w_kv_mib"] == str(2 * 24 * n * 1024 * b // 2**20)


def test_the_online_softmax_by_hand_ends_at_the_full_softmax() -> None:
    """Tile 1 then tile 2, each step from the printed numbers, against the whole row at once:
    the same printed answer, and with every digit the same number."""
    ex = EX["tiles"]
    s, v = ex["scores"], ex["values"]
    assert ex["words"] == ["I", "always", "drink", "tea"] and ex["tile"] == 2
    m1 = max(s[:2])
    e1 = [hand(math.exp(x - m1)) for x in s[:2]]
    total1 = hand(sum(e1))
    acc1 = hand(sum(e * x for e, x in zip(e1, v[:2], strict=True)))
    assert (F["pr_t1_max"], F["pr_t1_total"], F["pr_t1_acc"]) == (str(int(m1)), d(total1), d(acc1))
    assert F["pr_t1_sofar"] == d(hand(acc1 / total1))
    m2 = max(m1, *s[2:])
    r = hand(math.exp(m1 - m2))
    old_total, old_acc = hand(r * total1), hand(r * acc1)
    assert (F["pr_t2_rescale"], F["pr_t2_old_total"], F["pr_t2_old_acc"]) == (
        d(r),
        d(old_total),
        d(old_acc),
    )
    e2 = [hand(math.exp(x - m2)) for x in s[2:]]
    total2 = hand(old_total + sum(e2))
    acc2 = hand(old_acc + sum(hand(e * x) for e, x in zip(e2, v[2:], strict=True)))
    out_tiled = hand(acc2 / total2)
    assert (F["pr_t2_total"], F["pr_t2_acc"], F["pr_t_out"]) == (d(total2), d(acc2), d(out_tiled))
    # the whole row at once
    ef = [hand(math.exp(x - max(s))) for x in s]
    total_f = hand(sum(ef))
    acc_f = hand(sum(hand(e * x) for e, x in zip(ef, v, strict=True)))
    out_full = hand(acc_f / total_f)
    assert (F["pr_f_total"], F["pr_f_acc"], F["pr_f_out"]) == (d(total_f), d(acc_f), d(out_full))
    assert out_tiled == out_full and total2 == total_f and acc2 == acc_f
    # every digit: the online recurrence, written out, is the softmax blend
    exact = sum(math.exp(x) * y for x, y in zip(s, v, strict=True)) / sum(math.exp(x) for x in s)
    ell = math.exp(s[0] - m1) + math.exp(s[1] - m1)
    a = math.exp(s[0] - m1) * v[0] + math.exp(s[1] - m1) * v[1]
    ell = ell * math.exp(m1 - m2) + sum(math.exp(x - m2) for x in s[2:])
    a = a * math.exp(m1 - m2) + sum(math.exp(x - m2) * y for x, y in zip(s[2:], v[2:], strict=True))
    assert a / ell == pytest.approx(exact, abs=1e-12)
    assert F["pr_t_exact"] == d(exact, 9) and d(exact) == F["pr_t_out"]
    assert F["pr_t_rescaled_first"] == d(hand(r * e1[0])) == F["pr_f_e1"]


def test_the_section_prints_them_and_keeps_its_answers_for_after_the_checks() -> None:
    unit = compile_unit(UNIT_DIR).with_drafts()
    section = unit.section(12)
    html = section.html
    text = re.sub(r"<[^>]+>", " ", html)
    for name in ("pr_bh_per_layer", "pr_bh_bytes", "pr_t_exact", "pr_win_scores", "pr_bh_kv"):
        assert F[name] in text, name
    assert [c.id for c in section.checks] == ["s12-double", "s12-memory"]
    # 512 MiB shows nowhere before the check that asks for it
    before = html.split("<!--check:s12-memory-->")[0]
    assert "512" not in re.sub(r"<[^>]+>", " ", before)


@pytest.mark.parametrize("seed", [1, 2, 3, 17, 101, 250])
def test_problem_16_against_its_closed_form(seed: int) -> None:
    f = FIGURES.variants["score_memory"](seed)
    n, h, L, b = (int(f[k]) for k in ("n", "h", "L", "b"))
    assert n % 1024 == 0 and h != L
    total = n * n * h * L * b
    assert f["mib"] == str(total // 2**20) and total % 2**20 == 0
    assert f["bytes"] == grouped(total)
    assert f["factor"] == "4" and f["factor_linear"] == "2"
    assert f["forgot_heads"] == str(n * n * L * b // 2**20)
    assert f["forgot_layers"] == str(n * n * h * b // 2**20)
    assert f["bits"] == str(total * 8 // 2**20)
    assert f["mb"] == d(total / 10**6, 1)
    k = n // 1024
    assert int(f["mib"]) == k * k * h * L * b
