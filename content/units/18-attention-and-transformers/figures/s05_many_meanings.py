"""§5 The payoff: one word, many meanings. A toy plane of two numbers (how much a word is about
water, how much about money) where "bank" sits between the two, self-attention by hand in "river
bank" and "bank loan"; then "bank" in river and money sentences through the real pretrained
model (all-MiniLM-L6-v2, run by mathmachine.engine.pretrained): raw and centred cosines."""

from __future__ import annotations

from typing import Any

import numpy as np

from mathmachine.engine.pretrained import cosine_matrix, group_means, word_senses
from mathmachine.engine.self_attention import self_attention_steps
from mathmachine.printing import dec, plain, vec

# The toy keeps W_Q = W_K = W_V = I (each word's query, key and value are its own vector) and
# leaves out the ÷√d of §4, so that the numbers stay round; the prose says so.
EXAMPLES: dict[str, Any] = {
    "bank_toy": {
        "axes": ["water", "money"],
        "word": "bank",
        "vector": [1.0, 1.0],
        # the words a sentence may hold besides "bank", as chips; water words mirror money words
        "words": [
            {"word": "river", "vector": [3.0, 0.0], "group": "water"},
            {"word": "boat", "vector": [2.0, 1.0], "group": "water"},
            {"word": "fish", "vector": [2.0, 0.0], "group": "water"},
            {"word": "loan", "vector": [0.0, 3.0], "group": "money"},
            {"word": "cash", "vector": [1.0, 2.0], "group": "money"},
            {"word": "money", "vector": [0.0, 2.0], "group": "money"},
            {"word": "the", "vector": [0.5, 0.5], "group": "plain"},
            {"word": "by", "vector": [0.5, 0.5], "group": "plain"},
            {"word": "at", "vector": [0.5, 0.5], "group": "plain"},
        ],
        # a preset's words in the order of its sentence, "bank" where "bank" stands
        "presets": [
            {"id": "river", "sentence": ["river", "bank"]},
            {"id": "loan", "sentence": ["bank", "loan"]},
            {"id": "fish", "sentence": ["fish", "by", "the", "bank"]},
            {"id": "cash", "sentence": ["cash", "at", "the", "bank"]},
            {"id": "both", "sentence": ["river", "bank", "loan"]},
            {"id": "alone", "sentence": ["bank"]},
        ],
        # the line x = y splits the plane; within this distance of it (|x - y| < margin) the
        # output is "on the line", between the two sides
        "margin": 0.25,
        "plot_max": 3.25,
    },
    # "bank" in the real model: three river sentences and three money sentences (R3 and M2 have
    # "bank" at the same place, so their inputs are exactly the same vector)
    "bank_real": {
        "word": "bank",
        "sentences": [
            {"id": "R1", "sense": "river", "text": "I sat on the bank of the river."},
            {"id": "R2", "sense": "river", "text": "Fish swim near the river bank."},
            {"id": "R3", "sense": "river", "text": "The river overflowed its bank."},
            {"id": "M1", "sense": "money", "text": "The bank approved my loan."},
            {"id": "M2", "sense": "money", "text": "He paid the cash into the bank."},
            {"id": "M3", "sense": "money", "text": "The bank gave him a loan."},
        ],
    },
}

TOY = EXAMPLES["bank_toy"]
REAL = EXAMPLES["bank_real"]


def toy_vectors() -> dict[str, list[float]]:
    """Every toy word's vector, "bank" included."""
    out = {w["word"]: w["vector"] for w in TOY["words"]}
    out[TOY["word"]] = TOY["vector"]
    return out


def bank_in(sentence: list[str]) -> tuple[Any, int]:
    """Self-attention over the toy words of ``sentence`` (W_Q = W_K = W_V = I, no ÷√d): the
    steps and the row of "bank"."""
    vectors = toy_vectors()
    x = np.array([vectors[w] for w in sentence], dtype=float)
    eye = np.eye(2)
    return self_attention_steps(x, eye, eye, eye), sentence.index(TOY["word"])


def side(point: Any) -> str:
    """Which side of the line x = y a point of the plane is on: "water", "money" or "line"."""
    gap = float(point[0]) - float(point[1])
    if abs(gap) < TOY["margin"]:
        return "line"
    return "water" if gap > 0 else "money"


def real() -> Any:
    """The real model's "bank" vectors and cosines (cached by the engine)."""
    return word_senses([s["text"] for s in REAL["sentences"]], REAL["word"])


