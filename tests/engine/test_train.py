"""Adam, gradient clipping, the LR schedule and seeded streams (mathmachine.engine.train)."""

from __future__ import annotations

import numpy as np
import pytest

from mathmachine.engine.train import (
    Adam,
    clip_by_global_norm,
    count_weights,
    flatten,
    global_norm,
    linear_decay,
    stream_rng,
    unflatten,
)


def test_adam_matches_two_steps_computed_by_hand() -> None:
    # Step 1: m = 0.1 g, v = 0.001 g²; bias correction gives m̂ = g, v̂ = g², so the first step
    # is lr · g / (|g| + ε): each weight moves by almost exactly lr against its gradient's sign.
    params = {"w": np.array([1.0, -2.0])}
    opt = Adam(beta1=0.9, beta2=0.999, eps=1e-8)
    opt.step(params, {"w": np.array([0.5, -0.1])}, lr=0.1)
    np.testing.assert_allclose(params["w"], [0.900000002, -1.90000001], rtol=0, atol=1e-12)
    # Step 2 with g = (0.2, 0.3):
    #   m = 0.9·(0.05, −0.01) + 0.1·(0.2, 0.3)            = (0.065, 0.021)
    #   v = 0.999·(0.00025, 0.00001) + 0.001·(0.04, 0.09) = (0.00028975, 0.00009999)
    #   m̂ = m / (1 − 0.9²) = m / 0.19,  v̂ = v / (1 − 0.999²) = v / 0.001999
    #   step = 0.1 · m̂ / (√v̂ + 1e−8) = (0.08985751809707, 0.04941898112007)
    opt.step(params, {"w": np.array([0.2, 0.3])}, lr=0.1)
    m, v = opt.moments("w")
    np.testing.assert_allclose(m, [0.065, 0.021], rtol=1e-12)
    np.testing.assert_allclose(v, [0.00028975, 0.00009999], rtol=1e-12)
    np.testing.assert_allclose(
        params["w"], [0.810142483902928, -1.949418991120066], rtol=0, atol=1e-12
    )
    assert opt.t == 2


def test_adam_handles_nested_dicts_and_rejects_mismatched_grads() -> None:
    params = {"enc": {"W": np.ones((2, 3))}, "b": np.zeros(3)}
    grads = {"enc": {"W": np.full((2, 3), 2.0)}, "b": -np.ones(3)}
    Adam().step(params, grads, lr=0.01)
    np.testing.assert_allclose(params["enc"]["W"], 1 - 0.01, atol=1e-9)
    np.testing.assert_allclose(params["b"], 0.01, atol=1e-9)
    with pytest.raises(ValueError, match="missing"):
        Adam().step(params, {"b": np.zeros(3)}, lr=0.01)
    opt = Adam()
    opt.step(params, grads, lr=0.01)
    with pytest.raises(ValueError, match="changed"):
        opt.step({"b": params["b"]}, {"b": grads["b"]}, lr=0.01)
    with pytest.raises(ValueError, match="shape"):
        Adam().step(params, {"enc": {"W": np.zeros((3, 2))}, "b": np.zeros(3)}, lr=0.01)


def test_clipping_has_the_closed_form() -> None:
    # ‖g‖ = √(3² + 4² + 12²) = 13; clipped to 6.5 every entry halves.
    grads = {"a": np.array([3.0, 4.0]), "b": {"c": np.array([[12.0]])}}
    assert global_norm(grads) == pytest.approx(13.0)
    before = clip_by_global_norm(grads, 6.5)
    assert before == pytest.approx(13.0)
    np.testing.assert_allclose(grads["a"], [1.5, 2.0])
    np.testing.assert_allclose(grads["b"]["c"], [[6.0]])
    assert global_norm(grads) == pytest.approx(6.5)


def test_clipping_leaves_small_gradients_alone_and_rejects_nan() -> None:
    grads = {"a": np.array([0.3, 0.4])}
    assert clip_by_global_norm(grads, 1.0) == pytest.approx(0.5)
    np.testing.assert_array_equal(grads["a"], [0.3, 0.4])
    with pytest.raises(ValueError, match="NaN"):
        clip_by_global_norm({"a": np.array([np.nan])}, 1.0)
    with pytest.raises(ValueError, match="positive"):
        clip_by_global_norm(grads, 0.0)


def test_linear_decay_runs_from_lr_to_a_tenth() -> None:
    lrs = [linear_decay(t, 5, 3e-3) for t in range(5)]
    np.testing.assert_allclose(lrs, [3e-3, 2.325e-3, 1.65e-3, 0.975e-3, 0.3e-3])
    assert linear_decay(0, 1, 1.0) == 1.0
    with pytest.raises(ValueError):
        linear_decay(5, 5, 1.0)


def test_streams_are_reproducible_and_independent() -> None:
    a = stream_rng(7, "init").standard_normal(4)
    np.testing.assert_array_equal(a, stream_rng(7, "init").standard_normal(4))
    assert not np.array_equal(a, stream_rng(7, "batches").standard_normal(4))
    assert not np.array_equal(a, stream_rng(8, "init").standard_normal(4))


def test_flatten_round_trips_and_counts() -> None:
    tree = {"x": {"W": np.zeros((2, 3)), "b": np.zeros(3)}, "y": np.zeros(4)}
    flat = flatten(tree)
    assert list(flat) == ["x.W", "x.b", "y"]
    back = unflatten(flat)
    assert back["x"]["W"] is tree["x"]["W"]
    assert count_weights(tree) == 13
