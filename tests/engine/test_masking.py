"""mathmachine.engine.masking (Unit 18 §10) against references written here with plain loops and
math.exp, against closed forms (n(n + 1)/2, the softmax of the allowed scores alone), and
against the ops' masked attention (engine.dot_product.attention); the KV cache against the full
pass; bad input refused with a message."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mathmachine.engine.dot_product import attention, causal_mask, padding_mask
from mathmachine.engine.masking import (
    allowed_pairs,
    kv_cache_steps,
    masked_self_attention_steps,
    masked_softmax,
    projected_rows,
    teacher_forcing_pairs,
)

RNG = np.random.default_rng(10)
X = RNG.normal(size=(5, 3))
WQ, WK, WV = RNG.normal(size=(3, 2)), RNG.normal(size=(3, 2)), RNG.normal(size=(3, 4))


def loops(x: np.ndarray, wq: np.ndarray, wk: np.ndarray, wv: np.ndarray, causal: bool):
    """Masked self-attention from the definitions, one number at a time."""
    n, d = x.shape
    dk, dv = wq.shape[1], wv.shape[1]

    def proj(w: np.ndarray, width: int) -> list[list[float]]:
        return [[sum(x[i][t] * w[t][c] for t in range(d)) for c in range(width)] for i in range(n)]

    q, k, v = proj(wq, dk), proj(wk, dk), proj(wv, dv)
    weights, out = [], []
    for i in range(n):
        seen = range(i + 1) if causal else range(n)
        s = {j: sum(q[i][c] * k[j][c] for c in range(dk)) / math.sqrt(dk) for j in seen}
        top = max(s.values())
        e = {j: math.exp(s[j] - top) for j in seen}
        z = sum(e.values())
        row = [e[j] / z if j in e else 0.0 for j in range(n)]
        weights.append(row)
        out.append([sum(row[j] * v[j][c] for j in range(n)) for c in range(dv)])
    return np.array(weights), np.array(out)


@pytest.mark.parametrize("n", [1, 2, 3, 5, 8, 100])
def test_allowed_pairs_is_n_n_plus_1_over_2(n: int) -> None:
    assert allowed_pairs(n) == n * (n + 1) // 2 == sum(range(1, n + 1))
    assert allowed_pairs(5) == 15


@pytest.mark.parametrize("causal", [True, False])
def test_masked_self_attention_matches_loops_and_the_ops(causal: bool) -> None:
    st_ = masked_self_attention_steps(X, WQ, WK, WV, causal)
    w, out = loops(X, WQ, WK, WV, causal)
    np.testing.assert_allclose(st_.weights, w, rtol=0, atol=1e-12)
    np.testing.assert_allclose(st_.output, out, rtol=0, atol=1e-12)
    ops_out, ops_w = attention(st_.q, st_.k, st_.v, causal_mask(5) if causal else None)
    np.testing.assert_allclose(st_.weights, ops_w, rtol=0, atol=1e-12)
    np.testing.assert_allclose(st_.output, ops_out, rtol=0, atol=1e-12)
    np.testing.assert_allclose(st_.weights.sum(axis=1), 1.0, rtol=0, atol=1e-12)


def test_hidden_weights_are_exactly_zero_and_the_scores_minus_infinity() -> None:
    st_ = masked_self_attention_steps(X, WQ, WK, WV, True)
    hidden = ~causal_mask(5)
    assert np.all(st_.weights[hidden] == 0.0)  # exactly, not nearly
    assert np.all(st_.masked[hidden] == -np.inf)
    assert np.array_equal(st_.masked[~hidden], st_.scaled[~hidden])
    assert np.all(st_.weights[~hidden] > 0)


def test_no_peeking_a_later_word_changes_no_earlier_output_by_a_single_bit() -> None:
    base = masked_self_attention_steps(X, WQ, WK, WV, True)
    free = masked_self_attention_steps(X, WQ, WK, WV, False)
    for t in range(1, 5):
        x2 = X.copy()
        x2[t] = RNG.normal(size=3) * 10
        after = masked_self_attention_steps(x2, WQ, WK, WV, True)
        assert np.array_equal(after.output[:t], base.output[:t])
        assert not np.allclose(after.output[t:], base.output[t:])
        free2 = masked_self_attention_steps(x2, WQ, WK, WV, False)
        assert not np.allclose(free2.output[:t], free.output[:t])  # without the mask: peeking


def test_masked_softmax_is_the_softmax_of_the_allowed_scores() -> None:
    s = np.array([0.5, -1.0, 2.0, 3.0])
    m = np.array([True, True, True, False])
    w = masked_softmax(s, m)
    e = [math.exp(x) for x in s[:3]]
    np.testing.assert_allclose(w[:3], [x / sum(e) for x in e], rtol=0, atol=1e-15)
    assert w[3] == 0.0
    # zeroing after the softmax and dividing by the new total gives the same row
    full = np.exp(s) / np.exp(s).sum()
    zeroed = np.where(m, full, 0.0)
    np.testing.assert_allclose(zeroed / zeroed.sum(), w, rtol=0, atol=1e-15)
    assert zeroed.sum() < 1 - 0.1  # without that division the row does not add up to 1


def test_a_finite_fill_leaks_and_a_big_one_underflows() -> None:
    s = np.array([-1.0, 1.0, 0.0])
    m = np.array([True, False, False])
    small = masked_softmax(s, m, -5.0)
    e = math.exp(-5.0 - (-1.0))
    np.testing.assert_allclose(small, [1 / (1 + 2 * e), e / (1 + 2 * e), e / (1 + 2 * e)])
    assert small[1] > 0
    big = masked_softmax(s, m, -10_000.0)
    assert big[0] == 1.0 and big[1] == 0.0 and big[2] == 0.0  # e^-9999 underflows to 0
    # every score hidden: -inf is refused (0/0); a finite fill spreads evenly
    with pytest.raises(ValueError, match="every score masked"):
        masked_softmax(s, np.zeros(3, dtype=bool))
    lowest = float(np.finfo(np.float64).min)
    np.testing.assert_allclose(masked_softmax(s, np.zeros(3, dtype=bool), lowest), [1 / 3] * 3)


def test_a_padded_batch_with_the_causal_mask() -> None:
    m = padding_mask([3, 4], 4) & causal_mask(4)
    assert m.shape == (2, 4, 4)
    assert int(m[0].sum()) == 6 + 3  # three real rows, and the pad's row sees the three words
    assert int(m[1].sum()) == 10
    assert not m[0][:, 3].any()  # no row looks at the pad
    s = RNG.normal(size=(2, 4, 4))
    w = masked_softmax(s, m)
    assert np.all(w[0][:, 3] == 0.0)
    np.testing.assert_allclose(w.sum(axis=-1), 1.0, rtol=0, atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 7), st.integers(0, 2**31 - 1))
def test_the_kv_cache_gives_the_full_pass_row_by_row(n: int, seed: int) -> None:
    r = np.random.default_rng(seed)
    x, wq, wk, wv = (
        r.normal(size=(n, 3)),
        r.normal(size=(3, 2)),
        r.normal(size=(3, 2)),
        r.normal(size=(3, 3)),
    )
    full = masked_self_attention_steps(x, wq, wk, wv, True)
    kv = kv_cache_steps(x, wq, wk, wv)
    np.testing.assert_allclose(kv.output, full.output, rtol=0, atol=1e-12)
    for t, w in enumerate(kv.weights):
        np.testing.assert_allclose(w, full.weights[t, : t + 1], rtol=0, atol=1e-12)
    assert kv.kept == tuple(range(n))
    assert kv.projected == n
    assert kv.projected_without_cache == n * (n + 1) // 2
    # and the decoder without a cache: the whole prefix again at every step, its last row
    for t in range(n):
        again = masked_self_attention_steps(x[: t + 1], wq, wk, wv, True)
        np.testing.assert_allclose(again.output[-1], kv.output[t], rtol=0, atol=1e-12)


def test_projected_rows() -> None:
    assert projected_rows(100, cache=True) == 100
    assert projected_rows(100, cache=False) == 5050
    assert projected_rows(1000, cache=False) == 500_500
    for bad in (0, -1, 2.5, True, "3"):
        with pytest.raises(ValueError):
            projected_rows(bad, cache=True)  # type: ignore[arg-type]


def test_teacher_forcing_pairs() -> None:
    assert teacher_forcing_pairs(["I", "drink", "tea"]) == [
        (("I",), "drink"),
        (("I", "drink"), "tea"),
        (("I", "drink", "tea"), "."),
    ]
    with pytest.raises(ValueError):
        teacher_forcing_pairs([])
    with pytest.raises(ValueError):
        teacher_forcing_pairs(["I", ""])


def test_bad_input_is_refused_with_a_message() -> None:
    with pytest.raises(ValueError, match="boolean"):
        masked_softmax([1.0, 2.0], [1, 0])
    with pytest.raises(ValueError, match="does not fit"):
        masked_softmax([1.0, 2.0], np.array([True, False, True]))
    with pytest.raises(ValueError, match="fill"):
        masked_softmax([1.0, 2.0], np.array([True, False]), math.nan)
    with pytest.raises(ValueError, match="NaN or infinity"):
        masked_softmax([1.0, math.inf], np.array([True, True]))
    with pytest.raises(ValueError, match="rows"):
        masked_self_attention_steps(X, WQ[:2], WK, WV)
    with pytest.raises(ValueError, match="length"):
        masked_self_attention_steps(X, WQ, WK[:, :1], WV)
    with pytest.raises(ValueError, match=r"\[5, 5\]"):
        masked_self_attention_steps(X, WQ, WK, WV, np.ones((4, 4), dtype=bool))
    with pytest.raises(ValueError, match="positive integer"):
        allowed_pairs(0)
