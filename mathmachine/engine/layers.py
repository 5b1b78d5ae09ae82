"""The layers a transformer is built from, each with a hand-written backward (Unit 18 §9, §13).

- linear:        y = x W + b, W of shape [d_in, d_out] (the convention of the whole engine)
- layer_norm:    Ba, Kiros & Hinton (2016), "Layer Normalization", eq. (4):
                 y = g * (x - mean) / sqrt(var + eps) + b over the last axis
- gelu:          Hendrycks & Gimpel (2016), "Gaussian Error Linear Units", exact form
                 GELU(x) = x * Phi(x) = x * (1 + erf(x / sqrt 2)) / 2 (not the tanh approximation);
                 float32 inference evaluates the same function as x / (1 + exp(x R(x^2))) with a
                 fitted polynomial R, to float32 accuracy (see _GELU_R32)
- relu:          max(x, 0)
- feed_forward:  Vaswani et al. (2017), "Attention Is All You Need", eq. (2):
                 FFN(x) = act(x W1 + b1) W2 + b2
- embedding:     a row lookup E[ids]; its backward is a scatter-add into the table
- softmax_forward / softmax_backward: the slope alpha_i (delta_ij - alpha_j) applied to a gradient
- cross_entropy: mean of -log softmax(logits)[target] over the targets that are not ignored

The ops convention (every module of the engine follows it):

- ``foo(...)`` returns the output; it calls ``foo_forward(...) -> (out, cache)``, so there is one
  implementation.
- ``foo_backward(dout, cache)`` returns the gradient of every differentiable argument, in argument
  order: one array when there is one, a tuple when there are several (``None`` for an optional
  argument that was not given, e.g. an absent bias). An argument that is a dict of parameters gets
  a dict with the same keys.
- Arrays may carry leading batch axes. float32 inputs stay float32 (the pretrained model runs in
  it); anything else is computed in float64.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ._checks import as_finite
from .softmax import softmax

Array = NDArray[np.floating[Any]]
Params = Mapping[str, ArrayLike]
Cache = dict[str, Any]

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


# --------------------------------------------------------------------------------------------
# Validation shared by the transformer modules (attention.py, positions.py, block.py use these).


def float_array(x: ArrayLike, name: str, *, min_ndim: int = 0) -> Array:
    """``x`` as a finite, non-empty float array: float32 stays float32, anything else float64.

    Raises ValueError naming ``name`` for non-numeric, empty, too few dimensions, NaN or inf.
    """
    if isinstance(x, np.ndarray) and x.dtype == np.float32:
        if x.ndim < min_ndim:
            raise ValueError(
                f"{name} must have at least {min_ndim} dimension(s), got shape {x.shape}"
            )
        if x.size == 0:
            raise ValueError(f"{name} is empty (shape {x.shape})")
        if not np.isfinite(x).all():
            raise ValueError(f"{name} contains NaN or infinity")
        return x
    if isinstance(x, np.ndarray) and x.dtype.kind not in "biuf":
        raise ValueError(f"{name} must be numeric, got an array of dtype {x.dtype}")
    return as_finite(x, name, min_ndim=min_ndim)


def param_array(params: Params, key: str, shape: tuple[int, ...], where: str) -> Array:
    """params[key] as a float array of exactly ``shape``; finiteness is checked on the output.

    Scanning every weight on every call would cost more than the small matrix products it guards;
    a NaN or inf in a weight always reaches the output, where :func:`check_output` names it.
    """
    if key not in params:
        raise ValueError(f"{where} params lack {key!r}")
    arr = np.asarray(params[key])
    if arr.dtype != np.float32 and arr.dtype != np.float64:
        if arr.dtype.kind not in "biuf":
            raise ValueError(f"{where} param {key!r} must be numeric, got dtype {arr.dtype}")
        arr = arr.astype(np.float64)
    if arr.shape != shape:
        raise ValueError(f"{where} param {key!r} must have shape {shape}, got {arr.shape}")
    return arr


def optional_param(params: Params, key: str, shape: tuple[int, ...], where: str) -> Array | None:
    """Like :func:`param_array`, but an absent key means "no such parameter" (e.g. no bias)."""
    if key not in params or params[key] is None:
        return None
    return param_array(params, key, shape, where)


def name_bad_input(inputs: Mapping[str, Any]) -> None:
    """Raise ValueError naming the first array in ``inputs`` that holds NaN or inf, if any."""
    for name, arr in inputs.items():
        if arr is not None and not np.isfinite(np.asarray(arr, dtype=np.float64)).all():
            raise ValueError(f"{name} contains NaN or infinity")


def check_output(out: NDArray[Any], what: str, inputs: Mapping[str, Any]) -> None:
    """Raise ValueError if ``out`` is not finite, naming the input that carried NaN/inf."""
    if np.isfinite(out).all():
        return
    name_bad_input(inputs)
    raise ValueError(f"{what} overflowed: the result is not finite (inputs too large)")


def run_checked(
    what: str,
    inputs: Mapping[str, Any] | Callable[[], Mapping[str, Any]],
    fn: Any,
    *args: Any,
) -> Any:
    """``fn(*args)`` -> (out, cache), with a NaN/inf weight named rather than half-reported.

    A NaN in a weight can stop a softmax half-way ("softmax input contains NaN"); the message
    the caller needs is which parameter was bad, so that is looked for first. ``inputs`` may be
    a function returning the name -> array mapping: it is then only built if something failed.
    """
    with np.errstate(invalid="ignore", over="ignore"):
        try:
            result = fn(*args)
        except ValueError:
            name_bad_input(inputs() if callable(inputs) else inputs)
            raise
    out = result[0]
    if not np.isfinite(out).all():
        check_output(out, what, inputs() if callable(inputs) else inputs)
    return result


def check_grad(dout: ArrayLike, shape: tuple[int, ...], what: str) -> Array:
    """The incoming gradient of a backward: finite and the shape of the forward's output."""
    arr = float_array(dout, f"gradient for {what}")
    if arr.shape != shape:
        raise ValueError(
            f"gradient for {what} must have the output's shape {shape}, got {arr.shape}"
        )
    return arr


