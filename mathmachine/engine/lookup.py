"""Attention as a soft lookup, with a sharpness (Unit 18 §2).

A dictionary is a hard lookup: the query must equal a key, and the answer is that key's value.
Attention softens it. The query q is compared with every key k_j, the scores are multiplied by a
sharpness beta (the inverse of a softmax temperature, beta = 1 / T), softmax turns them into
weights, and the answer is the weighted blend of the values:

    s_j = q . k_j,      alpha = softmax(beta * s),      out = sum_j alpha_j v_j.

Two limits (proved in :func:`lookup_limit`'s docstring and held by the tests):

- beta = 0: every weight is 1/n, the answer is the plain mean of the values;
- beta -> infinity: the weights pile up on the best-matching key(s), the answer is the hard
  lookup's (when several keys tie for the best score, the mean of their values).

Scaled dot-product attention (Vaswani et al. 2017, eq. 1) is this lookup with beta = 1/sqrt(d_k),
many queries at once, and keys and values made from the words themselves (§3, §4).

Shapes: q [d], keys [n, d], values [n] (numbers) or [n, d_v] (vectors).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ._checks import as_finite, same_last_dim
from .shares import softmax

__all__ = ["HardLookup", "SoftLookup", "hard_lookup", "lookup_limit", "soft_lookup"]

#: two scores closer than this (relative to the largest |score|, or absolutely below 1) are a tie
#: for the hard lookup: keys that tie share the limit evenly
TIE_TOLERANCE = 1e-12


@dataclass(frozen=True)
class SoftLookup:
    """One soft lookup: raw scores q . k_j [n], beta, weights [n] (sum to 1), output [] or [d_v]."""

    scores: NDArray[np.float64]
    beta: float
    weights: NDArray[np.float64]
    output: NDArray[np.float64]


@dataclass(frozen=True)
class HardLookup:
    """The hard lookup: the best-matching key(s) (indices, ascending) and their (mean) value."""

    best: tuple[int, ...]
    output: NDArray[np.float64]


def _keys_values(
    query: ArrayLike, keys: ArrayLike, values: ArrayLike
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    q = as_finite(query, "the query", min_ndim=1)
    if q.ndim != 1:
        raise ValueError(f"the query must be one vector (1-D), got shape {q.shape}")
    k = as_finite(keys, "the keys", min_ndim=2)
    if k.ndim != 2:
        raise ValueError(f"the keys must be a table [n, d], got shape {k.shape}")
    same_last_dim(q, k, "the query", "each key")
    v = as_finite(values, "the values", min_ndim=1)
    if v.ndim > 2:
        raise ValueError(f"the values must be numbers [n] or vectors [n, d_v], got {v.shape}")
    if v.shape[0] != k.shape[0]:
        raise ValueError(f"there are {k.shape[0]} keys but {v.shape[0]} values; they must match")
    return q, k, v


def _beta(beta: float) -> float:
    try:
        b = float(beta)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"beta must be a number, got {beta!r}") from exc
    if not np.isfinite(b) or b < 0:
        raise ValueError(f"beta must be a finite number >= 0, got {beta!r}")
    return b


def soft_lookup(
    query: ArrayLike, keys: ArrayLike, values: ArrayLike, beta: float = 1.0
) -> SoftLookup:
    """Weights softmax(beta * q . k_j) [n] and the blend of the values they make.

    ``beta`` >= 0 is the sharpness: 0 gives equal weights, a large one the hard lookup.
    """
    q, k, v = _keys_values(query, keys, values)
    b = _beta(beta)
    scores = k @ q  # [n]
    weights = np.asarray(softmax(b * scores), dtype=np.float64)  # [n]
    return SoftLookup(scores=scores, beta=b, weights=weights, output=weights @ v)


def hard_lookup(query: ArrayLike, keys: ArrayLike, values: ArrayLike) -> HardLookup:
    """The value of the key with the largest score q . k_j; the mean of the values on a tie."""
    q, k, v = _keys_values(query, keys, values)
    scores = k @ q  # [n]
    top = float(scores.max())
    tol = TIE_TOLERANCE * max(1.0, abs(top))
    best = tuple(int(j) for j in np.flatnonzero(scores >= top - tol))
    return HardLookup(best=best, output=v[list(best)].mean(axis=0))


def lookup_limit(query: ArrayLike, keys: ArrayLike, values: ArrayLike, beta: float) -> float:
    """An upper bound on |soft_lookup(beta).output - hard_lookup.output| (max over entries).

    Why beta -> infinity is the hard lookup: divide the top and bottom of softmax by
    exp(beta * s_max). A key with score s_j < s_max keeps exp(-beta (s_max - s_j)), which
    goes to 0; the m tied best keys keep 1 each, so their weights go to 1/m. Every losing key
    has weight at most exp(-beta * gap) / m, where gap = s_max - (the best losing score), and
    the weight missing from the winners is the sum of the losers'. So the output is off by at
    most 2 * (n - m) * exp(-beta * gap) / m * max|v|: the bound returned (0 when every key ties).
    """
    q, k, v = _keys_values(query, keys, values)
    b = _beta(beta)
    hard = hard_lookup(q, k, v)
    m, n = len(hard.best), k.shape[0]
    if m == n:
        return 0.0
    scores = k @ q
    losers = np.delete(scores, list(hard.best))
    gap = float(scores.max() - losers.max())
    return 2.0 * (n - m) * float(np.exp(-b * gap)) / m * float(np.abs(v).max())
