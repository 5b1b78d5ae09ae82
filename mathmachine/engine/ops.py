"""The transformer's math, forward and backward, in one file: read this one first (Unit 18 §3–§13).

Every op the engine trains or runs is here, written once, on arrays the caller has already
checked. The public modules (:mod:`.layers`, :mod:`.dot_product`, :mod:`.block`) check their
inputs, with messages that say what was wrong, and then call these. One naming rule:

    foo_forward(...)            -> (out, cache)     the output and what the backward needs
    foo_backward(dout, cache)   -> gradients        of every differentiable input, in argument
                                                    order (a dict for a dict of parameters,
                                                    None for an absent optional one)
    foo(...)                    -> out              the output alone, no cache: what inference
                                                    runs, and where a leaner kernel pays
                                                    (bench/engine_minilm.py measures each:
                                                    layer_norm, gelu), that kernel

The papers (y = x W + b with W [d_in, d_out] throughout; [..., n, d] = any leading batch axes):

- layer norm    Ba, Kiros & Hinton (2016), eq. (4): y = g (x - mean) / sqrt(var + eps) + b
- GELU          Hendrycks & Gimpel (2016): GELU(x) = x Phi(x), exact (Phi from :mod:`.normal`)
- feed-forward  Vaswani et al. (2017), eq. (2): FFN(x) = act(x W1 + b1) W2 + b2
- softmax       softmax(s)_j = exp(s_j - max s) / sum_i exp(s_i - max s); its slope
                d alpha_i / d s_j = alpha_i (delta_ij - alpha_j)
- attention     Vaswani et al. (2017), eq. (1): Attention(Q, K, V) = softmax(Q K^T / sqrt d_k) V
- many heads    ibid. §3.2.2: MultiHead = Concat(head_1 .. head_h) W_O, head_i = Attention(Q W_Q^i,
                K W_K^i, V W_V^i)
- a sublayer    ibid. §3.1 (post-LN): LN(x + f(x)); Xiong et al. (2020), Fig. 1 (b) (pre-LN):
                x + f(LN(x)); f is self-attention, cross-attention or the feed-forward network
- blocks        an encoder block is two sublayers (self-attention, FFN), a decoder block three
                (masked self-attention, cross-attention over the encoder's output, FFN)
- cross-entropy the mean of -log softmax(logits)[target] over the targets kept
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ._types import Array, Cache
from .normal import INV_SQRT_2PI, cdf_and_gauss, gelu_one_exp

Weights = Mapping[str, Array | None]  # one layer's checked weights; None = an absent bias or gain
Mask = NDArray[np.bool_]  # True = may look


def unbroadcast(g: Array, shape: tuple[int, ...]) -> Array:
    """Sum g over the axes that broadcasting added or stretched, back to ``shape``."""
    if g.shape == shape:
        return g
    if g.ndim > len(shape):
        g = g.sum(axis=tuple(range(g.ndim - len(shape))))
    stretched = tuple(i for i, n in enumerate(shape) if n == 1 and g.shape[i] != 1)
    return g.sum(axis=stretched, keepdims=True) if stretched else g


def _present(grads: Mapping[str, Array | None]) -> dict[str, Array]:
    """The gradients of the parameters that were given (an absent bias has none)."""
    return {k: g for k, g in grads.items() if g is not None}


def _row_sum(g: Array) -> Array:
    """Sum over every axis but the last: the gradient of a bias [d] added to g [..., d]."""
    return g.reshape(-1, g.shape[-1]).sum(axis=0)


# --------------------------------------------------------------------------------------------
# linear: y = x W + b


def linear(x: Array, W: Array, b: Array | None) -> Array:
    y = x @ W  # [..., d_out]
    if b is not None:
        y += b
    return y


def _linear_cache(x: Array, W: Array | None, b: Array | None) -> Cache:
    return {"x": x, "W": W, "has_bias": b is not None}


def linear_forward(x: Array, W: Array, b: Array | None) -> tuple[Array, Cache]:
    y = linear(x, W, b)
    return y, _linear_cache(x, W, b) | {"shape": y.shape}


def linear_backward(dy: Array, c: Cache) -> tuple[Array, Array, Array | None]:
    x, W = c["x"], c["W"]
    dx = dy @ W.T  # [..., d_in]
    dW = x.reshape(-1, x.shape[-1]).T @ dy.reshape(-1, dy.shape[-1])  # [d_in, d_out]
    db = _row_sum(dy) if c["has_bias"] else None  # [d_out]
    return dx, dW, db


# --------------------------------------------------------------------------------------------
# layer norm over the last axis


def _variance_zero(var: Array, eps: float) -> None:
    if eps == 0.0 and not np.all(var > 0):
        raise ValueError("layer_norm: a row of x is constant (variance 0) and eps is 0")


def layer_norm_forward(
    x: Array, g: Array | None, b: Array | None, eps: float
) -> tuple[Array, Cache]:
    mu = x.mean(axis=-1, keepdims=True)  # [..., 1]
    xc = x - mu  # [..., d]
    var = np.mean(xc * xc, axis=-1, keepdims=True)  # [..., 1]
    _variance_zero(var, eps)
    rstd = 1.0 / np.sqrt(var + x.dtype.type(eps))  # [..., 1]
    xhat = xc * rstd  # [..., d]: mean 0, variance 1
    y = xhat * g if g is not None else xhat.copy()
    if b is not None:
        y += b
    return y, {"xhat": xhat, "rstd": rstd, "gain": g, "has_bias": b is not None, "shape": y.shape}


def layer_norm_backward(dy: Array, c: Cache) -> tuple[Array, Array | None, Array | None]:
    xhat, rstd, g = c["xhat"], c["rstd"], c["gain"]
    dxhat = dy * g if g is not None else dy  # [..., d]
    dx = rstd * (
        dxhat
        - dxhat.mean(axis=-1, keepdims=True)
        - xhat * np.mean(dxhat * xhat, axis=-1, keepdims=True)
    )
    dg = _row_sum(dy * xhat) if g is not None else None
    db = _row_sum(dy) if c["has_bias"] else None
    return dx, dg, db


def layer_norm(x: Array, g: Array | None, b: Array | None, eps: float) -> Array:
    """Inference: the same formula with the row sums as matrix-vector products (x @ 1 / d, and
    the variance as a row-wise dot of the centred rows), which numpy does several times faster
    than a reduction along a short last axis; equal to :func:`layer_norm_forward` to rounding."""
    d = x.shape[-1]
    mean = x @ np.ones(d, dtype=x.dtype)  # [...]
    mean /= d
    xc = x - mean[..., None]  # [..., d]
    var = np.vecdot(xc, xc)  # [...]
    var /= d
    _variance_zero(var, eps)
    var += x.dtype.type(eps)
    xc *= (1.0 / np.sqrt(var))[..., None]
    if g is not None:
        xc *= g
    if b is not None:
        xc += b
    return xc


# --------------------------------------------------------------------------------------------
# activations: exact GELU = x Phi(x), and ReLU


def gelu_forward(x: Array) -> tuple[Array, Cache]:
    phi, gauss = cdf_and_gauss(x)  # Phi(x), exp(-x^2 / 2)
    return x * phi, {"x": x, "phi": phi, "gauss": gauss}


def gelu_backward(dy: Array, c: Cache) -> Array:
    # d/dx [x Phi(x)] = Phi(x) + x phi(x), with phi(x) = exp(-x^2 / 2) / sqrt(2 pi)
    x = c["x"]
    slope = c["gauss"] * x
    slope *= x.dtype.type(INV_SQRT_2PI)
    slope += c["phi"]
    return dy * slope


def gelu(x: Array) -> Array:
    """Inference; may overwrite x. float32: x / (1 + exp(x R(x^2))), one exp (see
    :func:`.normal.gelu_one_exp`); float64: the very bits of :func:`gelu_forward`."""
    if x.dtype == np.float32:
        return gelu_one_exp(x)
    phi = cdf_and_gauss(x)[0]
    phi *= x
    return phi


def relu_forward(x: Array) -> tuple[Array, Cache]:
    return np.maximum(x, 0), {"x": x}


def relu_backward(dy: Array, c: Cache) -> Array:
    return dy * (c["x"] > 0)  # the slope at exactly 0 is taken as 0


def relu(x: Array) -> Array:
    """Inference; overwrites x."""
    return np.maximum(x, 0, out=x)


@dataclass(frozen=True)
class Activation:
    infer: Callable[[Array], Array]
    forward: Callable[[Array], tuple[Array, Cache]]
    backward: Callable[[Array, Cache], Array]


ACTIVATIONS = {
    "gelu": Activation(gelu, gelu_forward, gelu_backward),
    "relu": Activation(relu, relu_forward, relu_backward),
}


# --------------------------------------------------------------------------------------------
# the position-wise feed-forward network: act(x W1 + b1) W2 + b2


def feed_forward_forward(x: Array, p: Weights, activation: str) -> tuple[Array, Cache]:
    h, c1 = linear_forward(x, p["W1"], p["b1"])  # type: ignore[arg-type]  # [..., d_ff]
    a, c_act = ACTIVATIONS[activation].forward(h)  # [..., d_ff]
    y, c2 = linear_forward(a, p["W2"], p["b2"])  # type: ignore[arg-type]  # [..., d_out]
    return y, {"lin1": c1, "act": c_act, "lin2": c2, "activation": activation, "shape": y.shape}


def feed_forward_backward(dy: Array, c: Cache) -> tuple[Array, dict[str, Array]]:
    da, dW2, db2 = linear_backward(dy, c["lin2"])  # [..., d_ff]
    dh = ACTIVATIONS[c["activation"]].backward(da, c["act"])  # [..., d_ff]
    dx, dW1, db1 = linear_backward(dh, c["lin1"])  # [..., d]
    return dx, _present({"W1": dW1, "b1": db1, "W2": dW2, "b2": db2})


def feed_forward(x: Array, p: Weights, activation: str) -> Array:
    """Inference: the activation in place (float32 GELU by its one-exp form)."""
    h = linear(x, p["W1"], p["b1"])  # type: ignore[arg-type]
    return linear(ACTIVATIONS[activation].infer(h), p["W2"], p["b2"])  # type: ignore[arg-type]


# --------------------------------------------------------------------------------------------
# softmax: the one implementation (attention, the public softmax, the look-back all use it)


def softmax(s: Array, axis: int = -1) -> Array:
    """softmax along ``axis``, written over ``s`` (a temporary the caller owns) and returned.

    Subtracting each row's maximum changes nothing mathematically and keeps exp from
    overflowing; a -inf score (masked) gets weight exactly 0.
    """
    s -= s.max(axis=axis, keepdims=True)
    np.exp(s, out=s)
    s /= s.sum(axis=axis, keepdims=True)
    return s


def softmax_forward(s: Array, axis: int = -1) -> tuple[Array, Cache]:
    w = softmax(s, axis)  # over s
    return w, {"w": w, "axis": axis}


def softmax_backward(dw: Array, c: Cache) -> Array:
    # ds_j = sum_i dw_i alpha_i (delta_ij - alpha_j) = alpha_j (dw_j - sum_i dw_i alpha_i)
    w = c["w"]
    return w * (dw - np.sum(dw * w, axis=c["axis"], keepdims=True))


def log_softmax(x: Array, axis: int = -1) -> Array:
    """log softmax(x) = x - max - log(sum(exp(x - max))), stably."""
    z = x - x.max(axis=axis, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=axis, keepdims=True))


# --------------------------------------------------------------------------------------------
# scaled dot-product attention


def mask_bias(mask: Mask, dtype: np.dtype[Any]) -> Array:
    """0 where the mask allows a look, -inf where not: added to the scores, it masks them
    (a mask-sized array, where np.where(mask, s, -inf) would cost a score-sized pass)."""
    bias = np.zeros(mask.shape, dtype=dtype)
    bias[~mask] = -np.inf
    return bias


def _add(s: Array, extra: Array) -> Array:
    """s + extra, in place when the sum has s's shape (s is a fresh array of ours)."""
    if np.broadcast_shapes(s.shape, extra.shape) == s.shape:
        s += extra
        return s
    return s + extra


