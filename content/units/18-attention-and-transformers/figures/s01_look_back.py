"""§1, the look back: the worked examples and every figure the section prints.

EXAMPLES holds the inputs (shared with the widget); figures() formats the engine's outputs
exactly as the text prints them. The compiler substitutes {{ name }} in the Markdown.
"""

from __future__ import annotations

import numpy as np

from mathmachine.engine import (
    additive_scores,
    alignment_map,
    context_gradient,
    context_vector,
    look_back,
    softmax,
)
from mathmachine.printing import dec, plain, vec

EXAMPLES: dict[str, dict] = {
    # §1: "I drink tea" -> "मैं चाय पीता हूँ". Each note points at its own English word; the decoder
    # states are chosen so that the alignment map bends (verb-final Hindi).
    "lookback": {
        "english": ["I", "drink", "tea"],
        "hindi": [
            {"word": "मैं", "translit": "main", "gloss": "I"},
            {"word": "चाय", "translit": "chai", "gloss": "tea"},
            {"word": "पीता", "translit": "peeta", "gloss": "drink"},
            {"word": "हूँ", "translit": "hoon", "gloss": "am"},
        ],
        "notes": [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
        "states": [[2.0, 0.5, 0.0], [0.0, 0.5, 2.0], [0.5, 2.0, 0.0], [1.0, 1.0, 0.0]],
        "sure_min": 0,
        "sure_max": 3,
        "sure_default": 1,
    },
}

# §1, the additive score by hand: both matrices the identity, v adds the two hidden entries.
EXAMPLES["additive"] = {
    "W1": [[1.0, 0.0], [0.0, 1.0]],
    "W2": [[1.0, 0.0], [0.0, 1.0]],
    "v": [1.0, 1.0],
    "q": [0.5, -0.5],
    "notes": [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]],
}

# §1, the two "Pause & predict" checks: the state for चाय made `factor` times as long, and a
# 30-word English sentence translated into 35 Hindi words.
EXAMPLES["sharpen"] = {"word": 1, "factor": 2.0}
EXAMPLES["count"] = {"english_words": 30, "hindi_words": 35}


