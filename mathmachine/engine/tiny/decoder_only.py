"""The tiny translator as a decoder-only model (GPT's shape): one causal stack reads the English
words and then writes the Hindi ones, in a single sequence. An ablation of §13: what the
encoder–decoder's separate cross-attention buys (:mod:`.ablations`).

    slots:   I   drink  tea   <s>   मैं   चाय   पीता   हूँ  (pads)
    predict: -     -     -    मैं   चाय   पीता   हूँ   </s>

Every slot may look only at itself and the slots before it (causal mask), so the Hindi words
look back at the English ones through the same self-attention that looks at the Hindi words
already written: there is no cross-attention, and no separate map of where each Hindi word
looked in the English. The loss is the mean cross-entropy of the next Hindi word, as for the
encoder–decoder; the English slots are not predicted.

Blocks are the engine's encoder blocks run with a causal mask (``cfg.dec_layers`` of them, post-LN
by default); English and Hindi keep their own embedding tables; one sinusoidal position per slot.
Sentences have 3 or 4 English words, so in a batch each row puts its Hindi words right after its
own English words (a row's slots are a permutation of [English words | Hindi words]: the English
pads go to the very end, where the causal mask keeps every real slot from seeing them).

Params: {"src_emb": [V_en, d], "tgt_emb": [V_hi, d], "dec": {"0": block, ...},
"out": {"W": [d, V_hi], "b": [V_hi]}} with encoder-block dicts (:mod:`..block`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._types import Array, Params
from ..block import encoder_stack_backward, encoder_stack_forward, init_block_params
from ..dot_product import causal_mask
from ..layers import (
    cross_entropy_backward,
    cross_entropy_forward,
    embedding_backward,
    embedding_forward,
    linear_backward,
    linear_forward,
)
from ..positions import sinusoidal_positions
from .config import BOS_ID, EOS_ID, PAD_ID, TinyConfig, without_norms
from .corpus import MAX_HINDI, Batch

IntArray = NDArray[np.int64]


def init_params(cfg: TinyConfig, rng: np.random.Generator) -> Params:
    """Fresh weights, drawn as :func:`.model.init_params` draws them: embeddings N(0, emb_std²),
    the blocks' and the output layer's weights N(0, 1/d_in), biases 0, LayerNorm gains 1."""
    d = cfg.d_model
    params: dict[str, Any] = {  # drawn in this order: embeddings, blocks, output layer
        "src_emb": rng.standard_normal((cfg.src_vocab, d)) * cfg.emb_std,
        "tgt_emb": rng.standard_normal((cfg.tgt_vocab, d)) * cfg.emb_std,
        "dec": {str(i): init_block_params(rng, d, cfg.d_ff) for i in range(cfg.dec_layers)},
        "out": {
            "W": rng.standard_normal((d, cfg.tgt_vocab)) / np.sqrt(d),
            "b": np.zeros(cfg.tgt_vocab),
        },
    }
    if not cfg.layer_norm:
        params["dec"] = {i: without_norms(b) for i, b in params["dec"].items()}
    return params


def slots(src_len: IntArray, S: int, T: int) -> tuple[IntArray, IntArray]:
    """(perm [B, S+T], hindi [B, T]): slot i of row b holds item perm[b, i] of
    [English 0..S-1 | Hindi 0..T-1]; Hindi word t of row b sits in slot hindi[b, t]."""
    B = len(src_len)
    perm = np.empty((B, S + T), dtype=np.int64)
    for b, s in enumerate(np.asarray(src_len, dtype=np.int64)):
        perm[b] = np.concatenate([np.arange(s), S + np.arange(T), np.arange(s, S)])
    hindi = np.asarray(src_len, dtype=np.int64)[:, None] + np.arange(T)[None, :]
    return perm, hindi


def forward(
    params: Params,
    cfg: TinyConfig,
    src: IntArray,
    src_len: IntArray,
    tgt_in: IntArray,
    *,
    for_backward: bool = True,
) -> tuple[Array, dict[str, Any]]:
    """Logits [B, T, V] for the Hindi slots (slot of tgt_in[:, t] predicts tgt_out[:, t]) and
    a cache: "perm", "hindi" (see :func:`slots`), "x" [B, L, d] (embeddings + positions, by
    slot), "stack" (the causal stack's cache: "weights" [layers, B, H, L, L]), "h" [B, L, d]."""
    src, tgt_in = np.asarray(src, dtype=np.int64), np.asarray(tgt_in, dtype=np.int64)
    S = src.shape[1]
    T = tgt_in.shape[1]
    L = S + T
    e_src, c_src = embedding_forward(src, params["src_emb"])  # [B, S, d]
    e_tgt, c_tgt = embedding_forward(tgt_in, params["tgt_emb"])  # [B, T, d]
    perm, hindi = slots(src_len, S, T)
    both = np.concatenate([e_src, e_tgt], axis=1)  # [B, S+T, d]
    emb = np.take_along_axis(both, perm[:, :, None], axis=1)  # [B, L, d], by slot
    pos = sinusoidal_positions(L, cfg.d_model) if cfg.positions else np.zeros((L, cfg.d_model))
    x = emb + pos
    layers = [params["dec"][str(i)] for i in range(len(params["dec"]))]
    h, c_stack = encoder_stack_forward(
        x,
        layers,
        cfg.n_heads,
        mask=causal_mask(L),
        pre_norm=cfg.pre_norm,
        activation=cfg.activation,
        for_backward=for_backward,
        layer_norm=cfg.layer_norm,
    )
    h_hi = np.take_along_axis(h, hindi[:, :, None], axis=1)  # [B, T, d]
    logits, c_out = linear_forward(h_hi, params["out"]["W"], params["out"]["b"])
    cache = {
        "perm": perm,
        "hindi": hindi,
        "emb": emb,
        "pos": pos,
        "x": x,
        "c_src": c_src,
        "c_tgt": c_tgt,
        "stack": c_stack,
        "h": h,
        "out": c_out,
        "logits": logits,
        "S": S,
    }
    return logits, cache


def loss(params: Params, cfg: TinyConfig, batch: Batch) -> float:
    """Mean cross-entropy of the next Hindi word over the real targets (forward only)."""
    logits, _ = forward(params, cfg, batch.src, batch.src_len, batch.tgt_in)
    return cross_entropy_forward(logits, batch.tgt_out, ignore_index=PAD_ID)[0]


def loss_and_grads(params: Params, cfg: TinyConfig, batch: Batch) -> tuple[float, Params]:
    """The loss and the gradient of every parameter, by the engine's hand-written backwards."""
    logits, c = forward(params, cfg, batch.src, batch.src_len, batch.tgt_in)
    value, c_loss = cross_entropy_forward(logits, batch.tgt_out, ignore_index=PAD_ID)
    dlogits = cross_entropy_backward(1.0, c_loss)
    dh_hi, dW, db = linear_backward(dlogits, c["out"])  # [B, T, d]
    dh = np.zeros_like(c["h"])
    np.put_along_axis(dh, c["hindi"][:, :, None], dh_hi, axis=1)  # one slot per Hindi word
    dx, dlayers = encoder_stack_backward(dh, c["stack"])  # positions have no parameters
    dboth = np.empty_like(dx)
    np.put_along_axis(dboth, c["perm"][:, :, None], dx, axis=1)  # undo the permutation
    S = c["S"]
    grads: Params = {
        "src_emb": embedding_backward(dboth[:, :S], c["c_src"]),
        "tgt_emb": embedding_backward(dboth[:, S:], c["c_tgt"]),
        "dec": {str(i): g for i, g in enumerate(dlayers)},
        "out": {"W": dW, "b": db},
    }
    return value, grads


def greedy_decode(
    params: Params,
    cfg: TinyConfig,
    src: IntArray,
    src_len: IntArray,
    max_len: int = MAX_HINDI,
) -> tuple[IntArray, dict[str, Any]]:
    """Greedy decoding, as :func:`.model.greedy_decode`: ids [B, n] (</s> included where
    reached; PAD after it) and the cache of the final pass over <s> w1 … w(n-1)."""
    src = np.asarray(src, dtype=np.int64)
    B = src.shape[0]
    tgt_in = np.full((B, 1), BOS_ID, dtype=np.int64)
    written = np.zeros((B, 0), dtype=np.int64)
    done = np.zeros(B, dtype=bool)
    cache: dict[str, Any] = {}
    for _ in range(max_len):
        logits, cache = forward(params, cfg, src, src_len, tgt_in, for_backward=False)
        nxt = np.where(done, PAD_ID, np.argmax(logits[:, -1, :], axis=-1))
        written = np.concatenate([written, nxt[:, None]], axis=1)
        done |= nxt == EOS_ID
        if done.all():
            break
        tgt_in = np.concatenate([tgt_in, nxt[:, None]], axis=1)
    if tgt_in.shape[1] < written.shape[1]:
        _, cache = forward(params, cfg, src, src_len, tgt_in, for_backward=False)
    return written, cache


def attention_on_english(params: Params, cfg: TinyConfig, batch: Batch) -> Array:
    """Teacher-forced, last layer: the weight each Hindi slot puts on each English slot,
    [B, H, T, S]. Row t belongs to the slot that writes tgt_out[:, t]. A row sums to less than 1:
    the rest of its weight goes to <s> and the Hindi words already written (and columns past a
    sentence's own English words are 0)."""
    _, c = forward(params, cfg, batch.src, batch.src_len, batch.tgt_in, for_backward=False)
    w = c["stack"]["weights"][-1]  # [B, H, L, L]
    rows = np.take_along_axis(w, c["hindi"][:, None, :, None], axis=2)  # [B, H, T, L]
    S = c["S"]
    out: Array = (
        rows[..., :S]
        * (np.arange(S)[None, :] < np.asarray(batch.src_len)[:, None])[:, None, None, :]
    )
    return out