def unbroadcast(grad: NDArray[Any], shape: tuple[int, ...]) -> NDArray[Any]:
    """Sum ``grad`` over the axes that broadcasting added or stretched, back to ``shape``."""
    if grad.shape == shape:
        return grad
    extra = grad.ndim - len(shape)
    if extra > 0:
        grad = grad.sum(axis=tuple(range(extra)))
    axes = tuple(i for i, n in enumerate(shape) if n == 1 and grad.shape[i] != 1)
    if axes:
        grad = grad.sum(axis=axes, keepdims=True)
    return grad


def _lead_sum(g: NDArray[Any], last: int) -> NDArray[Any]:
    """Sum over every axis but the last ``last`` ones (gradient of a broadcast parameter)."""
    return g.reshape(-1, *g.shape[g.ndim - last :]).sum(axis=0)


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
    ba = None
    if b is not None:
        ba = float_array(b, "b", min_ndim=1)
        if ba.shape != (Wa.shape[1],):
            raise ValueError(f"b must have shape ({Wa.shape[1]},), got {ba.shape}")
    y = xa @ Wa
    if ba is not None:
        y = y + ba
    check_output(y, "linear", {})
    return y, {"x": xa, "W": Wa, "has_bias": ba is not None, "shape": y.shape}


def _linear(x: Array, W: Array, b: Array | None) -> Array:
    y = x @ W
    if b is not None:
        y += b
    return y


def _linear_grads(
    dy: Array, x: Array, W: Array, has_bias: bool
) -> tuple[Array, Array, Array | None]:
    dx = dy @ W.T
    dW = x.reshape(-1, x.shape[-1]).T @ dy.reshape(-1, dy.shape[-1])
    db = _lead_sum(dy, 1) if has_bias else None
    return dx, dW, db


def linear_backward(dy: ArrayLike, cache: Cache) -> tuple[Array, Array, Array | None]:
    """(dx [..., d_in], dW [d_in, d_out], db [d_out] or None if there was no bias)."""
    g = check_grad(dy, cache["shape"], "linear")
    return _linear_grads(g, cache["x"], cache["W"], cache["has_bias"])


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


