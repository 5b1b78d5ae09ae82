"""The tiny English → Hindi transformer (Unit 18 §13), composed only of the engine's own ops.

Architecture (Vaswani et al. 2017, Figure 1, at toy size): an encoder–decoder with one encoder
layer and one decoder layer, d_model 32, 4 heads (d_k = 8), feed-forward width 64 with ReLU,
post-LN blocks, sinusoidal positions added to word embeddings, and a linear layer from the
decoder's output to the Hindi vocabulary.

    English ids [B, S] ─ embedding ─ + PE ─ encoder_stack ───────────── memory [B, S, d]
                                                                            │ keys, values
    Hindi ids  [B, T] ─ embedding ─ + PE ─ decoder_stack (causal self-attention,
                                                          cross-attention over memory) ─┐
                                                     logits [B, T, V] = linear(...) ◀───┘

Why encoder–decoder rather than decoder-only: its cross-attention *is* section 1's look-back
grown up: a query from the Hindi side, keys and values from the English notes, one row of
weights per Hindi word. So the model draws its own alignment map, separate from the
self-attention, and we can check that it bends (verb-final Hindi looks back at the English verb).

Every op here (embedding, the blocks, linear, cross-entropy) comes from :mod:`mathmachine.engine`
with its hand-written backward; this module only wires forward and backward together.

Shapes: B sentences, S English positions (padded), T Hindi positions, d = d_model, V = Hindi
vocabulary size, H heads. Pad id is 0 on both sides: pad keys are masked out, pad targets ignored.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._types import Array, Params
from ..block import (
    decoder_stack_backward,
    decoder_stack_forward,
    encoder_stack_backward,
    encoder_stack_forward,
    init_block_params,
    init_decoder_block_params,
)
from ..dot_product import padding_mask
from ..layers import (
    cross_entropy_backward,
    cross_entropy_forward,
    embedding_backward,
    embedding_forward,
    linear_backward,
    linear_forward,
)
from ..positions import sinusoidal_positions
from ..train import count_weights
from . import decoder_only
from .config import BOS_ID as BOS_ID  # the configuration lives in .config; here as before
from .config import DECODER_ONLY as DECODER_ONLY
from .config import ENCODER_DECODER as ENCODER_DECODER
from .config import EOS_ID as EOS_ID
from .config import PAD_ID as PAD_ID
from .config import TinyConfig as TinyConfig
from .config import config_dict as config_dict
from .config import without_norms as without_norms
from .corpus import MAX_HINDI, Batch

IntArray = NDArray[np.int64]


def _positions(cfg: TinyConfig, n: int) -> Array:
    """Sinusoidal positions [n, d], or zeros for the model trained without them."""
    if cfg.positions:
        return sinusoidal_positions(n, cfg.d_model)
    return np.zeros((n, cfg.d_model))


def init_params(cfg: TinyConfig, rng: np.random.Generator) -> Params:
    """Fresh weights. Embeddings N(0, emb_std²); attention, feed-forward and output weights
    N(0, 1/d_in); biases 0; LayerNorm gains 1.

    Layout: {"src_emb": [V_en, d], "tgt_emb": [V_hi, d], "enc": {"0": block}, "dec": {"0": block},
    "out": {"W": [d, V_hi], "b": [V_hi]}} with block dicts as :mod:`..block` names them.
    """
    if cfg.arch == DECODER_ONLY:
        return decoder_only.init_params(cfg, rng)
    d = cfg.d_model
    params: dict[str, Any] = {
        "src_emb": rng.standard_normal((cfg.src_vocab, d)) * cfg.emb_std,
        "tgt_emb": rng.standard_normal((cfg.tgt_vocab, d)) * cfg.emb_std,
        "enc": {str(i): init_block_params(rng, d, cfg.d_ff) for i in range(cfg.enc_layers)},
        "dec": {str(i): init_decoder_block_params(rng, d, cfg.d_ff) for i in range(cfg.dec_layers)},
        "out": {
            "W": rng.standard_normal((d, cfg.tgt_vocab)) / np.sqrt(d),
            "b": np.zeros(cfg.tgt_vocab),
        },
    }
    if not cfg.layer_norm:  # the same random draws, the gains and biases dropped
        for group in ("enc", "dec"):
            params[group] = {i: without_norms(b) for i, b in params[group].items()}
    return params


def weight_parts(params: Params) -> dict[str, int]:
    """Number of trained numbers, by part, and the total (either architecture: a decoder-only
    model has no "encoder", and its "decoder" is its one causal stack)."""
    parts = {
        "english embeddings": count_weights({"e": params["src_emb"]}),
        "hindi embeddings": count_weights({"e": params["tgt_emb"]}),
    }
    if params.get("enc"):
        parts["encoder"] = count_weights(params["enc"])
    parts["decoder"] = count_weights(params["dec"])
    parts["output layer"] = count_weights(params["out"])
    parts["total"] = sum(parts.values())
    return parts


def _layers(group: Params) -> list[Params]:
    return [group[str(i)] for i in range(len(group))]


def _check_ids(ids: IntArray, vocab: int, name: str) -> IntArray:
    a = np.asarray(ids)
    if a.ndim != 2 or a.shape[1] == 0:
        raise ValueError(f"{name} must be [batch, length] with length >= 1, got shape {a.shape}")
    if a.dtype.kind not in "iu" or a.min() < 0 or a.max() >= vocab:
        raise ValueError(f"{name} must be integer ids in 0..{vocab - 1}")
    return a.astype(np.int64, copy=False)


def encode_source(
    params: Params, cfg: TinyConfig, src: IntArray, src_len: IntArray
) -> tuple[Array, dict[str, Any]]:
    """English ids src [B, S] (pad 0 after src_len [B]) -> memory [B, S, d] and a cache with
    "emb" (word vectors), "pos" [S, d], "x" (their sum), "enc" (the stack's cache)."""
    src = _check_ids(src, cfg.src_vocab, "src")
    S = src.shape[1]
    emb, c_emb = embedding_forward(src, params["src_emb"])  # [B, S, d]
    pos = _positions(cfg, S)  # [S, d]
    x = emb + pos
    key_mask = padding_mask(np.asarray(src_len), S)  # [B, 1, S]: pad keys hidden
    memory, c_enc = encoder_stack_forward(
        x,
        _layers(params["enc"]),
        cfg.n_heads,
        mask=key_mask,
        pre_norm=cfg.pre_norm,
        activation=cfg.activation,
        layer_norm=cfg.layer_norm,
    )
    return memory, {"emb": emb, "c_emb": c_emb, "pos": pos, "x": x, "enc": c_enc, "mask": key_mask}


def decode_target(
    params: Params,
    cfg: TinyConfig,
    memory: Array,
    key_mask: NDArray[np.bool_],
    tgt_in: IntArray,
) -> tuple[Array, dict[str, Any]]:
    """Hindi input ids tgt_in [B, T] (<s> first) and the memory -> logits [B, T, V] and a cache
    with "emb", "pos", "y", "dec" (the stack's cache: "self_weights" [L, B, H, T, T],
    "cross_weights" [L, B, H, T, S]), "h" (decoder output [B, T, d]), "out" (linear cache),
    "logits"."""
    tgt_in = _check_ids(tgt_in, cfg.tgt_vocab, "tgt_in")
    T = tgt_in.shape[1]
    emb, c_emb = embedding_forward(tgt_in, params["tgt_emb"])  # [B, T, d]
    pos = _positions(cfg, T)
    y = emb + pos
    h, c_dec = decoder_stack_forward(
        y,
        memory,
        _layers(params["dec"]),
        cfg.n_heads,
        memory_mask=key_mask,  # [B, 1, S] broadcasts over the T queries
        causal=True,
        pre_norm=cfg.pre_norm,
        activation=cfg.activation,
        layer_norm=cfg.layer_norm,
    )
    logits, c_out = linear_forward(h, params["out"]["W"], params["out"]["b"])  # [B, T, V]
    cache = {"emb": emb, "c_emb": c_emb, "pos": pos, "y": y, "dec": c_dec, "h": h}
    return logits, cache | {"out": c_out, "logits": logits}


def forward(
    params: Params, cfg: TinyConfig, src: IntArray, src_len: IntArray, tgt_in: IntArray
) -> tuple[Array, dict[str, Any]]:
    """Teacher-forced pass: logits [B, T, V] and {"src": encoder cache, "tgt": decoder cache}."""
    memory, c_src = encode_source(params, cfg, src, src_len)
    logits, c_tgt = decode_target(params, cfg, memory, c_src["mask"], tgt_in)
    return logits, {"src": c_src, "tgt": c_tgt}


def loss(params: Params, cfg: TinyConfig, batch: Batch) -> float:
    """Mean cross-entropy of the next Hindi word over the real (non-pad) targets (forward only)."""
    logits, _ = forward(params, cfg, batch.src, batch.src_len, batch.tgt_in)
    return cross_entropy_forward(logits, batch.tgt_out, ignore_index=PAD_ID)[0]


def loss_and_grads(params: Params, cfg: TinyConfig, batch: Batch) -> tuple[float, Params]:
    """Mean cross-entropy of the next Hindi word over the real (non-pad) targets, and the
    gradient of every parameter (same nested layout as ``params``), all by hand-written
    backward passes."""
    logits, cache = forward(params, cfg, batch.src, batch.src_len, batch.tgt_in)
    loss, c_loss = cross_entropy_forward(logits, batch.tgt_out, ignore_index=PAD_ID)
    c_src, c_tgt = cache["src"], cache["tgt"]

    dlogits = cross_entropy_backward(1.0, c_loss)  # [B, T, V]
    dh, dW_out, db_out = linear_backward(dlogits, c_tgt["out"])
    dy, dmemory, ddec = decoder_stack_backward(dh, c_tgt["dec"])
    dtgt_emb = embedding_backward(dy, c_tgt["c_emb"])  # positions have no parameters
    dx, denc = encoder_stack_backward(dmemory, c_src["enc"])
    dsrc_emb = embedding_backward(dx, c_src["c_emb"])
    grads: Params = {
        "src_emb": dsrc_emb,
        "tgt_emb": dtgt_emb,
        "enc": {str(i): g for i, g in enumerate(denc)},
        "dec": {str(i): g for i, g in enumerate(ddec)},
        "out": {"W": dW_out, "b": db_out},
    }
    return loss, grads


def greedy_decode(
    params: Params,
    cfg: TinyConfig,
    src: IntArray,
    src_len: IntArray,
    max_len: int = MAX_HINDI,
) -> tuple[IntArray, dict[str, Any]]:
    """Greedy decoding: start from <s>, append the most likely next word, until every sentence
    has written </s> or max_len words. Returns ids [B, n] (the words written, </s> included
    where reached) and the cache of the final decoder pass over <s> w1 … w(n-1), whose position
    t is exactly the pass that chose word t (the causal mask keeps later words out of it)."""
    memory, c_src = encode_source(params, cfg, src, src_len)
    B = memory.shape[0]
    tgt_in = np.full((B, 1), BOS_ID, dtype=np.int64)
    written = np.zeros((B, 0), dtype=np.int64)
    done = np.zeros(B, dtype=bool)
    c_tgt: dict[str, Any] = {}
    for _ in range(max_len):
        logits, c_tgt = decode_target(params, cfg, memory, c_src["mask"], tgt_in)
        nxt = np.argmax(logits[:, -1, :], axis=-1)  # [B]
        nxt = np.where(done, PAD_ID, nxt)
        written = np.concatenate([written, nxt[:, None]], axis=1)
        done |= nxt == EOS_ID
        if done.all():
            break
        tgt_in = np.concatenate([tgt_in, nxt[:, None]], axis=1)
    # the final pass must cover every written word (it does unless max_len cut the loop short)
    if tgt_in.shape[1] < written.shape[1]:
        _, c_tgt = decode_target(params, cfg, memory, c_src["mask"], tgt_in)
    return written, {"src": c_src, "tgt": c_tgt}


def cross_attention(params: Params, cfg: TinyConfig, batch: Batch) -> Array:
    """Teacher-forced cross-attention of the last decoder layer: [B, H, T, S]. Row t belongs to
    the query that writes target word t (tgt_out[:, t])."""
    _, cache = forward(params, cfg, batch.src, batch.src_len, batch.tgt_in)
    weights: Array = cache["tgt"]["dec"]["cross_weights"][-1]
    return weights
