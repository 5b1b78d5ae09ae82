"""Self-attention worked step by step, every intermediate kept (Unit 18 §3).

Every word plays all three roles of the soft lookup (§2). The words' vectors are the rows of X
[n, d]; three weight matrices make each word a query, a key and a value:

    Q = X W_Q [n, d_k],   K = X W_K [n, d_k],   V = X W_V [n, d_v]
    S = Q K^T [n, n]      (S_ij: how well word i's question fits word j's label)
    A = softmax_rows(S)   (each row sums to 1)
    out = A V [n, d_v]    (word i's new vector: the blend of the values by its row of A)

§3 teaches the plain S = Q K^T; §4 then divides it by sqrt(d_k), which is what transformers do
(Vaswani et al. 2017, eq. 1): ``scaled=True`` gives exactly :func:`.attention.attention`'s
weights and output, and the tests hold the two to each other.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ._checks import as_finite
from .shares import softmax

__all__ = ["SelfAttentionSteps", "self_attention_shapes", "self_attention_steps"]


@dataclass(frozen=True)
class SelfAttentionSteps:
    """Every stage of one self-attention: q, k [n, d_k], v [n, d_v], scores and weights [n, n],
    output [n, d_v]; ``scale`` is the number the scores were multiplied by before the softmax
    (1, or 1/sqrt(d_k) when scaled)."""

    x: NDArray[np.float64]
    q: NDArray[np.float64]
    k: NDArray[np.float64]
    v: NDArray[np.float64]
    scores: NDArray[np.float64]
    scale: float
    weights: NDArray[np.float64]
    output: NDArray[np.float64]


def _matrix(a: ArrayLike, name: str) -> NDArray[np.float64]:
    m = as_finite(a, name, min_ndim=2)
    if m.ndim != 2:
        raise ValueError(f"{name} must be a matrix (2-D), got shape {m.shape}")
    return m


def checked_inputs(
    x: ArrayLike, W_q: ArrayLike, W_k: ArrayLike, W_v: ArrayLike
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """x [n, d] and the three matrices as float arrays, or a ValueError that names the one that
    does not fit (each W has d rows; W_Q and W_K make queries and keys of the same length)."""
    xa = _matrix(x, "X (one row per word)")
    wq, wk, wv = _matrix(W_q, "W_Q"), _matrix(W_k, "W_K"), _matrix(W_v, "W_V")
    d = xa.shape[1]
    for name, w in (("W_Q", wq), ("W_K", wk), ("W_V", wv)):
        if w.shape[0] != d:
            raise ValueError(
                f"{name} has {w.shape[0]} rows but each word's vector has {d} entries; "
                "they must match"
            )
    if wq.shape[1] != wk.shape[1]:
        raise ValueError(
            f"W_Q makes queries of length {wq.shape[1]} but W_K makes keys of length "
            f"{wk.shape[1]}; a query and a key must have the same length"
        )
    return xa, wq, wk, wv


def self_attention_steps(
    x: ArrayLike,
    W_q: ArrayLike,
    W_k: ArrayLike,
    W_v: ArrayLike,
    *,
    scaled: bool = False,
) -> SelfAttentionSteps:
    """x [n, d], W_q and W_k [d, d_k], W_v [d, d_v] -> every stage (see the module docstring).

    ``scaled=False`` (§3): weights = softmax(Q K^T); ``scaled=True`` (§4 on): softmax(Q K^T /
    sqrt(d_k)).
    """
    xa, wq, wk, wv = checked_inputs(x, W_q, W_k, W_v)
    q, k, v = xa @ wq, xa @ wk, xa @ wv  # [n, d_k], [n, d_k], [n, d_v]
    scores = q @ k.T  # [n, n]
    scale = 1.0 / math.sqrt(q.shape[1]) if scaled else 1.0
    weights = np.asarray(
        softmax(scale * scores, axis=-1), dtype=np.float64
    )  # [n, n], rows sum to 1
    return SelfAttentionSteps(
        x=xa, q=q, k=k, v=v, scores=scores, scale=scale, weights=weights, output=weights @ v
    )


def self_attention_shapes(n: int, d: int, d_k: int, d_v: int) -> dict[str, tuple[int, int]]:
    """The shape of every stage for n words of width d: X, W_Q, W_K, W_V, Q, K, V, scores,
    weights, output (rows, columns)."""
    for name, value in (("n", n), ("d", d), ("d_k", d_k), ("d_v", d_v)):
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise ValueError(f"{name} must be a positive whole number, got {value!r}")
    return {
        "X": (n, d),
        "W_Q": (d, d_k),
        "W_K": (d, d_k),
        "W_V": (d, d_v),
        "Q": (n, d_k),
        "K": (n, d_k),
        "V": (n, d_v),
        "scores": (n, n),
        "weights": (n, n),
        "output": (n, d_v),
    }
