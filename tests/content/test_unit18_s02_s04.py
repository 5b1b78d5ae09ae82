"""Unit 18 §2-§4: every figure the prose prints agrees with a closed form written out here from
the definitions (math.exp sums, loops, binomial counts, a pure-Python mulberry32), not by calling
the engine; the compiled pages print the key figures; no check's answer appears before it.
"""

from __future__ import annotations

import html as html_lib
import math
import re
from pathlib import Path

import pytest

from mathmachine.coursebook import compile_unit
from mathmachine.coursebook.passes.load import load_figures

UNIT_DIR = (
    Path(__file__).resolve().parents[2] / "content" / "units" / "18-attention-and-transformers"
)
MINUS = "\u2212"
FIGURES = load_figures(UNIT_DIR, 18)
EX = FIGURES.examples


@pytest.fixture(scope="module")
def figs() -> dict[str, str]:
    return FIGURES.values


@pytest.fixture(scope="module")
def unit():  # type: ignore[no-untyped-def]
    return compile_unit(UNIT_DIR)


def d(x: float, places: int = 3) -> str:
    text = f"{x:.{places}f}"
    return (text.lstrip("-") if float(text) == 0 else text).replace("-", MINUS)


def v(xs: list[float], places: int = 3) -> str:
    return "(" + ", ".join(d(x, places) for x in xs) + ")"


def soft(scores: list[float]) -> list[float]:
    top = max(scores)
    e = [math.exp(s - top) for s in scores]
    return [x / sum(e) for x in e]


# ---------------------------------------------------------------- §2 the soft lookup

MENU = EX["soft_lookup"]
KEYS = [item["key"] for item in MENU["items"]]
PRICES = [item["value"] for item in MENU["items"]]


def lookup(q: list[float], beta: float) -> tuple[list[float], float]:
    w = soft([beta * (q[0] * k[0] + q[1] * k[1]) for k in KEYS])
    return w, sum(a * p for a, p in zip(w, PRICES, strict=True))


def test_s2_the_worked_lookup(figs: dict[str, str]) -> None:
    assert MENU["query"] == [1.0, 0.5] and PRICES == [12.0, 30.0, 45.0, 17.0]
    assert figs["sl_scores"] == f"(1.5, 0.5, {MINUS}0.5, {MINUS}1.5)"
    assert figs["sl_total"] == d(math.exp(1.5) + math.exp(0.5) + math.exp(-0.5) + math.exp(-1.5))
    w, answer = lookup([1.0, 0.5], 1.0)
    assert figs["sl_weights"] == v(w) == "(0.644, 0.237, 0.087, 0.032)"
    assert figs["sl_answer"] == f"₹{answer:.2f}" == "₹19.30"
    # The blend of the printed weights gives the same two decimals.
    assert f"{sum(round(a, 3) * p for a, p in zip(w, PRICES, strict=True)):.2f}" == "19.30"


def test_s2_weights_against_values_and_the_long_key(figs: dict[str, str]) -> None:
    w, answer = lookup([1.0, 0.5], 1.0)
    parts = [a * p for a, p in zip(w, PRICES, strict=True)]
    names = ["chai", "coffee", "lassi", "nimbu_pani"]
    assert [figs[f"sl_part_{n}"] for n in names] == [f"₹{x:.2f}" for x in parts]
    assert [figs[f"sl_part_{n}"] for n in names] == ["₹7.73", "₹7.11", "₹3.92", "₹0.54"]
    assert figs["sl_above_chai"] == f"{round(100 * (answer / 12 - 1))}%" == "61%"
    assert (
        all(math.isclose(k[0] ** 2 + k[1] ** 2, 2) for k in KEYS) and figs["sl_key_length"] == "√2"
    )
    # the fifth key: farther from the query than chai, and a larger score
    long = EX["soft_lookup"]["long_key"]["key"]
    q = [1.0, 0.5]
    dist = math.dist(long, q)
    assert figs["sl_long_key"] == f"(3, {MINUS}1)" and figs["sl_long_length"] == "√10"
    assert (figs["sl_long_dist"], figs["sl_chai_dist"]) == (d(dist, 2), d(math.dist(KEYS[0], q), 2))
    assert figs["sl_long_score"] == f"{long[0] * q[0] + long[1] * q[1]:g}" == "2.5"
    w5 = soft([k[0] * q[0] + k[1] * q[1] for k in [*KEYS, long]])
    assert (figs["sl_long_w"], figs["sl_long_chai_w"]) == (d(w5[-1]), d(w5[0]))
    assert w5[-1] > w5[0] and dist > math.dist(KEYS[0], q)


