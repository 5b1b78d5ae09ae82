"""self_attention.py (§3): every stage against loops written out from the definitions, rows
summing to 1, the shapes, and scaled=True equal to attention.attention (the reference)."""

from __future__ import annotations

import importlib
import math

import numpy as np
import pytest

from mathmachine.engine.self_attention import self_attention_shapes, self_attention_steps

A = importlib.import_module("mathmachine.engine.dot_product")


def loops(x, wq, wk, wv, scale=1.0):  # type: ignore[no-untyped-def]
    n, d = len(x), len(x[0])

    def mat(a, w):  # type: ignore[no-untyped-def]
        return [
            [sum(a[i][t] * w[t][c] for t in range(d)) for c in range(len(w[0]))] for i in range(n)
        ]

    q, k, v = mat(x, wq), mat(x, wk), mat(x, wv)
    s = [[sum(a * b for a, b in zip(q[i], k[j], strict=True)) for j in range(n)] for i in range(n)]
    w = []
    for row in s:
        e = [math.exp(scale * t) for t in row]
        w.append([t / sum(e) for t in e])
    out = [[sum(w[i][j] * v[j][c] for j in range(n)) for c in range(len(v[0]))] for i in range(n)]
    return q, k, v, s, w, out


def test_the_stages_match_the_definitions_and_rows_sum_to_1() -> None:
    rng = np.random.default_rng(3)
    for n, d, dk, dv in [(3, 2, 2, 2), (4, 3, 2, 5), (1, 2, 3, 1)]:
        x, wq, wk, wv = (rng.standard_normal(s) for s in [(n, d), (d, dk), (d, dk), (d, dv)])
        got = self_attention_steps(x, wq, wk, wv)
        q, k, v, s, w, out = loops(x.tolist(), wq.tolist(), wk.tolist(), wv.tolist())
        for name, ref in [
            ("q", q),
            ("k", k),
            ("v", v),
            ("scores", s),
            ("weights", w),
            ("output", out),
        ]:
            assert np.allclose(getattr(got, name), ref, rtol=0, atol=1e-12), name
        assert np.allclose(got.weights.sum(axis=1), 1.0, atol=1e-12)
        assert got.scale == 1.0
        shapes = self_attention_shapes(n, d, dk, dv)
        for name, stage in [
            ("Q", got.q),
            ("K", got.k),
            ("V", got.v),
            ("scores", got.scores),
            ("weights", got.weights),
            ("output", got.output),
        ]:
            assert stage.shape == shapes[name]


def test_scaled_is_the_transformers_attention() -> None:
    rng = np.random.default_rng(4)
    x, wq, wk, wv = (rng.standard_normal(s) for s in [(5, 4), (4, 3), (4, 3), (4, 2)])
    got = self_attention_steps(x, wq, wk, wv, scaled=True)
    out, weights = A.attention(x @ wq, x @ wk, x @ wv)
    assert got.scale == pytest.approx(1 / math.sqrt(3), rel=1e-15)
    assert np.allclose(got.weights, weights, rtol=0, atol=1e-12)
    assert np.allclose(got.output, out, rtol=0, atol=1e-12)
    _, _, _, _, w, o = loops(x.tolist(), wq.tolist(), wk.tolist(), wv.tolist(), 1 / math.sqrt(3))
    assert np.allclose(got.weights, w, rtol=0, atol=1e-12)
    assert np.allclose(got.output, o, rtol=0, atol=1e-12)


def test_identity_weights_make_each_score_a_dot_product_of_the_words() -> None:
    x = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    got = self_attention_steps(x, np.eye(2), np.eye(2), np.eye(2))
    assert got.scores.tolist() == (x @ x.T).tolist()


@pytest.mark.parametrize(
    ("shapes", "message"),
    [
        ([(3, 2), (3, 2), (2, 2), (2, 2)], "W_Q has 3 rows but each word's vector has 2"),
        ([(3, 2), (2, 2), (2, 3), (2, 2)], "queries of length 2 but W_K makes keys of length 3"),
        ([(3,), (2, 2), (2, 2), (2, 2)], "X .one row per word. must have at least 2"),
        ([(3, 2, 1), (2, 2), (2, 2), (2, 2)], "must be a matrix"),
    ],
)
def test_mismatched_shapes_are_named(shapes: list[tuple[int, ...]], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        self_attention_steps(*(np.ones(s) for s in shapes))


def test_shapes_reject_non_counts() -> None:
    with pytest.raises(ValueError, match="n must be a positive whole number"):
        self_attention_shapes(0, 2, 2, 2)
    with pytest.raises(ValueError, match="d_v must be a positive whole number"):
        self_attention_shapes(3, 2, 2, True)  # type: ignore[arg-type]
