"""The three classic attention scores.

- dot:      score(q, h) = q . h                       (Luong, Pham & Manning 2015)
- general:  score(q, h) = q^T W h                     (Luong, Pham & Manning 2015)
- additive: score(q, h) = v^T tanh(W1 h + W2 q)       (Bahdanau, Cho & Bengio 2015)

Shapes: q [d_q] (or [..., d_q]); h, the notes, [n, d_h]; result [n] (or [..., n]).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ._checks import as_finite, same_last_dim


def dot_scores(q: ArrayLike, h: ArrayLike) -> NDArray[np.float64]:
    """q [..., d], h [n, d] -> scores [..., n]."""
    qa = as_finite(q, "q", min_ndim=1)
    ha = as_finite(h, "h (the notes)", min_ndim=2)
    same_last_dim(qa, ha, "q", "each note h_j")
    return qa @ ha.T


def general_scores(q: ArrayLike, h: ArrayLike, W: ArrayLike) -> NDArray[np.float64]:
    """q [..., d_q], h [n, d_h], W [d_q, d_h] -> scores [..., n] = q^T W h_j."""
    qa = as_finite(q, "q", min_ndim=1)
    ha = as_finite(h, "h (the notes)", min_ndim=2)
    Wa = as_finite(W, "W", min_ndim=2)
    if Wa.shape != (qa.shape[-1], ha.shape[-1]):
        raise ValueError(
            f"W must have shape ({qa.shape[-1]}, {ha.shape[-1]}) to compare q of length "
            f"{qa.shape[-1]} with notes of length {ha.shape[-1]}, got {Wa.shape}"
        )
    return (qa @ Wa) @ ha.T


def additive_scores(
    q: ArrayLike, h: ArrayLike, W1: ArrayLike, W2: ArrayLike, v: ArrayLike
) -> NDArray[np.float64]:
    """q [d_q], h [n, d_h], W1 [a, d_h], W2 [a, d_q], v [a] -> scores [n].

    score_j = v . tanh(W1 h_j + W2 q).
    """
    qa = as_finite(q, "q", min_ndim=1)
    ha = as_finite(h, "h (the notes)", min_ndim=2)
    W1a = as_finite(W1, "W1", min_ndim=2)
    W2a = as_finite(W2, "W2", min_ndim=2)
    va = as_finite(v, "v", min_ndim=1)
    if W1a.shape[1] != ha.shape[-1]:
        raise ValueError(f"W1 has {W1a.shape[1]} columns but each note has length {ha.shape[-1]}")
    if W2a.shape[1] != qa.shape[-1]:
        raise ValueError(f"W2 has {W2a.shape[1]} columns but q has length {qa.shape[-1]}")
    if not (W1a.shape[0] == W2a.shape[0] == va.shape[-1]):
        raise ValueError(
            f"W1 ({W1a.shape[0]} rows), W2 ({W2a.shape[0]} rows) and v (length {va.shape[-1]}) "
            "must agree on the hidden size"
        )
    hidden = np.tanh(ha @ W1a.T + (qa @ W2a.T)[..., None, :])  # [..., n, a]
    return hidden @ va
