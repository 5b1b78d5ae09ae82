"""Masks worked step by step (Unit 18 §10): the causal mask, a masked softmax row, no peeking,
teacher forcing and the keys and values a decoder keeps while it writes (the KV cache).

A mask is boolean, True = may look (:func:`.dot_product.causal_mask`,
:func:`.dot_product.padding_mask`). Before the softmax every score a mask hides is set to
``fill``. With -inf (Vaswani et al. 2017, §3.2.3) its weight is e^-inf / Z = 0 exactly, so a
row is the softmax of the scores it may see and nothing else. A finite ``fill`` (BERT's code
added -10,000; many libraries take the most negative number of the float type) leaves
e^(fill - max) / Z, which is not 0 in exact arithmetic and becomes 0 in floating point only
when the exponential underflows: :func:`masked_softmax` shows both.

With the causal mask, position i's output depends on positions 1..i only, so:

- one pass over a sentence of n words gives the n outputs that guess each next word at once
  (teacher forcing: every guess reads the true words before it);
- a decoder that writes one word at a time can keep each word's key and value once made
  (:func:`kv_cache_steps`) and compute only the new word's query, key and value: the row it gets
  is the row the whole pass would give.

Everything here is checked against the plain-loop references in tests/engine/test_masking.py and
against :func:`.dot_product.attention` (the ops' masked attention).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ._checks import as_finite
from .dot_product import causal_mask
from .self_attention import checked_inputs

__all__ = [
    "KVCacheSteps",
    "MaskedSteps",
    "allowed_pairs",
    "kv_cache_steps",
    "masked_self_attention_steps",
    "masked_softmax",
    "projected_rows",
    "teacher_forcing_pairs",
]


def allowed_pairs(n: int) -> int:
    """(query, key) pairs the causal mask lets look among n words: 1 + 2 + ... + n = n(n + 1)/2.

    n = 5 -> 15 of the 25 pairs."""
    return int(causal_mask(n).sum())


def _mask_for(mask: ArrayLike | bool | None, n_q: int, n_k: int) -> NDArray[np.bool_] | None:
    if mask is None or mask is False:
        return None
    if mask is True:
        if n_q != n_k:
            raise ValueError(f"the causal mask needs as many queries as keys, got {n_q}, {n_k}")
        return causal_mask(n_q)
    m = np.asarray(mask)
    if m.dtype != np.bool_:
        raise ValueError(f"mask must be boolean (True = may look), got dtype {m.dtype}")
    if m.shape != (n_q, n_k):
        raise ValueError(f"mask must be [{n_q}, {n_k}], got shape {m.shape}")
    return m


def masked_softmax(
    scores: ArrayLike, mask: ArrayLike, fill: float = -math.inf
) -> NDArray[np.float64]:
    """Softmax of each row of ``scores`` [..., n] with the entries ``mask`` hides (False) set to
    ``fill`` first. ``fill = -inf``: hidden weights are exactly 0 and each row is the softmax of
    its allowed scores alone. A finite ``fill`` gives what floating point makes of it (a small
    positive weight, or 0 once e^(fill - max) underflows). A row with nothing allowed and an
    infinite fill is a ValueError (it would be -inf - (-inf) = NaN)."""
    s = as_finite(scores, "scores", min_ndim=1)
    m = np.asarray(mask)
    if m.dtype != np.bool_:
        raise ValueError(f"mask must be boolean (True = may look), got dtype {m.dtype}")
    try:
        m = np.broadcast_to(m, s.shape)
    except ValueError:
        raise ValueError(f"mask of shape {m.shape} does not fit scores {s.shape}") from None
    f = float(fill)
    if math.isnan(f) or f == math.inf:
        raise ValueError(f"fill must be a number or -inf, got {fill!r}")
    if math.isinf(f) and not m.any(axis=-1).all():
        raise ValueError(
            "a row has every score masked: with fill -inf its softmax is 0/0 (NaN); "
            "a finite fill, or a mask that leaves each row a key, avoids it"
        )
    z = np.where(m, s, f)
    top = z.max(axis=-1, keepdims=True)
    e = np.exp(z - top)  # e^-inf = 0 exactly
    return np.asarray(e / e.sum(axis=-1, keepdims=True), dtype=np.float64)


@dataclass(frozen=True)
class MaskedSteps:
    """Every stage of one masked self-attention: q, k [n, d_k], v [n, d_v]; ``scaled`` the scores
    Q K^T / sqrt(d_k) before the mask; ``masked`` the same with -inf where the mask hides;
    ``mask`` [n, n] (all True without one); weights [n, n] (rows sum to 1, exactly 0 where
    masked); output [n, d_v]."""

    x: NDArray[np.float64]
    q: NDArray[np.float64]
    k: NDArray[np.float64]
    v: NDArray[np.float64]
    scale: float
    scaled: NDArray[np.float64]
    mask: NDArray[np.bool_]
    masked: NDArray[np.float64]
    weights: NDArray[np.float64]
    output: NDArray[np.float64]


def masked_self_attention_steps(
    x: ArrayLike,
    W_q: ArrayLike,
    W_k: ArrayLike,
    W_v: ArrayLike,
    mask: ArrayLike | bool | None = True,
) -> MaskedSteps:
    """x [n, d], W_q and W_k [d, d_k], W_v [d, d_v] -> every stage of
    softmax(Q K^T / sqrt(d_k), masked) V. ``mask=True`` is the causal mask, ``False``/``None``
    none, or a boolean [n, n]."""
    xa, wq, wk, wv = checked_inputs(x, W_q, W_k, W_v)
    q, k, v = xa @ wq, xa @ wk, xa @ wv
    scale = 1.0 / math.sqrt(q.shape[1])
    scaled = (q @ k.T) * scale
    n = xa.shape[0]
    m = _mask_for(mask, n, n)
    allowed = np.ones((n, n), dtype=bool) if m is None else m
    masked = np.where(allowed, scaled, -math.inf)
    weights = masked_softmax(scaled, allowed)
    return MaskedSteps(
        x=xa, q=q, k=k, v=v, scale=scale, scaled=scaled, mask=allowed, masked=masked,
        weights=weights, output=weights @ v,
    )  # fmt: skip


@dataclass(frozen=True)
class KVCacheSteps:
    """A causal self-attention run one word at a time, as a decoder writes: at step t only word
    t's query, key and value are made; the keys and values of words 1..t-1 are the kept ones.
    ``output`` [n, d_v] row t is step t's answer; ``kept`` [n] how many key/value rows the cache
    held when step t began (t - 1); ``projected`` the rows of K and V made in all (n, against
    n(n + 1)/2 for a decoder that runs the whole prefix again at every step)."""

    output: NDArray[np.float64]
    weights: tuple[NDArray[np.float64], ...]
    kept: tuple[int, ...]
    projected: int
    projected_without_cache: int


def projected_rows(n: int, *, cache: bool) -> int:
    """Key/value rows a decoder makes while writing n words, one a step: n with a cache (each
    once), n(n + 1)/2 without (the whole prefix again at every step). n = 100: 100 against 5,050."""
    if not isinstance(n, int | np.integer) or isinstance(n, bool) or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}")
    return int(n) if cache else int(n) * (int(n) + 1) // 2


def kv_cache_steps(x: ArrayLike, W_q: ArrayLike, W_k: ArrayLike, W_v: ArrayLike) -> KVCacheSteps:
    """x [n, d] taken one row at a time: step t makes q_t, k_t, v_t from word t alone, appends
    k_t and v_t to the cache, and attends with q_t over the cache (all of it: nothing in it is
    in the future). Row t equals row t of :func:`masked_self_attention_steps` with the causal
    mask."""
    xa, wq, wk, wv = checked_inputs(x, W_q, W_k, W_v)
    n = xa.shape[0]
    keys: list[NDArray[np.float64]] = []
    values: list[NDArray[np.float64]] = []
    rows, weights, kept = [], [], []
    scale = 1.0 / math.sqrt(wq.shape[1])
    for t in range(n):
        kept.append(len(keys))
        q_t = xa[t] @ wq
        keys.append(xa[t] @ wk)
        values.append(xa[t] @ wv)
        s = np.array([q_t @ k_j for k_j in keys]) * scale
        e = np.exp(s - s.max())
        w = e / e.sum()
        weights.append(w)
        rows.append(w @ np.array(values))
    return KVCacheSteps(
        output=np.array(rows),
        weights=tuple(weights),
        kept=tuple(kept),
        projected=projected_rows(n, cache=True),
        projected_without_cache=projected_rows(n, cache=False),
    )


def teacher_forcing_pairs(words: list[str], end: str = ".") -> list[tuple[tuple[str, ...], str]]:
    """The n guesses one pass trains on a sentence of n words: position t reads words 1..t (the
    true ones, whatever the model would have guessed) and must guess word t + 1; the last one
    guesses ``end``. ["I", "drink", "tea"] -> [(("I",), "drink"), (("I", "drink"), "tea"),
    (("I", "drink", "tea"), ".")]."""
    if not words or not all(isinstance(w, str) and w for w in words):
        raise ValueError(f"words must be a non-empty list of words, got {words!r}")
    targets = [*words[1:], end]
    return [(tuple(words[: t + 1]), targets[t]) for t in range(len(words))]