def _check_eps(eps: float) -> float:
    if not (isinstance(eps, int | float) and math.isfinite(eps) and eps >= 0):
        raise ValueError(f"eps must be a finite number >= 0, got {eps!r}")
    return float(eps)


def _layer_norm_fwd(
    x: Array,
    g: Array | None,
    b: Array | None,
    eps: float,
    *,
    for_backward: bool = True,
    out: Array | None = None,
) -> tuple[Array, Cache | None]:
    """LayerNorm of x [..., d] over the last axis (x must have at least 2 axes when
    ``for_backward`` is False).

    ``for_backward=False`` (inference) keeps no cache (returns None for it) and writes the
    result into ``out`` [..., d] when given (``out`` may be ``x`` itself). It takes the row
    sums as matrix-vector products (the mean as x @ 1 / d, the variance as a row-wise dot of
    the centred rows with themselves, no squared copy), which numpy does several times faster
    than a reduction along a short last axis; it agrees with the cached path to rounding.
    """
    if not for_backward:
        d = x.shape[-1]
        mean = x @ np.ones(d, dtype=x.dtype)  # [...]
        mean /= d
        xc = np.subtract(x, mean[..., None], out=out)
        var = np.vecdot(xc, xc)
        var /= d
        if eps == 0.0 and not np.all(var > 0):
            raise ValueError("layer_norm: a row of x is constant (variance 0) and eps is 0")
        var += x.dtype.type(eps)
        rstd = np.sqrt(var, out=var)
        np.divide(1.0, rstd, out=rstd)
        xc *= rstd[..., None]
        if g is not None:
            xc *= g
        if b is not None:
            xc += b
        return xc, None
    mu = x.mean(axis=-1, keepdims=True)
    xc = x - mu
    var = np.mean(xc * xc, axis=-1, keepdims=True)
    if eps == 0.0 and not np.all(var > 0):
        raise ValueError("layer_norm: a row of x is constant (variance 0) and eps is 0")
    rstd = 1.0 / np.sqrt(var + x.dtype.type(eps))
    xhat = xc * rstd
    y = xhat * g if g is not None else xhat.copy()
    if b is not None:
        y += b
    return y, {"xhat": xhat, "rstd": rstd, "gain": g, "has_bias": b is not None, "shape": y.shape}


def _layer_norm_bwd(dy: Array, c: Cache) -> tuple[Array, Array | None, Array | None]:
    xhat, rstd, g = c["xhat"], c["rstd"], c["gain"]
    dxhat = dy * g if g is not None else dy
    dx = rstd * (
        dxhat
        - dxhat.mean(axis=-1, keepdims=True)
        - xhat * np.mean(dxhat * xhat, axis=-1, keepdims=True)
    )
    dg = _lead_sum(dy * xhat, 1) if g is not None else None
    db = _lead_sum(dy, 1) if c["has_bias"] else None
    return dx, dg, db


def layer_norm_forward(
    x: ArrayLike,
    gain: ArrayLike | None = None,
    bias: ArrayLike | None = None,
    eps: float = 1e-5,
) -> tuple[Array, Cache]:
    """LayerNorm and the cache for :func:`layer_norm_backward`."""
    xa = float_array(x, "x", min_ndim=1)
    d = xa.shape[-1]
    ga = ba = None
    if gain is not None:
        ga = float_array(gain, "gain")
        if ga.shape != (d,):
            raise ValueError(f"gain must have shape ({d},), got {ga.shape}")
    if bias is not None:
        ba = float_array(bias, "bias")
        if ba.shape != (d,):
            raise ValueError(f"bias must have shape ({d},), got {ba.shape}")
    y, cache = _layer_norm_fwd(xa, ga, ba, _check_eps(eps))
    return y, cache  # type: ignore[return-value]


def layer_norm_backward(dy: ArrayLike, cache: Cache) -> tuple[Array, Array | None, Array | None]:
    """(dx [..., d], dgain [d] or None, dbias [d] or None)."""
    return _layer_norm_bwd(check_grad(dy, cache["shape"], "layer_norm"), cache)


