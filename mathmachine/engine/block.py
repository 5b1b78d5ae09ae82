"""The transformer block, and the encoder and decoder stacks built from it (Unit 18 §9–§11, §13).

Vaswani et al. (2017), "Attention Is All You Need", §3.1 and Figure 1; pre-LN as in Xiong et al.
(2020), "On Layer Normalization in the Transformer Architecture", Figure 1 (b):

    post-LN (the 2017 original, BERT, MiniLM):  x1 = LN1(x + MHA(x));    out = LN2(x1 + FFN(x1))
    pre-LN  (GPT-2 and most models since):      x1 = x + MHA(LN1(x));    out = x1 + FFN(LN2(x1))

A decoder layer puts cross-attention over the encoder's output ("memory") between the two:
masked self-attention (causal by default), then queries from the decoder looking at keys and
values from the memory (section 1's look-back, grown up), then the feed-forward network.

Parameters are flat dicts (easy to hand to an optimiser):

- encoder block: W_q b_q W_k b_k W_v b_v W_o b_o (self-attention), ln1_g ln1_b, W1 b1 W2 b2
  (feed-forward), ln2_g ln2_b;
- decoder block: the same, plus cross-attention cross_W_q cross_b_q ... cross_W_o cross_b_o and a
  third norm ln3_g ln3_b (ln1 around self-attention, ln2 around cross-attention, ln3 around the
  feed-forward network).

Every b_* and every ln*_g / ln*_b is optional (absent = no bias / no gain). A block has
4 d^2 + 2 d d_ff weights without biases and norms: 12 d^2 when d_ff = 4 d (d = 768 -> 7,077,888).

Ops convention (``foo`` / ``foo_forward`` / ``foo_backward``): see :mod:`.layers`. The forward
caches also keep every intermediate stage under ``cache["stages"]`` (for step-by-step widgets).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .attention import MHA_KEYS, _check_mask, _mha_bwd, _mha_fwd, causal_mask, mha_params
from .layers import (
    Array,
    Cache,
    Params,
    _check_eps,
    _ffn_bwd,
    _ffn_fwd,
    _layer_norm_bwd,
    _layer_norm_fwd,
    check_activation,
    check_grad,
    ffn_params,
    float_array,
    optional_param,
    run_checked,
)

__all__ = [
    "BLOCK_KEYS",
    "DECODER_BLOCK_KEYS",
    "block_weight_count",
    "decoder_block",
    "decoder_block_backward",
    "decoder_block_forward",
    "decoder_stack",
    "decoder_stack_backward",
    "decoder_stack_forward",
    "encoder_stack",
    "encoder_stack_backward",
    "encoder_stack_forward",
    "init_block_params",
    "init_decoder_block_params",
    "init_mha_params",
    "transformer_block",
    "transformer_block_backward",
    "transformer_block_forward",
]

_FFN_KEYS = ("W1", "b1", "W2", "b2")
BLOCK_KEYS = (*MHA_KEYS, "ln1_g", "ln1_b", *_FFN_KEYS, "ln2_g", "ln2_b")
DECODER_BLOCK_KEYS = (
    *MHA_KEYS,
    "ln1_g",
    "ln1_b",
    *(f"cross_{k}" for k in MHA_KEYS),
    "ln2_g",
    "ln2_b",
    *_FFN_KEYS,
    "ln3_g",
    "ln3_b",
)


# --------------------------------------------------------------------------------------------
# counts and initial weights


def block_weight_count(
    d_model: int, d_ff: int | None = None, *, bias: bool = False, norm: bool = False
) -> int:
    """Weights of one encoder block: 4 d^2 (attention) + 2 d d_ff (feed-forward).

    d_ff defaults to 4 d, giving 12 d^2: d = 768 -> 7,077,888. ``bias`` adds 4 d + d_ff + d,
    ``norm`` the two LayerNorms' gains and biases (4 d).
    """
    if not isinstance(d_model, int) or d_model < 1:
        raise ValueError(f"d_model must be a positive integer, got {d_model!r}")
    ff = 4 * d_model if d_ff is None else d_ff
    if not isinstance(ff, int) or ff < 1:
        raise ValueError(f"d_ff must be a positive integer, got {d_ff!r}")
    total = 4 * d_model * d_model + 2 * d_model * ff
    if bias:
        total += 4 * d_model + ff + d_model
    if norm:
        total += 4 * d_model
    return total


def init_mha_params(
    rng: np.random.Generator,
    d_model: int,
    d_kv: int | None = None,
    *,
    bias: bool = True,
    prefix: str = "",
) -> dict[str, NDArray[np.float64]]:
    """Random attention weights, N(0, 1/d_in) entries (Glorot-like scale), zero biases."""
    d_kv = d_model if d_kv is None else d_kv
    shapes = {"W_q": (d_model, d_model), "W_k": (d_kv, d_model), "W_v": (d_kv, d_model)}
    shapes["W_o"] = (d_model, d_model)
    p = {f"{prefix}{k}": rng.standard_normal(s) / np.sqrt(s[0]) for k, s in shapes.items()}
    if bias:
        p |= {f"{prefix}b_{c}": np.zeros(d_model) for c in "qkvo"}
    return p


def _init_ffn_and_norms(
    rng: np.random.Generator, d_model: int, d_ff: int, bias: bool, norms: int
) -> dict[str, NDArray[np.float64]]:
    p = {
        "W1": rng.standard_normal((d_model, d_ff)) / np.sqrt(d_model),
        "W2": rng.standard_normal((d_ff, d_model)) / np.sqrt(d_ff),
    }
    if bias:
        p |= {"b1": np.zeros(d_ff), "b2": np.zeros(d_model)}
    for i in range(1, norms + 1):
        p |= {f"ln{i}_g": np.ones(d_model), f"ln{i}_b": np.zeros(d_model)}
    return p


def init_block_params(
    rng: np.random.Generator, d_model: int, d_ff: int, *, bias: bool = True
) -> dict[str, NDArray[np.float64]]:
    """A fresh encoder block: attention and FFN weights N(0, 1/d_in), LN gain 1 and bias 0."""
    return init_mha_params(rng, d_model, bias=bias) | _init_ffn_and_norms(
        rng, d_model, d_ff, bias, 2
    )


def init_decoder_block_params(
    rng: np.random.Generator,
    d_model: int,
    d_ff: int,
    d_memory: int | None = None,
    *,
    bias: bool = True,
) -> dict[str, NDArray[np.float64]]:
    """A fresh decoder block (self-attention, cross-attention over a memory of width d_memory)."""
    return (
        init_mha_params(rng, d_model, bias=bias)
        | init_mha_params(rng, d_model, d_memory, bias=bias, prefix="cross_")
        | _init_ffn_and_norms(rng, d_model, d_ff, bias, 3)
    )


# --------------------------------------------------------------------------------------------
# parameter and input checks


def _sub(params: Params, prefix: str) -> Mapping[str, Any]:
    n = len(prefix)
    return {k[n:]: v for k, v in params.items() if k.startswith(prefix)} if prefix else params


def _norm(params: Params, i: int, d: int, where: str) -> dict[str, Array | None]:
    return {
        "g": optional_param(params, f"ln{i}_g", (d,), where),
        "b": optional_param(params, f"ln{i}_b", (d,), where),
    }


def _block_params(params: Params, d: int, n_heads: int, where: str) -> dict[str, Any]:
    if not isinstance(params, Mapping):
        raise ValueError(f"{where} params must be a dict of arrays, got {type(params).__name__}")
    att = mha_params(params, d, d, n_heads, where)
    if att["W_o"].shape[1] != d:  # type: ignore[union-attr]
        raise ValueError(f"{where} param 'W_o' must map back to width {d} for the residual")
    ffn = ffn_params(params, d, where)
    if ffn["W2"].shape[1] != d:  # type: ignore[union-attr]
        raise ValueError(f"{where} param 'W2' must map back to width {d} for the residual")
    return {
        "att": att,
        "ln1": _norm(params, 1, d, where),
        "ffn": ffn,
        "ln2": _norm(params, 2, d, where),
    }


def _decoder_params(params: Params, d: int, d_mem: int, n_heads: int, where: str) -> dict[str, Any]:
    p = _block_params(params, d, n_heads, where)
    cross = mha_params(_sub(params, "cross_"), d, d_mem, n_heads, f"{where} cross-attention")
    if cross["W_o"].shape[1] != d:  # type: ignore[union-attr]
        raise ValueError(f"{where} param 'cross_W_o' must map back to width {d}")
    p["cross"] = cross
    p["ln3"] = _norm(params, 3, d, where)
    return p


def _flat_inputs(layers: Sequence[Mapping[str, Any]], many: bool) -> dict[str, Any]:
    """Name -> array of every parameter, for naming a NaN/inf weight if the output has one."""
    out: dict[str, Any] = {}
    for i, p in enumerate(layers):
        for group, arrays in p.items():
            for key, arr in arrays.items():
                name = f"{group}_{key}" if group in ("ln1", "ln2", "ln3") else key
                name = f"cross_{name}" if group == "cross" else name
                out[f"layer {i} {name}" if many else name] = arr
    return out


def _x_and_mask(
    x: ArrayLike, mask: ArrayLike | None, name: str = "x"
) -> tuple[Array, NDArray[np.bool_] | None]:
    xa = float_array(x, name, min_ndim=2)
    m = None if mask is None else _check_mask(mask, (*xa.shape[:-2], xa.shape[-2], xa.shape[-2]))
    return xa, m


def _check_style(n_heads: int, eps: float, activation: str) -> None:
    if not isinstance(n_heads, int) or n_heads < 1:
        raise ValueError(f"n_heads must be a positive integer, got {n_heads!r}")
    _check_eps(eps)
    check_activation(activation)


# --------------------------------------------------------------------------------------------
# the encoder block


def _block_fwd(
    x: Array,
    p: Mapping[str, Any],
    n_heads: int,
    mask: NDArray[np.bool_] | None,
    pre_norm: bool,
    eps: float,
    activation: str,
    *,
    for_backward: bool = True,
    weights_out: Array | None = None,
    out: Array | None = None,
) -> tuple[Array, Cache]:
    """One encoder block from checked inputs.

    ``for_backward=False`` (inference) computes the same formula with the lean kernels (no
    caches; residual sums, LayerNorms and the activation in place; float32 GELU by its one-exp
    form) and returns only ``{"weights", "shape"}``; ``weights_out`` [..., heads, n, n] and
    ``out`` [..., n, d], when given, receive the attention weights and the block's output.
    """
    ln1, ln2 = p["ln1"], p["ln2"]
    x1: Array
    if not for_backward:
        if pre_norm:
            h1, _ = _layer_norm_fwd(x, ln1["g"], ln1["b"], eps, for_backward=False)
            a, c_att = _mha_fwd(
                h1, h1, p["att"], n_heads, mask, for_backward=False, weights_out=weights_out
            )
            a += x  # x1 = x + MHA(LN1(x))
            h2, _ = _layer_norm_fwd(a, ln2["g"], ln2["b"], eps, for_backward=False)
            f, _ = _ffn_fwd(h2, p["ffn"], activation, for_backward=False)
            y = np.add(a, f, out=out)  # x1 + FFN(LN2(x1))
        else:
            a, c_att = _mha_fwd(
                x, x, p["att"], n_heads, mask, for_backward=False, weights_out=weights_out
            )
            a += x  # z1 = x + MHA(x)
            x1, _ = _layer_norm_fwd(a, ln1["g"], ln1["b"], eps, for_backward=False, out=a)
            f, _ = _ffn_fwd(x1, p["ffn"], activation, for_backward=False)
            f += x1  # z2 = x1 + FFN(x1)
            y, _ = _layer_norm_fwd(
                f, ln2["g"], ln2["b"], eps, for_backward=False, out=f if out is None else out
            )
        return y, {"weights": c_att["weights"], "shape": y.shape}
    if pre_norm:
        h1, c_ln1 = _layer_norm_fwd(x, ln1["g"], ln1["b"], eps)
        a, c_att = _mha_fwd(h1, h1, p["att"], n_heads, mask)
        x1 = x + a
        h2, c_ln2 = _layer_norm_fwd(x1, ln2["g"], ln2["b"], eps)
        f, c_ffn = _ffn_fwd(h2, p["ffn"], activation)
        y = x1 + f
        stages = {"x": x, "ln1": h1, "attn": a, "resid1": x1, "ln2": h2, "ffn": f, "out": y}
    else:
        a, c_att = _mha_fwd(x, x, p["att"], n_heads, mask)
        z1 = x + a
        x1, c_ln1 = _layer_norm_fwd(z1, ln1["g"], ln1["b"], eps)
        f, c_ffn = _ffn_fwd(x1, p["ffn"], activation)
        z2 = x1 + f
        y, c_ln2 = _layer_norm_fwd(z2, ln2["g"], ln2["b"], eps)
        stages = {"x": x, "attn": a, "resid1": z1, "ln1": x1, "ffn": f, "resid2": z2, "out": y}
    cache = {
        "pre_norm": pre_norm,
        "ln1": c_ln1,
        "att": c_att,
        "ln2": c_ln2,
        "ffn": c_ffn,
        "weights": c_att["weights"],
        "stages": stages,
        "shape": y.shape,
    }
    return y, cache


def _norm_grads(dg: Array | None, db: Array | None, i: int, into: dict[str, Array]) -> None:
    if dg is not None:
        into[f"ln{i}_g"] = dg
    if db is not None:
        into[f"ln{i}_b"] = db


def _block_bwd(dout: Array, c: Cache) -> tuple[Array, dict[str, Array]]:
    grads: dict[str, Array] = {}
    if c["pre_norm"]:
        dh2, dffn = _ffn_bwd(dout, c["ffn"])
        dx1_ln, dg2, db2 = _layer_norm_bwd(dh2, c["ln2"])
        dx1 = dout + dx1_ln
        dhq, dhkv, datt = _mha_bwd(dx1, c["att"])
        dx_ln, dg1, db1 = _layer_norm_bwd(dhq + dhkv, c["ln1"])
        dx = dx1 + dx_ln
    else:
        dz2, dg2, db2 = _layer_norm_bwd(dout, c["ln2"])
        dx1_ffn, dffn = _ffn_bwd(dz2, c["ffn"])
        dz1, dg1, db1 = _layer_norm_bwd(dz2 + dx1_ffn, c["ln1"])
        dq, dkv, datt = _mha_bwd(dz1, c["att"])
        dx = dz1 + dq + dkv
    grads |= datt
    _norm_grads(dg1, db1, 1, grads)
    grads |= dffn
    _norm_grads(dg2, db2, 2, grads)
    return dx, grads


def transformer_block_forward(
    x: ArrayLike,
    params: Params,
    n_heads: int,
    mask: ArrayLike | None = None,
    pre_norm: bool = True,
    eps: float = 1e-5,
    activation: str = "gelu",
) -> tuple[Array, Cache]:
    """out [..., n, d] and a cache with ``cache["weights"]`` [..., heads, n, n] and
    ``cache["stages"]`` (every intermediate tensor, by name)."""
    _check_style(n_heads, eps, activation)
    xa, m = _x_and_mask(x, mask)
    p = _block_params(params, xa.shape[-1], n_heads, "transformer_block")
    return run_checked(
        "transformer_block",
        lambda: _flat_inputs([p], many=False),
        _block_fwd,
        xa,
        p,
        n_heads,
        m,
        pre_norm,
        float(eps),
        activation,
    )


def transformer_block(
    x: ArrayLike,
    params: Params,
    n_heads: int,
    mask: ArrayLike | None = None,
    pre_norm: bool = True,
    eps: float = 1e-5,
    activation: str = "gelu",
) -> Array:
    """One encoder block (self-attention + feed-forward, each with a residual and a LayerNorm).

    x [..., n, d]; params as in the module docstring (W_o and W2 must map back to width d);
    ``mask`` boolean broadcastable to [..., n, n]; ``pre_norm`` chooses pre-LN (True) or post-LN;
    ``activation`` "gelu" (exact) or "relu". Returns [..., n, d].
    """
    return transformer_block_forward(x, params, n_heads, mask, pre_norm, eps, activation)[0]


def transformer_block_backward(dout: ArrayLike, cache: Cache) -> tuple[Array, dict[str, Array]]:
    """(dx [..., n, d], dparams with the same keys as params)."""
    return _block_bwd(check_grad(dout, cache["shape"], "transformer_block"), cache)


# --------------------------------------------------------------------------------------------
# the decoder block


def _decoder_fwd(
    x: Array,
    memory: Array,
    p: Mapping[str, Any],
    n_heads: int,
    self_mask: NDArray[np.bool_] | None,
    memory_mask: NDArray[np.bool_] | None,
    pre_norm: bool,
    eps: float,
    activation: str,
) -> tuple[Array, Cache]:
    ln1, ln2, ln3 = p["ln1"], p["ln2"], p["ln3"]
    x1: Array
    x2: Array
    out: Array
    if pre_norm:
        h1, c_ln1 = _layer_norm_fwd(x, ln1["g"], ln1["b"], eps)
        a, c_self = _mha_fwd(h1, h1, p["att"], n_heads, self_mask)
        x1 = x + a
        h2, c_ln2 = _layer_norm_fwd(x1, ln2["g"], ln2["b"], eps)
        ca, c_cross = _mha_fwd(h2, memory, p["cross"], n_heads, memory_mask)
        x2 = x1 + ca
        h3, c_ln3 = _layer_norm_fwd(x2, ln3["g"], ln3["b"], eps)
        f, c_ffn = _ffn_fwd(h3, p["ffn"], activation)
        out = x2 + f
        stages = {"x": x, "ln1": h1, "self_attn": a, "resid1": x1, "ln2": h2, "cross_attn": ca}
        stages |= {"resid2": x2, "ln3": h3, "ffn": f, "out": out}
    else:
        a, c_self = _mha_fwd(x, x, p["att"], n_heads, self_mask)
        z1 = x + a
        x1, c_ln1 = _layer_norm_fwd(z1, ln1["g"], ln1["b"], eps)
        ca, c_cross = _mha_fwd(x1, memory, p["cross"], n_heads, memory_mask)
        z2 = x1 + ca
        x2, c_ln2 = _layer_norm_fwd(z2, ln2["g"], ln2["b"], eps)
        f, c_ffn = _ffn_fwd(x2, p["ffn"], activation)
        z3 = x2 + f
        out, c_ln3 = _layer_norm_fwd(z3, ln3["g"], ln3["b"], eps)
        stages = {"x": x, "self_attn": a, "resid1": z1, "ln1": x1, "cross_attn": ca}
        stages |= {"resid2": z2, "ln2": x2, "ffn": f, "resid3": z3, "out": out}
    cache = {
        "pre_norm": pre_norm,
        "ln1": c_ln1,
        "self": c_self,
        "ln2": c_ln2,
        "cross": c_cross,
        "ln3": c_ln3,
        "ffn": c_ffn,
        "self_weights": c_self["weights"],
        "cross_weights": c_cross["weights"],
        "stages": stages,
        "shape": out.shape,
    }
    return out, cache


def _decoder_bwd(dout: Array, c: Cache) -> tuple[Array, Array, dict[str, Array]]:
    if c["pre_norm"]:
        dh3, dffn = _ffn_bwd(dout, c["ffn"])
        dx2_ln, dg3, db3 = _layer_norm_bwd(dh3, c["ln3"])
        dx2 = dout + dx2_ln
        dh2, dmem, dcross = _mha_bwd(dx2, c["cross"])
        dx1_ln, dg2, db2 = _layer_norm_bwd(dh2, c["ln2"])
        dx1 = dx2 + dx1_ln
        dhq, dhkv, dself = _mha_bwd(dx1, c["self"])
        dx_ln, dg1, db1 = _layer_norm_bwd(dhq + dhkv, c["ln1"])
        dx = dx1 + dx_ln
    else:
        dz3, dg3, db3 = _layer_norm_bwd(dout, c["ln3"])
        dx2_ffn, dffn = _ffn_bwd(dz3, c["ffn"])
        dz2, dg2, db2 = _layer_norm_bwd(dz3 + dx2_ffn, c["ln2"])
        dx1_cross, dmem, dcross = _mha_bwd(dz2, c["cross"])
        dz1, dg1, db1 = _layer_norm_bwd(dz2 + dx1_cross, c["ln1"])
        dq, dkv, dself = _mha_bwd(dz1, c["self"])
        dx = dz1 + dq + dkv
    grads: dict[str, Array] = dict(dself)
    _norm_grads(dg1, db1, 1, grads)
    grads |= {f"cross_{k}": v for k, v in dcross.items()}
    _norm_grads(dg2, db2, 2, grads)
    grads |= dffn
    _norm_grads(dg3, db3, 3, grads)
    return dx, dmem, grads


def _decoder_inputs(
    x: ArrayLike,
    memory: ArrayLike,
    self_mask: ArrayLike | None,
    memory_mask: ArrayLike | None,
    causal: bool,
) -> tuple[Array, Array, NDArray[np.bool_] | None, NDArray[np.bool_] | None]:
    xa = float_array(x, "x", min_ndim=2)
    mem = float_array(memory, "memory", min_ndim=2)
    try:
        lead = np.broadcast_shapes(xa.shape[:-2], mem.shape[:-2])
    except ValueError:
        raise ValueError(
            f"the leading (batch) axes of x {xa.shape} and memory {mem.shape} do not match"
        ) from None
    n, n_mem = xa.shape[-2], mem.shape[-2]
    sm: NDArray[np.bool_] | None = causal_mask(n) if causal else None
    if self_mask is not None:
        given = _check_mask(self_mask, (*lead, n, n))
        sm = given if sm is None else sm & given
    if sm is not None:
        sm = _check_mask(sm, (*lead, n, n))
    mm = None if memory_mask is None else _check_mask(memory_mask, (*lead, n, n_mem))
    return xa, mem, sm, mm


def decoder_block_forward(
    x: ArrayLike,
    memory: ArrayLike,
    params: Params,
    n_heads: int,
    self_mask: ArrayLike | None = None,
    memory_mask: ArrayLike | None = None,
    causal: bool = True,
    pre_norm: bool = True,
    eps: float = 1e-5,
    activation: str = "gelu",
) -> tuple[Array, Cache]:
    """out [..., n, d] and a cache with ``cache["self_weights"]`` [..., heads, n, n],
    ``cache["cross_weights"]`` [..., heads, n, n_memory] and ``cache["stages"]``."""
    _check_style(n_heads, eps, activation)
    xa, mem, sm, mm = _decoder_inputs(x, memory, self_mask, memory_mask, causal)
    p = _decoder_params(params, xa.shape[-1], mem.shape[-1], n_heads, "decoder_block")
    return run_checked(
        "decoder_block",
        lambda: _flat_inputs([p], many=False),
        _decoder_fwd,
        xa,
        mem,
        p,
        n_heads,
        sm,
        mm,
        pre_norm,
        float(eps),
        activation,
    )


def decoder_block(
    x: ArrayLike,
    memory: ArrayLike,
    params: Params,
    n_heads: int,
    self_mask: ArrayLike | None = None,
    memory_mask: ArrayLike | None = None,
    causal: bool = True,
    pre_norm: bool = True,
    eps: float = 1e-5,
    activation: str = "gelu",
) -> Array:
    """One decoder layer: masked self-attention, cross-attention over ``memory``, feed-forward.

    x [..., n, d] (the target so far), memory [..., n_memory, d_memory] (the encoder's output).
    ``causal`` (default True) applies causal_mask(n) to self-attention, and-ed with ``self_mask``
    (e.g. target padding) if given; ``memory_mask`` [..., n or 1, n_memory] hides source padding.
    Returns [..., n, d].
    """
    return decoder_block_forward(
        x, memory, params, n_heads, self_mask, memory_mask, causal, pre_norm, eps, activation
    )[0]


def decoder_block_backward(dout: ArrayLike, cache: Cache) -> tuple[Array, Array, dict[str, Array]]:
    """(dx [..., n, d], dmemory [..., n_memory, d_memory], dparams with params' keys)."""
    return _decoder_bwd(check_grad(dout, cache["shape"], "decoder_block"), cache)


# --------------------------------------------------------------------------------------------
# stacks


def _check_cache_kept(cache: Cache) -> None:
    if cache.get("layers") is None:
        raise ValueError(
            "this forward ran with for_backward=False (inference), so it kept nothing to take "
            "gradients through; run it with for_backward=True"
        )


def _check_layers(layers: Sequence[Params], what: str) -> None:
    if isinstance(layers, Mapping) or not isinstance(layers, Sequence) or len(layers) == 0:
        raise ValueError(f"{what} needs a non-empty list of per-layer params dicts")


def _same_dtype(x: Array, ps: Sequence[Mapping[str, Any]]) -> bool:
    """True if every parameter array has x's dtype (so every intermediate has it too)."""
    return all(
        arr is None or arr.dtype == x.dtype
        for p in ps
        for group in p.values()
        for arr in group.values()
    )


def _encoder_stack_fwd(
    x: Array,
    ps: Sequence[Mapping[str, Any]],
    n_heads: int,
    mask: NDArray[np.bool_] | None,
    pre_norm: bool,
    eps: float,
    activation: str,
    for_backward: bool,
) -> tuple[Array, Cache]:
    lead, (n, d) = x.shape[:-2], x.shape[-2:]
    if (
        not for_backward
        and (mask is None or np.broadcast_shapes(mask.shape[:-2], lead) == lead)
        and _same_dtype(x, ps)
    ):
        # inference: every layer writes its maps and its output straight into the stacks
        weights = np.empty((len(ps), *lead, n_heads, n, n), dtype=x.dtype)
        hidden = np.empty((len(ps) + 1, *lead, n, d), dtype=x.dtype)
        hidden[0] = x
        for i, p in enumerate(ps):
            x, _ = _block_fwd(
                x,
                p,
                n_heads,
                mask,
                pre_norm,
                eps,
                activation,
                for_backward=False,
                weights_out=weights[i],
                out=hidden[i + 1],
            )
        return x, {"layers": None, "weights": weights, "hidden": hidden, "shape": x.shape}
    caches, weights_list, hidden_list = [], [], [x]
    for p in ps:
        x, c = _block_fwd(x, p, n_heads, mask, pre_norm, eps, activation, for_backward=for_backward)
        weights_list.append(c["weights"])
        hidden_list.append(x)
        if for_backward:
            caches.append(c)
        # else each layer's cache dies here: inference keeps only the maps and hidden states
    return x, {
        "layers": caches if for_backward else None,
        "weights": np.stack(weights_list),
        "hidden": np.stack(hidden_list),
        "shape": x.shape,
    }


def encoder_stack_forward(
    x: ArrayLike,
    layers: Sequence[Params],
    n_heads: int,
    mask: ArrayLike | None = None,
    pre_norm: bool = True,
    eps: float = 1e-5,
    activation: str = "gelu",
    *,
    for_backward: bool = True,
) -> tuple[Array, Cache]:
    """out [..., n, d] and a cache with ``cache["weights"]`` [layers, ..., heads, n, n] and
    ``cache["hidden"]`` [layers + 1, ..., n, d] (the input, then every block's output).

    ``for_backward=False`` (inference) drops each layer's intermediate tensors as soon as the
    layer is done: far less memory churn, but then no backward."""
    _check_style(n_heads, eps, activation)
    _check_layers(layers, "encoder_stack")
    xa, m = _x_and_mask(x, mask)
    d = xa.shape[-1]
    ps = [_block_params(p, d, n_heads, f"encoder_stack layer {i}") for i, p in enumerate(layers)]
    return run_checked(
        "encoder_stack",
        lambda: _flat_inputs(ps, many=True),
        _encoder_stack_fwd,
        xa,
        ps,
        n_heads,
        m,
        pre_norm,
        float(eps),
        activation,
        for_backward,
    )


def encoder_stack(
    x: ArrayLike,
    layers: Sequence[Params],
    n_heads: int,
    mask: ArrayLike | None = None,
    pre_norm: bool = True,
    eps: float = 1e-5,
    activation: str = "gelu",
) -> Array:
    """Encoder blocks applied in turn: x [..., n, d], ``layers`` a list of block params dicts.

    A pre-LN stack usually ends with one more LayerNorm: apply ``layer_norm`` to the result.
    """
    return encoder_stack_forward(
        x, layers, n_heads, mask, pre_norm, eps, activation, for_backward=False
    )[0]


def encoder_stack_backward(dout: ArrayLike, cache: Cache) -> tuple[Array, list[dict[str, Array]]]:
    """(dx [..., n, d], [dparams of layer 0, layer 1, ...])."""
    _check_cache_kept(cache)
    g = check_grad(dout, cache["shape"], "encoder_stack")
    grads = []
    for c in reversed(cache["layers"]):
        g, dp = _block_bwd(g, c)
        grads.append(dp)
    return g, grads[::-1]


def _decoder_stack_fwd(
    x: Array,
    memory: Array,
    ps: Sequence[Mapping[str, Any]],
    n_heads: int,
    sm: NDArray[np.bool_] | None,
    mm: NDArray[np.bool_] | None,
    pre_norm: bool,
    eps: float,
    activation: str,
    for_backward: bool,
) -> tuple[Array, Cache]:
    caches, self_w, cross_w, hidden = [], [], [], [x]
    for p in ps:
        x, c = _decoder_fwd(x, memory, p, n_heads, sm, mm, pre_norm, eps, activation)
        self_w.append(c["self_weights"])
        cross_w.append(c["cross_weights"])
        hidden.append(x)
        if for_backward:
            caches.append(c)
    return x, {
        "layers": caches if for_backward else None,
        "self_weights": np.stack(self_w),
        "cross_weights": np.stack(cross_w),
        "hidden": np.stack(hidden),
        "shape": x.shape,
        "memory_shape": memory.shape,
    }


def decoder_stack_forward(
    x: ArrayLike,
    memory: ArrayLike,
    layers: Sequence[Params],
    n_heads: int,
    self_mask: ArrayLike | None = None,
    memory_mask: ArrayLike | None = None,
    causal: bool = True,
    pre_norm: bool = True,
    eps: float = 1e-5,
    activation: str = "gelu",
    *,
    for_backward: bool = True,
) -> tuple[Array, Cache]:
    """out [..., n, d] and a cache with ``cache["self_weights"]`` [layers, ..., heads, n, n],
    ``cache["cross_weights"]`` [layers, ..., heads, n, n_memory], ``cache["hidden"]``.

    ``for_backward=False`` (inference, e.g. greedy decoding) keeps only those, not each layer's
    intermediate tensors: less memory, but no backward."""
    _check_style(n_heads, eps, activation)
    _check_layers(layers, "decoder_stack")
    xa, mem, sm, mm = _decoder_inputs(x, memory, self_mask, memory_mask, causal)
    d, d_mem = xa.shape[-1], mem.shape[-1]
    ps = [
        _decoder_params(p, d, d_mem, n_heads, f"decoder_stack layer {i}")
        for i, p in enumerate(layers)
    ]
    return run_checked(
        "decoder_stack",
        lambda: _flat_inputs(ps, many=True),
        _decoder_stack_fwd,
        xa,
        mem,
        ps,
        n_heads,
        sm,
        mm,
        pre_norm,
        float(eps),
        activation,
        for_backward,
    )


def decoder_stack(
    x: ArrayLike,
    memory: ArrayLike,
    layers: Sequence[Params],
    n_heads: int,
    self_mask: ArrayLike | None = None,
    memory_mask: ArrayLike | None = None,
    causal: bool = True,
    pre_norm: bool = True,
    eps: float = 1e-5,
    activation: str = "gelu",
) -> Array:
    """Decoder blocks applied in turn, each attending to the same ``memory``. [..., n, d]."""
    return decoder_stack_forward(
        x,
        memory,
        layers,
        n_heads,
        self_mask,
        memory_mask,
        causal,
        pre_norm,
        eps,
        activation,
        for_backward=False,
    )[0]


def decoder_stack_backward(
    dout: ArrayLike, cache: Cache
) -> tuple[Array, Array, list[dict[str, Array]]]:
    """(dx [..., n, d], dmemory [..., n_memory, d_memory], [dparams per layer])."""
    _check_cache_kept(cache)
    g = check_grad(dout, cache["shape"], "decoder_stack")
    dmem_total: Array | None = None
    grads = []
    for c in reversed(cache["layers"]):
        g, dmem, dp = _decoder_bwd(g, c)
        dmem_total = dmem if dmem_total is None else dmem_total + dmem
        grads.append(dp)
    assert dmem_total is not None
    return g, dmem_total, grads[::-1]
