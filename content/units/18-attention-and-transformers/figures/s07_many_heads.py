"""§7 Many heads: two hand-built heads on "I always drink tea", one asking for the word before,
one asking for the verb's subject; their maps, the concatenation and W_O; the sizes and weight
counts of a real layer (d_model 512, h 8). Every printed number from mathmachine.engine.heads
and mathmachine.engine.dot_product.

The words' vectors have d_model = 8 numbers: a mark for the word's role (doer, action, thing,
manner) and a mark for its place (1 to 4). Head 1 asks with its place moved back by one and is
answered by the keys' places; head 2 asks with the verb's "action" mark and is answered only by
the doer. Both pass on the words' roles as values. W_O = [[I, I], [I, -I]]: its first four
outputs add the two heads' answers, its last four take their difference (so nothing is lost).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from mathmachine.engine import attention_weight_count, head_dim
from mathmachine.engine.dot_product import attention_score_count
from mathmachine.engine.heads import multi_head_cost, multi_head_steps
from mathmachine.printing import MINUS, count, dec, plain, pmatrix, vec

from .variants import distinct, draw

WORDS = ["I", "always", "drink", "tea"]
ROLES = ["doer", "action", "thing", "manner"]
ROLE_OF = {"I": "doer", "always": "manner", "drink": "action", "tea": "thing"}
SHARP = 6.0  # the size of each head's query: 6 / sqrt(4) = 3 after the scaling


def _toy() -> dict[str, Any]:
    n, n_roles = len(WORDS), len(ROLES)
    d_model, h = 2 * n_roles, 2
    d_k = head_dim(d_model, h)
    x = np.zeros((n, d_model))  # [4, 8]: role mark | place mark
    for i, word in enumerate(WORDS):
        x[i, ROLES.index(ROLE_OF[word])] = 1.0
        x[i, n_roles + i] = 1.0
    # head 1, "the word before me": place p asks with SHARP x (the mark of place p - 1)
    wq1 = np.zeros((d_model, d_k))
    for p in range(1, n):
        wq1[n_roles + p, p - 1] = SHARP
    wk1 = np.zeros((d_model, d_k))
    wk1[n_roles:, :] = np.eye(n)  # a key is the word's place mark
    # head 2, "who does this?": the action mark asks, the doer mark answers
    wq2 = np.zeros((d_model, d_k))
    wq2[ROLES.index("action"), 0] = SHARP
    wk2 = np.zeros((d_model, d_k))
    wk2[ROLES.index("doer"), 0] = 1.0
    wv = np.zeros((d_model, d_k))
    wv[:n_roles, :] = np.eye(n_roles)  # both heads pass on the word's role
    eye = np.eye(d_k)
    wo = np.block([[eye, eye], [eye, -eye]])  # [8, 8]
    return {
        "words": WORDS,
        "roles": ROLES,
        "features": [*ROLES, *(f"place {p + 1}" for p in range(n))],
        "X": x.tolist(),
        "heads": [
            {
                "name": "head 1",
                "question": "which word comes just before me?",
                "W_Q": wq1.tolist(),
                "W_K": wk1.tolist(),
                "W_V": wv.tolist(),
            },
            {
                "name": "head 2",
                "question": "who does the action?",
                "W_Q": wq2.tolist(),
                "W_K": wk2.tolist(),
                "W_V": wv.tolist(),
            },
        ],
        "W_O": wo.tolist(),
        "word_default": WORDS.index("drink"),
    }


EXAMPLES: dict[str, Any] = {
    "two_heads": _toy(),
    # checks: the layer of the original transformer (Vaswani et al. 2017), and a sentence
    "real_layer": {"d_model": 512, "heads": 8, "n": 10},
    # the paper's big model
    "big_layer": {"d_model": 1024, "heads": 16},
    # the lab's model, all-MiniLM-L6-v2: hidden size 384, 12 heads
    "minilm": {"d_model": 384, "heads": 12},
}


def steps(ex: dict[str, Any] | None = None) -> Any:
    """The engine's walk through the toy layer."""
    ex = EXAMPLES["two_heads"] if ex is None else ex
    heads = [(hd["W_Q"], hd["W_K"], hd["W_V"]) for hd in ex["heads"]]
    return multi_head_steps(ex["X"], heads, ex["W_O"])