# --------------------------------------------------------------------------------------------
# GELU (exact), via the scaled complementary error function erfcx(a) = exp(a^2) erfc(a)
#
# numpy has no erf. Phi(x) = erfc(-x / sqrt 2) / 2, and for a = |x| / sqrt 2 >= 0
#     erfc(a) = exp(-a^2) * erfcx(a),
# where erfcx is smooth and bounded on [0, inf). With t = (a - 3) / (a + 3), which maps [0, inf)
# onto [-1, 1), erfcx is a polynomial in t to float64 accuracy. The coefficients below are a
# least-squares Chebyshev fit of degree 30 (400 Chebyshev nodes, reference values from Python's
# math.erfc) truncated where its terms drop below 2e-16 (float64) or 1e-8 (float32) and turned into
# power-series form; tests/engine/test_layers.py re-checks them against math.erf on a dense grid
# (float64: |error| < 2e-15 on Phi). No masks, no branches: one Horner pass and one exp.

_ERFCX_T64 = (
    0.17900115118139026,
    -0.32623356004303833,
    0.24560380171231638,
    -0.15011593650076732,
    0.07166583719817576,
    -0.02439249931818329,
    0.0042691363323096015,
    0.0007077464295759371,
    -0.0005970619525918967,
    4.5255379215085914e-05,
    6.405657988554209e-05,
    -1.2860906044673153e-05,
    -7.978143186888608e-06,
    2.1213050772872835e-06,
    1.2522571919692673e-06,
    -2.9655099056940894e-07,
    -2.3379944334236493e-07,
    3.1799502321957085e-08,
    4.5487977646415794e-08,
    -1.4603352929029116e-09,
    -7.608519183459934e-09,
    -1.3401131594151765e-10,
    7.544952057281845e-10,
)
_ERFCX_T32 = (
    0.1790011536518545,
    -0.32623364583193026,
    0.24560362162714808,
    -0.1501141858485532,
    0.07166797533268425,
    -0.02440260496941361,
    0.004259766871334771,
    0.0007320455404061764,
    -0.0005781560562711012,
    1.839823546360184e-05,
    4.564088765529564e-05,
)
_INV_SQRT2 = 1.0 / math.sqrt(2.0)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)


def _phi_and_gauss(x: Array) -> tuple[Array, Array]:
    """(Phi(x), exp(-x^2 / 2)) elementwise, in x's dtype."""
    if x.ndim == 0:
        phi, gauss = _phi_and_gauss(x.reshape(1))
        return phi.reshape(()), gauss.reshape(())
    f = x.dtype.type
    coefs = _ERFCX_T32 if x.dtype == np.float32 else _ERFCX_T64
    a = np.abs(x)
    a *= f(_INV_SQRT2)
    t = a - f(3.0)
    t /= a + f(3.0)
    acc = np.full_like(t, coefs[-1])
    for c in coefs[-2::-1]:
        acc *= t
        acc += f(c)
    a *= a
    np.negative(a, out=a)
    gauss = np.exp(a, out=a)  # exp(-x^2/2)
    half_erfc = acc
    half_erfc *= gauss
    half_erfc *= f(0.5)  # = Phi(-|x|)
    # Phi = half_erfc where x < 0, else 1 - half_erfc. np.where costs ~3.5 ns an element (its
    # loop does not vectorise); a 0/1 blend takes a fifth of that and gives the same bits, since
    # one term is exactly 0: Phi = half_erfc * [x < 0] + (1 - half_erfc) * [x >= 0].
    neg = (x < 0).astype(x.dtype)
    phi = np.subtract(f(1.0), half_erfc)
    half_erfc *= neg
    np.subtract(f(1.0), neg, out=neg)
    phi *= neg
    phi += half_erfc
    return phi, gauss