def attention_forward(
    q: Array, k: Array, v: Array, mask: Mask | None = None, bias: Array | None = None
) -> tuple[Array, Cache]:
    scale = q.dtype.type(1.0 / math.sqrt(q.shape[-1]))
    s: Array = q @ np.swapaxes(k, -1, -2)  # [..., n_q, n_k]: every query against every key
    s *= scale  # / sqrt(d_k), so the scores do not grow with the width
    if bias is not None:
        s = _add(s, bias)  # e.g. a relative-position bias
    if mask is not None:
        s = _add(s, mask_bias(mask, s.dtype))  # masked weights come out exactly 0
    w, c_soft = softmax_forward(s)  # [..., n_q, n_k], rows sum to 1
    out = w @ v  # [..., n_q, d_v]: each query's blend of the values
    return out, {
        "q": q,
        "k": k,
        "v": v,
        "weights": w,
        "softmax": c_soft,
        "scale": scale,
        "bias_shape": None if bias is None else bias.shape,
        "shape": out.shape,
    }


def attention_backward(dout: Array, c: Cache) -> tuple[Array, Array, Array, Array | None]:
    q, k, v, w, scale = c["q"], c["k"], c["v"], c["weights"], c["scale"]
    dv = np.swapaxes(w, -1, -2) @ dout  # [..., n_k, d_v]
    dw = dout @ np.swapaxes(v, -1, -2)  # [..., n_q, n_k]
    ds = softmax_backward(dw, c["softmax"])  # 0 where masked
    dq = (ds @ k) * scale  # [..., n_q, d_k]
    dk = (np.swapaxes(ds, -1, -2) @ q) * scale  # [..., n_k, d_k]
    dbias = None if c["bias_shape"] is None else unbroadcast(ds, c["bias_shape"])
    return unbroadcast(dq, q.shape), unbroadcast(dk, k.shape), unbroadcast(dv, v.shape), dbias


