"""The layers a transformer is built from, checked for callers (Unit 18 §9, §13).

Each function checks its inputs (a ValueError that names what is wrong) and runs the math of
:mod:`.ops`, where every formula is written once with its paper:

- linear:        y = x W + b, W of shape [d_in, d_out] (the convention of the whole engine)
- layer_norm:    Ba, Kiros & Hinton (2016), eq. (4): y = g (x - mean) / sqrt(var + eps) + b
- gelu:          Hendrycks & Gimpel (2016), exact GELU(x) = x Phi(x) (not the tanh approximation)
- relu:          max(x, 0)
- feed_forward:  Vaswani et al. (2017), eq. (2): FFN(x) = act(x W1 + b1) W2 + b2
- embedding:     a row lookup E[ids]; its backward is a scatter-add into the table
- softmax_forward / softmax_backward: the slope alpha_i (delta_ij - alpha_j) applied to a gradient
- cross_entropy: mean of -log softmax(logits)[target] over the targets that are not ignored

The naming rule (every module of the engine follows it):

- ``foo(...)`` returns the output; it is ``foo_forward(...)[0]``, so there is one implementation.
- ``foo_forward(...)`` returns ``(out, cache)``; ``foo_backward(dout, cache)`` the gradient of
  every differentiable argument, in argument order: one array when there is one, a tuple when
  there are several (``None`` for an optional argument that was not given, e.g. an absent bias).
  An argument that is a dict of parameters gets a dict with the same keys.
- Arrays may carry leading batch axes. float32 inputs stay float32 (the pretrained model runs in
  it); anything else is computed in float64.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray

from . import ops
from ._checks import (
    check_eps,
    check_grad,
    check_ids,
    check_output,
    float_array,
    optional_param,
    param_array,
    run_checked,
)
from ._types import Array, Cache, Params
from .normal import cdf_and_gauss
from .shares import softmax

__all__ = [
    "ACTIVATIONS",
    "cross_entropy",
    "cross_entropy_backward",
    "cross_entropy_forward",
    "embedding",
    "embedding_backward",
    "embedding_forward",
    "feed_forward",
    "feed_forward_backward",
    "feed_forward_forward",
    "gelu",
    "gelu_backward",
    "gelu_forward",
    "layer_norm",
    "layer_norm_backward",
    "layer_norm_forward",
    "linear",
    "linear_backward",
    "linear_forward",
    "log_softmax",
    "normal_cdf",
    "relu",
    "relu_backward",
    "relu_forward",
    "softmax_backward",
    "softmax_forward",
]

#: the activations feed_forward and the blocks accept
ACTIVATIONS = tuple(sorted(ops.ACTIVATIONS))


def check_activation(activation: str) -> str:
    if activation not in ops.ACTIVATIONS:
        raise ValueError(f"activation must be one of {list(ACTIVATIONS)}, got {activation!r}")
    return activation


def _vector(v: ArrayLike | None, name: str, d: int) -> Array | None:
    if v is None:
        return None
    arr = float_array(v, name)
    if arr.shape != (d,):
        raise ValueError(f"{name} must have shape ({d},), got {arr.shape}")
    return arr


# --------------------------------------------------------------------------------------------
# linear


def linear(x: ArrayLike, W: ArrayLike, b: ArrayLike | None = None) -> Array:
    """y = x W + b.  x [..., d_in], W [d_in, d_out], b [d_out] (optional) -> y [..., d_out]."""
    return linear_forward(x, W, b)[0]


def linear_forward(x: ArrayLike, W: ArrayLike, b: ArrayLike | None = None) -> tuple[Array, Cache]:
    """y = x W + b and the cache for :func:`linear_backward`."""
    xa = float_array(x, "x", min_ndim=1)
    Wa = float_array(W, "W", min_ndim=2)
    if Wa.ndim != 2:
        raise ValueError(f"W must be a matrix [d_in, d_out], got shape {Wa.shape}")
    if Wa.shape[0] != xa.shape[-1]:
        raise ValueError(
            f"x has {xa.shape[-1]} features but W has {Wa.shape[0]} rows (W is [d_in, d_out])"
        )
    y, cache = ops.linear_forward(xa, Wa, _vector(b, "b", Wa.shape[1]))
    check_output(y, "linear", {})
    return y, cache


def linear_backward(dy: ArrayLike, cache: Cache) -> tuple[Array, Array, Array | None]:
    """(dx [..., d_in], dW [d_in, d_out], db [d_out] or None if there was no bias)."""
    return ops.linear_backward(check_grad(dy, cache["shape"], "linear"), cache)


# --------------------------------------------------------------------------------------------
# layer norm


def layer_norm(
    x: ArrayLike,
    gain: ArrayLike | None = None,
    bias: ArrayLike | None = None,
    eps: float = 1e-5,
) -> Array:
    """Normalise the last axis to mean 0, variance 1, then scale by gain and shift by bias.

    x [..., d], gain [d] and bias [d] (each optional) -> [..., d].
    LayerNorm(1, 2, 3) with no gain/bias and eps = 0 is (-1.2247, 0, 1.2247).
    """
    return layer_norm_forward(x, gain, bias, eps)[0]


def layer_norm_forward(
    x: ArrayLike,
    gain: ArrayLike | None = None,
    bias: ArrayLike | None = None,
    eps: float = 1e-5,
) -> tuple[Array, Cache]:
    """LayerNorm and the cache for :func:`layer_norm_backward`."""
    xa = float_array(x, "x", min_ndim=1)
    d = xa.shape[-1]
    return ops.layer_norm_forward(
        xa, _vector(gain, "gain", d), _vector(bias, "bias", d), check_eps(eps)
    )


def layer_norm_backward(dy: ArrayLike, cache: Cache) -> tuple[Array, Array | None, Array | None]:
    """(dx [..., d], dgain [d] or None, dbias [d] or None)."""
    return ops.layer_norm_backward(check_grad(dy, cache["shape"], "layer_norm"), cache)


# --------------------------------------------------------------------------------------------
# GELU and ReLU


def normal_cdf(x: ArrayLike) -> Array:
    """Phi(x) = P(Z <= x) for a standard normal Z, elementwise; absolute error < 2e-15 (float64)."""
    return cdf_and_gauss(float_array(x, "x"))[0]


def gelu(x: ArrayLike) -> Array:
    """Exact GELU(x) = x * Phi(x), elementwise. Shape in = shape out."""
    return gelu_forward(x)[0]


def gelu_forward(x: ArrayLike) -> tuple[Array, Cache]:
    return ops.gelu_forward(float_array(x, "x"))


def gelu_backward(dy: ArrayLike, cache: Cache) -> Array:
    """dx = dy (Phi(x) + x phi(x)), same shape as x."""
    return ops.gelu_backward(check_grad(dy, cache["x"].shape, "gelu"), cache)


def relu(x: ArrayLike) -> Array:
    """max(x, 0) elementwise. Shape in = shape out."""
    return relu_forward(x)[0]


def relu_forward(x: ArrayLike) -> tuple[Array, Cache]:
    return ops.relu_forward(float_array(x, "x"))


def relu_backward(dy: ArrayLike, cache: Cache) -> Array:
    """dx = dy where x > 0, else 0 (the slope at exactly 0 is taken as 0)."""
    return ops.relu_backward(check_grad(dy, cache["x"].shape, "relu"), cache)


# --------------------------------------------------------------------------------------------
# position-wise feed-forward network


def ffn_params(params: Params, d: int, where: str = "feed_forward") -> dict[str, Array | None]:
    """Check and fetch W1, b1, W2, b2 (b1, b2 optional) for an input width ``d``."""
    if "W1" not in params or "W2" not in params:
        raise ValueError(f"{where} params need 'W1' and 'W2'")
    W1s = np.shape(params["W1"])
    if len(W1s) != 2 or W1s[0] != d:
        raise ValueError(f"{where} param 'W1' must have shape ({d}, d_ff), got {W1s}")
    d_ff = W1s[1]
    W2s = np.shape(params["W2"])
    if len(W2s) != 2 or W2s[0] != d_ff:
        raise ValueError(f"{where} param 'W2' must have shape ({d_ff}, d_out), got {W2s}")
    return {
        "W1": param_array(params, "W1", (d, d_ff), where),
        "b1": optional_param(params, "b1", (d_ff,), where),
        "W2": param_array(params, "W2", (d_ff, W2s[1]), where),
        "b2": optional_param(params, "b2", (W2s[1],), where),
    }


def feed_forward(x: ArrayLike, params: Params, activation: str = "gelu") -> Array:
    """FFN(x) = act(x W1 + b1) W2 + b2.

    x [..., d]; params W1 [d, d_ff], b1 [d_ff] (optional), W2 [d_ff, d_out], b2 [d_out]
    (optional) -> [..., d_out]. ``activation`` is "gelu" (exact) or "relu".
    """
    return feed_forward_forward(x, params, activation)[0]


def feed_forward_forward(
    x: ArrayLike, params: Params, activation: str = "gelu"
) -> tuple[Array, Cache]:
    xa = float_array(x, "x", min_ndim=1)
    p = ffn_params(params, xa.shape[-1])
    act = check_activation(activation)
    return run_checked("feed_forward", p, ops.feed_forward_forward, xa, p, act)


def feed_forward_backward(dy: ArrayLike, cache: Cache) -> tuple[Array, dict[str, Array]]:
    """(dx [..., d], dparams with the same keys as params)."""
    return ops.feed_forward_backward(check_grad(dy, cache["shape"], "feed_forward"), cache)


# --------------------------------------------------------------------------------------------
# embedding lookup


def embedding(ids: ArrayLike, table: ArrayLike) -> Array:
    """Rows of ``table`` [vocab, d] picked by integer ``ids`` [...] -> [..., d]."""
    return embedding_forward(ids, table)[0]


def embedding_forward(ids: ArrayLike, table: ArrayLike) -> tuple[Array, Cache]:
    tab = float_array(table, "table", min_ndim=2)
    if tab.ndim != 2:
        raise ValueError(f"table must be [vocab, d], got shape {tab.shape}")
    return ops.embedding_forward(check_ids(ids, tab.shape[0]), tab)


def embedding_backward(dout: ArrayLike, cache: Cache) -> Array:
    """dtable [vocab, d]: each row of dout added into the row it came from (repeats add up)."""
    return ops.embedding_backward(check_grad(dout, cache["shape"], "embedding"), cache)


# --------------------------------------------------------------------------------------------
# softmax slope and cross-entropy


def softmax_forward(x: ArrayLike, axis: int = -1) -> tuple[NDArray[np.floating], Cache]:
    """softmax (from :mod:`mathmachine.engine.shares`) and the cache for its backward."""
    w = softmax(x, axis=axis)
    return w, {"w": w, "axis": axis}


def softmax_backward(dw: ArrayLike, cache: Cache) -> Array:
    """dx_j = w_j (dw_j - sum_i dw_i w_i): the Jacobian alpha_i (delta_ij - alpha_j) applied."""
    return ops.softmax_backward(check_grad(dw, cache["w"].shape, "softmax"), cache)


def log_softmax(x: ArrayLike, axis: int = -1) -> Array:
    """log softmax(x) computed stably as x - max - log(sum(exp(x - max))). Shape in = out."""
    return ops.log_softmax(float_array(x, "x", min_ndim=1), axis)


def cross_entropy(logits: ArrayLike, targets: ArrayLike, ignore_index: int | None = None) -> float:
    """Mean of -log softmax(logits)[target] over every target that is not ``ignore_index``.

    logits [..., V], targets [...] (integers in 0..V-1, or ``ignore_index``) -> a float.
    """
    return cross_entropy_forward(logits, targets, ignore_index)[0]


def cross_entropy_forward(
    logits: ArrayLike, targets: ArrayLike, ignore_index: int | None = None
) -> tuple[float, Cache]:
    z = float_array(logits, "logits", min_ndim=1)
    t = np.asarray(targets)
    if t.shape != z.shape[:-1]:
        raise ValueError(
            f"targets must have shape {z.shape[:-1]} (logits without the class axis), got {t.shape}"
        )
    if t.dtype.kind not in "iu":
        raise ValueError(f"targets must be integers, got dtype {t.dtype}")
    keep = np.ones(t.shape, dtype=bool) if ignore_index is None else t != ignore_index
    if not keep.any():
        raise ValueError("cross_entropy: every target is ignore_index; nothing to score")
    safe_t = np.where(keep, t, 0)
    v = z.shape[-1]
    if safe_t.min() < 0 or safe_t.max() >= v:
        raise ValueError(f"targets must lie in 0..{v - 1} (or be ignore_index)")
    return ops.cross_entropy_forward(z, safe_t, keep)


def cross_entropy_backward(dloss: float, cache: Cache) -> Array:
    """dlogits [..., V] = dloss * (softmax(logits) - onehot(target)) / count; 0 on ignored rows."""
    if not (isinstance(dloss, int | float | np.floating) and math.isfinite(dloss)):
        raise ValueError(f"dloss must be a finite number, got {dloss!r}")
    return ops.cross_entropy_backward(float(dloss), cache)
