"""The transformer block taken apart, for Unit 18 §9: LayerNorm step by step, one token's
vector through every stage of a block, the gradient of a residual stack, and the weights of a
block and of a whole model for any configuration.

- :func:`layer_norm_steps`: Ba, Kiros & Hinton (2016), eq. (4): the mean, the centred vector,
  the variance (over the d entries: divided by d, not d − 1), the standard deviation
  √(variance + ε), the normalised vector, then gain and bias. Equal to :func:`.layers.layer_norm`.
- :func:`block_walk`: one token through :func:`.block.transformer_block_forward`, stage by stage
  in the order the block computes them (pre-LN: LN, attention, add, LN, feed-forward (its hidden
  layer before and after the activation), add; post-LN: attention, add, LN, feed-forward, add, LN).
- :func:`residual_gradient`: a stack of residual sublayers y = x + F_l(x) has slope
  Π_l (1 + F_l') (He et al. 2016, "Identity Mappings in Deep Residual Networks", eq. (5)); the
  product expands into one term per path through the stack, grouped here by how many sublayers a
  path crosses: the path that crosses none is the residual highway and carries the slope 1,
  whatever the layers do. Without residuals only the path through every layer is left: Π F_l'.
- :func:`model_weight_count`: every weight matrix, bias, LayerNorm gain and bias, embedding and
  output layer of an encoder, a decoder or an encoder–decoder, counted part by part. A block is
  4 d² (attention: W_Q, W_K, W_V, W_O) + 2 d d_ff (feed-forward: W1, W2) = 12 d² when d_ff = 4 d;
  the number of heads changes none of it (§7). GPT-2 small (12 layers, d 768, vocabulary 50,257,
  1,024 learned positions, biases, LayerNorms, the output layer shared with the embedding)
  counts 124,439,808.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ._checks import as_finite, check_eps
from ._types import Params
from .block import transformer_block_forward
from .layers import check_activation, gelu, linear, relu

__all__ = [
    "BlockStage",
    "BlockWalk",
    "LayerNormSteps",
    "ResidualGradient",
    "WeightCount",
    "block_walk",
    "layer_norm_steps",
    "model_weight_count",
    "residual_gradient",
]


# --------------------------------------------------------------------------------------------
# LayerNorm, step by step


@dataclass(frozen=True)
class LayerNormSteps:
    """x [d] -> mean, centred = x − mean, variance (Σ centred² / (d − ddof)), std =
    √(variance + eps), normalised = centred / std, output = gain · normalised + bias."""

    x: NDArray[np.float64]
    mean: float
    centred: NDArray[np.float64]
    variance: float
    std: float
    normalised: NDArray[np.float64]
    gain: NDArray[np.float64] | None
    bias: NDArray[np.float64] | None
    eps: float
    output: NDArray[np.float64]


def layer_norm_steps(
    x: ArrayLike,
    gain: ArrayLike | None = None,
    bias: ArrayLike | None = None,
    eps: float = 0.0,
    *,
    ddof: int = 0,
) -> LayerNormSteps:
    """LayerNorm of one vector x [d], every step kept. ``eps`` defaults to 0 (the by-hand
    convention: "ε ignored"); a layer uses a small one (1e-5, 1e-12) so that a constant row
    does not divide by 0. ``ddof=1`` divides the variance by d − 1, as a sample variance does:
    LayerNorm does not, and the figures use it only to print that slip."""
    xa = as_finite(x, "x", min_ndim=1)
    if xa.ndim != 1 or xa.size < 2:
        raise ValueError(f"x must be one vector of at least 2 numbers, got shape {xa.shape}")
    d = xa.size
    if ddof not in (0, 1):
        raise ValueError(f"ddof must be 0 (LayerNorm) or 1 (the sample variance), got {ddof!r}")
    e = check_eps(eps)
    g = None if gain is None else as_finite(gain, "gain", min_ndim=1)
    b = None if bias is None else as_finite(bias, "bias", min_ndim=1)
    for name, v in (("gain", g), ("bias", b)):
        if v is not None and v.shape != (d,):
            raise ValueError(f"{name} must have shape ({d},), like x, got {v.shape}")
    mean = float(xa.mean())
    centred = xa - mean
    variance = float(np.sum(centred * centred) / (d - ddof))
    if variance + e <= 0:
        raise ValueError("x is constant (variance 0) and eps is 0: LayerNorm would divide by 0")
    std = float(np.sqrt(variance + e))
    normalised = centred / std
    out = normalised * g if g is not None else normalised.copy()
    if b is not None:
        out = out + b
    return LayerNormSteps(
        x=xa,
        mean=mean,
        centred=centred,
        variance=variance,
        std=std,
        normalised=normalised,
        gain=g,
        bias=b,
        eps=e,
        output=out,
    )


# --------------------------------------------------------------------------------------------
# one token through a block


@dataclass(frozen=True)
class BlockStage:
    """One stage of the walk: ``name`` as the block's cache names it (x, ln1, attn, resid1,
    hidden_in, hidden, ffn, resid2, ln2; "out" is the block's output, the last stage) and the
    token's vector there."""

    name: str
    vector: NDArray[np.float64]


