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

Naming rule (``foo`` / ``foo_forward`` / ``foo_backward``): see :mod:`.layers`. Every block,
pre- or post-LN, encoder or decoder, forward or backward, is composed in :mod:`.ops` from one
sublayer (``ops.sublayer_forward``: x + f(LN(x)) or LN(x + f(x))); this module checks the
parameters and builds the sublayers. The forward caches also keep every intermediate stage
under ``cache["stages"]`` (for step-by-step widgets).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from . import ops
from ._checks import check_eps, check_grad, float_array, optional_param, run_checked
from ._types import Array, Cache, Params
from .dot_product import MHA_KEYS, causal_mask, check_mask, mha_params
from .layers import check_activation, ffn_params
from .ops import Context, Style, Sublayer

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
# parameters -> sublayers (checked once per call, for every layer)


def _sub(params: Params, prefix: str) -> Params:
    n = len(prefix)
    return {k[n:]: v for k, v in params.items() if k.startswith(prefix)} if prefix else params


def _maps_back(weights: ops.Weights, key: str, d: int, where: str) -> None:
    W = weights[key.removeprefix("cross_")]
    if W.shape[1] != d:  # type: ignore[union-attr]
        raise ValueError(f"{where} param {key!r} must map back to width {d} for the residual")


def _sublayer(
    params: Params, kind: str, name: str, norm: int, weights: ops.Weights, d: int, where: str
) -> Sublayer:
    gain = optional_param(params, f"ln{norm}_g", (d,), where)
    bias = optional_param(params, f"ln{norm}_b", (d,), where)
    prefix = "cross_" if kind == "cross" else ""
    return Sublayer(kind, name, norm, weights, gain, bias, prefix)


def _encoder_block(params: Params, d: int, n_heads: int, where: str) -> list[Sublayer]:
    """self-attention (ln1), then the feed-forward network (ln2)."""
    if not isinstance(params, Mapping):
        raise ValueError(f"{where} params must be a dict of arrays, got {type(params).__name__}")
    att = mha_params(params, d, d, n_heads, where)
    _maps_back(att, "W_o", d, where)
    ffn = ffn_params(params, d, where)
    _maps_back(ffn, "W2", d, where)
    return [
        _sublayer(params, "self", "attn", 1, att, d, where),
        _sublayer(params, "ffn", "ffn", 2, ffn, d, where),
    ]


def _decoder_block(params: Params, d: int, d_mem: int, n_heads: int, where: str) -> list[Sublayer]:
    """masked self-attention (ln1), cross-attention over the memory (ln2), feed-forward (ln3)."""
    self_att, ffn = _encoder_block(params, d, n_heads, where)
    cross = mha_params(_sub(params, "cross_"), d, d_mem, n_heads, f"{where} cross-attention")
    _maps_back(cross, "cross_W_o", d, where)
    return [
        Sublayer("self", "self_attn", 1, self_att.weights, self_att.gain, self_att.bias),
        _sublayer(params, "cross", "cross_attn", 2, cross, d, where),
        _sublayer(params, "ffn", "ffn", 3, ffn.weights, d, where),
    ]


def _named_weights(blocks: Sequence[Sequence[Sublayer]]) -> dict[str, Any]:
    """Name -> array of every parameter, for naming a NaN/inf weight if the output has one."""
    out: dict[str, Any] = {}
    for i, block in enumerate(blocks):
        at = f"layer {i} " if len(blocks) > 1 else ""
        for s in block:
            out |= {f"{at}{s.prefix}{key}": w for key, w in s.weights.items()}
            out |= {f"{at}ln{s.norm}_g": s.gain, f"{at}ln{s.norm}_b": s.bias}
    return out


def _style(
    n_heads: int, pre_norm: bool, eps: float, activation: str, layer_norm: bool = True
) -> Style:
    if not isinstance(n_heads, int) or n_heads < 1:
        raise ValueError(f"n_heads must be a positive integer, got {n_heads!r}")
    return Style(
        n_heads, bool(pre_norm), check_eps(eps), check_activation(activation), bool(layer_norm)
    )


def _without_norms(blocks: list[list[Sublayer]], style: Style, what: str) -> None:
    """layer_norm=False runs x + f(x): a LayerNorm gain or bias in the params would be ignored
    without a word, so it is an error."""
    if style.norm:
        return
    for i, block in enumerate(blocks):
        for s in block:
            if s.gain is not None or s.bias is not None:
                raise ValueError(
                    f"{what} layer {i} has ln{s.norm}_g / ln{s.norm}_b but layer_norm=False: "
                    "leave the LayerNorm's gain and bias out of the params"
                )


def _layers(layers: Sequence[Params], what: str) -> Sequence[Params]:
    if isinstance(layers, Mapping) or not isinstance(layers, Sequence) or len(layers) == 0:
        raise ValueError(f"{what} needs a non-empty list of per-layer params dicts")
    return layers


