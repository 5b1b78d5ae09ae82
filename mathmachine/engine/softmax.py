"""Softmax and its slope (Unit 14; Bahdanau, Cho & Bengio 2015 use it to turn scores into shares).

softmax(x)_i = exp(x_i - max x) / sum_j exp(x_j - max x): subtracting the maximum changes nothing
mathematically and keeps exp() from overflowing for large inputs.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ._checks import as_finite


def softmax(x: ArrayLike, axis: int = -1) -> NDArray[np.floating]:
    """Stable softmax along ``axis``. Shape in = shape out. ``-inf`` entries get weight exactly 0.

    float32 input gives float32 output; any other input is computed in float64.

    A row that is entirely ``-inf`` (nothing may be looked at) is an error, not NaN.
    """
    arr = np.asarray(x)
    if arr.dtype != np.float32:  # float32 stays float32 (the pretrained model); all else float64
        arr = arr.astype(np.float64)
    if arr.size == 0:
        raise ValueError("softmax of an empty array")
    if np.any(np.isnan(arr)) or np.any(np.isposinf(arr)):
        raise ValueError("softmax input contains NaN or +infinity")
    top = np.max(arr, axis=axis, keepdims=True)
    if np.any(np.isneginf(top)):
        raise ValueError("softmax row is entirely -infinity: every position is masked")
    return softmax_inplace(arr - top, axis, shifted=True)


def softmax_inplace(
    s: NDArray[np.floating], axis: int = -1, *, shifted: bool = False
) -> NDArray[np.floating]:
    """Softmax of the float array ``s`` along ``axis``, written over ``s`` and returned.

    For scores the engine made itself (attention): no checks, no copies, four passes (max,
    subtract, exp, sum) and a division, the same operations as :func:`softmax`, so the same
    bits. The caller guarantees what :func:`softmax` checks: ``s`` is non-empty, has no NaN or
    +inf, and no row is entirely -inf (a NaN or inf that slips through comes out as NaN, which
    the engine's output check turns into a ValueError). ``shifted=True`` says the row maxima
    were already subtracted.
    """
    if not shifted:
        np.subtract(s, np.max(s, axis=axis, keepdims=True), out=s)
    np.exp(s, out=s)
    s /= np.add.reduce(s, axis=axis, keepdims=True)
    return s


def softmax_jacobian(weights: ArrayLike) -> NDArray[np.float64]:
    """d alpha_i / d s_j = alpha_i (delta_ij - alpha_j), for one row of weights [n] -> [n, n]."""
    a = as_finite(weights, "weights", min_ndim=1)
    if a.ndim != 1:
        raise ValueError(f"weights must be one row (1-D), got shape {a.shape}")
    return np.diag(a) - np.outer(a, a)


#: scores below this never need shifting: exp(-60) ~ 8.8e-27 is a normal float32, so every term
#: and every row sum keeps full precision
_LOWEST_UNSHIFTED = -60.0


def softmax_rows_fast(s: NDArray[np.floating]) -> NDArray[np.floating]:
    """Softmax over the last axis of ``s``, in place, for inference on the engine's own scores.

    Subtracting each row's maximum exists only to keep exp() from overflowing (and a row from
    underflowing to 0 / 0); finding the row maxima along a short last axis is numpy's slowest
    reduction (~0.55 ns a score, more than the exp). So when two whole-array reductions
    (~0.05 ns a score each) show every score in [-60, ln(max float) - ln(n_k) - 1], where no
    exp and no row sum can overflow and every term stays a normal number, the shift is skipped;
    the row sums are taken as one matrix-vector product (BLAS, ~4x faster than the reduction).
    Otherwise, or for a non-contiguous ``s``, it is :func:`softmax_inplace`. Either way the
    result equals the shifted softmax to float rounding. Inputs as for :func:`softmax_inplace`
    (no NaN checks; -inf entries take the shifted path and come out exactly 0).
    """
    n = s.shape[-1]
    if s.size == 0 or not s.flags.c_contiguous:
        return softmax_inplace(s)
    highest = math.log(float(np.finfo(s.dtype).max)) - math.log(n) - 1.0
    lo, hi = float(np.min(s)), float(np.max(s))
    if not (lo >= _LOWEST_UNSHIFTED and hi <= highest):  # also False for NaN
        return softmax_inplace(s)
    np.exp(s, out=s)
    rows = s.reshape(-1, n)
    rows /= (rows @ np.ones(n, dtype=s.dtype))[:, None]
    return s