def figures() -> dict[str, str]:
    """Every number §7 prints."""
    ex = EXAMPLES["two_heads"]
    st = steps(ex)
    f: dict[str, str] = {}
    x = np.asarray(ex["X"])
    n, d_model = x.shape
    h = len(ex["heads"])
    d_k = head_dim(d_model, h)
    f["mh_n"], f["mh_d"], f["mh_h"], f["mh_dk"] = str(n), str(d_model), str(h), str(d_k)
    f["mh_sqrt_dk"] = plain(math.sqrt(d_k))
    f["mh_sharp"] = plain(SHARP)
    f["mh_sharp_scaled"] = plain(SHARP / math.sqrt(d_k))
    f["mh_X"] = pmatrix(x, plain)
    f["mh_concat_shape"] = f"{st.concat.shape[0]} × {st.concat.shape[1]}"
    f["mh_out_shape"] = f"{st.output.shape[0]} × {st.output.shape[1]}"
    f["mh_head_shape"] = f"{st.heads[0].output.shape[0]} × {st.heads[0].output.shape[1]}"
    f["mh_wq_shape"] = f"{d_model} × {d_k}"
    f["mh_wo_shape"] = f"{d_model} × {d_model}"
    for name, i in (("I", 0), ("always", 1), ("drink", 2), ("tea", 3)):
        f[f"mh_x_{name}"] = vec(x[i], plain)
    # the heads' matrices, printed so that every product can be checked by hand
    for k, hd in enumerate(ex["heads"], start=1):
        for m in ("W_Q", "W_K", "W_V"):
            f[f"mh_{m.replace('_', '').lower()}{k}"] = pmatrix(hd[m], plain)
    f["mh_WO"] = pmatrix(ex["W_O"], plain)
    # every shape of the layer (d_v, the width of a head's values, is d_k here)
    d_v = st.heads[0].output.shape[1]
    f["mh_dv"] = str(d_v)
    f["mh_shape_X"] = f"{n} × {d_model}"
    f["mh_shape_W"] = f"{d_model} × {d_k}"
    f["mh_shape_WV"] = f"{d_model} × {d_v}"
    f["mh_shape_QK"] = f"{n} × {d_k}"
    f["mh_shape_V"] = f"{n} × {d_v}"
    f["mh_shape_A"] = f"{n} × {n}"
    f["mh_shape_head"] = f"{st.heads[0].output.shape[0]} × {st.heads[0].output.shape[1]}"
    f["mh_shape_WO"] = f"{h * d_v} × {d_model}"
    f["mh_shape_wide"] = f"{d_model} × {d_model}"
    if st.heads[0].q.shape != (n, d_k) or st.heads[0].output.shape != (n, d_v):
        raise AssertionError("a head's Q is n x d_k and its output n x d_v")
    # every head's map, and the row of every word
    for k, head in enumerate(st.heads, start=1):
        f[f"mh_A{k}"] = pmatrix(head.weights, dec)
        f[f"mh_Q{k}"] = pmatrix(head.q, plain)
        f[f"mh_K{k}"] = pmatrix(head.k, plain)
        for i, word in enumerate(WORDS):
            f[f"mh_q{k}_{word}"] = vec(head.q[i], plain)
            f[f"mh_k{k}_{word}"] = vec(head.k[i], plain)
            f[f"mh_s{k}_{word}"] = vec(head.scores[i], plain)
            f[f"mh_ss{k}_{word}"] = vec(head.scale * head.scores[i], plain)
            f[f"mh_w{k}_{word}"] = vec(head.weights[i])
            f[f"mh_o{k}_{word}"] = vec(head.output[i])
    # the row of "drink", step by step
    i = WORDS.index("drink")
    w1, w2 = st.heads[0].weights[i], st.heads[1].weights[i]
    top1, top2 = int(np.argmax(w1)), int(np.argmax(w2))
    if (WORDS[top1], WORDS[top2]) != ("always", "I"):
        raise AssertionError("head 1 should find 'always', head 2 'I', for 'drink'")
    f["mh_top"] = dec(w1[top1])
    f["mh_rest"] = dec(w1[(top1 + 1) % n])
    e = math.exp(SHARP / math.sqrt(d_k))
    f["mh_e_top"] = dec(e, 2)
    f["mh_e_total"] = dec(e + (n - 1), 2)
    f["mh_even"] = dec(st.heads[0].weights[0, 0], 2)  # "I" in head 1: no word before it
    if not np.allclose(st.heads[0].weights[0], 1.0 / n):
        raise AssertionError("'I' has no word before it: head 1 spreads it evenly")
    f["mh_even_frac"] = f"1/{n}"
    f["mh_concat_drink"] = vec(st.concat[i])
    f["mh_out_drink"] = vec(st.output[i])
    f["mh_out_drink_sum"] = vec(st.output[i, :d_k])
    f["mh_out_drink_diff"] = vec(st.output[i, d_k:])
    f["mh_part1_drink"] = vec(st.head_part(0)[i])
    f["mh_part2_drink"] = vec(st.head_part(1)[i])
    if not np.allclose(st.head_part(0) + st.head_part(1), st.output):
        raise AssertionError("the heads' shares must add up to the output")
    f["mh_concat_rows"], f["mh_concat_cols"] = (str(s) for s in st.concat.shape)
    # one wide head of the toy's size would average "always" and "I" into one blur
    f["mh_blend_half"] = dec(0.5, 1)

    # --- the toy's weight count, head by head, and one wide head
    toy = multi_head_cost(n, d_model, h)
    per_head = 3 * d_model * d_k
    f["mh_toy_per_head"] = str(per_head)
    f["mh_toy_heads"] = str(h * per_head)
    f["mh_toy_wo"] = str(d_model * d_model)
    f["mh_toy_weights"] = str(toy["weights"])
    f["mh_toy_wide"] = str(multi_head_cost(n, d_model, 1)["weights"])
    if toy["weights"] != attention_weight_count(d_model):
        raise AssertionError("the toy's count must be 4 d^2")

    # --- checks: the real layer
    real = EXAMPLES["real_layer"]
    D, H, N = real["d_model"], real["heads"], real["n"]
    dk = head_dim(D, H)
    f["mh_real_d"], f["mh_real_h"], f["mh_real_n"] = str(D), str(H), str(N)
    f["mh_real_dk"] = str(dk)
    f["mh_real_dk_mistake_times"] = str(D * H)  # multiplied instead of divided
    f["mh_real_weights"] = str(attention_weight_count(D))
    f["mh_real_weights_printed"] = count(attention_weight_count(D))
    f["mh_real_forgot_wo"] = str(3 * D * D)
    f["mh_real_biases"] = str(attention_weight_count(D, bias=True))
    f["mh_real_bias_count"] = str(4 * D)
    f["mh_real_twice"] = str(H * 3 * dk * dk + D * D)  # each head's matrices d_k x d_k
    f["mh_real_full_width"] = str(H * 3 * D * D + D * D)  # every head d x d
    f["mh_real_per_head"] = count(3 * D * dk)
    f["mh_real_heads_total"] = count(H * 3 * D * dk)
    f["mh_real_wo"] = count(D * D)
    f["mh_real_d2"] = count(D * D)
    cost8, cost1 = multi_head_cost(N, D, H), multi_head_cost(N, D, 1)
    if cost8 != cost1:
        raise AssertionError("eight heads must cost what one wide head costs")
    f["mh_real_mults"] = count(cost8["multiplications"])
    # what does grow with h: every head makes its own n x n map
    f["mh_real_maps"] = count(attention_score_count(N, H, 1))
    f["mh_real_map_one"] = count(attention_score_count(N, 1, 1))
    f["mh_real_scores"] = count(cost8["scores"])
    f["mh_real_per_head_scores"] = count(cost8["scores"] // H)
    f["mh_real_concat_rows"], f["mh_real_concat_cols"] = str(N), str(D)
    f["mh_real_stacked_rows"] = str(N * H)
    f["mh_real_nn"] = str(N)
    f["mh_many_heads"] = str(D)
    f["mh_one_wide"] = str(head_dim(D, D))

    big = EXAMPLES["big_layer"]
    f["mh_big_d"], f["mh_big_h"] = str(big["d_model"]), str(big["heads"])
    f["mh_big_dk"] = str(head_dim(big["d_model"], big["heads"]))

    mini = EXAMPLES["minilm"]
    f["mh_mini_d"], f["mh_mini_h"] = str(mini["d_model"]), str(mini["heads"])
    f["mh_mini_dk"] = str(head_dim(mini["d_model"], mini["heads"]))
    return f


# --------------------------------------------------------------------------------------------
# §15, the practice arena: multi-head shapes and weight counts, with fresh numbers (VARIANTS)

WIDTHS = tuple(64 * k for k in range(2, 41))  # d_model 128 ... 2560
HEADS = (2, 4, 6, 8, 10, 12, 16, 20, 24, 32, 40)


def _layer(rng: np.random.Generator) -> tuple[int, int, int] | None:
    d = int(rng.choice(WIDTHS))
    h = int(rng.choice(HEADS))
    if d % h or d // h < 16 or d // h == h:
        return None  # h must divide d_model; a head narrower than 16 is not a real model; and
        # d_k = h would not show which number is which
    return d, h, head_dim(d, h)


def head_shapes(seed: int) -> dict[str, str]:
    """Problem: d_model, h and n: d_k, and the shape of the concatenation of the heads."""

    def make(rng: np.random.Generator) -> dict[str, str] | None:
        layer = _layer(rng)
        if layer is None:
            return None
        d, h, dk = layer
        n = int(rng.integers(5, 41))
        if n in (h, dk, d) or n * h in (d, dk):
            return None  # a slip would print like the key
        if str(dk) in str(d) or str(dk) in str(h):
            return None  # the feedback prints d and h: d_k must not hide inside them (640, 40)
        st_cols = d  # the concatenation: h heads of width d_k side by side
        if st_cols != h * dk:
            raise AssertionError("h heads of width d_k make d_model columns")
        return {
            "d": str(d),
            "h": str(h),
            "n": str(n),
            "dk": str(dk),
            "rows": str(n),
            "cols": str(st_cols),
            "times": str(d * h),  # multiplied instead of divided
            "stacked_rows": str(n * h),  # heads stacked on top of each other
            "one_head": str(dk),
        }

    return draw(seed, make)


def layer_weights(seed: int) -> dict[str, str]:
    """Problem: d_model and h: the weights of one head's three matrices, of the layer without
    biases, and with biases."""

    def make(rng: np.random.Generator) -> dict[str, str] | None:
        layer = _layer(rng)
        if layer is None:
            return None
        d, h, dk = layer
        cost = multi_head_cost(1, d, h)
        per_head = 3 * d * dk
        total = cost["weights"]
        biased = attention_weight_count(d, bias=True)
        if total != attention_weight_count(d) or per_head * h + d * d != total:
            raise AssertionError("the counts must agree")
        slips = {
            "twice": 3 * dk * dk,  # each matrix d_k x d_k
            "forgot_wo": 3 * d * d,
            "full_width": h * 3 * d * d + d * d,
            "one_bias": total + d,  # counted one bias vector, not four
        }
        printed = [str(per_head), str(total), str(biased), *(str(v) for v in slips.values())]
        if not distinct(*printed):
            return None
        f = {
            "d": str(d),
            "h": str(h),
            "dk": str(dk),
            "per_head": str(per_head),
            "total": str(total),
            "biased": str(biased),
            "d2": str(d * d),
            "heads_total": str(h * per_head),
            "bias_count": str(4 * d),
        }
        f.update({k: str(v) for k, v in slips.items()})
        return f

    return draw(seed, make)


VARIANTS: dict[str, Callable[[int], dict[str, str]]] = {
    "head_shapes": head_shapes,
    "layer_weights": layer_weights,
}

__all__ = ["EXAMPLES", "MINUS", "VARIANTS", "figures", "steps"]