def _encoder_inputs(x: ArrayLike, mask: ArrayLike | None) -> tuple[Array, Context]:
    xa = float_array(x, "x", min_ndim=2)
    m = None if mask is None else check_mask(mask, (*xa.shape[:-2], xa.shape[-2], xa.shape[-2]))
    return xa, Context(self_mask=m)


def _decoder_inputs(
    x: ArrayLike,
    memory: ArrayLike,
    self_mask: ArrayLike | None,
    memory_mask: ArrayLike | None,
    causal: bool,
) -> tuple[Array, Context]:
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
        given = check_mask(self_mask, (*lead, n, n))
        sm = given if sm is None else sm & given
    if sm is not None:
        sm = check_mask(sm, (*lead, n, n))
    mm = None if memory_mask is None else check_mask(memory_mask, (*lead, n, n_mem))
    return xa, Context(mem, sm, mm)


def _run(
    what: str,
    x: Array,
    blocks: list[list[Sublayer]],
    style: Style,
    ctx: Context,
    for_backward: bool,
) -> tuple[Array, Cache]:
    """The blocks in turn, with a NaN/inf weight named rather than half-reported."""
    kernels = ops.TRAIN if for_backward else ops.INFER
    out, cache = run_checked(
        what,
        lambda: _named_weights(blocks),
        ops.stack_forward,
        x,
        blocks,
        style,
        ctx,
        kernels,
        for_backward,
    )
    memory_shape = None if ctx.memory is None else ctx.memory.shape
    return out, cache | {"shape": out.shape, "memory_shape": memory_shape}


def _one_layer(cache: Cache) -> Cache:
    """A single block's cache (what the block functions return) from a one-layer stack's."""
    layer: Cache = cache["layers"][0]
    return layer | {"shape": cache["shape"]}


def _backward_ready(dout: ArrayLike, cache: Cache, what: str) -> Array:
    if cache.get("layers") is None:
        raise ValueError(
            "this forward ran with for_backward=False (inference), so it kept nothing to take "
            "gradients through; run it with for_backward=True"
        )
    return check_grad(dout, cache["shape"], what)


# --------------------------------------------------------------------------------------------
# the encoder block


def transformer_block_forward(
    x: ArrayLike,
    params: Params,
    n_heads: int,
    *,
    mask: ArrayLike | None = None,
    pre_norm: bool = True,
    eps: float = 1e-5,
    activation: str = "gelu",
) -> tuple[Array, Cache]:
    """out [..., n, d] and a cache with ``cache["weights"]`` [..., heads, n, n] and
    ``cache["stages"]`` (every intermediate tensor, by name)."""
    style = _style(n_heads, pre_norm, eps, activation)
    xa, ctx = _encoder_inputs(x, mask)
    block = _encoder_block(params, xa.shape[-1], n_heads, "transformer_block")
    out, cache = _run("transformer_block", xa, [block], style, ctx, True)
    return out, _one_layer(cache)


