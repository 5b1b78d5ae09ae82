"""The tiny English → Hindi translator of Unit 18 §13, trained by the engine's own backprop.

    >>> from mathmachine.engine import tiny
    >>> model = tiny.load()
    >>> t = model.translate("I drink tea")
    >>> t.hindi
    ['मैं', 'चाय', 'पीता', 'हूँ']
    >>> t.cross_attention.shape            # [hindi words, english words], averaged over heads
    (4, 3)

``model.walk(english)`` returns every intermediate tensor of one sentence (for §13's "whole
walk"), ``model.weight_count()`` the number of weights, by part. The weights live in
``weights.npz`` beside this file and are made by ``python -m mathmachine.engine.tiny``
(``make train-tiny``), which also writes ``history.json`` (loss per step and the
cross-attention map at a few checkpoints, for "watch it learn").
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._types import Params
from ..layers import softmax_forward
from .corpus import EOS, MAX_ENGLISH, all_pairs, vocab
from .model import BOS_ID, TinyConfig, greedy_decode, weight_parts
from .training import WEIGHTS_PATH, read_weights

__all__ = ["TinyTranslator", "Translation", "load"]


@dataclass(frozen=True)
class Translation:
    """One greedy translation.

    english                   the English words as the vocabulary spells them, e.g. ["I", ...]
    hindi                     the Hindi words written (without </s>)
    translit                  their Latin transliteration ("main chai peeta hoon")
    cross_attention           [len(hindi), len(english)] weights of the decoder's cross-attention
                              (last decoder layer), averaged over the heads; row t is where the
                              decoder looked while choosing Hindi word t; rows sum to 1
    cross_attention_per_head  [heads, len(hindi), len(english)]
    finished                  True when the model ended the sentence with </s> itself
    """

    english: list[str]
    hindi: list[str]
    translit: list[str]
    cross_attention: NDArray[np.float64]
    cross_attention_per_head: NDArray[np.float64]
    finished: bool

    @property
    def text(self) -> str:
        return " ".join(self.hindi)


@cache
def _translit() -> dict[str, str]:
    out: dict[str, str] = {}
    for p in all_pairs():
        out.update(zip(p.hindi, p.translit, strict=True))
    return out


class TinyTranslator:
    """The trained model: parameters (float64 copies of the saved float32 weights) + config."""

    def __init__(self, params: Params, config: TinyConfig) -> None:
        self.params = params
        self.config = config
        self.vocab = vocab()

    def _source(self, english: str) -> tuple[list[str], NDArray[np.int64]]:
        words, ids = self.vocab.english_ids(english)
        if len(words) > MAX_ENGLISH:
            raise ValueError(
                f"too long: {len(words)} words; the tiny translator takes at most {MAX_ENGLISH} "
                "(subject, verb, object, as in 'my mother drinks tea')"
            )
        return words, np.asarray([ids], dtype=np.int64)

    def _decode(self, english: str) -> tuple[list[str], NDArray[np.int64], dict[str, Any]]:
        words, src = self._source(english)
        ids, cache = greedy_decode(self.params, self.config, src, np.array([src.shape[1]]))
        return words, ids[0], cache

    def translate(self, english: str) -> Translation:
        """Greedy translation of one English sentence (case-insensitive; a final '.' is fine).

        ValueError for empty input, an unknown word (named in the message) or more than
        MAX_ENGLISH words.
        """
        words, ids, cache = self._decode(english)
        hi = [self.vocab.hindi[int(i)] for i in ids]
        finished = EOS in hi
        hindi = hi[: hi.index(EOS)] if finished else hi
        w = cache["tgt"]["dec"]["cross_weights"][-1][0]  # [H, T, S]
        per_head = np.array(w[:, : len(hindi), :], dtype=np.float64)
        tr = _translit()
        return Translation(
            english=words,
            hindi=hindi,
            translit=[tr.get(h, h) for h in hindi],
            cross_attention=per_head.mean(axis=0),
            cross_attention_per_head=per_head,
            finished=finished,
        )

    def walk(self, english: str, top_k: int = 5) -> dict[str, Any]:
        """Every intermediate tensor for one sentence, in the order the model computes them.

        English side (S words, d = d_model, H heads), one entry per encoder layer:
          english, english_ids [S]; encoder.embeddings [S, d]; encoder.positions [S, d];
          encoder.input [S, d] (= embeddings + positions); encoder.layers[i]: self_attention
          [H, S, S] and the block's stages (attn, resid1, ln1, ffn, resid2, out) [S, d];
          encoder.output (the memory) [S, d].
        Hindi side, for the final greedy pass over <s> w1 … (T positions; position t chooses
        word t+1), one entry per decoder layer:
          hindi_input, hindi_input_ids [T]; decoder.embeddings/positions/input [T, d];
          decoder.layers[i]: self_attention [H, T, T] (causal: zero above the diagonal),
          cross_attention [H, T, S], stages (self_attn, resid1, ln1, cross_attn, resid2, ln2,
          ffn, resid3, out) [T, d]; decoder.output [T, d];
          logits [T, V]; probabilities [T, V] (softmax of the logits); chosen, chosen_ids [T]
          (the arg-max word at each position: the translation, ending in </s>);
          top[t] = the top_k (word, probability) pairs at position t.
        Plus hindi_vocabulary (the V column names) and weight_count.
        """
        words, ids, cache = self._decode(english)
        c_src, c_tgt = cache["src"], cache["tgt"]
        n_out = len(ids)
        hindi_in_ids = np.concatenate([[BOS_ID], ids[: n_out - 1]]).astype(np.int64)

        def layers(stack: dict[str, Any], keys: dict[str, str]) -> list[dict[str, Any]]:
            out = []
            for layer in stack["layers"]:
                entry: dict[str, Any] = {name: layer[k][0] for name, k in keys.items()}
                entry |= {k: v[0] for k, v in layer["stages"].items() if k != "x"}
                out.append(entry)
            return out

        T = c_tgt["y"].shape[1]  # == n_out unless decoding stopped at the length limit
        logits = c_tgt["logits"][0]  # [T, V]
        probs, _ = softmax_forward(logits)
        chosen_ids = np.argmax(logits, axis=-1)
        order = np.argsort(-probs, axis=-1, kind="stable")[:, :top_k]
        hv = self.vocab.hindi
        return {
            "english": words,
            "english_ids": np.asarray([self.vocab.en_index[w] for w in words]),
            "encoder": {
                "embeddings": c_src["emb"][0],
                "positions": c_src["pos"],
                "input": c_src["x"][0],
                "layers": layers(c_src["enc"], {"self_attention": "weights"}),
                "output": c_src["enc"]["hidden"][-1][0],
            },
            "hindi_input": [hv[int(i)] for i in hindi_in_ids[:T]],
            "hindi_input_ids": hindi_in_ids[:T],
            "decoder": {
                "embeddings": c_tgt["emb"][0],
                "positions": c_tgt["pos"],
                "input": c_tgt["y"][0],
                "layers": layers(
                    c_tgt["dec"],
                    {"self_attention": "self_weights", "cross_attention": "cross_weights"},
                ),
                "output": c_tgt["h"][0],
            },
            "logits": logits,
            "probabilities": probs,
            "chosen_ids": chosen_ids,
            "chosen": [hv[int(i)] for i in chosen_ids],
            "top": [[(hv[int(j)], float(probs[t, j])) for j in order[t]] for t in range(T)],
            "hindi_vocabulary": list(hv),
            "weight_count": self.weight_count()["total"],
        }

    def weight_count(self) -> dict[str, int]:
        """Number of trained numbers, by part, and the total."""
        return weight_parts(self.params)


@cache
def _load(path: str) -> TinyTranslator:
    params, cfg = read_weights(Path(path))
    return TinyTranslator(params, cfg)


def load(path: Path | str | None = None) -> TinyTranslator:
    """The trained tiny translator from ``weights.npz`` (loaded once, then shared)."""
    return _load(str(Path(path) if path is not None else WEIGHTS_PATH))