@dataclass(frozen=True)
class BlockWalk:
    """One token (row ``token`` of x) through one encoder block.

    ``stages`` in the order computed; ``weights`` [heads, n]: the token's row of every head's
    attention map; ``output`` [n, d]: the block's output for every token (the token's own row is
    the last stage); ``pre_norm`` and ``activation`` as run.
    """

    token: int
    pre_norm: bool
    activation: str
    stages: tuple[BlockStage, ...]
    weights: NDArray[np.float64]
    output: NDArray[np.float64]

    def stage(self, name: str) -> NDArray[np.float64]:
        for s in self.stages:
            if s.name == name:
                return s.vector
        raise KeyError(f"no stage {name!r}; the stages are {[s.name for s in self.stages]}")

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(s.name for s in self.stages)


def block_walk(
    x: ArrayLike,
    params: Params,
    n_heads: int,
    token: int,
    *,
    pre_norm: bool = True,
    eps: float = 1e-5,
    activation: str = "gelu",
    mask: ArrayLike | None = None,
) -> BlockWalk:
    """x [n, d] (a sentence's vectors), block ``params`` (as :mod:`.block` names them), the
    index of the token to follow -> every stage of that token, from the block's own forward.

    The feed-forward network's hidden layer (d_ff numbers, before and after the activation) is
    recomputed from W1 and b1 here, and the forward's "ffn" stage is checked to be its W2 image,
    so that the walk and the block cannot disagree.
    """
    xa = as_finite(x, "x", min_ndim=2)
    if xa.ndim != 2:
        raise ValueError(f"x must be one sentence [n, d], got shape {xa.shape}")
    n = xa.shape[0]
    if not isinstance(token, int | np.integer) or isinstance(token, bool) or not 0 <= token < n:
        raise ValueError(f"token must be a word index 0..{n - 1}, got {token!r}")
    act = check_activation(activation)
    out, cache = transformer_block_forward(
        xa, params, n_heads, mask=mask, pre_norm=pre_norm, eps=eps, activation=act
    )
    st = {name: np.asarray(v[token], dtype=np.float64) for name, v in cache["stages"].items()}
    ffn_in = st["ln2"] if pre_norm else st["ln1"]
    hidden_in = linear(ffn_in, params["W1"], params.get("b1"))
    hidden = relu(hidden_in) if act == "relu" else gelu(hidden_in)
    ffn = linear(hidden, params["W2"], params.get("b2"))
    if not np.allclose(ffn, st["ffn"], rtol=1e-9, atol=1e-9):
        raise AssertionError("the walk's feed-forward must be the block's")
    if pre_norm:
        order = ["x", "ln1", "attn", "resid1", "ln2", "hidden_in", "hidden", "ffn", "out"]
    else:
        order = ["x", "attn", "resid1", "ln1", "hidden_in", "hidden", "ffn", "resid2", "out"]
    vectors = st | {"hidden_in": hidden_in, "hidden": hidden}
    return BlockWalk(
        token=int(token),
        pre_norm=bool(pre_norm),
        activation=act,
        stages=tuple(BlockStage(name, np.asarray(vectors[name], np.float64)) for name in order),
        weights=np.asarray(cache["weights"][:, token, :], dtype=np.float64),
        output=np.asarray(out, dtype=np.float64),
    )


