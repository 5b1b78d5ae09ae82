"""Softmax and its slope (Unit 14; Bahdanau, Cho & Bengio 2015 use it to turn scores into shares).

softmax(x)_i = exp(x_i - max x) / sum_j exp(x_j - max x): subtracting the maximum changes nothing
mathematically and keeps exp() from overflowing for large inputs. This is the checked entry to
the engine's one softmax, :func:`.ops.softmax`, which attention runs on its scores too.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from . import ops
from ._checks import as_finite


def softmax(x: ArrayLike, axis: int = -1) -> NDArray[np.floating]:
    """Stable softmax along ``axis``. Shape in = shape out. ``-inf`` entries get weight exactly 0.

    float32 input gives float32 output; any other input is computed in float64.

    A row that is entirely ``-inf`` (nothing may be looked at) is an error, not NaN.
    """
    arr = np.asarray(x)
    # our own copy, which the softmax overwrites; float32 stays float32, all else float64
    arr = np.array(arr, dtype=np.float32 if arr.dtype == np.float32 else np.float64)
    if arr.size == 0:
        raise ValueError("softmax of an empty array")
    if np.any(np.isnan(arr)) or np.any(np.isposinf(arr)):
        raise ValueError("softmax input contains NaN or +infinity")
    if np.any(np.isneginf(np.max(arr, axis=axis))):
        raise ValueError("softmax row is entirely -infinity: every position is masked")
    return ops.softmax(arr, axis)


def softmax_jacobian(weights: ArrayLike) -> NDArray[np.float64]:
    """d alpha_i / d s_j = alpha_i (delta_ij - alpha_j), for one row of weights [n] -> [n, n]."""
    a = as_finite(weights, "weights", min_ndim=1)
    if a.ndim != 1:
        raise ValueError(f"weights must be one row (1-D), got shape {a.shape}")
    return np.diag(a) - np.outer(a, a)


def shares_rounded(weights: ArrayLike, places: int = 3) -> NDArray[np.int64]:
    """Rows of weights (each summing to 1) in whole units of 10^-places that still sum to exactly
    10^places: every entry rounded down, then the units left over given, one each, to the entries
    that lost the most (largest remainders, Hamilton's rule). Each entry stays within one unit
    of its exact value. [..., n] -> [..., n] integers; divide by 10^places to print."""
    w = as_finite(weights, "weights", min_ndim=1)
    if np.any(w < 0):
        raise ValueError("weights must not be negative")
    if not isinstance(places, int) or not 0 <= places <= 9:
        raise ValueError(f"places must be a whole number 0..9, got {places!r}")
    scale = 10**places
    w = w / w.sum(axis=-1, keepdims=True)  # float32 rows sum to 1 within ~1e-7: make it exact
    exact = w * scale
    low = np.floor(exact).astype(np.int64)
    short = scale - low.sum(axis=-1, keepdims=True)  # units still to give, 0..n-1 per row
    order = np.argsort(-(exact - low), axis=-1, kind="stable")
    rank = np.argsort(order, axis=-1, kind="stable")  # each entry's place in that order
    return low + (rank < short)