# --------------------------------------------------------------------------------------------
# multi-head attention


def split_heads(x: Array, n_heads: int) -> Array:
    """[..., n, h d_k] -> [..., h, n, d_k]: head i takes columns i d_k .. (i + 1) d_k - 1."""
    return np.swapaxes(x.reshape(*x.shape[:-1], n_heads, x.shape[-1] // n_heads), -2, -3)


def merge_heads(x: Array) -> Array:
    """[..., h, n, d_k] -> [..., n, h d_k]: the heads side by side (Concat)."""
    x = np.swapaxes(x, -2, -3)
    return x.reshape(*x.shape[:-2], x.shape[-2] * x.shape[-1])


def _project(x_q: Array, x_kv: Array, p: Weights) -> tuple[Array, Array, Array]:
    """Q = x_q W_q + b_q, K = x_kv W_k + b_k, V = x_kv W_v + b_v; one product [W_q | W_k | W_v]
    when the weights were fused (attention.fuse_qkv) and x_q is x_kv (self-attention)."""
    W_qkv = p.get("W_qkv")
    if W_qkv is not None and x_q is x_kv:
        qkv = linear(x_q, W_qkv, p["b_qkv"])  # [..., n, 2 d_model + d_v]
        dm = p["W_q"].shape[1]  # type: ignore[union-attr]
        return qkv[..., :dm], qkv[..., dm : 2 * dm], qkv[..., 2 * dm :]
    return (
        linear(x_q, p["W_q"], p["b_q"]),  # type: ignore[arg-type]
        linear(x_kv, p["W_k"], p["b_k"]),  # type: ignore[arg-type]
        linear(x_kv, p["W_v"], p["b_v"]),  # type: ignore[arg-type]
    )


def multi_head_attention_forward(
    x_q: Array, x_kv: Array, p: Weights, n_heads: int, mask: Mask | None = None
) -> tuple[Array, Cache]:
    q, k, v = (split_heads(t, n_heads) for t in _project(x_q, x_kv, p))  # [..., h, n, d_k]
    m = None if mask is None else mask[..., None, :, :]  # the same mask for every head
    heads, c_att = attention_forward(q, k, v, m)  # [..., h, n_q, d_k]
    merged = merge_heads(heads)  # [..., n_q, h d_k]
    projected = (("q", x_q), ("k", x_kv), ("v", x_kv))
    out = linear(merged, p["W_o"], p["b_o"])  # type: ignore[arg-type]  # [..., n_q, d_out]
    return out, {
        **{key: _linear_cache(x, p[f"W_{key}"], p[f"b_{key}"]) for key, x in projected},
        "att": c_att,
        "o": _linear_cache(merged, p["W_o"], p["b_o"]),
        "weights": c_att["weights"],  # [..., h, n_q, n_k]
        "n_heads": n_heads,
        "shape": out.shape,
    }


def multi_head_attention_backward(dout: Array, c: Cache) -> tuple[Array, Array, dict[str, Array]]:
    """(dx_q, dx_kv, dparams); for self-attention the gradient of x is dx_q + dx_kv."""
    h = c["n_heads"]
    dmerged, dW_o, db_o = linear_backward(dout, c["o"])  # [..., n_q, h d_k]
    dq, dk, dv, _ = attention_backward(split_heads(dmerged, h), c["att"])  # [..., h, n, d_k]
    dx_q, dW_q, db_q = linear_backward(merge_heads(dq), c["q"])
    dx_k, dW_k, db_k = linear_backward(merge_heads(dk), c["k"])
    dx_v, dW_v, db_v = linear_backward(merge_heads(dv), c["v"])
    grads = {"W_q": dW_q, "W_k": dW_k, "W_v": dW_v, "W_o": dW_o}
    grads |= _present({"b_q": db_q, "b_k": db_k, "b_v": db_v, "b_o": db_o})
    x_q, x_kv = c["q"]["x"], c["k"]["x"]
    return unbroadcast(dx_q, x_q.shape), unbroadcast(dx_k + dx_v, x_kv.shape), grads


# --------------------------------------------------------------------------------------------
# blocks: sublayers, each with its residual and its LayerNorm


@dataclass(frozen=True)
class Sublayer:
    """One residual step of a block, with its checked weights.

    kind     "self" (self-attention), "cross" (attention over the memory) or "ffn"
    name     the stage its f(...) is kept under: "attn", "self_attn", "cross_attn" or "ffn"
    norm     i of its LayerNorm: ``gain`` = ln{i}_g and ``bias`` = ln{i}_b of the block's params
    weights  f's weights (attention's W_q ... b_o, or the feed-forward's W1 b1 W2 b2)
    prefix   of those weights' names in the block's params ("cross_" for cross-attention)
    """

    kind: str
    name: str
    norm: int
    weights: Weights
    gain: Array | None
    bias: Array | None
    prefix: str = ""


@dataclass(frozen=True)
class Style:
    """How every block of a stack is run."""

    n_heads: int
    pre_norm: bool  # True: x + f(LN(x)) (pre-LN); False: LN(x + f(x)) (post-LN, the 2017 one)
    eps: float  # LayerNorm's
    activation: str  # the feed-forward network's: "gelu" or "relu"
    norm: bool = True  # False: x + f(x), the residual without its LayerNorm (§13's ablation)


@dataclass(frozen=True)
class Kernels:
    """The ops a block is composed of. Training keeps every cache; inference swaps in the
    lean LayerNorm and feed-forward kernels (their caches are None)."""

    layer_norm: Callable[[Array, Array | None, Array | None, float], tuple[Array, Cache | None]]
    feed_forward: Callable[[Array, Weights, str], tuple[Array, Cache | None]]
    attention: Callable[[Array, Array, Weights, int, Mask | None], tuple[Array, Cache]]


TRAIN = Kernels(layer_norm_forward, feed_forward_forward, multi_head_attention_forward)
INFER = Kernels(
    lambda x, g, b, eps: (layer_norm(x, g, b, eps), None),
    lambda x, p, activation: (feed_forward(x, p, activation), None),
    multi_head_attention_forward,
)


@dataclass(frozen=True)
class Context:
    """What the attention sublayers look at besides x: the encoder's output and the masks."""

    memory: Array | None = None  # [..., n_memory, d_memory], for cross-attention
    self_mask: Mask | None = None  # [..., n, n]
    memory_mask: Mask | None = None  # [..., n, n_memory]


def _f_forward(
    s: Sublayer, h: Array, ctx: Context, style: Style, k: Kernels
) -> tuple[Array, Cache | None]:
    """The sublayer's own function of its input h [..., n, d]."""
    if s.kind == "ffn":
        return k.feed_forward(h, s.weights, style.activation)
    if s.kind == "self":
        return k.attention(h, h, s.weights, style.n_heads, ctx.self_mask)
    return k.attention(h, ctx.memory, s.weights, style.n_heads, ctx.memory_mask)  # type: ignore[arg-type]


def _f_backward(s: Sublayer, df: Array, c: Cache) -> tuple[list[Array], Array | None, Cache]:
    """([gradient of h, by path], gradient of the memory or None, gradients of f's weights)."""
    if s.kind == "ffn":
        dh, grads = feed_forward_backward(df, c)
        return [dh], None, grads
    dq, dkv, grads = multi_head_attention_backward(df, c)
    return ([dq, dkv], None, grads) if s.kind == "self" else ([dq], dkv, grads)


def sublayer_forward(
    x: Array, s: Sublayer, style: Style, ctx: Context, k: Kernels = TRAIN
) -> tuple[Array, Cache]:
    """x [..., n, d] -> [..., n, d]; the cache keeps the LayerNorm's and f's caches and the
    stages: ln{i}, f's output under its name, and resid{i} (the residual sum)."""
    i = s.norm
    if not style.norm:  # x + f(x): no LayerNorm at all
        f, c_f = _f_forward(s, x, ctx, style, k)
        y: Array = x + f
        return y, {"ln": None, "no_norm": True, "f": c_f, "stages": {s.name: f, f"resid{i}": y}}
    if style.pre_norm:  # x + f(LN(x))
        h, c_ln = k.layer_norm(x, s.gain, s.bias, style.eps)  # [..., n, d]
        f, c_f = _f_forward(s, h, ctx, style, k)
        y = x + f
        stages = {f"ln{i}": h, s.name: f, f"resid{i}": y}
    else:  # LN(x + f(x))
        f, c_f = _f_forward(s, x, ctx, style, k)
        z: Array = x + f
        y, c_ln = k.layer_norm(z, s.gain, s.bias, style.eps)
        stages = {s.name: f, f"resid{i}": z, f"ln{i}": y}
    return y, {"ln": c_ln, "f": c_f, "stages": stages}


def sublayer_backward(
    dy: Array, c: Cache, s: Sublayer, pre_norm: bool
) -> tuple[Array, Array | None, dict[str, Array]]:
    """(dx, dmemory or None, gradients of the sublayer's weights under their block names)."""
    dg: Array | None = None
    db: Array | None = None
    if c.get("no_norm"):  # y = x + f(x)
        dhs, dmem, df = _f_backward(s, dy, c["f"])
        dx: Array = sum(dhs, dy)
    elif pre_norm:  # y = x + f(h), h = LN(x)
        dhs, dmem, df = _f_backward(s, dy, c["f"])
        dx_ln, dg, db = layer_norm_backward(sum(dhs[1:], dhs[0]), c["ln"])
        dx = dy + dx_ln
    else:  # y = LN(z), z = x + f(x)
        dz, dg, db = layer_norm_backward(dy, c["ln"])
        dhs, dmem, df = _f_backward(s, dz, c["f"])
        dx = sum(dhs, dz)  # the residual's path and f's path(s)
    grads = {s.prefix + key: g for key, g in df.items()}
    grads |= {k: g for k, g in ((f"ln{s.norm}_g", dg), (f"ln{s.norm}_b", db)) if g is not None}
    return dx, dmem, grads


def block_forward(
    x: Array, block: Sequence[Sublayer], style: Style, ctx: Context, k: Kernels = TRAIN
) -> tuple[Array, Cache]:
    """One encoder or decoder block: its sublayers in turn. The cache keeps the attention
    weights (encoder: "weights"; decoder: "self_weights", "cross_weights", each
    [..., heads, n, n_k]) and every intermediate tensor by name under "stages"."""
    stages: dict[str, Array] = {"x": x}
    caches, weights = [], {}  # weights: "self" / "cross" -> [..., heads, n, n_k]
    for s in block:
        x, c = sublayer_forward(x, s, style, ctx, k)
        caches.append(c)
        stages |= c["stages"]
        if s.kind != "ffn":
            weights[s.kind] = c["f"]["weights"]
    *before, (_, out) = stages.items()  # the last stage is the block's output
    decoder = "cross" in weights
    named = {(f"{kind}_weights" if decoder else "weights"): w for kind, w in weights.items()}
    return x, {
        "block": block,
        "pre_norm": style.pre_norm,
        "sublayers": caches,
        "stages": dict(before) | {"out": out},
        "shape": x.shape,
        **named,
    }


def block_backward(dout: Array, c: Cache) -> tuple[Array, Array | None, dict[str, Array]]:
    """(dx, dmemory or None (encoder), gradients of every weight under the block's names)."""
    by_sublayer, dmemory = [], None
    for s, cs in zip(reversed(c["block"]), reversed(c["sublayers"]), strict=True):
        dout, dmem, grads = sublayer_backward(dout, cs, s, c["pre_norm"])
        by_sublayer.append(grads)
        if dmem is not None:
            dmemory = dmem
    return dout, dmemory, {k: g for grads in reversed(by_sublayer) for k, g in grads.items()}


def stack_forward(
    x: Array,
    blocks: Sequence[Sequence[Sublayer]],
    style: Style,
    ctx: Context,
    k: Kernels = TRAIN,
    for_backward: bool = True,
) -> tuple[Array, Cache]:
    """Blocks in turn. The cache stacks every layer's attention weights ([layers, ..., heads, n,
    n_k] under the blocks' names) and hidden states ("hidden" [layers + 1, ..., n, d]: the
    input, then each block's output); ``for_backward=False`` drops each layer's cache as soon
    as the layer is done ("layers" is None then)."""
    hidden, caches = [x], []
    weights: dict[str, list[Array]] = {}
    for block in blocks:
        x, c = block_forward(x, block, style, ctx, k)
        hidden.append(x)
        for name in ("weights", "self_weights", "cross_weights"):
            if name in c:
                weights.setdefault(name, []).append(c[name])
        if for_backward:
            caches.append(c)
    stacked = {name: np.stack(ws) for name, ws in weights.items()}
    return x, {"layers": caches if for_backward else None, "hidden": np.stack(hidden), **stacked}


def stack_backward(dout: Array, c: Cache) -> tuple[Array, Array | None, list[dict[str, Array]]]:
    """(dx, dmemory summed over the layers or None, [gradients of layer 0, layer 1, ...])."""
    grads, dmemory = [], None
    for layer in reversed(c["layers"]):
        dout, dmem, g = block_backward(dout, layer)
        grads.append(g)
        if dmem is not None:
            dmemory = dmem if dmemory is None else dmemory + dmem
    return dout, dmemory, grads[::-1]


# --------------------------------------------------------------------------------------------
# embedding lookup and cross-entropy


def embedding_forward(ids: NDArray[np.intp], table: Array) -> tuple[Array, Cache]:
    out = table[ids]  # [..., d]
    return out, {"ids": ids, "table_shape": table.shape, "dtype": table.dtype, "shape": out.shape}


def embedding_backward(dout: Array, c: Cache) -> Array:
    """dtable [vocab, d]: each row of dout added into the row it came from (repeats add up)."""
    dtable = np.zeros(c["table_shape"], dtype=np.result_type(dout, c["dtype"]))
    np.add.at(dtable, c["ids"].ravel(), dout.reshape(-1, c["table_shape"][1]))
    return dtable


def cross_entropy_forward(
    logits: Array, targets: NDArray[np.intp], keep: NDArray[np.bool_]
) -> tuple[float, Cache]:
    """Mean of -log softmax(logits)[target] over the targets where ``keep``."""
    count = int(keep.sum())
    logp = log_softmax(logits)  # [..., V]
    picked = np.take_along_axis(logp, targets[..., None], axis=-1)[..., 0]  # [...]
    loss = float(-(picked * keep).sum() / count)
    return loss, {"logp": logp, "t": targets, "keep": keep, "count": count}


def cross_entropy_backward(dloss: float, c: Cache) -> Array:
    """dlogits [..., V] = dloss (softmax(logits) - onehot(target)) / count; 0 on rows not kept."""
    logp, t, keep = c["logp"], c["t"], c["keep"]
    g = np.exp(logp)
    np.put_along_axis(g, t[..., None], np.take_along_axis(g, t[..., None], axis=-1) - 1, axis=-1)
    g *= (keep * (float(dloss) / c["count"]))[..., None]
    return g
