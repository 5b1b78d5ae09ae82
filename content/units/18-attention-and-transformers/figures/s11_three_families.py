"""§11 Three families: BERT, GPT and the encoder–decoder. Who may look at whom in each (the
masks, from mathmachine.engine.dot_product.causal_mask), what one training example looks like
(from the tiny translator's corpus), and the encoder–decoder's cross-attention as §1's map, from
the tiny translator's trained weights (mathmachine.engine.tiny).

Heads count from 1 on the page (the engine counts from 0).
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np

from mathmachine.engine import causal_mask, shares_rounded, tiny
from mathmachine.engine.tiny.corpus import BOS, EOS, all_pairs
from mathmachine.printing import dec, vec

RUNNING = "I drink tea"
MAP_SENTENCE = "she eats rice"  # §11 shows this map; §13 asks where पीता looks
CHECK_ENGLISH = "my mother drinks tea"  # check s11-masks: the decoder reads 4 words, has 6 slots
CHECK_N = 6  # tokens of the BERT and GPT inputs in check s11-masks
MASKED = 1  # the word hidden in BERT's example ("drink")
BERT_RATE = 15  # per cent of the tokens BERT hides (Devlin et al. 2019)


@cache
def _pair(text: str) -> Any:
    return next(p for p in all_pairs() if p.english_text == text)


def allowed(n_q: int, n_k: int, mask: str) -> np.ndarray:
    """[n_q, n_k] of 1 where the query may look at the key: "none" (every pair), "causal"
    (itself and the keys before it; n_q = n_k), "cross" (every query sees every key)."""
    if mask == "causal":
        if n_q != n_k:
            raise ValueError("a causal mask is square")
        return causal_mask(n_q).astype(int)
    return np.ones((n_q, n_k), dtype=int)


def _cross_map(text: str) -> dict[str, Any]:
    """The tiny translator's cross-attention while translating ``text``: rows = the Hindi words
    written, columns = the English words; head average and each head, in thousandths that add
    up to exactly 1000 a row (shares_rounded), as the page prints them."""
    t = tiny.load().translate(text)
    pair = _pair(text)
    if t.hindi != list(pair.hindi):
        raise AssertionError(f"the tiny translator must translate {text!r} right")

    def thousandths(w: np.ndarray) -> list[list[int]]:
        return [[int(u) for u in shares_rounded(r, 3)] for r in w]

    return {
        "english": t.english,
        "hindi": [{"word": h, "translit": tr} for h, tr in zip(t.hindi, t.translit, strict=True)],
        "average": thousandths(t.cross_attention),
        "heads": [thousandths(h) for h in t.cross_attention_per_head],
    }


def _examples() -> dict[str, Any]:
    pair = _pair(RUNNING)
    en = list(pair.english)
    hi_in = [BOS, *pair.hindi]  # what the decoder reads: the start token and the words so far
    hi_out = [*pair.hindi, EOS]  # what it must predict at each slot
    masked = [w if i != MASKED else "[MASK]" for i, w in enumerate(en)]
    S, T = len(en), len(hi_in)
    return {
        "family_picker": {
            "english": en,
            "hindi_in": hi_in,
            "hindi_out": hi_out,
            "translit": list(pair.translit),
            "families": [
                {
                    "id": "encoder",
                    "name": "Encoder-only",
                    "models": "BERT, RoBERTa, the lab's MiniLM",
                    "mask": "none",
                    "maps": [
                        {
                            "title": "self-attention",
                            "rows": en,
                            "cols": en,
                            "allowed": allowed(S, S, "none").tolist(),
                        }
                    ],
                    "example": {"input": masked, "target": [en[MASKED]]},
                    "good_at": "understanding a whole text: search, sorting, finding names, "
                    "telling how alike two sentences are",
                },
                {
                    "id": "decoder",
                    "name": "Decoder-only",
                    "models": "GPT-2, GPT-3, LLaMA",
                    "mask": "causal",
                    "maps": [
                        {
                            "title": "masked self-attention",
                            "rows": en,
                            "cols": en,
                            "allowed": allowed(S, S, "causal").tolist(),
                        }
                    ],
                    "example": {"input": en, "target": [*en[1:], EOS]},
                    "good_at": "writing: continuing a text one word at a time, chat, code",
                },
                {
                    "id": "encoder-decoder",
                    "name": "Encoder–decoder",
                    "models": "the 2017 transformer, T5, BART, our tiny translator",
                    "mask": "both",
                    "maps": [
                        {
                            "title": "encoder self-attention",
                            "rows": en,
                            "cols": en,
                            "allowed": allowed(S, S, "none").tolist(),
                        },
                        {
                            "title": "decoder masked self-attention",
                            "rows": hi_in,
                            "cols": hi_in,
                            "allowed": allowed(T, T, "causal").tolist(),
                        },
                        {
                            "title": "cross-attention",
                            "rows": hi_in,
                            "cols": en,
                            "allowed": allowed(T, S, "cross").tolist(),
                        },
                    ],
                    "example": {"input": en, "target": hi_out},
                    "good_at": "turning one text into another: translating, summarising",
                },
            ],
            "cross": _cross_map(MAP_SENTENCE),
        }
    }


EXAMPLES: dict[str, Any] = _examples()


def _row(thousandths: list[int]) -> str:
    return vec([u / 1000 for u in thousandths])


def figures() -> dict[str, str]:
    """Every number §11 prints."""
    ex = EXAMPLES["family_picker"]
    f: dict[str, str] = {}
    S, T = len(ex["english"]), len(ex["hindi_in"])
    f["fam_n"], f["fam_t"] = str(S), str(T)
    f["fam_full"] = str(int(allowed(S, S, "none").sum()))
    f["fam_causal"] = str(int(allowed(S, S, "causal").sum()))
    f["fam_dec_causal"] = str(int(allowed(T, T, "causal").sum()))
    f["fam_cross"] = str(int(allowed(T, S, "cross").sum()))
    f["fam_enc_dec_total"] = str(
        int(f["fam_full"]) + int(f["fam_dec_causal"]) + int(f["fam_cross"])
    )
    f["fam_bert_rate"] = f"{BERT_RATE}%"

    # check s11-masks: BERT and GPT on CHECK_N tokens; the tiny translator's cross-attention
    # for "my mother drinks tea" (6 decoder slots reading 4 English words)
    pair = _pair(CHECK_ENGLISH)
    n_en, n_slots = len(pair.english), len(pair.hindi) + 1
    f["fam_ck_n"], f["fam_ck_en"], f["fam_ck_slots"] = str(CHECK_N), str(n_en), str(n_slots)
    f["fam_ck_english"] = CHECK_ENGLISH
    f["fam_ck_full"] = str(int(allowed(CHECK_N, CHECK_N, "none").sum()))
    f["fam_ck_causal"] = str(int(allowed(CHECK_N, CHECK_N, "causal").sum()))
    f["fam_ck_cross"] = str(int(allowed(n_slots, n_en, "cross").sum()))
    # the named slips
    f["fam_ckm_strict"] = str(int(np.tril(np.ones((CHECK_N, CHECK_N)), -1).sum()))  # forgot itself
    f["fam_ckm_cross_masked"] = str(int(sum(min(t + 1, n_en) for t in range(n_slots))))
    f["fam_ckm_cross_square"] = str(n_slots * n_slots)  # the decoder's own map
    f["fam_ckm_half"] = str(CHECK_N * CHECK_N // 2)  # half the square: forgot the diagonal

    # the cross-attention map of the tiny translator, for MAP_SENTENCE
    cross = ex["cross"]
    avg = cross["average"]
    en = cross["english"]
    for t in range(len(cross["hindi"])):
        f[f"fam_map_row{t + 1}"] = _row(avg[t])
        f[f"fam_map_top{t + 1}"] = en[int(np.argmax(avg[t]))]
    verb_t = len(cross["hindi"]) - 2
    f["fam_map_verb_on_verb"] = dec(avg[verb_t][1] / 1000)
    heads = np.asarray(cross["heads"])  # [H, T, S]
    h_verb = int(np.argmax(heads[:, verb_t, 1]))
    f["fam_map_verb_head"] = str(h_verb + 1)
    f["fam_map_verb_head_row"] = _row(heads[h_verb, verb_t].tolist())
    f["fam_map_sentence"] = MAP_SENTENCE
    if [f[f"fam_map_top{t}"] for t in (1, 2, 3)] != ["she", "rice", "eats"]:
        raise AssertionError("the map must bend: वह → she, चावल → rice, खाती → eats")
    return f


__all__ = ["EXAMPLES", "allowed", "figures"]