def transformer_block(
    x: ArrayLike,
    params: Params,
    n_heads: int,
    *,
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
    return transformer_block_forward(
        x, params, n_heads, mask=mask, pre_norm=pre_norm, eps=eps, activation=activation
    )[0]


def transformer_block_backward(dout: ArrayLike, cache: Cache) -> tuple[Array, dict[str, Array]]:
    """(dx [..., n, d], dparams with the same keys as params)."""
    dx, _, grads = ops.block_backward(check_grad(dout, cache["shape"], "transformer_block"), cache)
    return dx, grads


# --------------------------------------------------------------------------------------------
# the decoder block


def decoder_block_forward(
    x: ArrayLike,
    memory: ArrayLike,
    params: Params,
    n_heads: int,
    *,
    self_mask: ArrayLike | None = None,
    memory_mask: ArrayLike | None = None,
    causal: bool = True,
    pre_norm: bool = True,
    eps: float = 1e-5,
    activation: str = "gelu",
) -> tuple[Array, Cache]:
    """out [..., n, d] and a cache with ``cache["self_weights"]`` [..., heads, n, n],
    ``cache["cross_weights"]`` [..., heads, n, n_memory] and ``cache["stages"]``."""
    style = _style(n_heads, pre_norm, eps, activation)
    xa, ctx = _decoder_inputs(x, memory, self_mask, memory_mask, causal)
    d, d_mem = xa.shape[-1], ctx.memory.shape[-1]  # type: ignore[union-attr]
    block = _decoder_block(params, d, d_mem, n_heads, "decoder_block")
    out, cache = _run("decoder_block", xa, [block], style, ctx, True)
    return out, _one_layer(cache)


def decoder_block(
    x: ArrayLike,
    memory: ArrayLike,
    params: Params,
    n_heads: int,
    *,
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
        x,
        memory,
        params,
        n_heads,
        self_mask=self_mask,
        memory_mask=memory_mask,
        causal=causal,
        pre_norm=pre_norm,
        eps=eps,
        activation=activation,
    )[0]


def decoder_block_backward(dout: ArrayLike, cache: Cache) -> tuple[Array, Array, dict[str, Array]]:
    """(dx [..., n, d], dmemory [..., n_memory, d_memory], dparams with params' keys)."""
    dx, dmem, grads = ops.block_backward(check_grad(dout, cache["shape"], "decoder_block"), cache)
    return dx, dmem, grads  # type: ignore[return-value]


# --------------------------------------------------------------------------------------------
# stacks


def encoder_stack_forward(
    x: ArrayLike,
    layers: Sequence[Params],
    n_heads: int,
    *,
    mask: ArrayLike | None = None,
    pre_norm: bool = True,
    eps: float = 1e-5,
    activation: str = "gelu",
    for_backward: bool = True,
    layer_norm: bool = True,
) -> tuple[Array, Cache]:
    """out [..., n, d] and a cache with ``cache["weights"]`` [layers, ..., heads, n, n] and
    ``cache["hidden"]`` [layers + 1, ..., n, d] (the input, then every block's output).

    ``for_backward=False`` (inference) runs the lean kernels and drops each layer's
    intermediate tensors as soon as the layer is done: less memory churn, but then no backward.
    ``layer_norm=False`` leaves every LayerNorm out (each sublayer is x + f(x); the params must
    then hold no ln*_g / ln*_b): what a block is without them (§13's ablation).
    """
    style = _style(n_heads, pre_norm, eps, activation, layer_norm)
    xa, ctx = _encoder_inputs(x, mask)
    d = xa.shape[-1]
    blocks = [
        _encoder_block(p, d, n_heads, f"encoder_stack layer {i}")
        for i, p in enumerate(_layers(layers, "encoder_stack"))
    ]
    _without_norms(blocks, style, "encoder_stack")
    return _run("encoder_stack", xa, blocks, style, ctx, for_backward)


def encoder_stack(
    x: ArrayLike,
    layers: Sequence[Params],
    n_heads: int,
    *,
    mask: ArrayLike | None = None,
    pre_norm: bool = True,
    eps: float = 1e-5,
    activation: str = "gelu",
) -> Array:
    """Encoder blocks applied in turn: x [..., n, d], ``layers`` a list of block params dicts.

    A pre-LN stack usually ends with one more LayerNorm: apply ``layer_norm`` to the result.
    """
    return encoder_stack_forward(
        x,
        layers,
        n_heads,
        mask=mask,
        pre_norm=pre_norm,
        eps=eps,
        activation=activation,
        for_backward=False,
    )[0]


def encoder_stack_backward(dout: ArrayLike, cache: Cache) -> tuple[Array, list[dict[str, Array]]]:
    """(dx [..., n, d], [dparams of layer 0, layer 1, ...])."""
    dx, _, grads = ops.stack_backward(_backward_ready(dout, cache, "encoder_stack"), cache)
    return dx, grads


def decoder_stack_forward(
    x: ArrayLike,
    memory: ArrayLike,
    layers: Sequence[Params],
    n_heads: int,
    *,
    self_mask: ArrayLike | None = None,
    memory_mask: ArrayLike | None = None,
    causal: bool = True,
    pre_norm: bool = True,
    eps: float = 1e-5,
    activation: str = "gelu",
    for_backward: bool = True,
    layer_norm: bool = True,
) -> tuple[Array, Cache]:
    """out [..., n, d] and a cache with ``cache["self_weights"]`` [layers, ..., heads, n, n],
    ``cache["cross_weights"]`` [layers, ..., heads, n, n_memory], ``cache["hidden"]``.

    ``for_backward=False`` (inference, e.g. greedy decoding) runs the lean kernels and keeps
    only those, not each layer's intermediate tensors: less memory, but no backward.
    ``layer_norm=False``: no LayerNorms, as in :func:`encoder_stack_forward`.
    """
    style = _style(n_heads, pre_norm, eps, activation, layer_norm)
    xa, ctx = _decoder_inputs(x, memory, self_mask, memory_mask, causal)
    d, d_mem = xa.shape[-1], ctx.memory.shape[-1]  # type: ignore[union-attr]
    blocks = [
        _decoder_block(p, d, d_mem, n_heads, f"decoder_stack layer {i}")
        for i, p in enumerate(_layers(layers, "decoder_stack"))
    ]
    _without_norms(blocks, style, "decoder_stack")
    return _run("decoder_stack", xa, blocks, style, ctx, for_backward)


def decoder_stack(
    x: ArrayLike,
    memory: ArrayLike,
    layers: Sequence[Params],
    n_heads: int,
    *,
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
        self_mask=self_mask,
        memory_mask=memory_mask,
        causal=causal,
        pre_norm=pre_norm,
        eps=eps,
        activation=activation,
        for_backward=False,
    )[0]


def decoder_stack_backward(
    dout: ArrayLike, cache: Cache
) -> tuple[Array, Array, list[dict[str, Array]]]:
    """(dx [..., n, d], dmemory [..., n_memory, d_memory], [dparams per layer])."""
    dx, dmem, grads = ops.stack_backward(_backward_ready(dout, cache, "decoder_stack"), cache)
    return dx, dmem, grads  # type: ignore[return-value]
