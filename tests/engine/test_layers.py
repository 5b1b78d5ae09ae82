"""layers.py: closed forms, exact GELU against math.erf, and every backward against finite
differences (tests/engine/gradcheck.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from gradcheck import assert_gradients

from mathmachine.engine import layers as L


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(1234)


# ---------------------------------------------------------------- closed forms and accuracy


def test_layer_norm_of_1_2_3_is_minus_1_225_0_1_225() -> None:
    out = L.layer_norm([1.0, 2.0, 3.0], eps=0.0)
    assert np.allclose(out, [-math.sqrt(1.5), 0.0, math.sqrt(1.5)], atol=1e-12)
    assert np.round(out, 3).tolist() == [-1.225, 0.0, 1.225]
    # the default eps (1e-5) moves it only in the fifth decimal
    assert np.round(L.layer_norm([1.0, 2.0, 3.0]), 3).tolist() == [-1.225, 0.0, 1.225]


def test_layer_norm_gain_and_bias_and_batch_axes(rng: np.random.Generator) -> None:
    x = rng.standard_normal((2, 3, 5))
    g, b = rng.standard_normal(5), rng.standard_normal(5)
    out = L.layer_norm(x, g, b, eps=1e-6)
    plain = L.layer_norm(x, eps=1e-6)
    assert np.allclose(plain.mean(-1), 0, atol=1e-12)
    assert np.allclose(plain.var(-1), 1, atol=1e-4)
    assert np.allclose(out, plain * g + b)


def test_normal_cdf_and_gelu_match_math_erf_on_a_dense_grid() -> None:
    xs = np.linspace(-40, 40, 80001)
    ref = np.array([0.5 * math.erfc(-v / math.sqrt(2)) for v in xs])
    assert np.max(np.abs(L.normal_cdf(xs) - ref)) < 2e-15
    assert np.max(np.abs(L.gelu(xs) - xs * ref)) < 4e-15
    # float32 stays float32 and keeps float32 accuracy
    x32 = xs.astype(np.float32)
    g32 = L.gelu(x32)
    assert g32.dtype == np.float32
    assert np.max(np.abs(g32 - xs * ref) / np.maximum(1.0, np.abs(xs))) < 5e-7


def test_gelu_known_values() -> None:
    assert L.gelu(0.0) == 0.0
    assert L.gelu(1.0) == pytest.approx(0.8413447460685429, abs=1e-15)
    assert L.gelu(-1.0) == pytest.approx(-0.15865525393145707, abs=1e-15)
    assert L.gelu(-30.0) == pytest.approx(0.0, abs=1e-190)


def test_relu_and_feed_forward_values() -> None:
    assert L.relu([-1.0, 0.0, 2.0]).tolist() == [0.0, 0.0, 2.0]
    params = {"W1": np.eye(2), "b1": np.array([0.0, -5.0]), "W2": np.array([[1.0], [1.0]])}
    assert L.feed_forward([[1.0, 2.0]], params, activation="relu").tolist() == [[1.0]]


def test_embedding_and_scatter_add_backward() -> None:
    table = np.arange(12.0).reshape(4, 3)
    out, cache = L.embedding_forward([[1, 1], [3, 0]], table)
    assert out.shape == (2, 2, 3)
    assert out[0, 0].tolist() == [3.0, 4.0, 5.0]
    dtable = L.embedding_backward(np.ones((2, 2, 3)), cache)
    assert dtable[:, 0].tolist() == [1.0, 2.0, 0.0, 1.0]  # id 1 used twice, id 2 never


def test_cross_entropy_values() -> None:
    logits = np.log(np.array([[0.7, 0.2, 0.1], [0.25, 0.25, 0.5]]))
    assert L.cross_entropy(logits, [0, 2]) == pytest.approx(-(math.log(0.7) + math.log(0.5)) / 2)
    assert L.cross_entropy(logits, [0, -1], ignore_index=-1) == pytest.approx(-math.log(0.7))
    assert L.log_softmax(logits) == pytest.approx(logits)


def test_float32_is_kept_and_other_inputs_become_float64() -> None:
    x32 = np.ones((2, 4), dtype=np.float32)
    assert L.layer_norm(x32 + np.arange(4, dtype=np.float32)).dtype == np.float32
    assert L.linear(x32, np.ones((4, 3), dtype=np.float32)).dtype == np.float32
    assert L.linear([[1, 2]], [[1], [1]]).dtype == np.float64


# ---------------------------------------------------------------- gradients


def test_linear_backward(rng: np.random.Generator) -> None:
    x, W, b = rng.standard_normal((2, 3, 4)), rng.standard_normal((4, 5)), rng.standard_normal(5)
    probe = rng.standard_normal((2, 3, 5))
    _, cache = L.linear_forward(x, W, b)
    dx, dW, db = L.linear_backward(probe, cache)
    assert_gradients(
        lambda: float(np.sum(L.linear(x, W, b) * probe)),
        {"x": x, "W": W, "b": b},
        {"x": dx, "W": dW, "b": db},
    )
    assert L.linear_backward(probe, L.linear_forward(x, W)[1])[2] is None


@pytest.mark.parametrize("with_affine", [True, False])
def test_layer_norm_backward(rng: np.random.Generator, with_affine: bool) -> None:
    x = rng.standard_normal((2, 3, 6))
    g = rng.standard_normal(6) if with_affine else None
    b = rng.standard_normal(6) if with_affine else None
    probe = rng.standard_normal(x.shape)
    _, cache = L.layer_norm_forward(x, g, b, eps=1e-5)
    dx, dg, db = L.layer_norm_backward(probe, cache)
    arrays = {"x": x} | ({"g": g, "b": b} if with_affine else {})  # type: ignore[dict-item]
    grads = {"x": dx} | ({"g": dg, "b": db} if with_affine else {})
    assert_gradients(lambda: float(np.sum(L.layer_norm(x, g, b, eps=1e-5) * probe)), arrays, grads)
    if not with_affine:
        assert dg is None and db is None


@pytest.mark.parametrize("name", ["gelu", "relu"])
def test_activation_backward(rng: np.random.Generator, name: str) -> None:
    x = rng.standard_normal((3, 7)) * 2
    x[np.abs(x) < 1e-3] = 0.5  # keep relu's kink away from the finite-difference step
    fwd, bwd, fn = {
        "gelu": (L.gelu_forward, L.gelu_backward, L.gelu),
        "relu": (L.relu_forward, L.relu_backward, L.relu),
    }[name]
    probe = rng.standard_normal(x.shape)
    dx = bwd(probe, fwd(x)[1])
    assert_gradients(lambda: float(np.sum(fn(x) * probe)), {"x": x}, {"x": dx})


@pytest.mark.parametrize("activation", ["gelu", "relu"])
@pytest.mark.parametrize("biases", [True, False])
def test_feed_forward_backward(rng: np.random.Generator, activation: str, biases: bool) -> None:
    d, d_ff = 4, 8
    params = {"W1": rng.standard_normal((d, d_ff)), "W2": rng.standard_normal((d_ff, 3))}
    if biases:
        params |= {"b1": rng.standard_normal(d_ff), "b2": rng.standard_normal(3)}
    x = rng.standard_normal((2, 5, d))
    probe = rng.standard_normal((2, 5, 3))
    _, cache = L.feed_forward_forward(x, params, activation)
    dx, dp = L.feed_forward_backward(probe, cache)
    assert set(dp) == set(params)
    assert_gradients(
        lambda: float(np.sum(L.feed_forward(x, params, activation) * probe)),
        {"x": x, **params},
        {"x": dx, **dp},
    )


def test_embedding_backward_gradcheck(rng: np.random.Generator) -> None:
    table = rng.standard_normal((6, 3))
    ids = np.array([[0, 2, 2], [5, 0, 1]])
    probe = rng.standard_normal((2, 3, 3))
    dtable = L.embedding_backward(probe, L.embedding_forward(ids, table)[1])
    assert_gradients(
        lambda: float(np.sum(L.embedding(ids, table) * probe)), {"t": table}, {"t": dtable}
    )


def test_softmax_backward(rng: np.random.Generator) -> None:
    from mathmachine.engine import softmax

    x = rng.standard_normal((3, 5))
    probe = rng.standard_normal(x.shape)
    for axis in (-1, 0):
        dx = L.softmax_backward(probe, L.softmax_forward(x, axis=axis)[1])
        assert_gradients(
            lambda axis=axis: float(np.sum(softmax(x, axis=axis) * probe)), {"x": x}, {"x": dx}
        )


def test_cross_entropy_backward(rng: np.random.Generator) -> None:
    logits = rng.standard_normal((2, 4, 7))
    targets = np.array([[1, 6, -100, 0], [3, 3, -100, -100]])
    _, cache = L.cross_entropy_forward(logits, targets, ignore_index=-100)
    dlogits = L.cross_entropy_backward(2.0, cache)
    assert np.all(dlogits[0, 2] == 0) and np.all(dlogits[1, 3] == 0)
    assert_gradients(
        lambda: 2.0 * L.cross_entropy(logits, targets, ignore_index=-100),
        {"logits": logits},
        {"logits": dlogits},
    )


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: L.linear(np.ones((2, 3)), np.ones((4, 5))), "x has 3 features but W has 4 rows"),
        (lambda: L.linear(np.ones((2, 3)), np.ones((3, 5)), np.ones(4)), "b must have shape"),
        (lambda: L.linear([[np.nan, 1.0]], np.ones((2, 2))), "x contains NaN or infinity"),
        (lambda: L.linear(np.ones((2, 2)), [[np.inf, 1.0], [1.0, 1.0]]), "W contains NaN"),
        (lambda: L.layer_norm(np.zeros((0, 3))), "x is empty"),
        (lambda: L.layer_norm([2.0, 2.0], eps=0.0), "constant"),
        (lambda: L.layer_norm([1.0, 2.0], gain=[1.0]), "gain must have shape"),
        (lambda: L.layer_norm([1.0, 2.0], eps=-1.0), "eps must be"),
        (lambda: L.gelu([1.0, np.nan]), "x contains NaN"),
        (lambda: L.gelu(["a"]), "must be numeric"),
        (lambda: L.feed_forward(np.ones((2, 3)), {"W1": np.ones((3, 4))}), "'W1' and 'W2'"),
        (
            lambda: L.feed_forward(np.ones((2, 3)), {"W1": np.ones((3, 4)), "W2": np.ones((5, 3))}),
            "'W2' must have shape (4, d_out)",
        ),
        (
            lambda: L.feed_forward(
                np.ones((2, 3)), {"W1": np.ones((3, 4)), "W2": np.full((4, 3), np.nan)}
            ),
            "W2 contains NaN",
        ),
        (
            lambda: L.feed_forward(
                np.ones((1, 2)), {"W1": np.eye(2), "W2": np.eye(2)}, activation="tanh"
            ),
            "activation must be one of",
        ),
        (lambda: L.embedding([0, 7], np.ones((4, 2))), "ids must lie in 0..3"),
        (lambda: L.embedding([0.5], np.ones((4, 2))), "whole numbers"),
        (lambda: L.embedding([], np.ones((4, 2))), "ids is empty"),
        (lambda: L.cross_entropy(np.ones((2, 3)), [0]), "targets must have shape (2,)"),
        (lambda: L.cross_entropy(np.ones((2, 3)), [0, 3]), "targets must lie in 0..2"),
        (lambda: L.cross_entropy(np.ones((1, 3)), [-1], ignore_index=-1), "every target"),
    ],
)
def test_bad_input_raises_a_clear_value_error(call, message: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match=__import__("re").escape(message)):
        call()


def test_backward_rejects_a_gradient_of_the_wrong_shape() -> None:
    _, cache = L.linear_forward(np.ones((2, 3)), np.ones((3, 4)))
    with pytest.raises(ValueError, match=r"must have the output's shape \(2, 4\)"):
        L.linear_backward(np.ones((2, 3)), cache)


def test_the_gradient_check_itself_catches_a_wrong_gradient(rng: np.random.Generator) -> None:
    x = rng.standard_normal((3, 4))
    probe = rng.standard_normal(x.shape)
    dx = L.gelu_backward(probe, L.gelu_forward(x)[1])
    wrong = dx * (1 + 1e-4)
    with pytest.raises(AssertionError, match="gradient for 'x' is off"):
        assert_gradients(lambda: float(np.sum(L.gelu(x) * probe)), {"x": x}, {"x": wrong})