def figures() -> dict[str, str]:
    """Every number §1 prints, formatted exactly as printed, computed by mathmachine.engine."""
    f: dict[str, str] = {}

    # --- The look-back by hand: notes h_I, h_drink, h_tea [3, 3]; the state for चाय q [3].
    lb_in = EXAMPLES["lookback"]
    notes = np.asarray(lb_in["notes"])  # [3 notes, 3]
    states = np.asarray(lb_in["states"])  # [4 Hindi words, 3]
    tea = 1  # row of चाय in states
    q = states[tea]
    lb = look_back(q, notes)
    f["note_I"], f["note_drink"], f["note_tea"] = (vec(h, plain) for h in notes)
    f["q_tea"] = vec(q, plain)
    f["scores_tea"] = vec(lb.scores, plain)
    f["score_I"], f["score_drink"], f["score_tea"] = (plain(s) for s in lb.scores)
    exps = np.exp(lb.scores)  # [3] the numerators of softmax
    f["exp_I"], f["exp_drink"], f["exp_tea"] = (dec(e) if e != 1 else "1" for e in exps)
    f["denominator"] = dec(exps.sum())
    f["weights_tea"] = vec(lb.weights)
    f["w_I"], f["w_drink"], f["w_tea"] = (dec(w) for w in lb.weights)
    f["context_tea"] = vec(lb.context)

    # --- The alignment map [4 Hindi words, 3 English words]; rows are named by transliteration.
    amap = alignment_map(states, notes)
    for word, state, row in zip(lb_in["hindi"], states, amap, strict=True):
        name = word["translit"]
        f[f"state_{name}"] = vec(state, plain)
        f[f"row_{name}"] = vec(row)
        for eng, w in zip(lb_in["english"], row, strict=True):
            f[f"row_{name}_{eng}"] = dec(w)

    # --- The widget's "how sure" slider on चाय: at 2 (the check's factor) and at 0.
    sharp = EXAMPLES["sharpen"]
    factor = float(sharp["factor"])
    f["sure"] = plain(factor)
    sharp_lb = look_back(factor * states[sharp["word"]], notes)
    f["sure_tea"] = dec(sharp_lb.weights[2])
    flat = look_back(0.0 * q, notes).weights
    n = flat.size
    if not np.allclose(flat, 1.0 / n):
        raise AssertionError(f"a state of zeros should give 1/{n} to every note, got {flat}")
    f["sure_zero_share"] = f"1/{n}"
    f["sure_min"] = plain(lb_in["sure_min"])
    f["sure_max"] = plain(lb_in["sure_max"])

    # --- Check 1 (s1-sharpen): the doubled state sharpens the weights.
    f["q_double"] = vec(factor * states[sharp["word"]], plain)
    f["scores_double"] = vec(sharp_lb.scores, plain)
    exps2 = np.exp(sharp_lb.scores)  # [3] = exps ** 2
    f["exp2_I"], f["exp2_drink"], f["exp2_tea"] = (dec(e) if e != 1 else "1" for e in exps2)
    f["denominator_double"] = dec(exps2.sum())
    f["check1_answer"] = vec(sharp_lb.weights)
    f["check1_tea"] = dec(sharp_lb.weights[2])
    # Its named mistakes, each the engine's numbers run through the slip:
    # the weights double (made on the printed weights, 0.100 -> 0.200, ...);
    f["check1_doubled_weights"] = vec(factor * np.round(lb.weights, 3))
    f["check1_unchanged"] = vec(lb.weights)  # nothing changes: the old weights
    # forgot to exponentiate: the new scores divided by their sum;
    f["check1_no_exp"] = vec(sharp_lb.scores / sharp_lb.scores.sum())
    # divided the exponentials by the sum of the scores instead of the sum of the exponentials;
    f["check1_score_sum"] = vec(exps2 / sharp_lb.scores.sum())
    # rounded too early: the exponentials rounded to one decimal before dividing.
    rounded = np.round(exps2, 1)
    f["check1_rounded_early"] = vec(rounded / rounded.sum())
    f["exp2_rounded_drink"] = dec(rounded[1], 1)

    # --- Check 2 (s1-count): one context vector per word written; the map is n_out x n_in.
    cnt = EXAMPLES["count"]
    n_in, n_out = int(cnt["english_words"]), int(cnt["hindi_words"])
    rng = np.random.default_rng(18)
    src = rng.normal(size=(n_in, 4))  # [30 notes, 4]
    dst = rng.normal(size=(n_out, 4))  # [35 decoder states, 4]
    big_map = alignment_map(dst, src)  # [35, 30]
    contexts = context_vector(big_map, src)  # [35, 4]
    f["count_in"] = str(n_in)
    f["count_out"] = str(n_out)
    f["check2_contexts"] = str(contexts.shape[0])
    f["check2_numbers"] = str(big_map.size)
    f["check2_square_in"] = str(n_in * n_in)  # mistakes: a square map
    f["check2_square_out"] = str(n_out * n_out)

    # --- The additive score by hand.
    ad = EXAMPLES["additive"]
    W1, W2 = np.asarray(ad["W1"]), np.asarray(ad["W2"])  # [2, 2] each
    v, qa = np.asarray(ad["v"]), np.asarray(ad["q"])  # [2], [2]
    hs = np.asarray(ad["notes"])  # [3 notes, 2]
    scores = additive_scores(qa, hs, W1, W2, v)  # [3]
    inner = hs @ W1.T + W2 @ qa  # [3, 2] = h_j + q here
    hidden = np.tanh(inner)  # [3, 2]
    if not np.allclose(hidden @ v, scores):
        raise AssertionError("the by-hand tanh rows do not add up to the engine's additive scores")
    f["add_v"] = vec(v, plain)
    f["add_q"] = vec(qa, plain)
    for j, (h, s_in, s_tanh) in enumerate(zip(hs, inner, hidden, strict=True), start=1):
        f[f"add_note_{j}"] = vec(h, plain)
        f[f"add_sum_{j}"] = vec(s_in, plain)
        f[f"add_tanh_{j}"] = vec(s_tanh)
    f["add_scores"] = vec(scores)
    f["add_weights"] = vec(softmax(scores))
    f["add_top"] = dec(softmax(scores).max())

    # --- The proof's closing figure: the note of "tea" gets its blame at its own share. With
    # q = (0, 0.5, 2) the first column of (h_j - c) q^T is zero, so entry [0, 0] of the engine's
    # dc/dh_tea is the share alone.
    if q[0] != 0:
        raise AssertionError("the closing figure reads entry [0, 0]; it needs q[0] == 0")
    grad = context_gradient(q, notes, 2)  # [3, 3]
    f["blame_tea"] = dec(grad[0, 0])
    return f
