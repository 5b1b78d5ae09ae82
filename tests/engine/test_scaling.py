"""scaling.py (§4): Var(q . k) = d against exact enumeration and against draws; mulberry32
against the reference JavaScript's outputs; the softmax slope against finite differences."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from mathmachine.engine.scaling import (
    dot_product_samples,
    dot_product_variance,
    histogram,
    mulberry32,
    normal_stream,
    sign_sum_distribution,
    slope_size,
    softmax_slope,
)
from mathmachine.engine.shares import softmax

DIMS = tuple(2**k for k in range(11))


def test_mulberry32_gives_the_reference_javascripts_numbers() -> None:
    # Printed by the canonical JavaScript (a += 0x6D2B79F5; Math.imul ...) under Node.
    assert mulberry32(0, 4).tolist() == [
        0.26642920868471265,
        0.0003297457005828619,
        0.2232720274478197,
        0.1462021479383111,
    ]
    assert mulberry32(4294967295, 2).tolist() == [0.8964226141106337, 0.189478256739676]
    assert mulberry32(18, 3).tolist() == mulberry32(18, 10).tolist()[:3]


def test_normals_have_mean_0_and_variance_1() -> None:
    z = normal_stream(7, 400_000)
    # 400k draws: the standard errors of the mean and variance are ~0.0016 and ~0.0022.
    assert abs(float(z.mean())) < 0.008
    assert abs(float(z.var()) - 1.0) < 0.011
    assert abs(float(np.mean(z**4)) - 3.0) < 0.06  # a normal's fourth moment


@pytest.mark.parametrize("d", [1, 2, 3, 4, 7])
def test_random_signs_counted_exactly_have_variance_d(d: int) -> None:
    values, probs = sign_sum_distribution(d)
    assert math.isclose(float(probs.sum()), 1.0, abs_tol=1e-15)
    assert float(probs @ values) == 0.0
    assert math.isclose(float(probs @ values.astype(float) ** 2), d, rel_tol=1e-12)
    assert dot_product_variance(d) == d
    if d <= 4:  # enumerate every sign pattern of q and of k
        sums = [
            sum(a * b for a, b in zip(q, k, strict=True))
            for q in itertools.product((1, -1), repeat=d)
            for k in itertools.product((1, -1), repeat=d)
        ]
        for v, p in zip(values, probs, strict=True):
            assert sums.count(int(v)) / len(sums) == p


def test_the_variance_scales_with_both_variances() -> None:
    assert dot_product_variance(64) == 64.0
    assert dot_product_variance(64, 0.25, 4.0) == 64.0
    assert dot_product_variance(10, 2.0, 3.0) == 60.0
    with pytest.raises(ValueError, match="var_q must be a finite number >= 0"):
        dot_product_variance(4, -1.0)


def test_draws_are_the_sums_of_the_first_d_products() -> None:
    got = dot_product_samples(5, 3, (1, 2, 4))
    z = normal_stream(5, 3 * 2 * 4).reshape(3, 2, 4)
    for s in range(3):
        for row, d in enumerate((1, 2, 4)):
            assert got.dots[row, s] == pytest.approx(float(z[s, 0, :d] @ z[s, 1, :d]), abs=1e-12)
    assert np.allclose(got.scaled()[2], got.dots[2] / 2.0)


def test_measured_variances_follow_d_and_scaling_brings_them_to_1() -> None:
    draws = dot_product_samples(11, 4000, DIMS)
    raw, scaled = draws.variances(), draws.variances(scaled=True)
    # Var of a sample variance of q.k (4th moment 3d^2 + 6d): about (2d^2 + 8d) / n; allow
    # 4.5 standard errors, so a variance of d/2 or 2d (a wrong formula) always fails.
    for d, r, s in zip(DIMS, raw, scaled, strict=True):
        se = math.sqrt((2 * d * d + 8 * d) / 4000)
        assert abs(r - d) < 4.5 * se, (d, r)
        assert abs(s - 1.0) < 4.5 * se / d, (d, s)


def test_histogram_bins_like_numpy_and_counts_the_outside() -> None:
    x = np.array([-5.0, -4.0, -3.9, 0.0, 0.5, 3.99, 4.0, 9.0])
    h = histogram(x, -4.0, 4.0, 8)
    ref, _ = np.histogram(x[(x >= -4) & (x < 4)], bins=8, range=(-4, 4))
    assert h.counts.tolist() == ref.tolist()
    assert (h.below, h.above) == (1, 2)
    assert int(h.counts.sum()) + h.below + h.above == x.size
    with pytest.raises(ValueError, match="need finite lo < hi"):
        histogram(x, 1.0, 1.0, 4)


def test_softmax_slope_is_the_finite_difference_jacobian() -> None:
    rng = np.random.default_rng(6)
    for n in (2, 3, 5):
        s = rng.standard_normal(n) * 2
        h = 1e-6
        num = np.empty((n, n))
        for j in range(n):
            e = np.zeros(n)
            e[j] = h
            num[:, j] = (softmax(s + e) - softmax(s - e)) / (2 * h)
        assert np.allclose(softmax_slope(s), num, rtol=0, atol=1e-9)
        a = softmax(s)
        assert slope_size(s) == pytest.approx(float(np.max(a * (1 - a))), abs=1e-15)


def test_spreading_scores_flattens_the_slope() -> None:
    row = np.array([-1.0, 1.0, 0.0])
    sizes = [slope_size(c * row) for c in (0.0, 1.0, 2.0, 4.0, 8.0, 16.0)]
    assert sizes[0] == pytest.approx(2 / 9, abs=1e-15)  # 1/3 (1 - 1/3)
    assert all(b < a for a, b in itertools.pairwise(sizes[1:]))
    assert sizes[-1] < 1e-6
    assert slope_size([0.0, 0.0]) == 0.25  # the largest a slope can be


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: mulberry32(-1, 3), "seed must be a whole number"),
        (lambda: normal_stream(1, 3), "count must be even"),
        (lambda: dot_product_samples(1, 10, ()), "dims is empty"),
        (lambda: dot_product_samples(1, 10, (0,)), "each width d must be a positive"),
        (lambda: softmax_slope([[1.0, 2.0]]), "scores must be one row"),
        (lambda: sign_sum_distribution(0), "d must be a positive whole number"),
    ],
)
def test_bad_input_is_named(call, message: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match=message):
        call()