def figures() -> dict[str, str]:
    """Every number §5 prints."""
    f: dict[str, str] = {}
    vectors = toy_vectors()
    for word in ("bank", "river", "loan", "money"):
        f[f"mm_x_{word}"] = vec(vectors[word], plain)

    # --- by hand: "river bank" and "bank loan", the same input vector of "bank"
    river, i = bank_in(["river", "bank"])
    loan, j = bank_in(["bank", "loan"])
    if not np.array_equal(river.x[i], loan.x[j]):
        raise AssertionError("bank must go in as the same vector in both sentences")
    s_other, s_self = river.scores[i]
    f["mm_s_river"], f["mm_s_self"] = plain(s_other), plain(s_self)
    f["mm_s_loan"] = plain(loan.scores[j, 1])
    exps = np.exp(river.scores[i])
    f["mm_exp_river"], f["mm_exp_self"] = dec(exps[0]), dec(exps[1])
    f["mm_exp_total"] = dec(exps.sum())
    f["mm_w_river"], f["mm_w_self"] = dec(river.weights[i, 0]), dec(river.weights[i, 1])
    f["mm_w_loan"] = dec(loan.weights[j, 1])
    f["mm_out_river"] = vec(river.output[i])
    f["mm_out_loan"] = vec(loan.output[j])
    if side(river.output[i]) != "water" or side(loan.output[j]) != "money":
        raise AssertionError("the two outputs should land on the two sides")
    both = cosine_matrix([river.output[i], loan.output[j]])
    f["mm_out_cos"] = dec(both[0, 1])
    f["mm_in_cos"] = dec(cosine_matrix([river.x[i], loan.x[j]])[0, 1])

    # --- check s5-swap: "river bank loan" sits on the line; swap "loan" for "money"
    start, k = bank_in(["river", "bank", "loan"])
    after, m = bank_in(["river", "bank", "money"])
    if side(start.output[k]) != "line" or side(after.output[m]) != "water":
        raise AssertionError("the swap should take bank from the line to the water side")
    f["mm_swap_start"] = vec(start.output[k])
    f["mm_swap_after"] = vec(after.output[m])
    f["mm_swap_s_money"] = plain(after.scores[m, 2])
    f["mm_swap_weights"] = vec(after.weights[m])
    f["mm_swap_start_weights"] = vec(start.weights[k])

    # --- the widget's presets, for the Try box
    alone, a = bank_in(["bank"])
    f["mm_alone_out"] = vec(alone.output[a])
    fish, b = bank_in(["fish", "by", "the", "bank"])
    f["mm_fish_out"] = vec(fish.output[b])
    f["mm_fish_w_fish"] = dec(fish.weights[b, 0])

    # --- the real model: "bank" at the input and at the last layer, raw and centred cosines
    r = real()
    senses = [s["sense"] for s in REAL["sentences"]]
    ids = [s["id"] for s in REAL["sentences"]]
    raw_same, raw_across = group_means(r.raw, senses)
    c_same, c_across = group_means(r.centred, senses)
    if not (c_same > c_across and raw_same > raw_across):
        raise AssertionError("the same sense should be closer than the other sense")
    across = np.array([[r.raw[p, q] for q in range(6) if senses[q] != senses[p]] for p in range(6)])
    f["mm_raw_same"], f["mm_raw_across"] = dec(raw_same), dec(raw_across)
    f["mm_raw_across_min"], f["mm_raw_across_max"] = dec(across.min()), dec(across.max())
    f["mm_c_same"], f["mm_c_across"] = dec(c_same), dec(c_across)
    f["mm_raw_gap"] = dec(raw_same - raw_across)
    f["mm_c_gap"] = dec(c_same - c_across)
    upper = r.input_cosines[np.triu_indices(6, 1)]
    f["mm_in_min"] = dec(upper.min())
    # R3 and M2: "bank" at the same place, so exactly the same input vector
    p, q = ids.index("R3"), ids.index("M2")
    if r.positions[p] != r.positions[q] or not np.array_equal(r.inputs[p], r.inputs[q]):
        raise AssertionError("R3 and M2 should put the same vector in for bank")
    f["mm_pair_in"] = dec(r.input_cosines[p, q])
    f["mm_pair_raw"] = dec(r.raw[p, q])
    f["mm_pair_c"] = dec(r.centred[p, q])
    # how big the shared part is: the mean token vector's length against a token's, and the
    # cosine of each "bank" vector with it
    f["mm_mean_len"] = dec(float(np.linalg.norm(r.mean)), 1)
    f["mm_bank_len"] = dec(float(np.linalg.norm(r.outputs, axis=1).mean()), 1)
    with_mean = cosine_matrix(np.vstack([r.mean, r.outputs]))[0, 1:]
    f["mm_bank_mean_cos_min"], f["mm_bank_mean_cos_max"] = (
        dec(with_mean.min()),
        dec(with_mean.max()),
    )
    f["mm_d"] = str(r.outputs.shape[1])
    return f
