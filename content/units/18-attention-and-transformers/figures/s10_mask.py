"""§10 No peeking: the causal mask on §3's "I drink tea" (its X, W_Q, W_K, W_V, scaled by
sqrt(d_k) as in §4), -inf against a finite fill, a padded batch, teacher forcing and the KV
cache; widget 13's sentence "I drink hot tea" and the words a learner may put in each place;
problem 15 (a masked softmax row). Every printed number from mathmachine.engine.masking and
mathmachine.engine.dot_product."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from mathmachine.engine.dot_product import causal_mask, padding_mask
from mathmachine.engine.masking import (
    allowed_pairs,
    kv_cache_steps,
    masked_self_attention_steps,
    masked_softmax,
    projected_rows,
)
from mathmachine.printing import count, dec, plain, tex, vec

from .s03_self_attention import EXAMPLES as S3
from .variants import carried, distinct, draw, kept

SA = S3["self_attention"]
WORDS = list(SA["words"])  # I, drink, tea

#: Widget 13: a sentence of four places, and the words a learner may put in each. The first
#: word of each list is the sentence's own; "I", "drink" and "tea" keep their §3 vectors.
VOCAB: dict[str, list[float]] = {
    "I": [1.0, 0.0],
    "you": [-1.0, 0.0],
    "she": [1.0, -1.0],
    "drink": [0.0, 1.0],
    "make": [-1.0, 1.0],
    "want": [0.0, -1.0],
    "hot": [2.0, 0.0],
    "sweet": [1.0, 2.0],
    "cold": [-1.0, -1.0],
    "tea": [1.0, 1.0],
    "water": [0.0, 2.0],
    "milk": [2.0, 1.0],
}
CHOICES = [["I", "you", "she"], ["drink", "make", "want"], ["hot", "sweet", "cold"],
           ["tea", "water", "milk"]]  # fmt: skip

EXAMPLES: dict[str, Any] = {
    "mask": {
        "choices": CHOICES,
        "vectors": VOCAB,
        "W_Q": SA["W_Q"],
        "W_K": SA["W_K"],
        "W_V": SA["W_V"],
        "end": ".",
        # the fallback's edit: the last word changed
        "edit": {"place": 4, "word": "water"},
    },
}

FILL_SMALL = -5.0  # a finite "mask" too small to hide anything
FILL_BIG = -10_000.0  # the number BERT's code adds


def sdec(x: float) -> str:
    """A score as printed: an exact 0 as "0" (it is exactly 0), else three decimals."""
    return "0" if x == 0 else dec(x)


MINUS_INF_TEX = "\u2212\\infty"  # printed with a real minus; the math pass reads it as TeX's "-"


def _tex_entry(x: float) -> str:
    return MINUS_INF_TEX if x == -math.inf else sdec(x)


def _pm(rows: Any, show: Callable[[float], str]) -> str:
    body = r" \\ ".join(" & ".join(show(float(x)) for x in r) for r in rows)
    return r"\begin{pmatrix} " + body + r" \end{pmatrix}"


def mask_matrix_tex(allowed: np.ndarray) -> str:
    """The additive mask M as LaTeX: 0 where a query may look, -inf where not."""
    return _pm(np.where(allowed, 0.0, -math.inf), lambda x: "0" if x == 0 else MINUS_INF_TEX)


def sentence(words: list[str]) -> np.ndarray:
    return np.array([VOCAB[w] for w in words])


def steps(words: list[str], mask: bool = True) -> Any:
    return masked_self_attention_steps(sentence(words), SA["W_Q"], SA["W_K"], SA["W_V"], mask)


def figures() -> dict[str, str]:
    """Every number §10 prints."""
    f: dict[str, str] = {}
    x = np.asarray(SA["X"], dtype=float)
    st = masked_self_attention_steps(x, SA["W_Q"], SA["W_K"], SA["W_V"], True)
    free = masked_self_attention_steps(x, SA["W_Q"], SA["W_K"], SA["W_V"], False)
    n = len(WORDS)
    raw = st.q @ st.k.T

    f["mk_n"] = str(n)
    f["mk_all"] = str(n * n)
    f["mk_pairs"] = str(allowed_pairs(n))
    f["mk_raw"] = _pm(raw, plain)
    f["mk_dk"] = str(st.q.shape[1])
    f["mk_sqrt_dk"] = dec(math.sqrt(st.q.shape[1]))
    f["mk_scaled"] = _pm(st.scaled, sdec)
    f["mk_M"] = mask_matrix_tex(st.mask)
    f["mk_masked"] = _pm(st.masked, _tex_entry)
    f["mk_A"] = _pm(st.weights, dec)
    f["mk_A_free"] = _pm(free.weights, dec)
    f["mk_V"] = _pm(st.v, plain)
    f["mk_out"] = _pm(st.output, dec)
    f["mk_out_free"] = _pm(free.output, dec)
    for i, w in enumerate(WORDS):
        f[f"mk_raw_{w}"] = vec(raw[i], plain)
        f[f"mk_scaled_{w}"] = vec(st.scaled[i], sdec)
        f[f"mk_w_{w}"] = vec(st.weights[i])
        f[f"mk_w_free_{w}"] = vec(free.weights[i])
        f[f"mk_out_{w}"] = vec(st.output[i])
        f[f"mk_out_free_{w}"] = vec(free.output[i])
    # "I" without the mask: how much it takes from the words after it
    f["mk_peek_I"] = dec(free.weights[0, 1:].sum())
    f["mk_peek_I_drink"] = dec(free.weights[0, 1])

    # check s10-pairs: five words
    n5 = 5
    f["mk_ck_n"] = str(n5)
    f["mk_ck_pairs"] = str(allowed_pairs(n5))
    f["mk_ck_all"] = str(n5 * n5)
    f["mk_ck_no_diag"] = str(allowed_pairs(n5) - n5)
    f["mk_ck_sum"] = " + ".join(str(k) for k in range(1, n5 + 1))
    f["mk_ck_hidden"] = str(n5 * n5 - allowed_pairs(n5))

    # check s10-future: the row of "drink"
    i = WORDS.index("drink")
    row = st.scaled[i]
    f["mk_ck2_raw"] = vec(raw[i], plain)
    f["mk_ck2_answer"] = vec(st.weights[i])
    seen = carried(row[: i + 1])
    e = carried(np.exp(seen))
    total = carried(e.sum())
    hand = np.zeros(n)
    hand[: i + 1] = carried(e / total)
    f["mk_ck2_by_hand"] = vec(hand)
    f["mk_ck2_kept"] = kept(vec(hand), vec(st.weights[i]), "they are")
    f["mk_ck2_scaled"] = vec(row, sdec)
    f["mk_ck2_e_I"], f["mk_ck2_e_drink"] = dec(e[0]), dec(e[1])
    f["mk_ck2_s_I"] = dec(seen[0])
    f["mk_ck2_total"] = dec(total)
    f["mk_ck2_free"] = vec(free.weights[i])
    zeroed = free.weights[i].copy()
    zeroed[i + 1 :] = 0.0
    f["mk_ck2_zeroed"] = vec(zeroed)
    f["mk_ck2_zeroed_sum"] = dec(zeroed.sum())
    unscaled = masked_softmax(raw[i], st.mask[i])
    f["mk_ck2_unscaled"] = vec(unscaled)
    for name, w in (("answer", st.weights[i]), ("free", free.weights[i]), ("zeroed", zeroed),
                    ("unscaled", unscaled)):  # fmt: skip
        assert vec(w) == f[f"mk_ck2_{name}"]
    assert distinct(f["mk_ck2_answer"], f["mk_ck2_free"], f["mk_ck2_zeroed"], f["mk_ck2_unscaled"])

    # no peeking by hand: "tea" becomes "water"
    x2 = sentence(["I", "drink", "water"])
    st2 = masked_self_attention_steps(x2, SA["W_Q"], SA["W_K"], SA["W_V"], True)
    free2 = masked_self_attention_steps(x2, SA["W_Q"], SA["W_K"], SA["W_V"], False)
    f["mk_x_water"] = vec(VOCAB["water"], plain)
    f["mk_x_tea"] = vec(VOCAB["tea"], plain)
    for j, w in enumerate(WORDS[:2]):
        f[f"mk_out2_{w}"] = vec(st2.output[j])
        f[f"mk_out2_free_{w}"] = vec(free2.output[j])
    f["mk_out2_water"] = vec(st2.output[2])
    f["mk_same_bits"] = "yes" if np.array_equal(st2.output[:2], st.output[:2]) else "no"

    # -inf against a finite fill, on the row of "I"
    r0, m0 = st.scaled[0], st.mask[0]
    f["mk_fill_small"] = plain(FILL_SMALL)
    f["mk_fill_small_w"] = vec(masked_softmax(r0, m0, FILL_SMALL))
    f["mk_fill_small_future"] = dec(masked_softmax(r0, m0, FILL_SMALL)[1:].sum())
    f["mk_fill_big"] = count(-FILL_BIG)
    big = masked_softmax(r0, m0, FILL_BIG)
    f["mk_fill_big_zero"] = "yes" if np.all(big[1:] == 0.0) else "no"
    # e^(-10000) is about 10^(-4343); the smallest positive float64 about 10^(-324)
    f["mk_big_pow"] = str(round(-FILL_BIG / math.log(10)))
    f["mk_tiny_pow"] = str(-math.floor(math.log10(np.nextafter(0.0, 1.0))))
    f["mk_fp16_max"] = count(float(np.finfo(np.float16).max))
    lowest = float(np.finfo(np.float64).min)
    every_hidden = masked_softmax(r0, np.zeros(n, dtype=bool), lowest)
    f["mk_all_hidden"] = vec(every_hidden)

    # a padded batch: "I drink tea" and "you drink hot water", padded to 4
    lens = [3, 4]
    pad = padding_mask(lens, 4) & causal_mask(4)
    f["mk_pad_n"] = "4"
    f["mk_pad_M"] = mask_matrix_tex(pad[0])
    f["mk_pad_pairs_1"] = str(int(pad[0].sum()))
    f["mk_pad_pairs_2"] = str(int(pad[1].sum()))

    # the widget's sentence; teacher forcing and the KV cache
    words4 = [c[0] for c in CHOICES]
    f["mk_w4_n"] = str(len(words4))
    f["mk_w4_pairs"] = str(allowed_pairs(len(words4)))
    kv = kv_cache_steps(x, SA["W_Q"], SA["W_K"], SA["W_V"])
    if not np.allclose(kv.output, st.output, rtol=0, atol=1e-12):
        raise AssertionError("the KV cache must give the full pass's rows")
    f["mk_kv_tea"] = vec(kv.output[2])
    f["mk_kv_made"] = str(kv.projected)
    f["mk_kv_made_without"] = str(kv.projected_without_cache)
    big_n = 1000
    f["mk_kv_n"] = count(big_n)
    f["mk_kv_with"] = count(projected_rows(big_n, cache=True))
    f["mk_kv_without"] = count(projected_rows(big_n, cache=False))
    f["mk_kv_ratio"] = count(
        projected_rows(big_n, cache=False) // projected_rows(big_n, cache=True)
    )
    f["mk_gpt2_ctx"] = count(1024)
    return f


# ------------------------------------------------------------------ problem 15: fresh numbers

SENTENCES = (
    ["I", "drink", "hot", "tea"],
    ["she", "eats", "rice", "daily"],
    ["you", "read", "old", "books"],
    ["we", "make", "sweet", "tea"],
    ["they", "buy", "fresh", "milk"],
)


def masked_row(seed: int) -> dict[str, str]:
    """A four-word sentence, the scaled scores of its third word's row (halves), the causal
    mask: the row's four weights, the last one exactly 0."""
    p = 3  # the word that asks (1-based): it may see words 1..3, not word 4

    def make(rng: np.random.Generator) -> dict[str, str] | None:
        words = SENTENCES[int(rng.integers(len(SENTENCES)))]
        s = rng.integers(-4, 7, size=4) / 2.0
        seen = s[:p]
        if len(set(seen.tolist())) < p:
            return None  # a tie among the scores it may see
        allowed = np.arange(4) < p
        w = masked_softmax(s, allowed)
        key = vec(w)
        free = masked_softmax(s, np.ones(4, dtype=bool))
        zeroed = np.where(allowed, free, 0.0)
        no_self = masked_softmax(s, np.arange(4) < p - 1)
        ahead = masked_softmax(s, np.arange(4) >= p - 1)
        if free[-1] < 0.05 or not distinct(key, vec(free), vec(zeroed), vec(no_self), vec(ahead)):
            return None  # the hidden word must matter, and every slip print differently
        e = carried(np.exp(seen))
        total = carried(e.sum())
        hand = np.zeros(4)
        hand[:p] = carried(e / total)
        if dec(zeroed.sum()) in {dec(v) for v in (*w, *hand)}:
            return None  # the slip's row total would print an entry of the answer
        f = {
            "sentence": "“" + " ".join(words) + "”",
            "word": words[p - 1],
            "last": words[-1],
            "first": words[0],
            "second": words[1],
            "scores": vec(s, plain),
            "seen": vec(seen, plain),
            "s_last": plain(s[-1]),
            "weights": key,
            "weights_by_hand": vec(hand),
            "kept": kept(vec(hand), key, "they are"),
            "exps": vec(e),
            "total": dec(total),
            "forgot_mask": vec(free),
            "zeroed": vec(zeroed),
            "zeroed_sum": dec(zeroed.sum()),
            "ahead": vec(ahead),
            "no_self": vec(no_self),
        }
        for j in range(p):
            f[f"s{j}_tex"] = tex(plain(seen[j]))
            f[f"e{j}"] = dec(e[j])
            f[f"w{j}"] = dec(hand[j])
        return f

    return draw(seed, make)


VARIANTS: dict[str, Callable[[int], dict[str, str]]] = {"masked_row": masked_row}
