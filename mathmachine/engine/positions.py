"""Where is each word? Three ways to give attention a sense of order (Unit 18 §8).

Self-attention alone is permutation-equivariant: shuffle the words and the outputs shuffle the
same way. The remedies computed here:

- sinusoidal_positions: Vaswani et al. (2017), "Attention Is All You Need", §3.5:
      PE(pos, 2i) = sin(pos / 10000^(2i/d)),   PE(pos, 2i+1) = cos(pos / 10000^(2i/d)),
  added to the word embeddings. PE(1, 0) = sin 1 = 0.841. No parameters, so no backward.
  (Learned absolute positions, as in BERT and GPT-2, are an ``embedding`` lookup of 0..n-1.)
- rotary: Su et al. (2021), "RoFormer: Enhanced Transformer with Rotary Position Embedding",
  eq. (13)-(15): the pair (x_2i, x_2i+1) of a query or key at position m is turned by the angle
  m * theta_i, theta_i = base^(-2i/d). Rotations keep lengths, and R(m)^T R(n) = R(n - m), so the
  score q_m . k_n depends on the offset n - m only.
- relative_position_bias: Raffel et al. (2020), "Exploring the Limits of Transfer Learning with
  a Unified Text-to-Text Transformer" (T5), §2.1: a learned number per head and per *bucket* of
  the offset (key position - query position), added to the attention scores. Offsets below
  n_buckets/4 (bidirectional) get a bucket each; longer ones share logarithmically wider buckets up
  to max_distance, beyond which all share the last. The table is a parameter: its backward is a
  scatter-add.

Naming rule (``foo`` / ``foo_forward`` / ``foo_backward``): see :mod:`.layers`.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray

from . import ops
from ._checks import check_grad, float_array
from ._types import Array, Cache

__all__ = [
    "relative_position_bias",
    "relative_position_bias_backward",
    "relative_position_bias_forward",
    "relative_position_buckets",
    "rotary",
    "rotary_backward",
    "rotary_forward",
    "sinusoidal_positions",
]


def _positive_int(value: int, name: str) -> int:
    if not isinstance(value, int | np.integer) or isinstance(value, bool) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


def _check_base(base: float) -> float:
    if not (isinstance(base, int | float) and math.isfinite(base) and base > 1):
        raise ValueError(f"base must be a finite number > 1, got {base!r}")
    return float(base)


def sinusoidal_positions(n: int, d: int, base: float = 10000.0) -> NDArray[np.float64]:
    """[n, d]: row pos is the encoding of position pos (0-based); sin on even, cos on odd dims.

    Dimensions 2i and 2i+1 share the frequency 1 / base^(2i/d). PE[1, 0] = sin 1 = 0.8415.
    """
    n = _positive_int(n, "n")
    d = _positive_int(d, "d")
    base = _check_base(base)
    pos = np.arange(n, dtype=np.float64)[:, None]
    two_i = np.arange(0, d, 2, dtype=np.float64)
    angles = pos / base ** (two_i / d)  # [n, ceil(d/2)]
    pe = np.empty((n, d))
    pe[:, 0::2] = np.sin(angles)
    pe[:, 1::2] = np.cos(angles[:, : d // 2])
    return pe


# --------------------------------------------------------------------------------------------
# rotary


def _rotary_angles(
    positions: ArrayLike, shape: tuple[int, ...], base: float, dtype: np.dtype
) -> tuple[Array, Array]:
    d = shape[-1]
    if d % 2:
        raise ValueError(f"rotary needs an even width (pairs of dimensions), got d = {d}")
    pos = float_array(positions, "positions", min_ndim=1)
    try:
        np.broadcast_shapes(pos.shape, shape[:-1])
    except ValueError:
        raise ValueError(
            f"positions of shape {pos.shape} do not fit x's positions axis {shape[:-1]}"
        ) from None
    theta = base ** (-np.arange(0, d, 2, dtype=np.float64) / d)  # [d/2]
    angle = pos[..., None] * theta  # [..., n, d/2]
    return np.cos(angle).astype(dtype, copy=False), np.sin(angle).astype(dtype, copy=False)


def _rotate(x: Array, cos: Array, sin: Array) -> Array:
    even, odd = x[..., 0::2], x[..., 1::2]
    out = np.empty(np.broadcast_shapes(x.shape, (*cos.shape[:-1], x.shape[-1])), dtype=x.dtype)
    out[..., 0::2] = even * cos - odd * sin
    out[..., 1::2] = even * sin + odd * cos
    return out


def rotary(x: ArrayLike, positions: ArrayLike, base: float = 10000.0) -> Array:
    """Rotate each pair (x_2i, x_2i+1) of x [..., n, d] by positions[j] * base^(-2i/d).

    ``positions`` [n] (or broadcastable to x.shape[:-1]); d must be even. Lengths are kept, and
    rotary(q, m) . rotary(k, n) depends only on n - m.
    """
    return rotary_forward(x, positions, base)[0]


def rotary_forward(
    x: ArrayLike, positions: ArrayLike, base: float = 10000.0
) -> tuple[Array, Cache]:
    xa = float_array(x, "x", min_ndim=2)
    cos, sin = _rotary_angles(positions, xa.shape, _check_base(base), xa.dtype)
    out = _rotate(xa, cos, sin)
    return out, {"cos": cos, "sin": sin, "shape": out.shape, "x_shape": xa.shape}


def rotary_backward(dout: ArrayLike, cache: Cache) -> Array:
    """dx: the rotation is orthogonal, so its backward turns the gradient back by -angle."""
    g = check_grad(dout, cache["shape"], "rotary")
    return ops.unbroadcast(_rotate(g, cache["cos"], -cache["sin"]), cache["x_shape"])


# --------------------------------------------------------------------------------------------
# T5-style relative position bias


def relative_position_buckets(
    n_q: int,
    n_k: int,
    n_buckets: int = 32,
    max_distance: int = 128,
    *,
    bidirectional: bool = True,
) -> NDArray[np.intp]:
    """[n_q, n_k] bucket index of the offset j - i (key j, query i), T5's scheme.

    bidirectional: half the buckets for keys before the query, half for keys after. Within a
    half, offsets 0 .. e-1 (e = half/2) get their own bucket; offsets e .. max_distance share the
    remaining buckets on a log scale; longer offsets fall in the last bucket. One-directional
    (a causal decoder): only keys at or before the query count; later ones share bucket 0.
    """
    n_q = _positive_int(n_q, "n_q")
    n_k = _positive_int(n_k, "n_k")
    n_buckets = _positive_int(n_buckets, "n_buckets")
    max_distance = _positive_int(max_distance, "max_distance")
    half = n_buckets // 2 if bidirectional else n_buckets
    exact = half // 2
    if exact < 1 or max_distance <= exact:
        raise ValueError(
            f"n_buckets = {n_buckets} and max_distance = {max_distance} leave no room for "
            "exact and logarithmic buckets (need n_buckets >= 4 (bidirectional) or 2, and "
            "max_distance > the exact range)"
        )
    offset = np.arange(n_k)[None, :] - np.arange(n_q)[:, None]  # key - query
    if bidirectional:
        bucket = np.where(offset > 0, half, 0)
        dist = np.abs(offset)
    else:
        bucket = np.zeros_like(offset)
        dist = np.maximum(-offset, 0)  # how far back the key is
    with np.errstate(divide="ignore"):
        log_part = exact + (
            np.log(np.maximum(dist, 1) / exact) / math.log(max_distance / exact) * (half - exact)
        ).astype(np.intp)
    far = np.minimum(log_part, half - 1)
    return (bucket + np.where(dist < exact, dist, far)).astype(np.intp)


def relative_position_bias(
    table: ArrayLike,
    n_q: int,
    n_k: int,
    max_distance: int = 128,
    *,
    bidirectional: bool = True,
) -> Array:
    """table [n_buckets, heads] -> score bias [heads, n_q, n_k] = table[bucket(j - i), head].

    Add it to the scores (``attention(..., bias=...)``) of the heads of one layer.
    """
    return relative_position_bias_forward(
        table, n_q, n_k, max_distance, bidirectional=bidirectional
    )[0]


def relative_position_bias_forward(
    table: ArrayLike,
    n_q: int,
    n_k: int,
    max_distance: int = 128,
    *,
    bidirectional: bool = True,
) -> tuple[Array, Cache]:
    tab = float_array(table, "table", min_ndim=2)
    if tab.ndim != 2:
        raise ValueError(f"table must be [n_buckets, heads], got shape {tab.shape}")
    buckets = relative_position_buckets(
        n_q, n_k, tab.shape[0], max_distance, bidirectional=bidirectional
    )
    out = np.moveaxis(tab[buckets], -1, 0)  # [heads, n_q, n_k]
    return out, {"buckets": buckets, "table_shape": tab.shape, "shape": out.shape}


def relative_position_bias_backward(dbias: ArrayLike, cache: Cache) -> Array:
    """dtable [n_buckets, heads]: every score's gradient added into its bucket's entry."""
    g = check_grad(dbias, cache["shape"], "relative_position_bias")
    dtable = np.zeros(cache["table_shape"], dtype=g.dtype)
    heads = cache["table_shape"][1]
    np.add.at(dtable, cache["buckets"].ravel(), np.moveaxis(g, 0, -1).reshape(-1, heads))
    return dtable