def test_s2_the_two_ends(figs: dict[str, str]) -> None:
    mean = sum(PRICES) / len(PRICES)
    assert figs["sl_zero_answer"] == f"₹{mean:g}" == "₹26"
    assert figs["sl_table_answer_0"] == "₹26"  # beta = 0 is the plain mean, whatever the query
    _, at_10 = lookup([1.0, 0.5], 10.0)
    assert figs["sl_table_answer_10"] == f"₹{at_10:.2f}" == "₹12.00"
    assert figs["sl_hard_answer"] == "₹12"  # chai's price: the best key, not the dearest (45)
    assert figs["sl_dearest_number"] == "45"
    for beta, tag in ((1.0, "1"), (2.0, "2"), (5.0, "5")):
        w, answer = lookup([1.0, 0.5], beta)
        assert figs[f"sl_table_w_{tag}"] == d(w[0])
        assert figs[f"sl_table_answer_{tag}"] == f"₹{answer:.2f}"
    w, _ = lookup([1.0, 0.0], 10.0)
    assert figs["sl_tie_w"] == d(w[0]) == d(w[1]) == "0.500"
    assert figs["sl_tie_answer"] == f"₹{(PRICES[0] + PRICES[1]) / 2:g}" == "₹21"


# ---------------------------------------------------------------- §3 self-attention

SA = EX["self_attention"]


def matmul(a: list[list[float]], b: list[list[float]]) -> list[list[float]]:
    return [[sum(a[i][t] * b[t][c] for t in range(len(b))) for c in range(len(b[0]))]
            for i in range(len(a))]  # fmt: skip


def pm(rows: list[list[float]], places: int | None = None) -> str:
    def one(x: float) -> str:
        return (f"{x:g}" if places is None else d(x, places)).replace("-", MINUS)

    body = r" \\ ".join(" & ".join(one(x) for x in row) for row in rows)
    return r"\begin{pmatrix} " + body + r" \end{pmatrix}"


def test_s3_q_k_v_scores_weights_output_by_hand(figs: dict[str, str]) -> None:
    X, WQ, WK, WV = SA["X"], SA["W_Q"], SA["W_K"], SA["W_V"]
    Q, K, V = matmul(X, WQ), matmul(X, WK), matmul(X, WV)
    S = matmul(Q, [list(r) for r in zip(*K, strict=True)])
    A = [soft(row) for row in S]
    out = matmul(A, V)
    assert figs["sa_Q"] == pm(Q) and figs["sa_K"] == pm(K) and figs["sa_V"] == pm(V)
    assert figs["sa_S"] == pm(S)
    assert figs["sa_A"] == pm(A, 3)
    assert figs["sa_out"] == pm(out, 3)
    assert S[0][1] != S[1][0]  # the trap: asking is not being asked
    assert figs["sa_weights_I"] == "(0.016, 0.867, 0.117)"
    assert [round(sum(row), 12) for row in A] == [1.0, 1.0, 1.0]  # rows sum to 1
    col = sum(row[1] for row in A)
    assert figs["sa_col_drink_sum"] == d(col, 2) == "1.73"
    assert figs["sa_row_I_sum"] == "1"


def test_s3_one_matrix_between_two_words_and_what_a_w_k_entry_moves(figs: dict[str, str]) -> None:
    X, WQ, WK = SA["X"], SA["W_Q"], SA["W_K"]
    W = matmul(WQ, [list(r) for r in zip(*WK, strict=True)])
    S = matmul(matmul(X, WQ), [list(r) for r in zip(*matmul(X, WK), strict=True)])
    assert matmul(matmul(X, W), [list(r) for r in zip(*X, strict=True)]) == S
    assert figs["sa_WQK"] == pm(W) and W[0][1] != W[1][0]
    assert (figs["sa_WQK_12"], figs["sa_WQK_21"]) == (f"{W[0][1]:g}", f"{W[1][0]:g}")
    # change each entry of W_K by one: the columns whose score moves, by loops
    words = SA["words"]
    moved = set()
    for r in range(2):
        for c in range(2):
            wk = [row[:] for row in WK]
            wk[r][c] += 1
            S2 = matmul(matmul(X, WQ), [list(t) for t in zip(*matmul(X, wk), strict=True)])
            cols = tuple(
                w for j, w in enumerate(words) if any(S2[i][j] != S[i][j] for i in range(3))
            )
            assert figs[f"sa_wk_reach_{r + 1}"] == " and ".join(f"“{w}”" for w in cols)
            moved.add(len(cols))
    assert moved == {2} and figs["sa_wk_moved"] == "2"  # never one column, never all three


