"""Why scores are divided by sqrt(d), and what a saturated softmax does (Unit 18 §4).

Vaswani et al. (2017, §3.2.1, footnote 4): if the entries of q and k are independent with mean
0 and variance 1, then q . k = sum_i q_i k_i has mean 0 and variance d_k. Large scores push the
softmax into regions where its slope is tiny; dividing by sqrt(d_k) brings the variance back
to 1.

- :func:`dot_product_variance` is the closed form Var(q . k) = d var(q_i) var(k_i);
- :func:`sign_sum_distribution` is the exact case of random signs (+1 or -1), small enough to
  count by hand: the sum of d random signs has variance d;
- :func:`dot_product_samples` draws q . k for many random pairs, with a generator simple enough
  that the widget's JavaScript reproduces it (mulberry32, Box-Muller; static/widgets/math.js),
  so the page's histograms and the engine's agree;
- :func:`softmax_slope` is the softmax's Jacobian d alpha_i / d s_j = alpha_i (delta_ij -
  alpha_j) at a row of scores, and :func:`slope_size` its largest entry, max_i alpha_i (1 -
  alpha_i), which goes to 0 as one weight goes to 1.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ._checks import as_finite
from .shares import softmax, softmax_jacobian

__all__ = [
    "DotProductSamples",
    "Histogram",
    "dot_product_samples",
    "dot_product_variance",
    "histogram",
    "mulberry32",
    "normal_stream",
    "sign_sum_distribution",
    "slope_size",
    "softmax_slope",
]

_GOLDEN_GAMMA = np.uint32(0x6D2B79F5)  # mulberry32's increment (Tommy Ettinger's constant)


def _positive_int(value: int, name: str, *, most: int | None = None) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ValueError(f"{name} must be a positive whole number, got {value!r}")
    if most is not None and value > most:
        raise ValueError(f"{name} must be at most {most}, got {value}")
    return value


def _seed(seed: int) -> np.uint32:
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**32:
        raise ValueError(f"seed must be a whole number from 0 to 2**32 - 1, got {seed!r}")
    return np.uint32(seed)


# --------------------------------------------------------------------------------------------
# closed forms


def dot_product_variance(d: int, var_q: float = 1.0, var_k: float = 1.0) -> float:
    """Var(q . k) for q, k of length d with independent, mean-0 entries: d * var_q * var_k.

    Each product q_i k_i has mean E[q_i] E[k_i] = 0 and variance E[q_i^2] E[k_i^2] = var_q
    var_k; the d products are independent, so their variances add.
    """
    _positive_int(d, "d")
    for name, var in (("var_q", var_q), ("var_k", var_k)):
        if not (isinstance(var, int | float) and math.isfinite(var) and var >= 0):
            raise ValueError(f"{name} must be a finite number >= 0, got {var!r}")
    return float(d) * float(var_q) * float(var_k)


def sign_sum_distribution(d: int) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
    """The exact distribution of q . k when every q_i and k_i is +1 or -1 with equal chance.

    Each product q_i k_i is then itself +1 or -1 with equal chance, so q . k is the sum of d
    fair signs: the value d - 2m (m of the d products are -1) has probability C(d, m) / 2^d.
    Returns (values [d + 1], ascending; probabilities [d + 1], summing to 1). Its mean is 0 and
    its variance d.
    """
    _positive_int(d, "d", most=1024)
    m = np.arange(d, -1, -1)  # m = d .. 0 minus signs -> values -d .. d
    counts = np.array([math.comb(d, int(j)) for j in m], dtype=np.float64)
    return (d - 2 * m).astype(np.int64), counts / 2.0**d


# --------------------------------------------------------------------------------------------
# random draws the widget can reproduce


def mulberry32(seed: int, count: int) -> NDArray[np.float64]:
    """``count`` uniform numbers in [0, 1) from mulberry32 (a 32-bit counter-based generator).

    The i-th output (i = 0, 1, ...) hashes the counter seed + (i + 1) * 0x6D2B79F5 (mod 2^32):
    t ^= t >> 15, t *= t | 1; t ^= t + (t ^ t >> 7) * (t | 61); t ^= t >> 14; t / 2^32. All in
    exact 32-bit integer arithmetic, so JavaScript's Math.imul version gives the same bits.
    """
    _positive_int(count, "count", most=2**26)
    with np.errstate(over="ignore"):
        i = np.arange(1, count + 1, dtype=np.uint64).astype(np.uint32)
        t = _seed(seed) + i * _GOLDEN_GAMMA  # [count] uint32, wraps mod 2^32
        t = (t ^ (t >> np.uint32(15))) * (t | np.uint32(1))
        t = t ^ (t + (t ^ (t >> np.uint32(7))) * (t | np.uint32(61)))
        t = t ^ (t >> np.uint32(14))
    return t.astype(np.float64) / 4294967296.0


def normal_stream(seed: int, count: int) -> NDArray[np.float64]:
    """``count`` (even) standard normal numbers: Box-Muller on mulberry32's pairs.

    Uniforms u_{2m}, u_{2m+1} give r = sqrt(-2 ln(1 - u_{2m})), theta = 2 pi u_{2m+1} and the
    two normals r cos(theta), r sin(theta) at positions 2m and 2m + 1 (1 - u keeps ln away from 0).
    """
    _positive_int(count, "count", most=2**26)
    if count % 2:
        raise ValueError(f"count must be even (normals come in pairs), got {count}")
    u = mulberry32(seed, count).reshape(-1, 2)  # [count / 2, 2]
    r = np.sqrt(-2.0 * np.log(1.0 - u[:, 0]))
    theta = 2.0 * math.pi * u[:, 1]
    z = np.empty((count // 2, 2))
    z[:, 0] = r * np.cos(theta)
    z[:, 1] = r * np.sin(theta)
    return z.reshape(-1)


@dataclass(frozen=True)
class DotProductSamples:
    """q . k for ``n`` random pairs at each width in ``dims``: ``dots`` [len(dims), n].

    Pair s uses normals [s * 2D, (s + 1) * 2D) of :func:`normal_stream` (D = max(dims)): q is
    the first D, k the next D, and q . k at width d sums the first d products in order.
    """

    seed: int
    dims: tuple[int, ...]
    dots: NDArray[np.float64]

    def scaled(self) -> NDArray[np.float64]:
        """q . k / sqrt(d), each row divided by the square root of its width [len(dims), n]."""
        return self.dots / np.sqrt(np.asarray(self.dims, dtype=np.float64))[:, None]

    def variances(self, *, scaled: bool = False) -> NDArray[np.float64]:
        """The measured variance at each width: the mean of (x - mean)^2 over the n draws."""
        x = self.scaled() if scaled else self.dots
        return np.mean((x - x.mean(axis=1, keepdims=True)) ** 2, axis=1)


def dot_product_samples(seed: int, n: int, dims: tuple[int, ...]) -> DotProductSamples:
    """Draw q . k for ``n`` pairs of random normal vectors, at every width d in ``dims``."""
    _positive_int(n, "n", most=20_000)
    if not dims:
        raise ValueError("dims is empty: give at least one width d")
    ds = tuple(_positive_int(d, "each width d", most=4096) for d in dims)
    top = max(ds)
    if n * 2 * top > 2**26:
        raise ValueError(f"{n} pairs of width {top} is too many numbers to draw at once")
    z = normal_stream(seed, n * 2 * top).reshape(n, 2, top)  # [n, q|k, D]
    partial = np.cumsum(z[:, 0, :] * z[:, 1, :], axis=1)  # [n, D], in order, as the JS sums
    dots = partial[:, [d - 1 for d in ds]].T  # [len(dims), n]
    return DotProductSamples(seed=int(_seed(seed)), dims=ds, dots=np.ascontiguousarray(dots))


@dataclass(frozen=True)
class Histogram:
    """``counts`` [bins] over equal bins from ``lo`` to ``hi``, and the draws outside them."""

    lo: float
    hi: float
    counts: NDArray[np.int64]
    below: int
    above: int


def histogram(x: ArrayLike, lo: float, hi: float, bins: int) -> Histogram:
    """Counts of x in ``bins`` equal bins [lo, hi); bin b holds lo + b w <= x < lo + (b + 1) w.

    A value's bin is floor((x - lo) / w), computed the way the widget's JavaScript does.
    """
    xa = as_finite(x, "x", min_ndim=1).reshape(-1)
    _positive_int(bins, "bins", most=1000)
    if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
        raise ValueError(f"need finite lo < hi, got lo={lo!r}, hi={hi!r}")
    width = (hi - lo) / bins
    b = np.floor((xa - lo) / width)
    inside = (b >= 0) & (b < bins)
    counts = np.bincount(b[inside].astype(np.int64), minlength=bins)
    return Histogram(
        lo=float(lo),
        hi=float(hi),
        counts=counts,
        below=int(np.sum(b < 0)),
        above=int(np.sum(b >= bins)),
    )


# --------------------------------------------------------------------------------------------
# the softmax's slope


def softmax_slope(scores: ArrayLike) -> NDArray[np.float64]:
    """The Jacobian of softmax at one row of scores [n] -> [n, n]: alpha_i (delta_ij - alpha_j)."""
    s = as_finite(scores, "scores", min_ndim=1)
    if s.ndim != 1:
        raise ValueError(f"scores must be one row (1-D), got shape {s.shape}")
    return softmax_jacobian(softmax(s))


def slope_size(scores: ArrayLike) -> float:
    """The largest entry of the softmax's slope in absolute value: max_i alpha_i (1 - alpha_i).

    The diagonal alpha_i (1 - alpha_i) is the largest, since alpha_i alpha_j <= alpha_i (1 -
    alpha_i) whenever alpha_j <= 1 - alpha_i. At most 1/4 (two equal weights of 1/2); close to 0
    when one weight is close to 1 (a saturated softmax).
    """
    return float(np.abs(softmax_slope(scores)).max())