# --------------------------------------------------------------------------------------------
# GELU in float32 for inference (the pretrained model): one exp instead of a 10-term series
#
#     x Phi(x) = x / (1 + exp(v(x))),   v(x) = ln(Phi(-x) / Phi(x)) = x R(x^2)
#
# exactly, since 1 / (1 + Phi(-x)/Phi(x)) = Phi(x). v is odd and smooth, so R is a smooth
# function of s = x^2: R(0) = -4 / sqrt(2 pi), and R(s) ~ -sqrt(s) / 2 for large s. The
# coefficients below are a degree-6 polynomial in s fitted to R on x in [0, 6] by weighted least
# squares (reference values from math.erfc in float64), the weights x^2 Phi (1 - Phi) being the
# factor by which an error in R reaches x Phi(x), reweighted toward the largest error (a few
# hundred rounds of iteratively reweighted least squares, i.e. near-minimax). Its own error on
# x Phi(x) is below 7e-8 * max(1, |x|); evaluated in float32 the total error is below 2e-7 *
# max(1, |x|) (the erfcx series above gets 1.1e-7; float32 rounding of x alone gives 1.1e-7).
# R's leading coefficient is negative and R has no root on s >= 0, so R < 0 everywhere: for
# large |x|, v = x R(x^2) runs to -inf (x > 0: exp -> 0, GELU -> x) or +inf (x < 0: exp -> inf,
# GELU -> -0), overflow included. tests/engine/test_layers.py checks all of this.
# 15 elementwise passes and one exp, against the series' ~30 passes, an exp and a blend.

_GELU_R32 = (
    -1.5957684323397778,
    -0.0726685666865809,
    6.625973024794762e-05,
    0.00011048039360893405,
    -7.938229329857995e-06,
    2.668934575704203e-07,
    -3.6112470439565943e-09,
)


def _gelu_f32_fast(x: NDArray[np.float32]) -> NDArray[np.float32]:
    """x Phi(x) for float32 x (any shape) via x / (1 + exp(x R(x^2))); x is not modified."""
    f = np.float32
    with np.errstate(over="ignore"):  # huge |x|: x^2, R or exp overflow to inf, which is right
        s = np.multiply(x, x)
        acc = np.multiply(s, f(_GELU_R32[-1]))
        acc += f(_GELU_R32[-2])
        for c in _GELU_R32[-3::-1]:
            acc *= s
            acc += f(c)
        del s
        acc *= x
        np.exp(acc, out=acc)
    acc += f(1.0)
    return np.divide(x, acc, out=acc)


def normal_cdf(x: ArrayLike) -> Array:
    """Phi(x) = P(Z <= x) for a standard normal Z, elementwise; absolute error < 2e-15 (float64)."""
    return _phi_and_gauss(float_array(x, "x"))[0]


def gelu(x: ArrayLike) -> Array:
    """Exact GELU(x) = x * Phi(x), elementwise. Shape in = shape out."""
    return gelu_forward(x)[0]


def gelu_forward(x: ArrayLike) -> tuple[Array, Cache]:
    xa = float_array(x, "x")
    phi, gauss = _phi_and_gauss(xa)
    return xa * phi, {"x": xa, "phi": phi, "gauss": gauss}


def _gelu_bwd(dy: Array, c: Cache) -> Array:
    # d/dx [x Phi(x)] = Phi(x) + x phi(x), phi the standard normal density.
    x = c["x"]
    f = x.dtype.type
    slope = c["gauss"] * x
    slope *= f(_INV_SQRT_2PI)
    slope += c["phi"]
    return dy * slope


def gelu_backward(dy: ArrayLike, cache: Cache) -> Array:
    """dx, same shape as x."""
    return _gelu_bwd(check_grad(dy, cache["x"].shape, "gelu"), cache)


# --------------------------------------------------------------------------------------------
# ReLU


def relu(x: ArrayLike) -> Array:
    """max(x, 0) elementwise. Shape in = shape out."""
    return relu_forward(x)[0]


def relu_forward(x: ArrayLike) -> tuple[Array, Cache]:
    xa = float_array(x, "x")
    return np.maximum(xa, 0), {"x": xa}


def _relu_bwd(dy: Array, c: Cache) -> Array:
    return dy * (c["x"] > 0)


def relu_backward(dy: ArrayLike, cache: Cache) -> Array:
    """dx = dy where x > 0, else 0 (the slope at exactly 0 is taken as 0)."""
    return _relu_bwd(check_grad(dy, cache["x"].shape, "relu"), cache)


def _gelu_fwd_raw(x: Array) -> tuple[Array, Cache]:
    phi, gauss = _phi_and_gauss(x)
    return x * phi, {"x": x, "phi": phi, "gauss": gauss}


