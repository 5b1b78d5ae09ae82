"""Scaled dot-product and multi-head attention, checked for callers (Unit 18 §3–§7, §10–§12).

Vaswani et al. (2017), "Attention Is All You Need":

- eq. (1)  Attention(Q, K, V) = softmax(Q K^T / sqrt(d_k)) V
- §3.2.2   MultiHead(Q, K, V) = Concat(head_1, ..., head_h) W_O,
           head_i = Attention(Q W_Q^i, K W_K^i, V W_V^i), d_k = d_model / h
- §3.2.3   the decoder's mask: position i may look at positions j <= i only

Masks are boolean, True = may look. A masked score becomes -inf before the softmax, so its
weight is exactly 0; a query row with nothing it may look at is a ValueError, never NaN.

Shapes: q [..., n_q, d_k], k [..., n_k, d_k], v [..., n_k, d_v]; the leading axes broadcast.
Multi-head weights are [..., heads, n_q, n_k]. Weight convention y = x W + b, W [d_in, d_out].
Naming rule (``foo`` / ``foo_forward`` / ``foo_backward``): see :mod:`.layers`. The math,
forward and backward, is :mod:`.ops`; this module adds the masks, the counts, the fused Q/K/V
weights and the checks.
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from . import ops
from ._checks import (
    check_grad,
    check_output,
    float_array,
    optional_param,
    param_array,
    run_checked,
)
from ._types import Array, Cache, Params

__all__ = [
    "MHA_KEYS",
    "attention",
    "attention_backward",
    "attention_forward",
    "attention_score_bytes",
    "attention_score_count",
    "attention_weight_count",
    "causal_mask",
    "fuse_qkv",
    "head_dim",
    "merge_heads",
    "multi_head_attention",
    "multi_head_attention_backward",
    "multi_head_attention_forward",
    "padding_mask",
    "split_heads",
]

#: the parameter names of one attention layer (the b_* are optional)
MHA_KEYS = ("W_q", "b_q", "W_k", "b_k", "W_v", "b_v", "W_o", "b_o")


# --------------------------------------------------------------------------------------------
# counts and masks


def head_dim(d_model: int, n_heads: int) -> int:
    """d_k = d_model / h; d_model = 512, h = 8 -> 64. ValueError if h does not divide d_model."""
    if not (isinstance(d_model, int) and isinstance(n_heads, int)) or d_model < 1 or n_heads < 1:
        raise ValueError(f"d_model and n_heads must be positive integers, got {d_model}, {n_heads}")
    if d_model % n_heads:
        raise ValueError(f"n_heads = {n_heads} does not divide d_model = {d_model}")
    return d_model // n_heads


def attention_weight_count(d_model: int, *, bias: bool = False) -> int:
    """Weights of one multi-head attention layer: W_Q, W_K, W_V, W_O are d x d, so 4 d^2.

    d_model = 512 -> 1,048,576 (no biases). The count does not depend on the number of heads:
    h heads of width d/h cost the same as one wide head. ``bias=True`` adds the 4 d biases.
    """
    if not isinstance(d_model, int) or d_model < 1:
        raise ValueError(f"d_model must be a positive integer, got {d_model!r}")
    return 4 * d_model * d_model + (4 * d_model if bias else 0)


def _count_arg(value: int, name: str) -> int:
    if not isinstance(value, int | np.integer) or isinstance(value, bool) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


def attention_score_count(n: int, heads: int = 1, layers: int = 1) -> int:
    """Scores (= weights) that attention over n tokens computes: n^2 per head per layer.

    Doubling n multiplies it by 4. MiniLM (6 layers, 12 heads) on 10 tokens: 6 * 12 * 100 = 7200.
    """
    return _count_arg(n, "n") ** 2 * _count_arg(heads, "heads") * _count_arg(layers, "layers")


def attention_score_bytes(n: int, heads: int, bytes_per_number: int = 4, layers: int = 1) -> int:
    """Memory to hold those scores at once: n = 4096, 16 heads, 2-byte numbers -> 512 MiB a layer.

    (Tiled exact attention, e.g. FlashAttention, never holds them all; this is the naive price.)
    """
    return attention_score_count(n, heads, layers) * _count_arg(
        bytes_per_number, "bytes_per_number"
    )


def causal_mask(n: int) -> NDArray[np.bool_]:
    """[n, n] boolean, True where query i may look at key j, i.e. j <= i (no peeking ahead).

    n = 5 allows 15 pairs: 5 + 4 + 3 + 2 + 1 = n (n + 1) / 2.
    """
    if not isinstance(n, int | np.integer) or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}")
    return np.tril(np.ones((int(n), int(n)), dtype=bool))


def padding_mask(lengths: ArrayLike, n: int) -> NDArray[np.bool_]:
    """lengths [batch] of sequences padded to n -> key mask [batch, 1, n] (True = a real token).

    The middle axis broadcasts over queries; combine with causal_mask(n) by ``&``.
    """
    if not isinstance(n, int | np.integer) or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}")
    lens = np.asarray(lengths)
    if lens.ndim != 1 or lens.size == 0:
        raise ValueError(f"lengths must be a non-empty 1-D list, got shape {lens.shape}")
    if lens.dtype.kind not in "iu":
        raise ValueError(f"lengths must be integers, got dtype {lens.dtype}")
    if lens.min() < 1 or lens.max() > n:
        raise ValueError(f"every length must lie in 1..{n}, got {lens.tolist()}")
    return (np.arange(int(n))[None, :] < lens[:, None])[:, None, :]


# --------------------------------------------------------------------------------------------
# scaled dot-product attention


def check_mask(mask: ArrayLike, score_shape: tuple[int, ...]) -> NDArray[np.bool_]:
    m = np.asarray(mask)
    if m.dtype != np.bool_:
        raise ValueError(f"mask must be boolean (True = may look), got dtype {m.dtype}")
    if m.ndim < 2:
        raise ValueError(f"mask must be at least [n_q, n_k], got shape {m.shape}")
    try:
        np.broadcast_shapes(m.shape, score_shape)
    except ValueError:
        raise ValueError(
            f"mask of shape {m.shape} does not fit the scores [..., n_q, n_k] = {score_shape}"
        ) from None
    if not m.any(axis=-1).all():
        rows = np.argwhere(~np.broadcast_to(m, m.shape).any(axis=-1))
        raise ValueError(
            f"mask leaves query row {int(rows[0][-1])} with no key to look at "
            "(a fully masked row has no softmax)"
        )
    return m


def attention_forward(
    q: ArrayLike,
    k: ArrayLike,
    v: ArrayLike,
    mask: ArrayLike | None = None,
    bias: ArrayLike | None = None,
) -> tuple[Array, Cache]:
    """out [..., n_q, d_v] and a cache whose ``cache["weights"]`` is [..., n_q, n_k]."""
    qa = float_array(q, "q", min_ndim=2)
    ka = float_array(k, "k", min_ndim=2)
    va = float_array(v, "v", min_ndim=2)
    if qa.shape[-1] != ka.shape[-1]:
        raise ValueError(
            f"q has width {qa.shape[-1]} but k has width {ka.shape[-1]}; they must match"
        )
    if ka.shape[-2] != va.shape[-2]:
        raise ValueError(f"k has {ka.shape[-2]} keys but v has {va.shape[-2]} values")
    try:
        lead = np.broadcast_shapes(qa.shape[:-2], ka.shape[:-2], va.shape[:-2])
    except ValueError:
        raise ValueError(
            f"the leading (batch) axes of q {qa.shape}, k {ka.shape}, v {va.shape} do not match"
        ) from None
    score_shape = (*lead, qa.shape[-2], ka.shape[-2])
    m = None if mask is None else check_mask(mask, score_shape)
    ba = None
    if bias is not None:
        ba = float_array(bias, "bias")
        try:
            np.broadcast_shapes(ba.shape, score_shape)
        except ValueError:
            raise ValueError(
                f"bias of shape {ba.shape} does not fit the scores {score_shape}"
            ) from None
    out, cache = ops.attention_forward(qa, ka, va, m, ba)
    check_output(out, "attention", {})
    return out, cache


def attention(
    q: ArrayLike,
    k: ArrayLike,
    v: ArrayLike,
    mask: ArrayLike | None = None,
    bias: ArrayLike | None = None,
) -> tuple[Array, Array]:
    """Scaled dot-product attention: (out, weights) = (softmax(q k^T / sqrt(d_k) + bias) v, ...).

    q [..., n_q, d_k], k [..., n_k, d_k], v [..., n_k, d_v]; ``mask`` boolean broadcastable to
    [..., n_q, n_k] (True = may look); ``bias`` an additive score bias of that shape (e.g. a
    relative-position bias). Returns out [..., n_q, d_v] and weights [..., n_q, n_k], whose rows
    sum to 1 and are exactly 0 where masked.
    """
    out, cache = attention_forward(q, k, v, mask, bias)
    return out, cache["weights"]


def attention_backward(dout: ArrayLike, cache: Cache) -> tuple[Array, Array, Array, Array | None]:
    """(dq, dk, dv, dbias); dbias is None when no bias was given. Shapes as the inputs."""
    return ops.attention_backward(check_grad(dout, cache["shape"], "attention"), cache)


# --------------------------------------------------------------------------------------------
# multi-head attention


def split_heads(x: ArrayLike, n_heads: int) -> Array:
    """[..., n, h * d_k] -> [..., h, n, d_k] (head i takes columns i*d_k .. (i+1)*d_k - 1)."""
    xa = np.asarray(x)
    head_dim(xa.shape[-1], n_heads)
    return ops.split_heads(xa, n_heads)


def merge_heads(x: ArrayLike) -> Array:
    """[..., h, n, d_k] -> [..., n, h * d_k]: the concatenation of the heads."""
    return ops.merge_heads(np.asarray(x))


#: id(W_qkv) -> (weak reference to W_qkv, weak references to the arrays fuse_qkv made from it:
#: W_q, W_k, W_v views, then b_qkv, b_q, b_k, b_v when there are biases). An entry leaves with
#: its W_qkv; the views are only weakly held, so nothing is kept alive by this table.
_FUSED: dict[int, tuple[weakref.ref[Array], tuple[weakref.ref[Array], ...]]] = {}


def _register_fused(W: Array, made: tuple[Array, ...]) -> None:
    key = id(W)

    def forget(_ref: object) -> None:
        _FUSED.pop(key, None)

    _FUSED[key] = (weakref.ref(W, forget), tuple(weakref.ref(a) for a in made))


def _fused(
    params: Params, p: Mapping[str, Array | None]
) -> tuple[Array | None, Array | None] | None:
    """(W_qkv, b_qkv) if params hold a W_qkv that :func:`fuse_qkv` made and W_q, W_k, W_v
    (b_q, b_k, b_v) are still the very views it made of it; else None. The check is by object
    identity (O(1), ~1 us), so a W_q replaced by any other array, even an equal one, makes the
    layer ignore W_qkv: a stale fused copy is never used."""
    W = params.get("W_qkv")
    entry = _FUSED.get(id(W))
    if entry is None or entry[0]() is not W:
        return None
    b = params.get("b_qkv")
    now: list[Any] = [p["W_q"], p["W_k"], p["W_v"]]
    if b is not None:
        now += [b, p["b_q"], p["b_k"], p["b_v"]]
    elif p["b_q"] is not None or p["b_k"] is not None or p["b_v"] is not None:
        return None
    made = entry[1]
    if len(made) != len(now) or any(ref() is not a for ref, a in zip(made, now, strict=True)):
        return None
    return W, now[3] if b is not None else None


def fuse_qkv(params: Params) -> dict[str, Any]:
    """Attention params with W_q, W_k, W_v made column blocks of one array W_qkv, for speed.

    Returns a new dict: ``W_qkv`` [d, 2 d_model + d_v] = [W_q | W_k | W_v] (and ``b_qkv`` =
    [b_q | b_k | b_v] when all three biases are given), with ``W_q``, ``W_k``, ``W_v`` (``b_q``
    ...) replaced by views into it; every other key is passed through. Self-attention (x_q is
    x_kv) then computes Q, K and V with one matrix product instead of three, the same numbers
    to rounding. The fused arrays are used only while W_q, W_k, W_v (b_q, b_k, b_v) are still
    the very views made here (checked on each call by identity, in O(1)): editing them in place
    edits W_qkv too, and replacing one by another array, even an equal one, makes the layer
    ignore W_qkv, so a stale copy is never used. Backward passes give gradients for W_q, W_k,
    W_v as usual (none for W_qkv).
    """
    if not isinstance(params, Mapping):
        raise ValueError(f"params must be a dict of arrays, got {type(params).__name__}")
    for key in ("W_q", "W_k", "W_v"):
        if key not in params:
            raise ValueError(f"fuse_qkv: params lack {key!r}")
    Ws = [float_array(params[key], key, min_ndim=2) for key in ("W_q", "W_k", "W_v")]
    if any(W.ndim != 2 for W in Ws) or len({W.shape[0] for W in Ws}) != 1:
        raise ValueError(
            "fuse_qkv: W_q, W_k, W_v must be matrices with the same number of rows, got "
            f"{[W.shape for W in Ws]}"
        )
    if Ws[0].shape[1] != Ws[1].shape[1]:
        raise ValueError(f"fuse_qkv: W_q {Ws[0].shape} and W_k {Ws[1].shape} differ in width")
    out: dict[str, Any] = dict(params)
    W = np.ascontiguousarray(np.concatenate(Ws, axis=1))
    dm, dv = Ws[0].shape[1], Ws[2].shape[1]
    out["W_qkv"] = W
    out["W_q"], out["W_k"], out["W_v"] = W[:, :dm], W[:, dm : 2 * dm], W[:, 2 * dm :]
    made: tuple[Array, ...] = (out["W_q"], out["W_k"], out["W_v"])
    present = [params.get(key) is not None for key in ("b_q", "b_k", "b_v")]
    if all(present):
        bs = [float_array(params[key], key, min_ndim=1) for key in ("b_q", "b_k", "b_v")]
        for key, bias, width in zip(("b_q", "b_k", "b_v"), bs, (dm, dm, dv), strict=True):
            if bias.shape != (width,):
                raise ValueError(f"fuse_qkv: {key} must have shape ({width},), got {bias.shape}")
        b = np.concatenate(bs).astype(W.dtype, copy=False)
        out["b_qkv"] = b
        out["b_q"], out["b_k"], out["b_v"] = b[:dm], b[dm : 2 * dm], b[2 * dm :]
        made += (b, out["b_q"], out["b_k"], out["b_v"])
    elif any(present):
        raise ValueError("fuse_qkv: give all of b_q, b_k, b_v or none of them")
    else:
        out.pop("b_qkv", None)
    _register_fused(W, made)
    return out


def mha_params(
    params: Params, d_q: int, d_kv: int, n_heads: int, where: str = "multi_head_attention"
) -> dict[str, Array | None]:
    """Check and fetch W_q, W_k, W_v, W_o (+ optional b_q, b_k, b_v, b_o), and W_qkv, b_qkv
    (None unless :func:`fuse_qkv` made them and W_q, W_k, W_v still view W_qkv)."""
    for key in ("W_q", "W_k", "W_v", "W_o"):
        if key not in params:
            raise ValueError(f"{where} params lack {key!r}")
    d_model = np.shape(params["W_q"])[-1]
    d_vm = np.shape(params["W_v"])[-1]
    d_out = np.shape(params["W_o"])[-1]
    head_dim(int(d_model), n_heads)
    if d_vm % n_heads:
        raise ValueError(f"n_heads = {n_heads} does not divide the width of W_v ({d_vm})")
    p = {
        "W_q": param_array(params, "W_q", (d_q, d_model), where),
        "b_q": optional_param(params, "b_q", (d_model,), where),
        "W_k": param_array(params, "W_k", (d_kv, d_model), where),
        "b_k": optional_param(params, "b_k", (d_model,), where),
        "W_v": param_array(params, "W_v", (d_kv, d_vm), where),
        "b_v": optional_param(params, "b_v", (d_vm,), where),
        "W_o": param_array(params, "W_o", (d_vm, d_out), where),
        "b_o": optional_param(params, "b_o", (d_out,), where),
    }
    fused = _fused(params, p) if "W_qkv" in params else None
    p["W_qkv"], p["b_qkv"] = (None, None) if fused is None else fused
    return p


def mha_inputs(
    x_q: ArrayLike, x_kv: ArrayLike, mask: ArrayLike | None
) -> tuple[Array, Array, NDArray[np.bool_] | None]:
    """Validate the activations of one attention call (used by the blocks too)."""
    xq = float_array(x_q, "x_q", min_ndim=2)
    xkv = xq if x_kv is x_q else float_array(x_kv, "x_kv", min_ndim=2)
    try:
        lead = np.broadcast_shapes(xq.shape[:-2], xkv.shape[:-2])
    except ValueError:
        raise ValueError(
            f"the leading (batch) axes of x_q {xq.shape} and x_kv {xkv.shape} do not match"
        ) from None
    m = None if mask is None else check_mask(mask, (*lead, xq.shape[-2], xkv.shape[-2]))
    return xq, xkv, m


def multi_head_attention_forward(
    x_q: ArrayLike,
    x_kv: ArrayLike,
    params: Params,
    n_heads: int,
    mask: ArrayLike | None = None,
) -> tuple[Array, Cache]:
    """out [..., n_q, d_out] and a cache with ``cache["weights"]`` [..., heads, n_q, n_k]."""
    xq, xkv, m = mha_inputs(x_q, x_kv, mask)
    p = mha_params(params, xq.shape[-1], xkv.shape[-1], n_heads)
    return run_checked(
        "multi_head_attention", p, ops.multi_head_attention_forward, xq, xkv, p, n_heads, m
    )


def multi_head_attention(
    x_q: ArrayLike,
    x_kv: ArrayLike,
    params: Params,
    n_heads: int,
    mask: ArrayLike | None = None,
) -> tuple[Array, Array]:
    """Multi-head attention of queries from x_q over keys/values from x_kv.

    x_q [..., n_q, d_q], x_kv [..., n_k, d_kv] (pass the same array twice for self-attention);
    params W_q [d_q, d_model], W_k [d_kv, d_model], W_v [d_kv, d_model], W_o [d_model, d_out],
    biases b_q, b_k, b_v [d_model], b_o [d_out] optional; ``mask`` boolean broadcastable to
    [..., n_q, n_k], the same for every head. Returns out [..., n_q, d_out] and the weights
    [..., heads, n_q, n_k]. Heads are computed together (one batched product, no loop).
    """
    out, cache = multi_head_attention_forward(x_q, x_kv, params, n_heads, mask)
    return out, cache["weights"]


def multi_head_attention_backward(
    dout: ArrayLike, cache: Cache
) -> tuple[Array, Array, dict[str, Array]]:
    """(dx_q, dx_kv, dparams). For self-attention the gradient of x is dx_q + dx_kv."""
    return ops.multi_head_attention_backward(
        check_grad(dout, cache["shape"], "multi_head_attention"), cache
    )