def test_s3_the_shapes_check(figs: dict[str, str]) -> None:
    sh = EX["shapes"]
    n, d_v = sh["n"], sh["d_v"]
    assert (figs["sa_check_scores_rows"], figs["sa_check_scores_cols"]) == (str(n), str(n))
    assert (figs["sa_check_out_rows"], figs["sa_check_out_cols"]) == (str(n), str(d_v))


# ---------------------------------------------------------------- §4 the square root of d


def test_s4_random_signs_counted(figs: dict[str, str]) -> None:
    d4 = EX["signs"]["d"]
    counts = [math.comb(d4, m) for m in range(d4 + 1)]
    assert figs["sq_sign_counts"] == ", ".join(map(str, counts)) == "1, 4, 6, 4, 1"
    values = [d4 - 2 * m for m in range(d4, -1, -1)]
    assert figs["sq_sign_values"] == ", ".join(str(x).replace("-", MINUS) for x in values)
    var = sum(c * x * x for c, x in zip(counts, values, strict=True)) / 2**d4
    assert figs["sq_sign_var"] == f"{var:g}" == "4"
    assert figs["sq_sign_sum_total"] == "64"


def test_s4_the_checks_closed_forms(figs: dict[str, str]) -> None:
    dd = EX["scaling_check"]["d"]
    assert (figs["sq_var"], figs["sq_std"]) == (str(dd), f"{math.sqrt(dd):g}") == ("64", "8")
    assert (figs["sq_scaled_var"], figs["sq_scaled_std"]) == ("1", "1")
    assert figs["sq_mistake_div_once"] == "8" and figs["sq_mistake_div_once_std"] == "2.828"


def _mulberry32(seed: int, i: int) -> float:
    """Output number i (from 0) of mulberry32, written from its definition."""
    t = (seed + (i + 1) * 0x6D2B79F5) & 0xFFFFFFFF
    t = ((t ^ (t >> 15)) * (t | 1)) & 0xFFFFFFFF
    t ^= (t + ((t ^ (t >> 7)) * (t | 61) & 0xFFFFFFFF)) & 0xFFFFFFFF
    return ((t ^ (t >> 14)) & 0xFFFFFFFF) / 4294967296


def _normal(seed: int, i: int) -> float:
    """Normal number i of the stream: Box-Muller on the pair (2m, 2m + 1) it belongs to."""
    m = i - i % 2
    r = math.sqrt(-2.0 * math.log(1.0 - _mulberry32(seed, m)))
    theta = 2.0 * math.pi * _mulberry32(seed, m + 1)
    return r * (math.cos(theta) if i % 2 == 0 else math.sin(theta))


def test_s4_the_measured_variance_at_64(figs: dict[str, str]) -> None:
    dg = EX["dot_growth"]
    seed, n, top, dd = dg["seed"], dg["samples"], max(dg["dims"]), EX["scaling_check"]["d"]
    dots = []
    for s in range(n):
        base = s * 2 * top
        dots.append(sum(_normal(seed, base + i) * _normal(seed, base + top + i) for i in range(dd)))
    mean = sum(dots) / n
    var = sum((x - mean) ** 2 for x in dots) / n
    scaled = [x / math.sqrt(dd) for x in dots]
    smean = sum(scaled) / n
    svar = sum((x - smean) ** 2 for x in scaled) / n
    assert figs["sq_measured_var"] == d(var, 1)
    assert figs["sq_measured_scaled_var"] == d(svar, 2)
    # and it is a fair estimate of 64: within 3 standard errors (sqrt((2 d^2 + 8 d) / n))
    assert abs(var - dd) < 3 * math.sqrt((2 * dd * dd + 8 * dd) / n)