def _relu_fwd_raw(x: Array) -> tuple[Array, Cache]:
    return np.maximum(x, 0), {"x": x}


def _gelu_infer(x: Array) -> Array:
    """GELU without a cache, for inference; may overwrite x. float32: the one-exp form above
    (within 2e-7 * max(1, |x|) of the exact value); float64: the same bits as gelu()."""
    if x.dtype == np.float32:
        return _gelu_f32_fast(x)
    phi = _phi_and_gauss(x)[0]
    phi *= x
    return phi


def _relu_infer(x: Array) -> Array:
    """ReLU without a cache, for inference; overwrites x."""
    return np.maximum(x, 0, out=x)


#: name -> (forward without checks, backward without checks); the names feed_forward accepts.
ACTIVATIONS = {"gelu": (_gelu_fwd_raw, _gelu_bwd), "relu": (_relu_fwd_raw, _relu_bwd)}
#: name -> inference-only forward (no cache; may overwrite its input, which must be a temporary)
ACTIVATIONS_INFER = {"gelu": _gelu_infer, "relu": _relu_infer}


def check_activation(activation: str) -> str:
    if activation not in ACTIVATIONS:
        raise ValueError(f"activation must be one of {sorted(ACTIVATIONS)}, got {activation!r}")
    return activation


# --------------------------------------------------------------------------------------------
# position-wise feed-forward network


def feed_forward(x: ArrayLike, params: Params, activation: str = "gelu") -> Array:
    """FFN(x) = act(x W1 + b1) W2 + b2.

    x [..., d]; params W1 [d, d_ff], b1 [d_ff] (optional), W2 [d_ff, d_out], b2 [d_out]
    (optional) -> [..., d_out]. ``activation`` is "gelu" (exact) or "relu".
    """
    return feed_forward_forward(x, params, activation)[0]


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


def _ffn_fwd(
    x: Array, p: Mapping[str, Array | None], activation: str, *, for_backward: bool = True
) -> tuple[Array, Cache | None]:
    """act(x W1 + b1) W2 + b2; ``for_backward=False`` keeps no cache (returns None for it) and
    applies the activation in place (in float32, GELU by its one-exp form)."""
    h = _linear(x, p["W1"], p["b1"])  # type: ignore[arg-type]
    if not for_backward:
        return _linear(ACTIVATIONS_INFER[activation](h), p["W2"], p["b2"]), None  # type: ignore[arg-type]
    a, act_cache = ACTIVATIONS[activation][0](h)
    y = _linear(a, p["W2"], p["b2"])  # type: ignore[arg-type]
    return y, {"x": x, "a": a, "act": act_cache, "activation": activation, "p": p, "shape": y.shape}


def _ffn_bwd(dy: Array, c: Cache) -> tuple[Array, dict[str, Array]]:
    p = c["p"]
    da, dW2, db2 = _linear_grads(dy, c["a"], p["W2"], p["b2"] is not None)
    dh = ACTIVATIONS[c["activation"]][1](da, c["act"])
    dx, dW1, db1 = _linear_grads(dh, c["x"], p["W1"], p["b1"] is not None)
    grads: dict[str, Array] = {"W1": dW1, "W2": dW2}
    if db1 is not None:
        grads["b1"] = db1
    if db2 is not None:
        grads["b2"] = db2
    return dx, grads


def feed_forward_forward(
    x: ArrayLike, params: Params, activation: str = "gelu"
) -> tuple[Array, Cache]:
    xa = float_array(x, "x", min_ndim=1)
    p = ffn_params(params, xa.shape[-1])
    return run_checked("feed_forward", p, _ffn_fwd, xa, p, check_activation(activation))


def feed_forward_backward(dy: ArrayLike, cache: Cache) -> tuple[Array, dict[str, Array]]:
    """(dx [..., d], dparams with the same keys as params)."""
    return _ffn_bwd(check_grad(dy, cache["shape"], "feed_forward"), cache)


# --------------------------------------------------------------------------------------------
# embedding lookup


def embedding(ids: ArrayLike, table: ArrayLike) -> Array:
    """Rows of ``table`` [vocab, d] picked by integer ``ids`` [...] -> [..., d]."""
    return embedding_forward(ids, table)[0]


