"""lookup.py (§2): the soft lookup against its definition written out by hand, and its two
limits: beta = 0 is the plain mean, beta -> infinity the hard lookup (with the bound of
lookup_limit holding)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mathmachine.engine.lookup import hard_lookup, lookup_limit, soft_lookup

KEYS = [[1.0, 1.0], [1.0, -1.0], [-1.0, 1.0], [-1.0, -1.0]]
VALUES = [15.0, 25.0, 40.0, 20.0]


def by_hand(q: list[float], keys: list[list[float]], values: list[float], beta: float) -> float:
    scores = [sum(a * b for a, b in zip(q, k, strict=True)) for k in keys]
    exps = [math.exp(beta * s) for s in scores]
    return sum(e * v for e, v in zip(exps, values, strict=True)) / sum(exps)


@pytest.mark.parametrize("beta", [0.0, 0.5, 1.0, 2.0, 7.5])
@pytest.mark.parametrize("q", [[1.0, 0.5], [0.0, 0.0], [-0.3, 2.0], [1.0, 0.0]])
def test_the_blend_is_softmax_of_beta_times_the_dot_products(q: list[float], beta: float) -> None:
    got = soft_lookup(q, KEYS, VALUES, beta)
    assert got.scores.tolist() == [q[0] * k[0] + q[1] * k[1] for k in KEYS]
    assert math.isclose(float(got.weights.sum()), 1.0, abs_tol=1e-12)
    assert math.isclose(float(got.output), by_hand(q, KEYS, VALUES, beta), rel_tol=1e-12)


def test_beta_zero_and_equal_scores_give_the_plain_mean() -> None:
    mean = sum(VALUES) / len(VALUES)
    assert soft_lookup([1.0, 0.5], KEYS, VALUES, 0.0).output == pytest.approx(mean, abs=1e-12)
    assert soft_lookup([0.0, 0.0], KEYS, VALUES, 3.0).output == pytest.approx(mean, abs=1e-12)
    assert np.allclose(soft_lookup([0.0, 0.0], KEYS, VALUES).weights, 0.25, atol=1e-15)


def test_a_large_beta_gives_the_hard_lookup_and_the_bound_holds() -> None:
    rng = np.random.default_rng(2)
    for _ in range(50):
        keys = rng.standard_normal((5, 3))
        values = rng.standard_normal((5, 2))
        q = rng.standard_normal(3)
        hard = hard_lookup(q, keys, values)
        assert hard.best == (int(np.argmax(keys @ q)),)
        previous = math.inf
        for beta in (0.0, 1.0, 4.0, 16.0, 64.0, 256.0):
            err = float(np.abs(soft_lookup(q, keys, values, beta).output - hard.output).max())
            bound = lookup_limit(q, keys, values, beta)
            assert err <= bound + 1e-12
            assert bound <= previous  # the bound shrinks as beta grows
            previous = bound
        gap = np.sort(keys @ q)[-1] - np.sort(keys @ q)[-2]
        if gap > 0.1:  # a clear winner: at beta = 256 its value is reached
            assert err < 1e-9


def test_the_best_key_not_the_largest_value() -> None:
    # q = (1, 0.5) matches chai (1, 1) best: its price 15, not the largest price 40.
    hard = hard_lookup([1.0, 0.5], KEYS, VALUES)
    assert hard.best == (0,)
    assert float(hard.output) == 15.0
    assert float(soft_lookup([1.0, 0.5], KEYS, VALUES, 40.0).output) == pytest.approx(15, abs=1e-9)


def test_tied_keys_share_the_limit_evenly() -> None:
    # q = (1, 0): chai and coffee both score 1.
    hard = hard_lookup([1.0, 0.0], KEYS, VALUES)
    assert hard.best == (0, 1)
    assert float(hard.output) == 20.0
    soft = soft_lookup([1.0, 0.0], KEYS, VALUES, 50.0)
    assert soft.weights[:2] == pytest.approx([0.5, 0.5], abs=1e-12)
    assert float(soft.output) == pytest.approx(20.0, abs=1e-12)
    assert lookup_limit([0.0, 0.0], KEYS, VALUES, 3.0) == 0.0  # every key ties


def test_vector_values_blend_entry_by_entry() -> None:
    values = np.eye(4)
    got = soft_lookup([1.0, 0.5], KEYS, values, 1.0)
    assert np.allclose(got.output, got.weights, atol=1e-15)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (([1.0], KEYS, VALUES, 1.0), "the query has length 1 but each key has length 2"),
        (([1.0, 0.0], KEYS, VALUES[:3], 1.0), "4 keys but 3 values"),
        (([1.0, 0.0], KEYS, VALUES, -1.0), "beta must be a finite number >= 0"),
        (([1.0, 0.0], KEYS, VALUES, math.inf), "beta must be a finite number >= 0"),
        (([1.0, 0.0], KEYS, VALUES, "sharp"), "beta must be a number"),
        (([[1.0, 0.0]], KEYS, VALUES, 1.0), "the query must be one vector"),
        (([1.0, math.nan], KEYS, VALUES, 1.0), "the query contains NaN"),
        (([1.0, 0.0], [1.0, 1.0], VALUES, 1.0), "the keys must have at least 2"),
    ],
)
def test_bad_input_is_named(args: tuple, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        soft_lookup(*args)