def test_s4_usually_one_key_takes_almost_everything(figs: dict[str, str]) -> None:
    """The share of rows of 10 keys whose best key takes over 0.9, unscaled at d = 64: the
    section's 4,000 draws against 20,000 rows of another generator (numpy's), within 3 standard
    errors of each other; and the 8% the measured variance is off by."""
    import numpy as np

    rng = np.random.default_rng(2026)
    q = rng.standard_normal((20000, 1, 64))
    k = rng.standard_normal((20000, 10, 64))
    s = (q * k).sum(axis=-1)
    w = np.exp(s - s.max(axis=-1, keepdims=True))
    w /= w.sum(axis=-1, keepdims=True)
    ref = float((w.max(axis=-1) > 0.9).mean())
    got = float(figs["sq_top_share"].rstrip("%")) / 100
    se = math.sqrt(ref * (1 - ref) / 4000) + math.sqrt(ref * (1 - ref) / 20000)
    assert abs(got - ref) < 3 * se + 0.005, (got, ref)
    assert figs["sq_top_in_10"] == str(round(10 * got)) == "6"
    assert (figs["sq_top_keys"], figs["sq_top_cut"], figs["sq_top_rows"]) == ("10", "0.9", "4,000")
    assert figs["sq_top_scaled_share"] == "0%"  # divided by sqrt(d), no row is that lopsided
    measured = float(figs["sq_measured_var"])
    assert figs["sq_measured_off"] == f"{round(100 * abs(measured - 64) / 64)}%" == "8%"


def test_s4_the_saturated_row(figs: dict[str, str]) -> None:
    row = EX["saturation"]["scores"]
    assert row == [-1.0, 2.0, 1.0]  # the scores of "tea" in §3
    w1, w8 = soft(row), soft([8 * s for s in row])
    assert figs["sq_sat_weights"] == v(w1) and figs["sq_sat_big_weights"] == v(w8)
    slope1 = max(a * (1 - a) for a in w1)
    slope8 = max(a * (1 - a) for a in w8)
    assert figs["sq_sat_slope"] == d(slope1) == "0.208"
    assert figs["sq_sat_big_slope"] == d(slope8, 4) == "0.0003"
    assert figs["sq_sat_ratio"] == str(round(slope1 / slope8, -1))[:-2] == "620"
    J = [[a * ((i == j) - b) for j, b in enumerate(w1)] for i, a in enumerate(w1)]
    assert figs["sq_sat_J"] == pm(J, 3)


# ---------------------------------------------------------------- the compiled pages


def _visible(page: str) -> str:
    no_comments = re.sub(r"<!--.*?-->", "", page, flags=re.S)
    text = html_lib.unescape(re.sub(r"<[^>]+>", "", no_comments))
    return re.sub(r"\s+", "", text)


@pytest.mark.parametrize(
    ("number", "widgets", "checks", "shown"),
    [
        (2, ["soft-dictionary"], ["s2-anything", "s2-sharpest"],
         ["(0.644, 0.237, 0.087, 0.032)", "₹19.30", "₹26", "₹12.00", "₹21"]),
        (3, ["self-attention-calculator"], ["s3-shapes", "s3-rows", "s3-itself"],
         ["(0.016, 0.867, 0.117)", "0.705", "(0.133, 1.117)"]),
        (4, ["dot-products-grow", "saturated-softmax"], ["s4-spread", "s4-scaled"],
         ["(0.035, 0.705, 0.259)", "0.9997", "0.208", "620"]),
    ],
)  # fmt: skip
def test_sections_have_their_blocks_and_figures(
    unit,  # type: ignore[no-untyped-def]
    number: int,
    widgets: list[str],
    checks: list[str],
    shown: list[str],
) -> None:
    sec = unit.section(number)
    assert sec.written and not sec.free
    assert (sec.published_widgets, sec.published_checks) == (len(widgets), len(checks))
    assert [w.name for w in sec.widgets] == widgets
    assert [c.id for c in sec.checks] == checks
    visible = _visible(sec.html)
    for figure in shown:
        assert figure.replace(" ", "") in visible, f"§{number} does not show {figure}"
    for block in ("callout-imagine", "callout-question", "callout-byhand", "callout-try",
                  "callout-why", "callout-trap", "callout-realization"):  # fmt: skip
        assert block in sec.html, f"§{number} has no {block}"
    assert sec.summary_html


# Each check's key as the page would print it, which must not appear before the check.
KEYS_BEFORE = {
    "s2-anything": ["₹26"],
    "s2-sharpest": ["₹12.00", "₹12.12"],
    "s3-shapes": ["6×6", "6×5"],
    "s3-rows": ["1.73", "1.727"],
    "s4-spread": ["variance64", "standarddeviation8"],
    "s4-scaled": ["variance1", "÷√d"],
}


@pytest.mark.parametrize("check_id", sorted(KEYS_BEFORE))
def test_no_check_is_answered_before_it_is_asked(unit, check_id: str) -> None:  # type: ignore[no-untyped-def]
    number = int(check_id[1])
    html = unit.section(number).html
    before = _visible(html[: html.index(f"<!--check:{check_id}-->")])
    for key in KEYS_BEFORE[check_id]:
        assert key not in before, f"{key} is printed before {check_id}"
