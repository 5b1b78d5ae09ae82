"""§2 Attention is a soft lookup: the tea stall's menu, looked up softly, and its two limits.

Keys say how hot and how sweet a drink is (hot +1 / cold -1, sweet +1 / not sweet -1); values
are prices in rupees. Every printed number below is computed by mathmachine.engine.lookup.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mathmachine.engine.lookup import hard_lookup, soft_lookup
from mathmachine.printing import dec, percent, plain, rupees, vec

EXAMPLES: dict[str, Any] = {
    "soft_lookup": {
        "axes": ["hot", "sweet"],
        "items": [
            {"name": "chai", "key": [1.0, 1.0], "value": 12.0},
            {"name": "coffee", "key": [1.0, -1.0], "value": 30.0},
            {"name": "lassi", "key": [-1.0, 1.0], "value": 45.0},
            {"name": "nimbu pani", "key": [-1.0, -1.0], "value": 17.0},
        ],
        "query": [1.0, 0.5],  # "hot, and a little sweet"
        "beta": 1.0,
        "beta_max": 10.0,
        "query_max": 2.0,  # the plane runs from -2 to 2 on both axes
        "beta_table": [0.0, 1.0, 2.0, 5.0, 10.0],
        "zero_query": [0.0, 0.0],  # check 1: "anything at all"
        "tie_query": [1.0, 0.0],  # hot, neither sweet nor not: chai and coffee tie
        "tie_beta": 10.0,
        # the trap: a key twice as long, farther from the query, outscores chai
        "long_key": {"name": "scalding black coffee", "key": [3.0, -1.0], "value": 25.0},
    },
}


def figures() -> dict[str, str]:
    """Every number §2 prints."""
    ex = EXAMPLES["soft_lookup"]
    keys = np.array([item["key"] for item in ex["items"]])  # [4, 2]
    values = np.array([item["value"] for item in ex["items"]])  # [4]
    names = [item["name"].replace(" ", "_") for item in ex["items"]]
    q = np.array(ex["query"])  # [2]
    f: dict[str, str] = {}

    for name, item in zip(names, ex["items"], strict=True):
        f[f"sl_key_{name}"] = vec(item["key"], plain)
        f[f"sl_value_{name}"] = rupees(item["value"])
        f[f"sl_price_{name}"] = plain(item["value"])
    f["sl_query"] = vec(q, plain)
    f["sl_query_hot"], f["sl_query_sweet"] = (plain(x) for x in q)

    # --- by hand at beta = 1
    one = soft_lookup(q, keys, values, ex["beta"])
    exps = np.exp(one.beta * one.scores)  # [4] the numerators of softmax
    for name, s, e, w in zip(names, one.scores, exps, one.weights, strict=True):
        f[f"sl_score_{name}"] = plain(s)
        f[f"sl_exp_{name}"] = dec(e)
        f[f"sl_w_{name}"] = dec(w)
    if not np.allclose(one.scores[0] - one.scores, [0, 1, 2, 3]):
        raise AssertionError("the solution of s2-sharpest says the gaps are 1, 2 and 3")
    f["sl_scores"] = vec(one.scores, plain)
    f["sl_total"] = dec(exps.sum())
    f["sl_weights"] = vec(one.weights)
    by_hand = sum(round(float(w), 3) * v for w, v in zip(one.weights, values, strict=True))
    if dec(by_hand, 2) != dec(float(one.output), 2):
        raise AssertionError("the blend of the printed weights must round to the engine's answer")
    f["sl_answer"] = rupees(float(one.output))
    f["sl_beta"] = plain(one.beta)
    f["sl_beta_max"] = plain(ex["beta_max"])

    # --- check 1: the query (0, 0) scores 0 against every key -> equal weights -> the mean
    zero = soft_lookup(ex["zero_query"], keys, values, ex["beta"])
    if not np.allclose(zero.weights, 1.0 / len(values), rtol=0, atol=1e-15):
        raise AssertionError(f"the zero query should weigh every key equally, got {zero.weights}")
    n = len(values)
    f["sl_zero_query"] = vec(ex["zero_query"], plain)
    f["sl_zero_share"] = f"1/{n}"
    f["sl_zero_answer"] = rupees(float(zero.output))
    f["sl_zero_answer_number"] = plain(float(zero.output))
    f["sl_n"] = str(n)
    f["sl_value_sum"] = plain(values.sum())  # mistake: weights of 1 each (the sum of the prices)
    f["sl_values_list"] = ", ".join(rupees(v) for v in values)

    # --- check 2: beta -> infinity is the hard lookup (chai, the best match, not the dearest)
    hard = hard_lookup(q, keys, values)
    if len(hard.best) != 1:
        raise AssertionError("the worked query must have one best key")
    f["sl_best_name"] = ex["items"][hard.best[0]]["name"]
    f["sl_hard_answer"] = rupees(float(hard.output))
    f["sl_hard_answer_number"] = plain(float(hard.output))
    f["sl_dearest_number"] = plain(values.max())
    f["sl_dearest_name"] = ex["items"][int(np.argmax(values))]["name"]
    f["sl_answer_number"] = dec(float(one.output), 2)  # mistake: beta changes nothing

    # --- the table: the weight of chai and the answer as beta grows
    for beta in ex["beta_table"]:
        r = soft_lookup(q, keys, values, beta)
        tag = plain(beta).replace(".", "_")
        f[f"sl_table_beta_{tag}"] = plain(beta)
        f[f"sl_table_w_{tag}"] = dec(r.weights[hard.best[0]])
        f[f"sl_table_answer_{tag}"] = rupees(float(r.output))

    # --- the Try's tie: (1, 0) scores chai and coffee alike; a big beta splits evenly
    tie_hard = hard_lookup(ex["tie_query"], keys, values)
    tie = soft_lookup(ex["tie_query"], keys, values, ex["tie_beta"])
    if len(tie_hard.best) != 2:
        raise AssertionError("the tie query must tie exactly two keys")
    f["sl_tie_query"] = vec(ex["tie_query"], plain)
    f["sl_tie_beta"] = plain(ex["tie_beta"])
    f["sl_tie_w"] = dec(tie.weights[tie_hard.best[0]])
    f["sl_tie_answer"] = rupees(float(tie_hard.output))
    f["sl_tie_soft_answer"] = rupees(float(tie.output))

    # --- weights against values: what each drink adds to the answer (weight times price)
    parts = one.weights * values
    for name, part in zip(names, parts, strict=True):
        f[f"sl_part_{name}"] = rupees(float(part))
    if not np.isclose(parts.sum(), float(one.output)):
        raise AssertionError("the parts must add up to the answer")
    f["sl_above_chai"] = percent(float(one.output) / values[0] - 1, 0)
    if int(np.argmax(one.weights)) != 0 or float(one.output) <= values[0]:
        raise AssertionError("chai has the most weight, and the answer is above its price")

    # --- "close" means a large dot product only because every key has the same length
    lengths = np.linalg.norm(keys, axis=1)
    if not np.allclose(lengths, lengths[0]):
        raise AssertionError("the four keys should have equal length")
    f["sl_key_length"] = "√" + plain(round(float(lengths[0] ** 2), 9))
    long = ex["long_key"]
    lk = np.array(long["key"])
    with_long = soft_lookup(q, np.vstack([keys, lk]), np.append(values, long["value"]), ex["beta"])
    f["sl_long_name"] = long["name"]
    f["sl_long_key"] = vec(lk, plain)
    f["sl_long_length"] = "√" + plain(round(float(lk @ lk), 9))
    f["sl_long_score"] = plain(float(with_long.scores[-1]))
    f["sl_long_dist"] = dec(float(np.linalg.norm(lk - q)), 2)
    f["sl_chai_dist"] = dec(float(np.linalg.norm(keys[0] - q)), 2)
    f["sl_long_w"] = dec(float(with_long.weights[-1]))
    f["sl_long_chai_w"] = dec(float(with_long.weights[0]))
    if not (with_long.scores[-1] > with_long.scores[0]
            and np.linalg.norm(lk - q) > np.linalg.norm(keys[0] - q)):  # fmt: skip
        raise AssertionError("the long key must win while farther away")
    return f
