"""The price of attention (Unit 18 §12): what n tokens cost, and tiled exact attention.

Counts, in closed form (d = d_model, h heads, L layers, b bytes per number):

- scores:            n² per head per layer, n² h L in all (:func:`.attention_score_count`)
- their memory:      n² h L b bytes, if every score matrix is held at once
                     (:func:`.attention_score_bytes`); n = 4096, h = 16, b = 2: 512 MiB a layer
- multiplications:   the scores (q·k, d_k each, h heads: n² d) and the blend of the values
                     (n² d again): 2 n² d per layer (:func:`attention_multiplications`)
- the KV cache:      the keys and values a model keeps while it writes, one key and one value
                     of d numbers per token per layer: 2 L n d numbers (:func:`kv_cache_count`)
- an RNN's steps:    n, one after another (:func:`rnn_steps`)

A MiB is 2**20 bytes (1,048,576), a MB 10**6: :data:`MIB`, :data:`MB`.

Tiled exact attention (Dao et al. 2022, "FlashAttention"; the online softmax of Milakov and
Gimelshein 2018) gets softmax(q kᵀ / √d_k) v without ever holding the n × n scores: it walks the
keys a tile at a time, keeping for each query row a running maximum m, a running sum ℓ of
exp(score − m) and a running accumulator a of exp(score − m) × value. When a tile brings a larger
maximum, what was kept is rescaled by exp(m_old − m_new); at the end out = a / ℓ. Every step is
exact algebra, so the output equals the full attention's (to rounding: 1e-12 in the tests), while
at most one tile of scores (query tile × key tile) is held at once.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ._checks import float_array
from .dot_product import attention_score_bytes, check_mask

__all__ = [
    "MB",
    "MIB",
    "OnlineStep",
    "TiledAttention",
    "attention_multiplications",
    "kv_cache_bytes",
    "kv_cache_count",
    "online_softmax_steps",
    "rnn_steps",
    "score_memory_mib",
    "tiled_attention",
]

Array = NDArray[np.float64]

#: bytes in a mebibyte (MiB) and in a megabyte (MB)
MIB = 2**20
MB = 10**6


def _count(value: int, name: str) -> int:
    if not isinstance(value, int | np.integer) or isinstance(value, bool) or value < 1:
        raise ValueError(f"{name} must be a positive whole number, got {value!r}")
    return int(value)


def attention_multiplications(n: int, d_model: int, layers: int = 1) -> int:
    """Multiplications of attention's two n × n products over n tokens: the scores Q Kᵀ (n² dot
    products of d_k numbers in each of h heads: n² d_model) and the weights times V (n² d_model
    again), so 2 n² d_model per layer. The number of heads cancels (§7)."""
    n, d, L = _count(n, "n"), _count(d_model, "d_model"), _count(layers, "layers")
    return 2 * n * n * d * L


def kv_cache_count(n: int, d_model: int, layers: int = 1) -> int:
    """Numbers a model keeps while it writes n tokens: each layer's key and value of every
    token so far, d_model numbers each, so 2 · layers · n · d_model. It grows with n, not n²."""
    n, d, L = _count(n, "n"), _count(d_model, "d_model"), _count(layers, "layers")
    return 2 * L * n * d


def kv_cache_bytes(n: int, d_model: int, layers: int = 1, bytes_per_number: int = 2) -> int:
    """The KV cache's memory: kv_cache_count × bytes per number."""
    return kv_cache_count(n, d_model, layers) * _count(bytes_per_number, "bytes_per_number")


def score_memory_mib(n: int, heads: int, bytes_per_number: int = 4, layers: int = 1) -> float:
    """The score matrices' memory in MiB (2**20 bytes): n = 4096, 16 heads, 2 bytes -> 512.0."""
    return attention_score_bytes(n, heads, bytes_per_number, layers) / MIB


def rnn_steps(n: int) -> int:
    """An RNN reads n tokens in n steps, one after another (each needs the one before)."""
    return _count(n, "n")


# --------------------------------------------------------------------------------------------
# tiled exact attention


@dataclass(frozen=True)
class OnlineStep:
    """One tile of keys in the online softmax of one query row (all arrays for that row):
    the tile's scaled ``scores``, the running maximum before and after (``old_max``,
    ``new_max``), the factor exp(old_max − new_max) that rescales what was kept, the tile's
    ``exps`` = exp(score − new_max), and the running ``total`` (ℓ) and ``acc`` (a) after it."""

    start: int
    stop: int
    scores: Array
    old_max: float
    new_max: float
    rescale: float
    exps: Array
    total: float
    acc: Array

    @property
    def so_far(self) -> Array:
        """acc / total: the attention over the keys seen so far (exact for them)."""
        return self.acc / self.total


