"""§8 Where is each word: the shuffle test on §3's "I drink tea" and on "dog bites man", the
sinusoidal encoding at d = 4 by hand and at d = 16 for the clock, its dot products and its
shift as a rotation, rotary position in one plane, and the arena's two position problems. Every
printed number from mathmachine.engine.order and mathmachine.engine.positions."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from mathmachine.engine import sinusoidal_positions
from mathmachine.engine.order import (
    pe_dot,
    pe_dot_terms,
    pe_frequencies,
    pe_shift_matrix,
    rotary_pair,
    shuffle_test,
)
from mathmachine.printing import count, dec, plain, pmatrix, vec

from .s03_self_attention import EXAMPLES as S3_EXAMPLES
from .variants import carried, distinct, draw, kept

S3 = S3_EXAMPLES["self_attention"]

EXAMPLES: dict[str, Any] = {
    # widget 9: "dog bites man" with §3's three matrices; every order of the three words
    "shuffle": {
        "words": ["dog", "bites", "man"],
        "X": [[2.0, 0.0], [0.0, 1.0], [1.0, 2.0]],
        "W_Q": S3["W_Q"],
        "W_K": S3["W_K"],
        "W_V": S3["W_V"],
        "default_order": [2, 1, 0],  # "man bites dog"
    },
    # widget 10: the encoding of 32 positions at width 16, gaps up to 20
    "clock": {"d": 16, "positions": 32, "max_gap": 20, "pos": 3, "dim": 0, "gap": 2},
    # widget 11: one query and one key in a plane, turned 30 degrees a position
    "dial": {
        "q": [2.0, 0.0],
        "k": [1.0, 2.0],
        "theta_degrees": 30,
        "positions": 12,
        "m": 1,
        "n": 3,
    },
}

ORDER_HAND = [2, 0, 1]  # §3's sentence shuffled: "tea I drink"
D_HAND = 4  # the encoding worked by hand
BASE = 10000.0


def _sentence(words: list[str], order: list[int]) -> str:
    return " ".join(words[i] for i in order)


def figures() -> dict[str, str]:
    """Every number §8 prints."""
    f: dict[str, str] = {}
    words = S3["words"]

    # --- the shuffle test by hand: §3's sentence, unscaled as §3 computed it
    t = shuffle_test(S3["X"], S3["W_Q"], S3["W_K"], S3["W_V"], ORDER_HAND, scaled=False)
    if t.gap > 1e-12:
        raise AssertionError("without positions a shuffle only reorders the outputs")
    shuffled = [words[i] for i in ORDER_HAND]
    f["pos_hand_sentence"] = " ".join(shuffled)
    f["pos_hand_X"] = pmatrix(t.shuffled.x)
    f["pos_hand_S"] = pmatrix(t.original.scores)
    f["pos_hand_S_shuffled"] = pmatrix(t.shuffled.scores)
    f["pos_hand_out_shuffled"] = pmatrix(t.shuffled.output, dec)
    for i, w in enumerate(words):
        f[f"pos_hand_out_{w}"] = vec(t.original.output[i])
    for place, w in enumerate(shuffled):
        f[f"pos_hand_place_{w}"] = str(place + 1)
    # in the shuffled sentence, row 1 (tea) asks the words in the order tea, I, drink
    tea = words.index("tea")
    f["pos_hand_scores_tea"] = vec(t.original.scores[tea], plain)
    f["pos_hand_scores_tea_shuffled"] = vec(t.shuffled.scores[0], plain)

    # --- widget 9: dog bites man
    ex = EXAMPLES["shuffle"]
    dwords = ex["words"]
    pe3 = sinusoidal_positions(len(dwords), 2)
    plain_t = shuffle_test(ex["X"], ex["W_Q"], ex["W_K"], ex["W_V"], ex["default_order"])
    pos_t = shuffle_test(ex["X"], ex["W_Q"], ex["W_K"], ex["W_V"], ex["default_order"],
                         positions=pe3)  # fmt: skip
    if not all(plain_t.same_outputs()) or any(pos_t.same_outputs()):
        raise AssertionError("the shuffle test should pass without positions and fail with")
    f["pos_dog_sentence"] = _sentence(dwords, ex["default_order"])
    for i, w in enumerate(dwords):
        f[f"pos_dog_out_{w}"] = vec(plain_t.original.output[i])
        f[f"pos_dog_pe_out_{w}"] = vec(pos_t.original.output[i])
    for place, i in enumerate(ex["default_order"]):
        f[f"pos_dog_pe_out_shuffled_{dwords[i]}"] = vec(pos_t.shuffled.output[place])
    f["pos_dog_orders"] = str(math.factorial(len(dwords)))

    # --- the sinusoidal encoding by hand, d = 4
    w4 = pe_frequencies(D_HAND)
    pe4 = sinusoidal_positions(4, D_HAND)
    f["pos_d"] = str(D_HAND)
    f["pos_w"] = vec(w4, plain)
    f["pos_w1"] = plain(float(w4[1]))
    for p in range(4):
        f[f"pos_pe{p}"] = vec(pe4[p])
    f["pos_pe_table"] = pmatrix(pe4, dec)
    # check s8-first: PE(1, 0) = sin 1
    f["pos_check_sin1"] = dec(math.sin(1.0))
    f["pos_check_cos1"] = dec(math.cos(1.0))  # sin and cos swapped
    f["pos_check_degrees"] = dec(math.sin(math.radians(1.0)))  # the calculator in degrees
    if f["pos_check_sin1"] != dec(pe4[1, 0]):
        raise AssertionError("PE(1, 0) is sin 1")
    f["pos_sin2"], f["pos_cos2"] = dec(math.sin(2.0)), dec(math.cos(2.0))
    # dot products: the same for every p at one gap, a sum of cosines
    d01, d12 = float(pe4[0] @ pe4[1]), float(pe4[1] @ pe4[2])
    terms1 = pe_dot_terms(1, D_HAND)
    if not (abs(d01 - d12) < 1e-12 and abs(d01 - terms1.sum()) < 1e-12):
        raise AssertionError("PE(p) . PE(p+1) depends on the gap only")
    f["pos_dot_gap1"] = dec(d01)
    f["pos_dot_terms1"] = vec(terms1)
    f["pos_dot_0_2"] = dec(float(pe4[0] @ pe4[2]))
    f["pos_dot_gap0"] = dec(float(pe4[2] @ pe4[2]))
    f["pos_half_d"] = str(D_HAND // 2)
    products = [
        f"({dec(a)})({dec(b)})" if a < 0 or b < 0 else f"{dec(a)} \\cdot {dec(b)}"
        for a, b in zip(pe4[1], pe4[2], strict=True)
    ]
    f["pos_dot_12_products"] = " + ".join(products)
    # the same sum on two lines, for a phone: the fast pair, then the slow one
    f["pos_dot_12_fast"] = " + ".join(products[:2])
    f["pos_dot_12_slow"] = " + ".join(products[2:])
    # the shift as a rotation, for the first pair at gap 1
    m1 = pe_shift_matrix(1, D_HAND)
    if not np.allclose(pe4[:3] @ m1, pe4[1:], rtol=0, atol=1e-12):
        raise AssertionError("PE(p + 1) = PE(p) M(1)")
    f["pos_rot_block"] = pmatrix(m1[:2, :2], dec)

    # --- widget 10's defaults: d = 16
    ck = EXAMPLES["clock"]
    dw = ck["d"]
    w16 = pe_frequencies(dw)
    f["pos_clock_d"], f["pos_clock_pairs"] = str(dw), str(dw // 2)
    f["pos_clock_n"] = str(ck["positions"])
    f["pos_clock_slowest"] = dec(float(w16[-1]), 5)
    f["pos_clock_turn_fast"] = dec(2 * math.pi / float(w16[0]), 2)  # positions per turn
    f["pos_clock_turn_slow"] = count(round(2 * math.pi / float(w16[-1])))
    gap = ck["gap"]
    dots = [pe_dot(p, gap, dw) for p in range(ck["positions"])]
    if max(dots) - min(dots) > 1e-9:
        raise AssertionError("the clock's dot products depend on the gap only")
    f["pos_clock_gap"] = str(gap)
    f["pos_clock_dot"] = dec(dots[0])
    f["pos_clock_dot0"] = dec(pe_dot(0, 0, dw))

    # --- rotary in one plane, 30 degrees a position
    dl = EXAMPLES["dial"]
    theta = math.radians(dl["theta_degrees"])
    r = rotary_pair(dl["q"], dl["k"], dl["m"], dl["n"], theta)
    shift = 4
    r2 = rotary_pair(dl["q"], dl["k"], dl["m"] + shift, dl["n"] + shift, theta)
    if abs(r.score - r2.score) > 1e-12:
        raise AssertionError("moving both positions leaves the score")
    f["pos_rot_theta"] = str(dl["theta_degrees"])
    f["pos_rot_turn"] = str(360 // dl["theta_degrees"])
    f["pos_rot_q"], f["pos_rot_k"] = vec(dl["q"], plain), vec(dl["k"], plain)
    f["pos_rot_m"], f["pos_rot_n"] = str(dl["m"]), str(dl["n"])
    f["pos_rot_m_angle"] = str(dl["m"] * dl["theta_degrees"])
    f["pos_rot_n_angle"] = str(dl["n"] * dl["theta_degrees"])
    f["pos_rot_q_rot"], f["pos_rot_k_rot"] = vec(r.q_rot), vec(r.k_rot)
    f["pos_rot_plain"] = plain(r.plain_score)
    f["pos_rot_score"] = dec(r.score)
    f["pos_rot_offset"] = str(r.offset)
    f["pos_rot_offset_angle"] = str(r.offset * dl["theta_degrees"])
    f["pos_rot_shift"] = str(shift)
    f["pos_rot_m2"], f["pos_rot_n2"] = str(r2.m), str(r2.n)
    f["pos_rot_m2_angle"] = str(r2.m * dl["theta_degrees"])
    f["pos_rot_n2_angle"] = str(r2.n * dl["theta_degrees"])
    f["pos_rot_q_rot2"], f["pos_rot_k_rot2"] = vec(r2.q_rot), vec(r2.k_rot)
    f["pos_rot_score2"] = dec(r2.score)
    f["pos_rot_len_q"] = dec(float(np.linalg.norm(r.q_rot)))
    # check s8-length: a vector (3, 4) keeps its length 5 at any position
    f["pos_len_q"] = vec([3.0, 4.0], plain)
    f["pos_len_pos"] = "5"
    f["pos_len_answer"] = plain(float(np.hypot(3.0, 4.0)))
    f["pos_len_sum"] = "7"  # added the entries
    f["pos_len_squared"] = "25"  # forgot the square root
    turned = rotary_pair([3.0, 4.0], [1.0, 0.0], 5, 0, theta)
    if abs(float(np.linalg.norm(turned.q_rot)) - 5.0) > 1e-12:
        raise AssertionError("a rotation keeps the length")
    f["pos_len_turned"] = vec(turned.q_rot)
    # check s8-offset: which pair of positions scores as (2, 5) does
    base_pair = rotary_pair(dl["q"], dl["k"], 2, 5, theta)
    options = {"reversed": (5, 2), "both-moved": (12, 15), "doubled": (4, 10), "one-moved": (2, 9)}
    same = [
        name
        for name, (m, n) in options.items()
        if abs(rotary_pair(dl["q"], dl["k"], m, n, theta).score - base_pair.score) < 1e-9
    ]
    if same != ["both-moved"]:
        raise AssertionError(f"only moving both positions keeps the score, got {same}")
    for name, (m, n) in options.items():
        f[f"pos_off_{name}"] = f"m = {m}, n = {n}"
    # relative positions, briefly: a learned table's last row
    f["pos_bert_rows"], f["pos_gpt2_rows"] = count(512), count(1024)
    return f


# --------------------------------------------------------------------------------------------
# §15, the practice arena: an encoding's entries, and a rotary score, with fresh numbers

# widths and pairs whose speed 10000^(-2i/d) is a power of ten: 1, 0.1, 0.01, 0.001
_PAIRS = [(d, i) for d in (4, 8, 16, 32, 64) for i in range(d // 2) if (4 * 2 * i) % d == 0]


def pe_entries(seed: int) -> dict[str, str]:
    """Problem 11: PE(pos, 2i) and PE(pos, 2i + 1) for a given pos, i and d."""

    def make(rng: np.random.Generator) -> dict[str, str] | None:
        d, i = _PAIRS[int(rng.integers(len(_PAIRS)))]
        pos = int(rng.integers(1, 61))
        w = float(pe_frequencies(d)[i])
        pe = sinusoidal_positions(pos + 1, d)[pos]
        key = (float(pe[2 * i]), float(pe[2 * i + 1]))
        angle = pos * w
        if min(abs(key[0]), abs(key[1])) < 0.05:
            return None  # an entry near 0 reads the same whichever slip made it
        slips = {
            "swapped": (key[1], key[0]),
            "degrees": (math.sin(math.radians(angle)), math.cos(math.radians(angle))),
            "half_exponent": (  # 10000^(i/d) instead of 10000^(2i/d)
                math.sin(pos / BASE ** (i / d)),
                math.cos(pos / BASE ** (i / d)),
            ),
        }
        printed = [vec(key), *(vec(s) for s in slips.values())]
        if i == 0 or not distinct(*printed):
            return None  # i = 0 has no exponent to slip on
        exponent = f"{2 * i}/{d}"
        return {
            "d": str(d),
            "i": str(i),
            "pos": str(pos),
            "two_i": str(2 * i),
            "two_i_plus_1": str(2 * i + 1),
            "exponent": exponent,
            "exponent_value": plain(2 * i / d),
            "denominator": count(round(BASE ** (2 * i / d))),
            "w": plain(w),
            "angle": plain(round(angle, 6)),
            "sin": dec(key[0]),
            "cos": dec(key[1]),
            **{f"{k}_sin": dec(v[0]) for k, v in slips.items()},
            **{f"{k}_cos": dec(v[1]) for k, v in slips.items()},
        }

    return draw(seed, make)


_ANGLES = (30, 45, 60, 90)


def rotary_score(seed: int) -> dict[str, str]:
    """Problem 12: a 2-D query at position m and key at n, turned theta a position: the score."""

    def make(rng: np.random.Generator) -> dict[str, str] | None:
        q = rng.integers(-2, 3, size=2).astype(float)
        k = rng.integers(-2, 3, size=2).astype(float)
        deg = int(rng.choice(_ANGLES))
        m, n = (int(x) for x in rng.integers(0, 10, size=2))
        if not q.any() or not k.any() or m == n:
            return None
        theta = math.radians(deg)
        r = rotary_pair(q, k, m, n, theta)
        if abs(r.cross) < 1 or (abs(r.plain_score) < 1 and deg != 90):
            return None  # both parts of the score should count
        phi = (n - m) * deg
        slips = {
            "sum": rotary_pair(q, k, 0, m + n, theta).score,  # turned by (m + n) theta
            "reversed": rotary_pair(q, k, n, m, theta).score,  # by (m - n) theta
            "key_only": rotary_pair(q, k, 0, n, theta).score,  # forgot to turn the query
            "unturned": r.plain_score,
        }
        printed = [dec(r.score, 2), *(dec(v, 2) for v in slips.values())]
        if not distinct(*printed):
            return None
        c, s = math.cos(math.radians(phi)), math.sin(math.radians(phi))
        # by hand: the printed cosine and sine times the two plain dot products (whole numbers)
        by_hand = float(carried(c) * r.plain_score + carried(s) * r.cross)
        return {
            "q": vec(q, plain),
            "k": vec(k, plain),
            "m": str(m),
            "n": str(n),
            "theta": str(deg),
            "offset": str(n - m),
            "phi": str(phi),
            "cos": dec(c),
            "sin": dec(s),
            "qk": plain(r.plain_score),
            "cross": plain(r.cross),
            "q_rot": vec(r.q_rot),
            "k_rot": vec(r.k_rot),
            "score": dec(r.score, 2),
            "score_by_hand_3": dec(by_hand),
            "score_by_hand": dec(by_hand, 2),
            "kept": kept(dec(by_hand, 2), dec(r.score, 2), "the score is"),
            "apart": str(abs(n - m)),
            **{k_: dec(v, 2) for k_, v in slips.items()},
        }

    return draw(seed, make)


VARIANTS: dict[str, Callable[[int], dict[str, str]]] = {
    "pe_entries": pe_entries,
    "rotary_score": rotary_score,
}

__all__ = ["EXAMPLES", "VARIANTS", "figures"]
