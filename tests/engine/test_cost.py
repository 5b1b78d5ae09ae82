"""mathmachine.engine.cost (Unit 18 §12): tiled exact attention equals the full attention (to
1e-12) over shapes, tile sizes, batch axes and masks, while holding one tile of scores; the online
softmax of one row ends at the full softmax's output; the counts against their closed forms; bad
input is a ValueError that names it."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest

from mathmachine.engine import (
    MB,
    MIB,
    attention,
    attention_multiplications,
    attention_score_bytes,
    attention_score_count,
    causal_mask,
    kv_cache_bytes,
    kv_cache_count,
    multi_head_cost,
    online_softmax_steps,
    padding_mask,
    rnn_steps,
    score_memory_mib,
    tiled_attention,
)


def reference(q: np.ndarray, k: np.ndarray, v: np.ndarray, mask: np.ndarray | None = None):
    """The full attention written out here: every score, a stable softmax, the blend."""
    s = q @ np.swapaxes(k, -1, -2) / math.sqrt(q.shape[-1])
    if mask is not None:
        s = np.where(mask, s, -np.inf)
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return (e / e.sum(axis=-1, keepdims=True)) @ v


@pytest.mark.parametrize(
    ("n_q", "n_k", "d", "d_v"), [(1, 1, 1, 1), (5, 9, 4, 3), (16, 16, 8, 8), (7, 33, 2, 5)]
)
@pytest.mark.parametrize("tile", [1, 2, 3, 8, 64])
@pytest.mark.parametrize("query_tile", [None, 1, 4])
def test_tiled_equals_full_over_shapes_and_tiles(
    n_q: int, n_k: int, d: int, d_v: int, tile: int, query_tile: int | None
) -> None:
    rng = np.random.default_rng(n_q * 1000 + n_k * 10 + tile)
    q, k, v = (rng.standard_normal(s) for s in ((n_q, d), (n_k, d), (n_k, d_v)))
    got = tiled_attention(q, k, v, tile=tile, query_tile=query_tile)
    full, _ = attention(q, k, v)
    np.testing.assert_allclose(got.output, full, rtol=0, atol=1e-12)
    np.testing.assert_allclose(got.output, reference(q, k, v), rtol=0, atol=1e-12)
    assert got.full == n_q * n_k
    assert got.held == min(n_q if query_tile is None else query_tile, n_q) * min(tile, n_k)


def test_tiled_equals_full_with_batch_axes_and_heads() -> None:
    rng = np.random.default_rng(3)
    q = rng.standard_normal((2, 4, 10, 8))  # [batch, heads, n, d_k]
    k = rng.standard_normal((2, 4, 12, 8))
    v = rng.standard_normal((1, 4, 12, 6))  # broadcasts over the batch
    got = tiled_attention(q, k, v, tile=5, query_tile=3)
    full, _ = attention(q, k, v)
    assert got.output.shape == (2, 4, 10, 6)
    np.testing.assert_allclose(got.output, full, rtol=0, atol=1e-12)


@pytest.mark.parametrize("tile", [1, 2, 4, 7, 16])
def test_tiled_equals_full_with_masks(tile: int) -> None:
    rng = np.random.default_rng(tile)
    n = 11
    q, k, v = (rng.standard_normal((3, n, 4)) for _ in range(3))
    for mask in (
        causal_mask(n),
        padding_mask([4, 11, 1], n),
        causal_mask(n) & padding_mask([4, 11, 1], n),
    ):
        got = tiled_attention(q, k, v, tile=tile, query_tile=3, mask=mask)
        full, _ = attention(q, k, v, mask=mask)
        np.testing.assert_allclose(got.output, full, rtol=0, atol=1e-12)
        np.testing.assert_allclose(got.output, reference(q, k, v, mask), rtol=0, atol=1e-12)


def test_a_causal_row_whose_first_tiles_are_all_masked_is_still_exact() -> None:
    """Keys allowed only in the last tile: the running maximum stays -inf until then, and no
    NaN appears (nothing to rescale before the first allowed key)."""
    rng = np.random.default_rng(9)
    q, k, v = (rng.standard_normal((4, 3)) for _ in range(3))
    mask = np.array([[False, False, False, True]] * 4)
    got = tiled_attention(q, k, v, tile=1, mask=mask)
    np.testing.assert_allclose(got.output, np.tile(v[3], (4, 1)), rtol=0, atol=1e-12)


def test_large_scores_do_not_overflow() -> None:
    q = np.array([[30.0, 0.0]])
    k = np.array([[40.0, 0.0], [39.0, 0.0], [-40.0, 0.0], [41.0, 0.0]])  # scores up to 869.7
    v = np.array([[1.0], [2.0], [3.0], [4.0]])
    got = tiled_attention(q, k, v, tile=2)
    assert np.all(np.isfinite(got.output))
    np.testing.assert_allclose(got.output, reference(q, k, v), rtol=0, atol=1e-12)


def test_the_online_softmax_of_one_row_ends_at_the_full_softmax() -> None:
    s = np.array([1.0, 2.0, 3.0, 0.0])
    v = np.array([4.0, 0.0, 8.0, 2.0])
    steps = online_softmax_steps(s, v, tile=2)
    assert [(st.start, st.stop) for st in steps] == [(0, 2), (2, 4)]
    first, second = steps
    assert first.old_max == -np.inf and first.new_max == 2.0 and first.rescale == 0.0
    assert first.total == pytest.approx(math.exp(-1) + 1, abs=1e-15)
    assert first.so_far == pytest.approx((4 * math.exp(-1)) / (math.exp(-1) + 1), abs=1e-15)
    assert second.old_max == 2.0 and second.new_max == 3.0
    assert second.rescale == pytest.approx(math.exp(-1), abs=1e-15)
    w = np.exp(s - s.max()) / np.exp(s - s.max()).sum()
    assert second.so_far == pytest.approx(float(w @ v), abs=1e-12)
    assert second.total == pytest.approx(float(np.exp(s - 3).sum()), abs=1e-12)
    # vectors of values too, any tile size
    vv = np.arange(8.0).reshape(4, 2)
    for t in (1, 3, 4, 9):
        np.testing.assert_allclose(online_softmax_steps(s, vv, t)[-1].so_far, w @ vv, atol=1e-12)


def test_the_counts_against_their_closed_forms() -> None:
    assert attention_score_count(4096, 16) == 4096 * 4096 * 16
    assert attention_score_bytes(4096, 16, 2) == 512 * 2**20
    assert score_memory_mib(4096, 16, 2) == 512.0
    assert score_memory_mib(4096, 16, 2) * MIB / MB == pytest.approx(536.870912)
    for n in (1, 7, 128, 4096):
        assert attention_score_count(2 * n, 3, 5) == 4 * attention_score_count(n, 3, 5)
        assert kv_cache_count(2 * n, 64, 5) == 2 * kv_cache_count(n, 64, 5)
        assert rnn_steps(n) == n
    assert kv_cache_count(4096, 1024, 24) == 2 * 24 * 4096 * 1024
    assert kv_cache_bytes(4096, 1024, 24, 2) == 2 * 24 * 4096 * 1024 * 2
    for n, d, h in ((10, 512, 8), (7, 64, 4), (4096, 1024, 16)):
        cost = multi_head_cost(n, d, h)  # §7's count, head by head
        assert attention_multiplications(n, d) == cost["scores"] + cost["blend"] == 2 * n * n * d
        assert attention_multiplications(n, d, layers=3) == 3 * attention_multiplications(n, d)


@pytest.mark.parametrize(
    "call",
    [
        lambda: attention_multiplications(0, 64),
        lambda: attention_multiplications(4, 64, layers=True),
        lambda: kv_cache_count(4.0, 64),  # type: ignore[arg-type]
        lambda: kv_cache_bytes(4, 64, 1, 0),
        lambda: rnn_steps(-1),
        lambda: tiled_attention(np.ones((2, 3)), np.ones((2, 4)), np.ones((2, 3))),
        lambda: tiled_attention(np.ones((2, 3)), np.ones((2, 3)), np.ones((5, 3))),
        lambda: tiled_attention(np.ones((2, 3)), np.ones((2, 3)), np.ones((2, 3)), tile=0),
        lambda: tiled_attention(np.ones((2, 3)), np.ones((2, 3)), np.ones((2, 3)), query_tile=0),
        lambda: tiled_attention(
            np.ones((2, 3)), np.ones((2, 3)), np.ones((2, 3)), mask=np.zeros((2, 2), bool)
        ),
        lambda: tiled_attention(
            np.ones((2, 3)), np.ones((2, 3)), np.ones((2, 3)), mask=np.ones((4, 2, 2), bool)
        ),
        lambda: tiled_attention(np.full((2, 3), np.nan), np.ones((2, 3)), np.ones((2, 3))),
        lambda: online_softmax_steps(np.ones((2, 2)), np.ones(2), 1),
        lambda: online_softmax_steps(np.ones(3), np.ones(2), 1),
    ],
)
def test_bad_input_is_a_value_error(call: Callable[[], object]) -> None:
    with pytest.raises(ValueError):
        call()