# --------------------------------------------------------------------------------------------
# the gradient of a residual stack


@dataclass(frozen=True)
class ResidualGradient:
    """Slopes F_l' of L sublayers (scalars: one entry of each Jacobian, or a 1-D model).

    ``with_residual`` = Π (1 + F_l'), ``without`` = Π F_l'; ``by_crossings[j]`` = the sum over
    the paths that cross exactly j sublayers (the elementary symmetric sum e_j of the slopes):
    by_crossings[0] = 1 (the highway), by_crossings[L] = ``without``, and they add up to
    ``with_residual``."""

    slopes: NDArray[np.float64]
    with_residual: float
    without: float
    by_crossings: NDArray[np.float64]

    @property
    def paths(self) -> int:
        """2^L roads from the top to the bottom: at each sublayer, through it or around it."""
        return 2 ** len(self.slopes)


def residual_gradient(slopes: ArrayLike) -> ResidualGradient:
    """The slope through a stack of residual sublayers y = x + F_l(x), given each F_l's own
    slope, expanded path by path."""
    s = as_finite(slopes, "slopes", min_ndim=1)
    if s.ndim != 1:
        raise ValueError(f"slopes must be a list of numbers, one per sublayer, got {s.shape}")
    e = np.zeros(s.size + 1)
    e[0] = 1.0
    for a in s:  # multiply the polynomial Σ e_j t^j by (1 + a t)
        e[1:] = e[1:] + a * e[:-1]
    return ResidualGradient(
        slopes=s,
        with_residual=float(np.prod(1.0 + s)),
        without=float(np.prod(s)),
        by_crossings=e,
    )


# --------------------------------------------------------------------------------------------
# weights of a block and of a whole model


@dataclass(frozen=True)
class WeightCount:
    """A model's weights, part by part (``parts``, in the order they are met from input to
    output; a part that is 0 is left out) and in all (``total``); ``block`` and ``decoder_block``
    break one block down (matrices, biases, norms); ``config`` is what was counted."""

    total: int
    parts: dict[str, int]
    block: dict[str, int]
    decoder_block: dict[str, int] = field(default_factory=dict)
    config: dict[str, object] = field(default_factory=dict)

    @property
    def blocks(self) -> int:
        """The weights of every block together (everything but embeddings, positions, the
        final LayerNorm and the output layer)."""
        return sum(self.parts.get(k, 0) for k in ("blocks", "encoder blocks", "decoder blocks"))


def _count(value: object, name: str, minimum: int) -> int:
    if not isinstance(value, int | np.integer) or isinstance(value, bool) or value < minimum:
        raise ValueError(f"{name} must be a whole number >= {minimum}, got {value!r}")
    return int(value)


def _block_parts(d: int, d_ff: int, bias: bool, norm: bool, cross: bool) -> dict[str, int]:
    attn = 2 if cross else 1  # self-attention, and cross-attention in a decoder block
    parts = {
        "attention matrices": attn * 4 * d * d,  # W_Q, W_K, W_V, W_O each d x d
        "feed-forward matrices": 2 * d * d_ff,  # W1 [d, d_ff], W2 [d_ff, d]
        "attention biases": attn * 4 * d if bias else 0,
        "feed-forward biases": d_ff + d if bias else 0,
        "LayerNorm gains and biases": (attn + 1) * 2 * d if norm else 0,
    }
    parts["total"] = sum(parts.values())
    return parts