def check_ids(ids: ArrayLike, size: int, name: str = "ids") -> NDArray[np.intp]:
    arr = np.asarray(ids)
    if arr.size == 0:
        raise ValueError(f"{name} is empty (shape {arr.shape})")
    if arr.dtype.kind not in "iu":
        if arr.dtype.kind == "b" or arr.dtype.kind not in "f":
            raise ValueError(f"{name} must be integers, got dtype {arr.dtype}")
        if not (np.isfinite(arr).all() and np.all(arr == np.round(arr))):
            raise ValueError(f"{name} must be whole numbers")
    arr = arr.astype(np.intp)
    if arr.min() < 0 or arr.max() >= size:
        raise ValueError(
            f"{name} must lie in 0..{size - 1}, got values from {arr.min()} to {arr.max()}"
        )
    return arr


def embedding_forward(ids: ArrayLike, table: ArrayLike) -> tuple[Array, Cache]:
    tab = float_array(table, "table", min_ndim=2)
    if tab.ndim != 2:
        raise ValueError(f"table must be [vocab, d], got shape {tab.shape}")
    idx = check_ids(ids, tab.shape[0])
    out = tab[idx]
    return out, {"ids": idx, "table_shape": tab.shape, "dtype": tab.dtype, "shape": out.shape}


def embedding_backward(dout: ArrayLike, cache: Cache) -> Array:
    """dtable [vocab, d]: each row of dout added into the row it came from (repeats add up)."""
    g = check_grad(dout, cache["shape"], "embedding")
    dtable = np.zeros(cache["table_shape"], dtype=np.result_type(g, cache["dtype"]))
    np.add.at(dtable, cache["ids"].ravel(), g.reshape(-1, cache["table_shape"][1]))
    return dtable


# --------------------------------------------------------------------------------------------
# softmax slope and cross-entropy


def softmax_forward(x: ArrayLike, axis: int = -1) -> tuple[NDArray[np.floating], Cache]:
    """softmax (from :mod:`mathmachine.engine.softmax`) and the cache for its backward."""
    w = softmax(x, axis=axis)
    return w, {"w": w, "axis": axis}


def softmax_backward(dw: ArrayLike, cache: Cache) -> NDArray[np.float64]:
    """dx_j = w_j (dw_j - sum_i dw_i w_i): the Jacobian alpha_i (delta_ij - alpha_j) applied."""
    w, axis = cache["w"], cache["axis"]
    g = check_grad(dw, w.shape, "softmax")
    return w * (g - np.sum(g * w, axis=axis, keepdims=True))


def log_softmax(x: ArrayLike, axis: int = -1) -> Array:
    """log softmax(x) computed stably as x - max - log(sum(exp(x - max))). Shape in = out."""
    xa = float_array(x, "x", min_ndim=1)
    z = xa - xa.max(axis=axis, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=axis, keepdims=True))


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
    count = int(keep.sum())
    if count == 0:
        raise ValueError("cross_entropy: every target is ignore_index; nothing to score")
    safe_t = np.where(keep, t, 0)
    v = z.shape[-1]
    if safe_t.min() < 0 or safe_t.max() >= v:
        raise ValueError(f"targets must lie in 0..{v - 1} (or be ignore_index)")
    logp = log_softmax(z)
    picked = np.take_along_axis(logp, safe_t[..., None], axis=-1)[..., 0]
    loss = float(-(picked * keep).sum() / count)
    return loss, {"logp": logp, "t": safe_t, "keep": keep, "count": count}


def cross_entropy_backward(dloss: float, cache: Cache) -> Array:
    """dlogits [..., V] = dloss * (softmax(logits) - onehot(target)) / count; 0 on ignored rows."""
    if not (isinstance(dloss, int | float | np.floating) and math.isfinite(dloss)):
        raise ValueError(f"dloss must be a finite number, got {dloss!r}")
    logp, t, keep = cache["logp"], cache["t"], cache["keep"]
    g = np.exp(logp)
    np.put_along_axis(g, t[..., None], np.take_along_axis(g, t[..., None], axis=-1) - 1, axis=-1)
    g *= (keep * (float(dloss) / cache["count"]))[..., None]
    return g
