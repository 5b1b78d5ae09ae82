"""The standard normal distribution without scipy: Phi(x) to float64 accuracy, and the one-exp
GELU of float32 inference (Unit 18 §9: GELU(x) = x Phi(x), Hendrycks & Gimpel 2016).

numpy has no erf, and the engine depends on numpy alone, so Phi is computed here from a fitted
series; :mod:`.ops` uses it for the exact GELU and its slope. Nothing in this file is course
content: it is the numerical analysis that makes ``x * Phi(x)`` cheap and exact.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

Array = NDArray[np.floating[Any]]

__all__ = ["ERFCX_T32", "ERFCX_T64", "GELU_R32", "INV_SQRT_2PI", "cdf_and_gauss", "gelu_one_exp"]

# --------------------------------------------------------------------------------------------
# GELU (exact), via the scaled complementary error function erfcx(a) = exp(a^2) erfc(a)
#
# numpy has no erf. Phi(x) = erfc(-x / sqrt 2) / 2, and for a = |x| / sqrt 2 >= 0
#     erfc(a) = exp(-a^2) * erfcx(a),
# where erfcx is smooth and bounded on [0, inf). With t = (a - 3) / (a + 3), which maps [0, inf)
# onto [-1, 1), erfcx is a polynomial in t to float64 accuracy. The coefficients below are a
# least-squares Chebyshev fit of degree 30 (400 Chebyshev nodes, reference values from Python's
# math.erfc) truncated where its terms drop below 2e-16 (float64) or 1e-8 (float32) and turned into
# power-series form; tests/engine/test_layers.py re-checks them against math.erf on a dense grid
# (float64: |error| < 2e-15 on Phi). No masks, no branches: one Horner pass and one exp.

ERFCX_T64 = (
    0.17900115118139026,
    -0.32623356004303833,
    0.24560380171231638,
    -0.15011593650076732,
    0.07166583719817576,
    -0.02439249931818329,
    0.0042691363323096015,
    0.0007077464295759371,
    -0.0005970619525918967,
    4.5255379215085914e-05,
    6.405657988554209e-05,
    -1.2860906044673153e-05,
    -7.978143186888608e-06,
    2.1213050772872835e-06,
    1.2522571919692673e-06,
    -2.9655099056940894e-07,
    -2.3379944334236493e-07,
    3.1799502321957085e-08,
    4.5487977646415794e-08,
    -1.4603352929029116e-09,
    -7.608519183459934e-09,
    -1.3401131594151765e-10,
    7.544952057281845e-10,
)
ERFCX_T32 = (
    0.1790011536518545,
    -0.32623364583193026,
    0.24560362162714808,
    -0.1501141858485532,
    0.07166797533268425,
    -0.02440260496941361,
    0.004259766871334771,
    0.0007320455404061764,
    -0.0005781560562711012,
    1.839823546360184e-05,
    4.564088765529564e-05,
)
INV_SQRT2 = 1.0 / math.sqrt(2.0)
INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)


def cdf_and_gauss(x: Array) -> tuple[Array, Array]:
    """(Phi(x), exp(-x^2 / 2)) elementwise, in x's dtype."""
    if x.ndim == 0:
        phi, gauss = cdf_and_gauss(x.reshape(1))
        return phi.reshape(()), gauss.reshape(())
    f = x.dtype.type
    coefs = ERFCX_T32 if x.dtype == np.float32 else ERFCX_T64
    a = np.abs(x)
    a *= f(INV_SQRT2)
    t = a - f(3.0)
    t /= a + f(3.0)
    acc = np.full_like(t, coefs[-1])
    for c in coefs[-2::-1]:
        acc *= t
        acc += f(c)
    a *= a
    np.negative(a, out=a)
    gauss = np.exp(a, out=a)  # exp(-x^2/2)
    half_erfc = acc
    half_erfc *= gauss
    half_erfc *= f(0.5)  # = Phi(-|x|)
    # Phi = half_erfc where x < 0, else 1 - half_erfc. np.where costs ~3.5 ns an element (its
    # loop does not vectorise); a 0/1 blend takes a fifth of that and gives the same bits, since
    # one term is exactly 0: Phi = half_erfc * [x < 0] + (1 - half_erfc) * [x >= 0].
    neg = (x < 0).astype(x.dtype)
    phi = np.subtract(f(1.0), half_erfc)
    half_erfc *= neg
    np.subtract(f(1.0), neg, out=neg)
    phi *= neg
    phi += half_erfc
    return phi, gauss


# --------------------------------------------------------------------------------------------
# GELU in float32 for inference (the pretrained model): one exp instead of a 10-term series
#
#     x Phi(x) = x / (1 + exp(v(x))),   v(x) = ln(Phi(-x) / Phi(x)) = x R(x^2)
#
# exactly, since 1 / (1 + Phi(-x)/Phi(x)) = Phi(x). v is odd and smooth, so R is a smooth
# function of s = x^2: R(0) = -4 / sqrt(2 pi), and R(s) ~ -sqrt(s) / 2 for large s. The
# coefficients below are a degree-6 polynomial in s fitted to R on x in [0, 6] by weighted least
# squares (reference values from math.erfc in float64), the weights x^2 Phi (1 - Phi) being the
# factor by which an error in R reaches x Phi(x), reweighted toward the largest error (a few
# hundred rounds of iteratively reweighted least squares, i.e. near-minimax). Its own error on
# x Phi(x) is below 7e-8 * max(1, |x|); evaluated in float32 the total error is below 2e-7 *
# max(1, |x|) (the erfcx series above gets 1.1e-7; float32 rounding of x alone gives 1.1e-7).
# R's leading coefficient is negative and R has no root on s >= 0, so R < 0 everywhere: for
# large |x|, v = x R(x^2) runs to -inf (x > 0: exp -> 0, GELU -> x) or +inf (x < 0: exp -> inf,
# GELU -> -0), overflow included. tests/engine/test_layers.py checks all of this.
# 15 elementwise passes and one exp, against the series' ~30 passes, an exp and a blend.

GELU_R32 = (
    -1.5957684323397778,
    -0.0726685666865809,
    6.625973024794762e-05,
    0.00011048039360893405,
    -7.938229329857995e-06,
    2.668934575704203e-07,
    -3.6112470439565943e-09,
)


def gelu_one_exp(x: NDArray[np.float32]) -> NDArray[np.float32]:
    """x Phi(x) for float32 x (any shape) via x / (1 + exp(x R(x^2))); x is not modified."""
    f = np.float32
    with np.errstate(over="ignore"):  # huge |x|: x^2, R or exp overflow to inf, which is right
        s = np.multiply(x, x)
        acc = np.multiply(s, f(GELU_R32[-1]))
        acc += f(GELU_R32[-2])
        for c in GELU_R32[-3::-1]:
            acc *= s
            acc += f(c)
        del s
        acc *= x
        np.exp(acc, out=acc)
    acc += f(1.0)
    return np.divide(x, acc, out=acc)