def online_softmax_steps(scores: ArrayLike, values: ArrayLike, tile: int) -> list[OnlineStep]:
    """The online softmax of one row of (already scaled) scores [n] against values [n, d_v] or
    [n], a tile of ``tile`` keys at a time: the last step's ``so_far`` is softmax(scores) · values.
    """
    s = np.asarray(float_array(scores, "scores", min_ndim=1), dtype=np.float64)
    v = np.asarray(float_array(values, "values", min_ndim=1), dtype=np.float64)
    if s.ndim != 1:
        raise ValueError(f"scores must be one row [n], got shape {s.shape}")
    if v.shape[0] != s.shape[0]:
        raise ValueError(f"{s.shape[0]} scores but {v.shape[0]} values")
    t = _count(tile, "tile")
    steps: list[OnlineStep] = []
    m, total, acc = -np.inf, 0.0, np.zeros(v.shape[1:], dtype=np.float64)
    for start in range(0, s.shape[0], t):
        stop = min(start + t, s.shape[0])
        block = s[start:stop]
        new_m = max(m, float(block.max()))
        rescale = 0.0 if m == -np.inf else float(np.exp(m - new_m))
        e = np.exp(block - new_m)
        total = rescale * total + float(e.sum())
        acc = rescale * acc + np.tensordot(e, v[start:stop], axes=1)
        steps.append(OnlineStep(start, stop, block.copy(), m, new_m, rescale, e, total, acc))
        m = new_m
    return steps


@dataclass(frozen=True)
class TiledAttention:
    """What :func:`tiled_attention` returns: the output [..., n_q, d_v] and the most scores it
    held at once (one tile: query tile × key tile per leading index), beside the n_q × n_k the
    full attention holds."""

    output: Array
    held: int
    full: int


def tiled_attention(
    q: ArrayLike,
    k: ArrayLike,
    v: ArrayLike,
    *,
    tile: int = 64,
    query_tile: int | None = None,
    mask: ArrayLike | None = None,
) -> TiledAttention:
    """softmax(q kᵀ / √d_k) v, computed a tile of keys at a time with the online softmax, never
    holding more than query_tile × tile scores (per leading index): q [..., n_q, d_k], k [..., n_k,
    d_k], v [..., n_k, d_v], leading axes broadcast; ``mask`` boolean, broadcastable to
    [..., n_q, n_k], True = may look (every row must be allowed some key, as in
    :func:`.attention`). Equals :func:`.attention`'s output to rounding."""
    qa = float_array(q, "q", min_ndim=2)
    ka = float_array(k, "k", min_ndim=2)
    va = float_array(v, "v", min_ndim=2)
    if qa.shape[-1] != ka.shape[-1]:
        raise ValueError(f"q has width {qa.shape[-1]} but k has width {ka.shape[-1]}")
    if ka.shape[-2] != va.shape[-2]:
        raise ValueError(f"k has {ka.shape[-2]} keys but v has {va.shape[-2]} values")
    try:
        lead = np.broadcast_shapes(qa.shape[:-2], ka.shape[:-2], va.shape[:-2])
    except ValueError:
        raise ValueError(
            f"the leading (batch) axes of q {qa.shape}, k {ka.shape}, v {va.shape} do not match"
        ) from None
    n_q, n_k, d_v = qa.shape[-2], ka.shape[-2], va.shape[-1]
    tk = _count(tile, "tile")
    tq = n_q if query_tile is None else _count(query_tile, "query_tile")
    shape = (*lead, n_q, n_k)
    m = None if mask is None else check_mask(mask, shape)
    if m is not None and np.broadcast_shapes(m.shape, shape) != shape:
        raise ValueError(f"mask of shape {m.shape} has more axes than the scores {shape}")
    if m is not None:
        m = np.broadcast_to(m, shape)  # a view: slicing a tile of it copies only that tile
    scale = 1.0 / np.sqrt(qa.shape[-1])
    out = np.empty((*lead, n_q, d_v))
    held = 0
    for q0 in range(0, n_q, tq):
        q1 = min(q0 + tq, n_q)
        qb = qa[..., q0:q1, :] * scale
        run_max = np.full((*lead, q1 - q0), -np.inf)
        total = np.zeros((*lead, q1 - q0))
        acc = np.zeros((*lead, q1 - q0, d_v))
        for k0 in range(0, n_k, tk):
            k1 = min(k0 + tk, n_k)
            s = qb @ np.swapaxes(ka[..., k0:k1, :], -1, -2)  # one tile of scores
            held = max(held, (q1 - q0) * (k1 - k0))
            if m is not None:
                s = np.where(m[..., q0:q1, k0:k1], s, -np.inf)
            new_max = np.maximum(run_max, s.max(axis=-1))
            # a row with no key allowed yet keeps max -inf: nothing to rescale, nothing to add
            seen = np.isfinite(new_max)
            base = np.where(seen, new_max, 0.0)
            rescale = np.where(seen, np.exp(np.where(seen, run_max - base, 0.0)), 1.0)
            e = np.exp(s - base[..., None])  # exp(-inf) = 0 where masked
            total = rescale * total + e.sum(axis=-1)
            acc = rescale[..., None] * acc + e @ va[..., k0:k1, :]
            run_max = new_max
        out[..., q0:q1, :] = acc / total[..., None]
    return TiledAttention(out, held, n_q * n_k)
