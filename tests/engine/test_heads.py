"""heads.py (§7): the head-by-head walk equals the batched multi_head_attention (the reference)
with the heads' matrices laid side by side; every stage against loops written out from the
definitions; the concatenation times W_O is the sum of each head's share; the counts against a
count of the matrices and the products, the same for every number of heads; a finite-difference
check that the output moves with X as the batched layer's backward says."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mathmachine.engine import multi_head_attention, multi_head_attention_backward
from mathmachine.engine import multi_head_attention_forward as mha_forward
from mathmachine.engine.heads import multi_head_cost, multi_head_steps


def _random_layer(rng: np.random.Generator, n: int, d: int, h: int, d_out: int):  # type: ignore[no-untyped-def]
    dk = d // h
    x = rng.standard_normal((n, d))
    heads = [tuple(rng.standard_normal((d, dk)) for _ in range(3)) for _ in range(h)]
    wo = rng.standard_normal((h * dk, d_out))
    return x, heads, wo


def _params(heads, wo):  # type: ignore[no-untyped-def]
    return {
        "W_q": np.hstack([wq for wq, _, _ in heads]),
        "W_k": np.hstack([wk for _, wk, _ in heads]),
        "W_v": np.hstack([wv for _, _, wv in heads]),
        "W_o": wo,
    }


@pytest.mark.parametrize(("n", "d", "h"), [(4, 8, 2), (3, 6, 3), (5, 8, 8), (2, 4, 1)])
def test_head_by_head_equals_the_batched_layer(n: int, d: int, h: int) -> None:
    rng = np.random.default_rng(n * 100 + d * 10 + h)
    x, heads, wo = _random_layer(rng, n, d, h, d)
    st = multi_head_steps(x, heads, wo)
    out, weights = multi_head_attention(x, x, _params(heads, wo), h)
    np.testing.assert_allclose(st.output, out, rtol=0, atol=1e-12)
    np.testing.assert_allclose(st.weights, weights, rtol=0, atol=1e-12)
    assert st.concat.shape == (n, d) and st.output.shape == (n, d)


def test_every_stage_against_loops() -> None:
    rng = np.random.default_rng(7)
    n, d, h = 4, 6, 2
    dk = d // h
    x, heads, wo = _random_layer(rng, n, d, h, 5)
    st = multi_head_steps(x, heads, wo)
    concat_rows: list[list[float]] = [[] for _ in range(n)]
    for i, (wq, wk, wv) in enumerate(heads):
        q = [[sum(x[a, t] * wq[t, c] for t in range(d)) for c in range(dk)] for a in range(n)]
        k = [[sum(x[a, t] * wk[t, c] for t in range(d)) for c in range(dk)] for a in range(n)]
        v = [[sum(x[a, t] * wv[t, c] for t in range(d)) for c in range(dk)] for a in range(n)]
        for a in range(n):
            s = [sum(q[a][c] * k[b][c] for c in range(dk)) / math.sqrt(dk) for b in range(n)]
            e = [math.exp(t) for t in s]
            w = [t / sum(e) for t in e]
            np.testing.assert_allclose(st.heads[i].weights[a], w, rtol=0, atol=1e-12)
            head_row = [sum(w[b] * v[b][c] for b in range(n)) for c in range(dk)]
            np.testing.assert_allclose(st.heads[i].output[a], head_row, rtol=0, atol=1e-12)
            concat_rows[a] += head_row
    np.testing.assert_allclose(st.concat, concat_rows, rtol=0, atol=1e-12)
    out = [[sum(r[t] * wo[t, c] for t in range(d)) for c in range(5)] for r in concat_rows]
    np.testing.assert_allclose(st.output, out, rtol=0, atol=1e-12)
    # Concat(head_1, ..., head_h) W_O = sum_i head_i W_O^(i)
    np.testing.assert_allclose(sum(st.head_part(i) for i in range(h)), st.output, atol=1e-12)
    assert np.allclose(st.weights.sum(axis=-1), 1.0, atol=1e-12)


def test_the_output_moves_with_x_as_the_backward_says() -> None:
    """Finite differences of the head-by-head output against the batched layer's gradient."""
    rng = np.random.default_rng(11)
    x, heads, wo = _random_layer(rng, 3, 4, 2, 4)
    g = rng.standard_normal((3, 4))  # a direction in the output: loss = sum(g * out)
    _, cache = mha_forward(x, x, _params(heads, wo), 2)
    dx_q, dx_kv, _ = multi_head_attention_backward(g, cache)
    dx = dx_q + dx_kv
    eps = 1e-6
    fd = np.zeros_like(x)
    for idx in np.ndindex(*x.shape):
        up, down = x.copy(), x.copy()
        up[idx] += eps
        down[idx] -= eps
        fd[idx] = (
            np.sum(g * multi_head_steps(up, heads, wo).output)
            - np.sum(g * multi_head_steps(down, heads, wo).output)
        ) / (2 * eps)
    np.testing.assert_allclose(fd, dx, rtol=1e-6, atol=1e-7)


def test_the_counts_do_not_depend_on_the_number_of_heads() -> None:
    assert multi_head_cost(10, 512, 8)["weights"] == 4 * 512 * 512 == 1_048_576
    for n, d in [(10, 512), (4, 8), (7, 96)]:
        costs = [multi_head_cost(n, d, h) for h in (1, 2, 4, 8) if d % h == 0]
        assert all(c == costs[0] for c in costs)
        c = costs[0]
        assert c["multiplications"] == 4 * n * d * d + 2 * n * n * d
        assert c["projections"] == 3 * n * d * d and c["scores"] == c["blend"] == n * n * d
    # the count of the arrays themselves
    rng = np.random.default_rng(0)
    _, heads, wo = _random_layer(rng, 2, 8, 2, 8)
    assert (
        sum(w.size for head in heads for w in head) + wo.size == multi_head_cost(2, 8, 2)["weights"]
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [((10, 512, 7), "does not divide"), ((0, 8, 2), "n must"), ((4, 8, True), "n_heads must")],
)
def test_bad_counts_are_refused(args: tuple, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        multi_head_cost(*args)


def test_bad_layers_are_refused() -> None:
    rng = np.random.default_rng(1)
    x, heads, wo = _random_layer(rng, 3, 4, 2, 4)
    with pytest.raises(ValueError, match="at least one head"):
        multi_head_steps(x, [], wo)
    with pytest.raises(ValueError, match="same widths"):
        multi_head_steps(x, [heads[0], (np.ones((4, 3)), np.ones((4, 3)), np.ones((4, 3)))], wo)
    with pytest.raises(ValueError, match="W_O must have 4 rows"):
        multi_head_steps(x, heads, np.ones((3, 4)))
    with pytest.raises(ValueError, match="NaN"):
        multi_head_steps(x, heads, np.full((4, 4), np.nan))
