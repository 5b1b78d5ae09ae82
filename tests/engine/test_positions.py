"""positions.py: §8's closed forms (PE(1, 0) = sin 1, rotary depends on the offset only, lengths
kept) and the backward of rotary and the relative-position bias."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from gradcheck import assert_gradients

from mathmachine.engine import attention as attention_fn
from mathmachine.engine import attention_backward, attention_forward
from mathmachine.engine import positions as P


def test_sinusoidal_pe_1_0_is_sin_1_and_the_layout() -> None:
    pe = P.sinusoidal_positions(50, 16)
    assert pe.shape == (50, 16)
    assert pe[1, 0] == pytest.approx(math.sin(1.0), abs=1e-15)
    assert round(pe[1, 0], 3) == 0.841
    assert pe[1, 1] == pytest.approx(math.cos(1.0))
    assert pe[7, 6] == pytest.approx(math.sin(7 / 10000 ** (6 / 16)))
    assert pe[7, 7] == pytest.approx(math.cos(7 / 10000 ** (6 / 16)))
    assert np.all(pe[0, 0::2] == 0) and np.all(pe[0, 1::2] == 1)
    assert P.sinusoidal_positions(3, 5).shape == (3, 5)  # an odd width ends on a sin


def test_sinusoidal_dot_product_depends_on_the_gap_only() -> None:
    pe = P.sinusoidal_positions(60, 32)
    for k in (1, 5, 13):
        dots = [pe[p] @ pe[p + k] for p in range(0, 40, 7)]
        assert np.allclose(dots, dots[0], atol=1e-12)
    assert not np.isclose(pe[0] @ pe[1], pe[0] @ pe[5])


def test_rotary_keeps_lengths_and_the_score_depends_only_on_the_offset() -> None:
    rng = np.random.default_rng(3)
    q, k = rng.standard_normal(8), rng.standard_normal(8)
    rq = P.rotary(np.tile(q, (20, 1)), np.arange(20))
    rk = P.rotary(np.tile(k, (20, 1)), np.arange(20))
    assert np.allclose(np.linalg.norm(rq, axis=-1), np.linalg.norm(q))
    for offset in (0, 1, 4):
        scores = [rq[m] @ rk[m + offset] for m in range(0, 15)]
        assert np.allclose(scores, scores[0], atol=1e-12)
    assert not np.isclose(rq[2] @ rk[3], rq[2] @ rk[6])
    # position 0 is no rotation; two dims turn by exactly the position at theta_0 = 1
    assert np.allclose(rq[0], q)
    r = P.rotary(np.array([[1.0, 0.0]]), [2.0])
    assert np.allclose(r, [[math.cos(2.0), math.sin(2.0)]])


def test_rotary_backward_and_batch_axes() -> None:
    rng = np.random.default_rng(4)
    x = rng.standard_normal((2, 3, 5, 6))
    pos = np.arange(5)
    probe = rng.standard_normal(x.shape)
    dx = P.rotary_backward(probe, P.rotary_forward(x, pos)[1])
    assert_gradients(lambda: float(np.sum(P.rotary(x, pos) * probe)), {"x": x}, {"x": dx})


def test_relative_position_buckets_follow_t5() -> None:
    b = P.relative_position_buckets(1, 12, n_buckets=8, max_distance=16)[0]
    # keys after the query use the upper half (4..7); exact offsets below 2, then log buckets
    assert b.tolist() == [0, 5, 6, 6, 6, 6, 7, 7, 7, 7, 7, 7]
    back = P.relative_position_buckets(12, 1, n_buckets=8, max_distance=16)[:, 0]
    assert back.tolist() == [0, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3]
    causal = P.relative_position_buckets(4, 4, n_buckets=8, bidirectional=False)
    assert causal[3].tolist() == [3, 2, 1, 0] and causal[0].tolist() == [0, 0, 0, 0]
    # the same offset gets the same bucket wherever it is
    full = P.relative_position_buckets(30, 30)
    for off in (-9, 0, 3, 20):
        assert len(set(np.diagonal(full, off))) == 1


def test_relative_position_bias_in_attention_and_its_backward() -> None:
    rng = np.random.default_rng(5)
    table = rng.standard_normal((8, 2))
    bias = P.relative_position_bias(table, 4, 4, max_distance=16)
    assert bias.shape == (2, 4, 4)
    assert bias[1, 0, 1] == table[P.relative_position_buckets(4, 4, 8, 16)[0, 1], 1]
    q, k, v = (rng.standard_normal((2, 4, 3)) for _ in range(3))
    probe = rng.standard_normal((2, 4, 3))

    def loss() -> float:
        b = P.relative_position_bias(table, 4, 4, max_distance=16)
        return float(np.sum(attention_fn(q, k, v, bias=b)[0] * probe))

    b, bcache = P.relative_position_bias_forward(table, 4, 4, max_distance=16)
    _, _, _, dbias = attention_backward(probe, attention_forward(q, k, v, bias=b)[1])
    dtable = P.relative_position_bias_backward(dbias, bcache)
    assert_gradients(loss, {"table": table}, {"table": dtable})


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: P.sinusoidal_positions(0, 4), "n must be a positive integer"),
        (lambda: P.sinusoidal_positions(3, 4, base=1.0), "base must be"),
        (lambda: P.rotary(np.ones((3, 5)), np.arange(3)), "even width"),
        (lambda: P.rotary(np.ones((3, 4)), np.arange(4)), "do not fit"),
        (lambda: P.rotary(np.ones((3, 4)), [0, np.nan, 2]), "positions contains NaN"),
        (lambda: P.rotary(np.ones((0, 4)), []), "x is empty"),
        (lambda: P.relative_position_buckets(3, 3, n_buckets=2), "leave no room"),
        (lambda: P.relative_position_bias(np.ones(4), 3, 3), "table must have at least"),
    ],
)
def test_bad_input_raises_a_clear_value_error(call, message: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match=re.escape(message)):
        call()
