"""§12 The price: every pair of words. The counts of attention (n² scores per head per layer,
their memory, the multiplications, the KV cache, an RNN's n steps), the two checks (doubling n;
n = 4096, 16 heads, 2-byte numbers), and the online softmax worked by hand on two tiles of one
row of "I always drink tea", ending where the full softmax ends. Every printed number from
mathmachine.engine (cost.py, dot_product.py); the by-hand tiles from the printed numbers before
them (``carried``), checked against the engine's every-digit answer.

§15's problem 16 (the memory of the score matrices, and the factor when n doubles) has its
fresh numbers here too (VARIANTS).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from mathmachine.engine import (
    MB,
    MIB,
    attention,
    attention_multiplications,
    attention_score_bytes,
    attention_score_count,
    kv_cache_bytes,
    kv_cache_count,
    online_softmax_steps,
    rnn_steps,
    score_memory_mib,
    softmax,
    tiled_attention,
)
from mathmachine.printing import compact, count, dec, plain, vec

from .variants import carried, distinct, draw

#: the widget's menus: the lengths (powers of two), the bytes a number may take
LENGTHS = [2**k for k in range(7, 16)]  # 128 ... 32,768 tokens
BYTES = [1, 2, 4, 8]
HEAD_WIDTH = 64  # each head 64 numbers wide, so d_model = 64 h

EXAMPLES: dict[str, Any] = {
    "n2_calculator": {
        "lengths": LENGTHS,
        "bytes": BYTES,
        "head_width": HEAD_WIDTH,
        "heads_max": 32,
        "layers_max": 48,
        # the page starts at the check's numbers, with a model 24 layers deep
        "n": 4096,
        "heads": 16,
        "layers": 24,
        "bytes_per_number": 2,
    },
    # by hand: a text of 1,024 tokens, a model of 12 heads 64 wide, 6 layers, 4-byte numbers
    "by_hand": {"n": 1024, "heads": 12, "layers": 6, "bytes": 4},
    # the checks
    "check_memory": {"n": 4096, "heads": 16, "bytes": 2},
    # the tiles: the row of "drink" in "I always drink tea", one number per word as its value
    "tiles": {
        "words": ["I", "always", "drink", "tea"],
        "scores": [1.0, 2.0, 3.0, 0.0],
        "values": [1.0, 2.0, 6.0, 4.0],
        "tile": 2,
    },
    "window": 256,
    "tile_real": 128,
}


def _tiles(f: dict[str, str]) -> None:
    """The online softmax of one row, two tiles of two words, by hand (every step from the
    numbers printed before it) and by the engine (every digit), beside the full softmax."""
    ex = EXAMPLES["tiles"]
    s = np.array(ex["scores"])
    v = np.array(ex["values"])
    t = int(ex["tile"])
    steps = online_softmax_steps(s, v, t)
    if len(steps) != 2 or steps[1].new_max <= steps[0].new_max:
        raise AssertionError("two tiles, and the second must bring a larger maximum")
    first, second = steps
    f["pr_t_words1"] = " and ".join(f"“{w}”" for w in ex["words"][:t])
    f["pr_t_words2"] = " and ".join(f"“{w}”" for w in ex["words"][t:])
    f["pr_t_scores"] = vec(s, plain)
    f["pr_t_values"] = vec(v, plain)
    f["pr_t_scores1"], f["pr_t_scores2"] = vec(s[:t], plain), vec(s[t:], plain)
    f["pr_t_values1"], f["pr_t_values2"] = vec(v[:t], plain), vec(v[t:], plain)
    m1, m2 = first.new_max, second.new_max
    f["pr_t1_max"], f["pr_t2_max"] = plain(m1), plain(m2)
    # tile 1, by hand
    e1 = carried(first.exps)
    total1 = carried(e1.sum())
    acc1 = carried(e1 @ v[:t])
    sofar1 = carried(acc1 / total1)
    f["pr_t1_e"] = vec(e1)
    for i, x in enumerate(e1):
        f[f"pr_t1_e{i + 1}"] = dec(x)
        f[f"pr_t1_x{i + 1}"] = plain(s[i] - m1)
    f["pr_t1_total"], f["pr_t1_acc"], f["pr_t1_sofar"] = dec(total1), dec(acc1), dec(sofar1)
    # tile 2: rescale what was kept, add the new tile
    r = carried(second.rescale)
    old_total, old_acc = carried(r * total1), carried(r * acc1)
    e2 = carried(second.exps)
    ev2 = carried(e2 * v[t:])
    total2 = carried(old_total + e2.sum())
    acc2 = carried(old_acc + ev2.sum())
    out_tiled = carried(acc2 / total2)
    f["pr_t2_shift"] = plain(m1 - m2)
    f["pr_t2_rescale"] = dec(r)
    f["pr_t2_old_total"], f["pr_t2_old_acc"] = dec(old_total), dec(old_acc)
    for i, (x, ev) in enumerate(zip(e2, ev2, strict=True)):
        f[f"pr_t2_e{i + 1}"] = dec(x)
        f[f"pr_t2_ev{i + 1}"] = dec(ev)
        f[f"pr_t2_x{i + 1}"] = plain(s[t + i] - m2)
    f["pr_t2_total"], f["pr_t2_acc"], f["pr_t_out"] = dec(total2), dec(acc2), dec(out_tiled)
    # the full softmax of the whole row, by hand
    ef = carried(np.exp(s - s.max()))
    evf = carried(ef * v)
    total_f = carried(ef.sum())
    acc_f = carried(evf.sum())
    out_full = carried(acc_f / total_f)
    for i, (x, ev) in enumerate(zip(ef, evf, strict=True)):
        f[f"pr_f_e{i + 1}"] = dec(x)
        f[f"pr_f_ev{i + 1}"] = dec(ev)
        f[f"pr_f_x{i + 1}"] = plain(s[i] - s.max())
    f["pr_f_total"], f["pr_f_acc"], f["pr_f_out"] = dec(total_f), dec(acc_f), dec(out_full)
    f["pr_f_weights"] = vec(softmax(s))
    # every digit: the engine's online softmax and its full softmax agree
    exact_tiled, exact_full = second.so_far, float(softmax(s) @ v)
    if abs(exact_tiled - exact_full) > 1e-12:
        raise AssertionError("the online softmax must end at the full softmax")
    if not (dec(out_tiled) == dec(out_full) == dec(exact_full) and dec(acc2) == dec(acc_f)):
        raise AssertionError("by hand, the two tiles and the full row must print alike")
    if dec(total2) != dec(total_f):
        raise AssertionError("the running total must end at the full total")
    f["pr_t_exact"] = dec(exact_full, 9)
    # the rescale turns e^(s - old max) into e^(s - new max): e^(-1) x e^(-1) = e^(-2)
    f["pr_t_rescaled_first"] = dec(carried(r * e1[0]))
    # and the whole attention, tiled, on random numbers: one tile of scores at a time
    rng = np.random.default_rng(12)
    q, k, vv = (rng.standard_normal((64, 8)) for _ in range(3))
    got = tiled_attention(q, k, vv, tile=16, query_tile=16)
    if np.abs(got.output - attention(q, k, vv)[0]).max() > 1e-12:
        raise AssertionError("tiled attention must equal the full one")


def figures() -> dict[str, str]:
    """Every number §12 prints."""
    f: dict[str, str] = {}
    # "I drink tea": n² scores for one head of one layer
    f["pr_small_n"] = "3"
    f["pr_small_scores"] = str(attention_score_count(3))

    # --- by hand: 1,024 tokens, 12 heads of 64, 6 layers, 4-byte numbers
    bh = EXAMPLES["by_hand"]
    n, h, L, b = bh["n"], bh["heads"], bh["layers"], bh["bytes"]
    d = h * HEAD_WIDTH
    per_head = attention_score_count(n)
    per_layer = attention_score_count(n, h)
    layer_bytes = attention_score_bytes(n, h, b)
    f["pr_bh_n"], f["pr_bh_n_printed"] = str(n), count(n)
    f["pr_bh_h"], f["pr_bh_L"], f["pr_bh_b"] = str(h), str(L), str(b)
    f["pr_bh_d"], f["pr_bh_dk"] = str(d), str(HEAD_WIDTH)
    f["pr_bh_per_head"] = count(per_head)
    f["pr_bh_per_layer"] = count(per_layer)
    f["pr_bh_bytes"] = count(layer_bytes)
    f["pr_bh_mib"] = compact(score_memory_mib(n, h, b))
    f["pr_bh_mb"] = dec(layer_bytes / MB, 1)
    f["pr_bh_all_mib"] = compact(score_memory_mib(n, h, b, L))
    f["pr_bh_all_scores"] = count(attention_score_count(n, h, L))
    f["pr_bh_mults"] = count(attention_multiplications(n, d))
    f["pr_bh_mults_scores"] = count(attention_multiplications(n, d) // 2)
    f["pr_bh_kv"] = count(kv_cache_count(n, d, L))
    f["pr_bh_kv_mib"] = compact(kv_cache_bytes(n, d, L, b) / MIB)
    f["pr_bh_rnn"] = count(rnn_steps(n))
    f["pr_mib"], f["pr_mb"] = count(MIB), count(MB)
    if per_head != n * n or layer_bytes != n * n * h * b:
        raise AssertionError("n² a head, times h, times the bytes")

    # --- check 1: doubling n
    f["pr_double_key"] = str(attention_score_count(2 * n) // attention_score_count(n))
    f["pr_double_twice"] = "2"  # grows like n
    f["pr_double_extra"] = str(
        (attention_score_count(2 * n) - attention_score_count(n)) // attention_score_count(n)
    )  # only the new scores
    f["pr_double_n2"] = count(2 * n)
    f["pr_double_scores"] = count(attention_score_count(2 * n))
    f["pr_double_rnn"] = count(rnn_steps(2 * n))

    # --- check 2: n = 4096, 16 heads, 2-byte numbers: one layer's score matrices
    c2 = EXAMPLES["check_memory"]
    n2, h2, b2 = c2["n"], c2["heads"], c2["bytes"]
    mib2 = score_memory_mib(n2, h2, b2)
    bytes2 = attention_score_bytes(n2, h2, b2)
    f["pr_c2_n"], f["pr_c2_h"], f["pr_c2_b"] = str(n2), str(h2), str(b2)
    f["pr_c2_key"] = compact(mib2)
    f["pr_c2_per_head"] = count(attention_score_count(n2))
    f["pr_c2_per_layer"] = count(attention_score_count(n2, h2))
    f["pr_c2_bytes"] = count(bytes2)
    f["pr_c2_forgot_heads"] = compact(score_memory_mib(n2, 1, b2))
    f["pr_c2_bits"] = compact(score_memory_mib(n2, h2, 8 * b2))  # 16 bits a number
    f["pr_c2_bits_per_number"] = str(8 * b2)
    f["pr_c2_mb"] = dec(bytes2 / MB)
    f["pr_c2_mb_short"] = dec(bytes2 / MB, 1)
    f["pr_c2_no_square"] = compact(n2 * h2 * b2 / MIB)
    if not distinct(
        f["pr_c2_key"], f["pr_c2_forgot_heads"], f["pr_c2_bits"], f["pr_c2_mb"],
        f["pr_c2_no_square"],
    ):  # fmt: skip
        raise AssertionError("the check's slips must print differently from its key")

    # --- the widget's start: the same layer, 24 layers deep; the KV cache beside it
    w = EXAMPLES["n2_calculator"]
    wd = w["heads"] * HEAD_WIDTH
    f["pr_w_L"] = str(w["layers"])
    f["pr_w_n_lo"], f["pr_w_n_hi"] = count(w["lengths"][0]), count(w["lengths"][-1])
    f["pr_w_d"] = str(wd)
    f["pr_w_all_gib"] = compact(
        score_memory_mib(w["n"], w["heads"], w["bytes_per_number"], w["layers"]) / 1024
    )
    f["pr_w_kv_mib"] = compact(kv_cache_bytes(w["n"], wd, w["layers"], w["bytes_per_number"]) / MIB)

    # --- the ways out, at n = 4096
    win = EXAMPLES["window"]
    f["pr_win"] = str(win)
    f["pr_win_scores"] = count(n2 * win)
    f["pr_win_full"] = count(attention_score_count(n2))
    f["pr_win_times"] = str(attention_score_count(n2) // (n2 * win))
    tr = EXAMPLES["tile_real"]
    f["pr_tile"] = str(tr)
    f["pr_tile_held"] = count(tr * tr)
    f["pr_tile_times"] = count(attention_score_count(n2) // (tr * tr))

    _tiles(f)
    return f


# --------------------------------------------------------------------------------------------
# §15, the practice arena: problem 16, the memory of the score matrices (VARIANTS)

THOUSANDS = (1, 2, 3, 4, 6, 8)  # n = 1,024 k: n² is k² MiB-worth of scores
PROBLEM_HEADS = (4, 6, 8, 12, 16, 20, 24, 32)
PROBLEM_LAYERS = (2, 3, 4, 6, 8, 12, 16, 24)


def score_memory(seed: int) -> dict[str, str]:
    """Problem 16: n tokens (a multiple of 1,024), h heads, L layers, b bytes a number: the
    memory of every score matrix at once, in MiB, and how many times it grows when n doubles.

    n = 1,024 k makes n² = k² MiB-worth of one-byte scores (1,024² = 1,048,576 = 1 MiB), so the
    answer k² h L b is a whole number a learner can reach by hand."""

    def make(rng: np.random.Generator) -> dict[str, str] | None:
        k = int(rng.choice(THOUSANDS))
        h = int(rng.choice(PROBLEM_HEADS))
        L = int(rng.choice(PROBLEM_LAYERS))
        b = int(rng.choice((2, 4)))
        n = 1024 * k
        if h == L:
            return None  # forgetting the heads or the layers would print alike
        total = attention_score_bytes(n, h, b, L)
        mib = score_memory_mib(n, h, b, L)
        if mib != k * k * h * L * b:
            raise AssertionError("n = 1,024 k: k² h L b MiB")
        factor = attention_score_count(2 * n, h, L) // attention_score_count(n, h, L)
        slips = {
            "forgot_heads": compact(score_memory_mib(n, 1, b, L)),
            "forgot_layers": compact(score_memory_mib(n, h, b)),
            "bits": compact(score_memory_mib(n, h, 8 * b, L)),
            "mb": dec(total / MB, 1),
        }
        key = compact(mib)
        if not distinct(key, *slips.values()):
            return None
        if len(key) > 6:
            return None  # keep it to a size one works by hand
        if int(mib) in (n, h, L, b, 8 * b, k, k * k):
            return None  # the hints and the mistakes print these: none may be the key
        per_head = attention_score_count(n)
        return {
            "n": str(n),
            "n_printed": count(n),
            "k": str(k),
            "k2": str(k * k),
            "h": str(h),
            "L": str(L),
            "b": str(b),
            "bits_per_number": str(8 * b),
            "per_head": count(per_head),
            "per_layer": count(attention_score_count(n, h)),
            "all_scores": count(attention_score_count(n, h, L)),
            "bytes": count(total),
            "mib_bytes": count(MIB),
            "mib": key,
            "factor": str(factor),
            "factor_linear": "2",
            "mib_printed": count(int(mib)),
            "doubled_printed": count(int(4 * mib)),
            **slips,
        }

    return draw(seed, make)


VARIANTS: dict[str, Callable[[int], dict[str, str]]] = {"score_memory": score_memory}

__all__ = ["EXAMPLES", "VARIANTS", "figures"]
