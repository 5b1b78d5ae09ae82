"""The decoder's look-back: attention as Bahdanau, Cho & Bengio (2015) introduced it (Unit 18 §1).

Before writing output word t the decoder scores every encoder note h_j against its state q_t,
turns the scores into shares with softmax and blends the notes:

    alpha_tj = softmax_j(score(q_t, h_j)),      c_t = sum_j alpha_tj h_j.

Stacking the rows alpha_t. for every output word gives the alignment map [n_out, n_in].
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ._checks import as_finite, same_last_dim
from .scores import dot_scores
from .shares import softmax


@dataclass(frozen=True)
class LookBack:
    """One look back: scores [n], weights [n] (sum to 1), context [d]."""

    scores: NDArray[np.float64]
    weights: NDArray[np.floating]
    context: NDArray[np.float64]


def context_vector(weights: ArrayLike, h: ArrayLike) -> NDArray[np.float64]:
    """weights [..., n], notes h [n, d] -> context [..., d] = sum_j weights_j h_j."""
    w = as_finite(weights, "weights", min_ndim=1)
    ha = as_finite(h, "h (the notes)", min_ndim=2)
    if w.shape[-1] != ha.shape[0]:
        raise ValueError(
            f"there are {w.shape[-1]} weights but {ha.shape[0]} notes; they must match"
        )
    return w @ ha


def look_back(q: ArrayLike, h: ArrayLike) -> LookBack:
    """Dot-product look-back for one decoder state q [d] over notes h [n, d]."""
    s = dot_scores(q, h)
    if s.ndim != 1:
        raise ValueError("look_back takes one decoder state q (1-D); use alignment_map for several")
    w = softmax(s)
    return LookBack(scores=s, weights=w, context=context_vector(w, h))


def alignment_map(states: ArrayLike, h: ArrayLike) -> NDArray[np.floating]:
    """Decoder states [n_out, d], notes h [n_in, d] -> weights [n_out, n_in]; each row sums to 1."""
    qs = as_finite(states, "decoder states", min_ndim=2)
    ha = as_finite(h, "h (the notes)", min_ndim=2)
    same_last_dim(qs, ha, "each decoder state", "each note h_j")
    return softmax(qs @ ha.T, axis=-1)


def context_gradient(q: ArrayLike, h: ArrayLike, j: int) -> NDArray[np.float64]:
    """dc/dh_j [d, d] for dot-product scores: alpha_j (I + (h_j - c) q^T).

    Entry [a, b] is d c_a / d (h_j)_b. Derived in §1's proof from the softmax slope
    d alpha_i / d s_j = alpha_i (delta_ij - alpha_j).
    """
    qa = as_finite(q, "q", min_ndim=1)
    ha = as_finite(h, "h (the notes)", min_ndim=2)
    if not 0 <= j < ha.shape[0]:
        raise ValueError(f"note index j={j} is outside 0..{ha.shape[0] - 1}")
    lb = look_back(qa, ha)
    d = ha.shape[1]
    return lb.weights[j] * (np.eye(d) + np.outer(ha[j] - lb.context, qa))
