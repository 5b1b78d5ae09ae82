"""Widget 16's numbers (Unit 18 §13, "the whole walk"): one English sentence through the tiny
translator, every tensor of it, rounded as the page prints it. Computed on the server by the
engine (``tiny.load().walk``); the browser only draws them.

``walk_numbers(text)`` returns a JSON-ready dict, or raises :class:`WalkInputError` with a
message for the learner (an empty box, too long, an unknown word: the message lists the words
the model knows). Attention weights and probabilities are sent in thousandths that add up to
exactly 1000 a row (``shares_rounded``), so a printed row adds up to 1.000; vectors and logits
to VECTOR_PLACES / LOGIT_PLACES decimals.
"""

from __future__ import annotations

from functools import cache, lru_cache
from typing import Any

import numpy as np

from mathmachine.engine import shares_rounded, tiny
from mathmachine.engine.tiny.corpus import MAX_ENGLISH, all_pairs, provenance, tokenize_english

VECTOR_PLACES = 3
LOGIT_PLACES = 2
TOP = 5
#: The longest text the box accepts, in characters (4 words of the vocabulary fit many times).
MAX_CHARS = 80
#: Walks kept in the process, by sentence (about 30 kB each).
WALKS_KEPT = 256
ENCODER_STAGES = ("attn", "resid1", "ln1", "ffn", "resid2", "out")
DECODER_STAGES = (
    *("self_attn", "resid1", "ln1", "cross_attn", "resid2", "ln2"),
    *("ffn", "resid3", "out"),
)


class WalkInputError(ValueError):
    """What the learner typed cannot be walked; the message says why, in words for them."""


@cache
def _translit() -> dict[str, str]:
    out = {"<s>": "start", "</s>": "end", "<pad>": "pad"}
    for p in all_pairs():
        out.update(zip(p.hindi, p.translit, strict=True))
    return out


@cache
def known_words() -> tuple[str, ...]:
    """The English words the model knows, as the vocabulary spells them, sorted."""
    return tuple(sorted(tiny.load().vocab.english[1:], key=str.lower))


def _vectors(a: np.ndarray) -> list[list[float]]:
    return np.round(np.asarray(a, dtype=np.float64), VECTOR_PLACES).tolist()


def _shares(a: np.ndarray) -> list[Any]:
    return shares_rounded(np.asarray(a, dtype=np.float64), 3).tolist()


def clean(raw: object) -> str:
    """The sentence as typed, or WalkInputError: not text, empty, too long, or a word the model
    does not know (named, with every word it knows)."""
    if not isinstance(raw, str):
        raise WalkInputError("Send the sentence as text.")
    text = " ".join(raw.split())
    if not text or not tokenize_english(text):
        raise WalkInputError("Type an English sentence first, for example “I drink tea”.")
    if len(text) > MAX_CHARS:
        raise WalkInputError(
            f"That is {len(text)} characters; the tiny translator takes sentences of at most "
            f"{MAX_ENGLISH} words, such as “my mother drinks tea”."
        )
    words = tokenize_english(text)
    known = {w.lower() for w in known_words()}
    unknown = [w for w in words if w not in known]
    if unknown:
        listed = ", ".join(known_words())
        which = "“" + "”, “".join(dict.fromkeys(unknown)) + "”"
        raise WalkInputError(
            f"The tiny translator does not know {which}. It knows only these "
            f"{len(known_words())} English words: {listed}."
        )
    if len(words) > MAX_ENGLISH:
        raise WalkInputError(
            f"That is {len(words)} words; the tiny translator takes at most {MAX_ENGLISH} "
            "(a subject, a verb and a thing, as in “my mother drinks tea”)."
        )
    return text


def walk_numbers(raw: object) -> dict[str, Any]:
    """Every tensor of the walk of one sentence (see the module docstring), or WalkInputError.
    Walks are kept by sentence (an LRU of WALKS_KEPT): a repeat costs nothing. The dict is
    shared: do not change it."""
    return _walk(clean(raw).lower())


@lru_cache(maxsize=WALKS_KEPT)
def _walk(text: str) -> dict[str, Any]:
    model = tiny.load()
    try:
        w = model.walk(text, top_k=TOP)
    except ValueError as e:  # the engine's own checks; clean() should have caught them all
        raise WalkInputError(str(e)) from None
    pair, where = provenance(text)
    enc, dec = w["encoder"], w["decoder"]
    (enc_layer,) = enc["layers"]
    (dec_layer,) = dec["layers"]
    tr = _translit()
    chosen = list(w["chosen"])
    written = chosen[: chosen.index("</s>")] if "</s>" in chosen else chosen
    return {
        "sentence": " ".join(w["english"]),
        "english": list(w["english"]),
        "english_ids": [int(i) for i in w["english_ids"]],
        "where": where,
        "expected": list(pair.hindi) if pair is not None else None,
        "correct": pair is not None and written == list(pair.hindi),
        "encoder": {
            "embeddings": _vectors(enc["embeddings"]),
            "positions": _vectors(enc["positions"]),
            "input": _vectors(enc["input"]),
            "attention": _shares(enc_layer["self_attention"]),  # [H, S, S] thousandths
            "stages": {k: _vectors(enc_layer[k]) for k in ENCODER_STAGES},
        },
        "decoder": {
            "input": list(w["hindi_input"]),
            "input_ids": [int(i) for i in w["hindi_input_ids"]],
            "embeddings": _vectors(dec["embeddings"]),
            "positions": _vectors(dec["positions"]),
            "sum": _vectors(dec["input"]),
            "self_attention": _shares(dec_layer["self_attention"]),  # [H, T, T], causal
            "cross_attention": _shares(dec_layer["cross_attention"]),  # [H, T, S]
            "stages": {k: _vectors(dec_layer[k]) for k in DECODER_STAGES},
        },
        "logits": np.round(w["logits"], LOGIT_PLACES).tolist(),
        "probabilities": _shares(w["probabilities"]),  # [T, V] thousandths
        "chosen": chosen,
        "written": written,
        "translit": [tr.get(h, h) for h in written],
        "top": [[[word, round(float(p), 3)] for word, p in row] for row in w["top"]],
        "vocabulary": list(w["hindi_vocabulary"]),
        "vocabulary_translit": [tr.get(h, h) for h in w["hindi_vocabulary"]],
        "heads": model.config.n_heads,
        "d_model": model.config.d_model,
        "weights": int(w["weight_count"]),
    }