def model_weight_count(
    d_model: int,
    *,
    layers: int = 1,
    d_ff: int | None = None,
    heads: int = 1,
    vocab: int = 0,
    positions: int = 0,
    bias: bool = False,
    norm: bool = False,
    shared_embeddings: bool = True,
    final_norm: bool = False,
    decoder_layers: int = 0,
    target_vocab: int | None = None,
) -> WeightCount:
    """Count every weight of a transformer.

    - ``layers`` blocks of self-attention and feed-forward (an encoder, or a decoder-only model
      such as GPT); with ``decoder_layers`` > 0 an encoder–decoder: the decoder's blocks add
      cross-attention (4 d² more) and a third LayerNorm.
    - ``d_ff`` the feed-forward width (default 4 d); ``heads`` must divide d_model and changes
      no count; ``bias`` puts a bias on every matrix of the blocks (and on the output layer when
      it is not shared); ``norm`` counts each LayerNorm's gain and bias (2 d), ``final_norm`` one
      more LayerNorm after the last block (pre-LN models have it).
    - ``vocab`` the input vocabulary (an embedding table vocab × d); ``target_vocab`` the
      decoder's (default: the same); ``positions`` learned position rows (0 for sinusoidal or
      rotary positions, which have no weights); an encoder–decoder has one table for each side.
    - The output layer (d × vocabulary, to the words' scores) is counted unless
      ``shared_embeddings`` (it is then the embedding table itself, transposed; GPT-2 and the
      2017 transformer share it). No vocabulary: no embedding and no output layer.
    """
    d = _count(d_model, "d_model", 1)
    n_layers = _count(layers, "layers", 0)
    n_dec = _count(decoder_layers, "decoder_layers", 0)
    ff = 4 * d if d_ff is None else _count(d_ff, "d_ff", 1)
    h = _count(heads, "heads", 1)
    if d % h:
        raise ValueError(f"heads must divide d_model: {d} numbers do not split into {h} heads")
    v_in = _count(vocab, "vocab", 0)
    v_out = v_in if target_vocab is None else _count(target_vocab, "target_vocab", 0)
    n_pos = _count(positions, "positions", 0)
    if shared_embeddings and n_dec and n_layers and v_out != v_in:
        raise ValueError(
            f"shared embeddings need one vocabulary for both sides, got {v_in} and {v_out}"
        )
    if n_layers + n_dec == 0:
        raise ValueError("a model needs at least one block (layers or decoder_layers)")
    enc = _block_parts(d, ff, bias, norm, cross=False)
    dec = _block_parts(d, ff, bias, norm, cross=True) if n_dec else {}
    two_sides = n_dec > 0 and n_layers > 0
    parts: dict[str, int] = {
        "token embeddings": v_in * d,
        "target embeddings": v_out * d if two_sides and not shared_embeddings else 0,
        "position embeddings": n_pos * d * (2 if two_sides else 1),
        "encoder blocks": n_layers * enc["total"] if n_layers else 0,
        "decoder blocks": n_dec * dec["total"] if n_dec else 0,
        "final LayerNorm": 2 * d * (2 if two_sides else 1) if final_norm and norm else 0,
        "output layer": 0 if shared_embeddings or not v_out else d * v_out + (v_out if bias else 0),
    }
    if not n_dec:  # one stack: "blocks"
        parts = {("blocks" if k == "encoder blocks" else k): v for k, v in parts.items()}
    kept = {k: v for k, v in parts.items() if v}
    total = sum(kept.values())
    config: dict[str, object] = {
        "d_model": d,
        "layers": n_layers,
        "decoder_layers": n_dec,
        "d_ff": ff,
        "heads": h,
        "vocab": v_in,
        "target_vocab": v_out,
        "positions": n_pos,
        "bias": bool(bias),
        "norm": bool(norm),
        "shared_embeddings": bool(shared_embeddings),
        "final_norm": bool(final_norm),
    }
    return WeightCount(total=total, parts=kept, block=enc, decoder_block=dec, config=config)
