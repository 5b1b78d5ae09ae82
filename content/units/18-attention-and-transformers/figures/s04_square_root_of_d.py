"""§4 Why we divide by the square root of d: Var(q . k) = d, counted by hand with random signs,
measured on the widget's draws, and the saturated softmax whose slope vanishes. Every printed
number from mathmachine.engine.scaling."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from mathmachine.engine.scaling import (
    dot_product_samples,
    dot_product_variance,
    normal_stream,
    sign_sum_distribution,
    slope_size,
    softmax_slope,
)
from mathmachine.engine.shares import softmax
from mathmachine.printing import count, dec, percent, plain, pmatrix, vec

from .s03_self_attention import EXAMPLES as S3_EXAMPLES
from .variants import draw

EXAMPLES: dict[str, Any] = {
    # Widget 4: q . k for `samples` random pairs, drawn by mulberry32 + Box-Muller from `seed`
    # (the widget's JavaScript redraws the same way), at every width in `dims`.
    "dot_growth": {
        "seed": 18,
        "samples": 1000,
        "dims": [2**k for k in range(11)],  # 1, 2, 4, ..., 1024
        "d_default": 64,
        "raw": {"lo": -48.0, "hi": 48.0, "bins": 24},
        "scaled": {"lo": -4.0, "hi": 4.0, "bins": 24},
    },
    # the by-hand case: every entry a random sign, +1 or -1
    "signs": {"small": 1, "d": 4},
    # the two checks
    "scaling_check": {"d": 64},
    # Widget 5: the row of scores of "tea" from §3, spread by a factor
    "saturation": {
        "words": S3_EXAMPLES["self_attention"]["words"],
        "scale_default": 1.0,
        "scale_max": 16.0,
        "scale_step": 0.1,
        "scale_big": 8.0,  # = sqrt(64): the spread d = 64 gives without the division
    },
}


def _saturation_row() -> np.ndarray:
    """The §3 scores of "tea" (its query against every key), recomputed by the engine."""
    from mathmachine.engine.self_attention import self_attention_steps

    sa = S3_EXAMPLES["self_attention"]
    st = self_attention_steps(sa["X"], sa["W_Q"], sa["W_K"], sa["W_V"])
    return st.scores[sa["words"].index("tea")]


EXAMPLES["saturation"]["scores"] = _saturation_row().tolist()


#: "Usually one key wins": rows of this many keys, a winner takes more than TOP_CUT of the row.
TOP_KEYS, TOP_CUT, TOP_ROWS, TOP_SEED = 10, 0.9, 4000, 41


def top_weight_share(d: int, *, scaled: bool = False) -> float:
    """The share of TOP_ROWS rows (a random query against TOP_KEYS random keys, entries standard
    normal from the engine's normal_stream, length d) whose largest softmax weight is above
    TOP_CUT, with the scores as they are or divided by sqrt(d)."""
    z = normal_stream(TOP_SEED, TOP_ROWS * (TOP_KEYS + 1) * d).reshape(TOP_ROWS, TOP_KEYS + 1, d)
    q, k = z[:, 0, :], z[:, 1:, :]
    scores = np.einsum("rd,rkd->rk", q, k)
    if scaled:
        scores = scores / math.sqrt(d)
    return float((softmax(scores, axis=-1).max(axis=-1) > TOP_CUT).mean())


def figures() -> dict[str, str]:
    """Every number §4 prints."""
    f: dict[str, str] = {}

    # --- by hand: random signs. d = 1: q1 k1 is +1 or -1, its square always 1.
    sg = EXAMPLES["signs"]
    d_small, d = sg["small"], sg["d"]
    v1, p1 = sign_sum_distribution(d_small)
    f["sq_sign_small_d"] = str(d_small)
    f["sq_sign_small_var"] = plain(float(p1 @ v1.astype(float) ** 2))
    values, probs = sign_sum_distribution(d)
    patterns = 2**d
    counts = [round(float(p) * patterns) for p in probs]
    f["sq_sign_d"] = str(d)
    f["sq_sign_patterns"] = str(patterns)
    f["sq_sign_values"] = ", ".join(plain(v) for v in values)
    f["sq_sign_counts"] = ", ".join(str(c) for c in counts)
    f["sq_sign_chances"] = ", ".join(str(Fraction(c, patterns)) for c in counts)
    squares = [int(v) ** 2 for v in values]
    f["sq_sign_sum_line"] = " + ".join(f"{c}·{s}" for c, s in zip(counts, squares, strict=True))
    total = sum(c * s for c, s in zip(counts, squares, strict=True))
    f["sq_sign_sum_total"] = str(total)
    var4 = float(probs @ values.astype(float) ** 2)
    if var4 != total / patterns or var4 != dot_product_variance(d):
        raise AssertionError("the counted variance of the sign sum must equal d")
    f["sq_sign_var"] = plain(var4)
    f["sq_sign_std"] = plain(math.sqrt(var4))
    f["sq_sign_often"] = str(Fraction(counts[len(counts) // 2], patterns))

    # --- checks: d = 64
    dc = EXAMPLES["scaling_check"]["d"]
    var = dot_product_variance(dc)
    std = math.sqrt(var)
    f["sq_d"] = str(dc)
    f["sq_var"] = plain(var)
    f["sq_std"] = plain(std)
    f["sq_sqrt_d"] = plain(math.sqrt(dc))
    scaled_var = dot_product_variance(dc) / math.sqrt(dc) ** 2
    f["sq_scaled_var"] = plain(scaled_var)
    f["sq_scaled_std"] = plain(math.sqrt(scaled_var))
    # mistakes, computed the way the mistake goes
    f["sq_mistake_std_as_var"] = plain(math.sqrt(dc))  # took sqrt(d) for the variance
    f["sq_mistake_std_as_var_std"] = dec(math.sqrt(math.sqrt(dc)))
    f["sq_mistake_d2"] = plain(float(dc) ** 2)  # d squared
    f["sq_mistake_div_once"] = plain(var / math.sqrt(dc))  # divided the variance by sqrt(d)
    f["sq_mistake_div_once_std"] = dec(math.sqrt(var / math.sqrt(dc)))

    # --- how often one key takes almost everything: rows of TOP_KEYS random keys against a
    # random query, both of length d (normal entries), unscaled scores, softmax
    top = top_weight_share(dc)
    f["sq_top_keys"] = str(TOP_KEYS)
    f["sq_top_cut"] = dec(TOP_CUT, 1)
    f["sq_top_rows"] = count(TOP_ROWS)
    f["sq_top_share"] = percent(top, 0)
    f["sq_top_in_10"] = str(round(10 * top))
    f["sq_top_scaled_share"] = percent(top_weight_share(dc, scaled=True), 0)

    # --- widget 4's draws with the default seed
    dg = EXAMPLES["dot_growth"]
    draws = dot_product_samples(dg["seed"], dg["samples"], tuple(dg["dims"]))
    raw_var, scaled_var_m = draws.variances(), draws.variances(scaled=True)
    f["sq_samples"] = count(dg["samples"])
    f["sq_d_max"] = str(max(dg["dims"]))
    f["sq_d_max_std"] = plain(math.sqrt(max(dg["dims"])))
    row = dg["dims"].index(dc)
    f["sq_measured_var"] = dec(raw_var[row], 1)
    f["sq_measured_off"] = percent(abs(float(dec(raw_var[row], 1)) - var) / var, 0)
    f["sq_measured_scaled_var"] = dec(scaled_var_m[row], 2)
    top = len(dg["dims"]) - 1
    f["sq_measured_var_max"] = dec(raw_var[top], 0)
    f["sq_measured_scaled_var_max"] = dec(scaled_var_m[top], 2)
    f["sq_raw_hi"] = plain(dg["raw"]["hi"])

    # --- widget 5 and the saturation by hand: the row of "tea", spread by 1 and by 8
    sat = EXAMPLES["saturation"]
    s = np.asarray(sat["scores"])  # [3]
    big = sat["scale_big"]
    if big != math.sqrt(dc):
        raise AssertionError("the big spread is meant to be sqrt(64)")
    f["sq_sat_scores"] = vec(s, plain)
    f["sq_sat_big"] = plain(big)
    f["sq_sat_big_scores"] = vec(big * s, plain)
    f["sq_sat_max"] = plain(sat["scale_max"])
    w1, wb = softmax(s), softmax(big * s)
    f["sq_sat_weights"] = vec(w1)
    f["sq_sat_big_weights"] = vec(wb)
    top_i = int(np.argmax(s))
    f["sq_sat_top_word"] = sat["words"][top_i]
    f["sq_sat_top_w"] = dec(w1[top_i])
    f["sq_sat_big_top_w"] = dec(wb[top_i], 4)
    size1, sizeb = slope_size(s), slope_size(big * s)
    if not math.isclose(size1, float(w1[top_i] * (1 - w1[top_i])), rel_tol=1e-12):
        raise AssertionError("at spread 1 the largest slope entry should be the top weight's")
    f["sq_sat_slope"] = dec(size1)
    f["sq_sat_big_slope"] = dec(sizeb, 4)
    f["sq_sat_ratio"] = str(int(round(size1 / sizeb, -1)))
    f["sq_sat_J"] = pmatrix(softmax_slope(s), dec)
    f["sq_sat_zero_slope"] = dec(slope_size(0.0 * s))  # scale 0: equal weights
    f["sq_sat_n"] = str(s.size)
    return f


# --------------------------------------------------------------------------------------------
# §15, the practice arena: the √d scaling, with fresh numbers (VARIANTS)

# Widths that are perfect squares (so √d is a whole number) and variances that are squares (so
# the scaled standard deviation, the square root of their product, is a short number).
WIDTHS = tuple(k * k for k in range(4, 21))  # 16, 25, ..., 400
QUERY_VARIANCES = (0.25, 1.0, 4.0, 9.0, 16.0)
KEY_VARIANCES = (0.25, 1.0, 4.0, 9.0)


def scaled_spread(seed: int) -> dict[str, str]:
    """Problem: d, and the variances of the entries of q and of k: the variance of q·k, and the
    standard deviation of q·k / √d (which √d brings back to that of one piece, not to 1)."""

    def make(rng: np.random.Generator) -> dict[str, str] | None:
        d = int(rng.choice(WIDTHS))
        vq, vk = float(rng.choice(QUERY_VARIANCES)), float(rng.choice(KEY_VARIANCES))
        piece = dot_product_variance(1, vq, vk)  # the variance of one product q_i k_i
        var = dot_product_variance(d, vq, vk)
        scaled_std = math.sqrt(var / math.sqrt(d) ** 2)
        if piece == 1.0:
            return None  # then "scaling always gives 1" would be right: no lesson in it
        ignored, added = float(d), d * (vq + vk)  # Var = d as if both were 1; added variances
        if len({var, ignored, added}) < 3 or scaled_std == piece:
            return None  # a slip that would print the key
        if scaled_std in (math.sqrt(d), float(d)):
            return None  # the answer would look like a number of the statement
        return {
            "d": str(d),
            "sqrt_d": plain(math.sqrt(d)),
            "vq": plain(vq),
            "vk": plain(vk),
            "piece": plain(piece),
            "var": plain(var),
            "scaled_std": plain(scaled_std),
            "ignored": plain(ignored),
            "added": plain(added),
        }

    return draw(seed, make)


VARIANTS = {"scaled_spread": scaled_spread}
