"""§15, the practice arena: one variant function per problem (VARIANTS), each drawing small
inputs from its seed and computing, with the engine, the key, the named mistakes and every
number of the hints and the worked solution.

A draw is rejected (and the next one taken from the same generator, so a seed always gives the
same problem) when it would make a bad problem: two named mistakes or a mistake and the key that
print the same, a division by zero in a mistake, numbers too large to work by hand.

Each worked solution is computed twice: with every digit kept (the key, from the engine) and by
hand, every step from the numbers printed before it (``carried``): that path's end is the
problem's ``:by-hand:`` answer, and every figure the solution's steps print comes from it.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from mathmachine.engine import (
    additive_scores,
    context_gradient,
    context_vector,
    dot_scores,
    general_scores,
    look_back,
    softmax,
)
from mathmachine.printing import dec, matrix, plain, pmatrix, tex, vec

from .variants import carried, distinct, draw, kept

Figures = dict[str, str]
Array = NDArray[np.float64]


# ------------------------------------------------------------------ problem 1: soft-lookup weights


def soft_weights(seed: int) -> Figures:
    """Three one-hot notes, a state q of small whole numbers: the attention weights."""

    def make(rng: np.random.Generator) -> Figures | None:
        q = rng.integers(-2, 6, size=3) / 2.0  # [3], entries -1, -0.5, ..., 2.5
        if len(set(q)) < 3 or q.sum() == 0 or q.max() - q.min() > 3:
            return None  # equal scores; a slip dividing by 0; weights too close to 0 and 1
        notes = np.eye(3)
        lb = look_back(q, notes)  # scores = q (one-hot notes)
        exps = np.exp(lb.scores)
        key = vec(lb.weights)
        no_exp = vec(lb.scores / lb.scores.sum())
        by_scores = vec(exps / lb.scores.sum())
        if not distinct(key, no_exp, by_scores) or np.abs(exps / lb.scores.sum()).max() > 99:
            return None
        # by hand: the exponentials as printed, their total, each divided by it
        e = carried(exps)
        total = carried(e.sum())
        hand = carried(e / total)
        f: Figures = {"q": vec(q, plain), "scores": vec(lb.scores, plain)}
        f.update(weights=key, weights_by_hand=vec(hand), no_exp=no_exp, by_scores=by_scores)
        f["kept"] = kept(vec(hand), key, "they are")
        for i, (s, ei, w) in enumerate(zip(lb.scores, e, hand, strict=True), start=1):
            f[f"s{i}"], f[f"e{i}"], f[f"w{i}"] = plain(s), dec(ei), dec(w)
            f[f"s{i}_tex"] = tex(plain(s))
        f["total"] = dec(total)
        f["top"] = ["“I”", "“drink”", "“tea”"][int(np.argmax(lb.weights))]
        return f

    return draw(seed, make)


# ------------------------------------------------------------- problem 2: a soft lookup's output


def soft_output(seed: int) -> Figures:
    """Keys k_1..k_3 (2-D), values v_1..v_3 (numbers) and a query: the value the lookup returns."""

    def make(rng: np.random.Generator) -> Figures | None:
        keys = rng.integers(-1, 3, size=(3, 2)).astype(float)  # [3, 2]
        values = rng.integers(1, 10, size=3).astype(float) * 10  # [3]: 10..90
        query = rng.integers(-1, 3, size=2).astype(float)  # [2]
        scores = dot_scores(query, keys)  # [3]
        if len(set(scores)) < 3 or len(set(values)) < 3:
            return None  # a tie: the hard lookup would have no single answer
        weights = softmax(scores)
        out = context_vector(weights, values[:, None])[0]  # the weighted mean of the values
        mean = values.mean()
        hard = values[int(np.argmax(scores))]
        key, printed = dec(out, 2), [dec(mean, 2), dec(hard, 2)]
        if not distinct(key, *printed) or abs(out - mean) < 0.5 or abs(out - hard) < 0.5:
            return None
        w = carried(weights)  # by hand: the weights as printed, times the values
        hand = dec(carried(w @ values, 2), 2)
        f: Figures = {"query": vec(query, plain), "output": key, "output_by_hand": hand}
        f.update(mean=printed[0], hard=printed[1], kept=kept(hand, key, "it is"))
        for i in range(3):
            n = i + 1
            f[f"k{n}"], f[f"v{n}"] = vec(keys[i], plain), plain(values[i])
            f[f"s{n}"], f[f"w{n}"] = plain(scores[i]), dec(w[i])
            f[f"s{n}_tex"] = tex(plain(scores[i]))
        f["scores"] = vec(scores, plain)
        f["weights"] = vec(w)
        for i, (wi, v) in enumerate(zip(w, values, strict=True), start=1):
            f[f"t{i}"] = f"{dec(wi)} \\times {plain(v)}"
        return f

    return draw(seed, make)


# ------------------------------------------------------------------ problem 3: additive scores


def additive(seed: int) -> Figures:
    """W1, W2 (2 x 2, small whole numbers), v, q and two notes: the two additive scores."""

    def make(rng: np.random.Generator) -> Figures | None:
        W1 = rng.integers(-1, 2, size=(2, 2)).astype(float)
        W2 = rng.integers(-1, 2, size=(2, 2)).astype(float)
        v = rng.integers(1, 3, size=2).astype(float)
        q = rng.integers(-1, 2, size=2).astype(float)
        notes = rng.integers(-1, 2, size=(2, 2)).astype(float)  # [2 notes, 2]
        if np.allclose(W1, W2) or np.allclose(notes[0], notes[1]) or not W1.any() or not W2.any():
            return None
        scores = additive_scores(q, notes, W1, W2, v)  # [2]
        inner = notes @ W1.T + W2 @ q  # [2, 2]: W1 h_j + W2 q per note
        hidden = np.tanh(inner)
        no_tanh = inner @ v
        swapped = np.tanh(notes @ W2.T + W1 @ q) @ v
        key = vec(scores)
        if not distinct(key, vec(no_tanh), vec(swapped)) or abs(scores[0] - scores[1]) < 0.01:
            return None
        if np.abs(scores).min() < 0.05:
            return None  # a score of 0.000 teaches less than one that is clearly not 0
        t = carried(hidden)  # by hand: the tanh values as printed, times v
        hand = carried(t @ v)
        f: Figures = {"scores": key, "scores_by_hand": vec(hand), "kept": kept(vec(hand), key)}
        f.update(no_tanh=vec(no_tanh), swapped=vec(swapped))
        f.update(W1=pmatrix(W1, plain), W2=pmatrix(W2, plain), v=vec(v, plain))
        f.update(q=vec(q, plain), W2q=vec(W2 @ q, plain))
        for j in range(2):
            n = j + 1
            f[f"h{n}"] = vec(notes[j], plain)
            f[f"W1h{n}"] = vec(W1 @ notes[j], plain)
            f[f"in{n}"] = vec(inner[j], plain)
            f[f"tanh{n}"] = vec(t[j])
            f[f"score{n}"] = dec(hand[j])
        f["better"] = "first" if scores[0] > scores[1] else "second"
        f["weights"] = vec(softmax(scores))
        return f

    return draw(seed, make)


# ------------------------------------------------------------------ problem 4: general scores


def general(seed: int) -> Figures:
    """q, a 2 x 2 W and two notes: the general scores q^T W h_j, and their weights."""

    def make(rng: np.random.Generator) -> Figures | None:
        W = rng.integers(-1, 3, size=(2, 2)).astype(float)
        q = rng.integers(-1, 3, size=2).astype(float)
        notes = rng.integers(-1, 3, size=(2, 2)).astype(float)
        if np.allclose(W, W.T) or not q.any():
            return None  # a symmetric W would not tell q^T W h from h^T W q
        scores = general_scores(q, notes, W)  # [2]
        transposed = general_scores(q, notes, W.T)
        plain_dot = dot_scores(q, notes)
        if len(set(scores)) < 2 or abs(scores).max() > 6 or abs(scores[0] - scores[1]) > 3:
            return None  # equal scores; or weights so extreme they print as 0.000 and 1.000
        key = (vec(scores, plain), vec(softmax(scores)))
        slips = (vec(transposed, plain), vec(plain_dot, plain))
        if not distinct(key[0], *slips):
            return None
        e = carried(np.exp(scores))  # by hand: the exponentials as printed, their total
        total = carried(e.sum())
        hand = carried(e / total)
        f: Figures = {"scores": key[0], "weights": key[1], "weights_by_hand": vec(hand)}
        f["kept"] = kept(vec(hand), key[1], "the weights are")
        f.update(transposed=slips[0], transposed_w=vec(softmax(transposed)))
        f.update(dot=slips[1], dot_w=vec(softmax(plain_dot)))
        f.update(W=pmatrix(W, plain), q=vec(q, plain), qW=vec(q @ W, plain))
        f["total"] = dec(total)
        for j in range(2):
            n = j + 1
            f[f"h{n}"], f[f"score{n}"] = vec(notes[j], plain), plain(scores[j])
            f[f"score{n}_tex"] = tex(plain(scores[j]))
            f[f"e{n}"], f[f"w{n}"] = dec(e[j]), dec(hand[j])
        return f

    return draw(seed, make)


# ------------------------------------------------------------------ problem 5: the gradient


def gradient(seed: int) -> Figures:
    """Two 2-D notes and q: dc/dh_1 = alpha_1 (I + (h_1 - c) q^T), a 2 x 2 matrix."""

    def make(rng: np.random.Generator) -> Figures | None:
        notes = rng.integers(-1, 3, size=(2, 2)).astype(float)  # [2, 2]
        q = rng.integers(-1, 3, size=2).astype(float)
        lb = look_back(q, notes)
        if np.allclose(notes[0], notes[1]) or not q.any() or lb.weights.min() < 0.05:
            return None
        grad = context_gradient(q, notes, 0)  # [2, 2]
        outer = np.outer(notes[0] - lb.context, q)
        indirect = lb.weights[0] * outer  # forgot the direct route (the identity)
        unweighted = np.eye(2) + outer  # forgot the share alpha_1
        key = matrix(grad)
        slips = (matrix(indirect), matrix(unweighted), matrix(grad.T))
        if not distinct(key, *slips) or np.allclose(np.round(grad, 3), np.round(grad.T, 3)):
            return None
        # by hand: the weights as printed, the context from them, and on to the matrix
        w = carried(lb.weights)
        c = carried(w[0] * notes[0] + w[1] * notes[1])
        column = carried(notes[0] - c)
        outer_hand = carried(np.outer(column, q))
        inner = carried(np.eye(2) + outer_hand)
        hand = carried(w[0] * inner)
        f: Figures = {"grad": key, "grad_by_hand": matrix(hand), "indirect": slips[0]}
        f.update(unweighted=slips[1], kept=kept(matrix(hand), key))
        f.update(h1=vec(notes[0], plain), h2=vec(notes[1], plain), q=vec(q, plain))
        f.update(scores=vec(lb.scores, plain), weights=vec(w), a1=dec(w[0]))
        f.update(c=vec(c), h1_minus_c=vec(column))
        f.update(outer=pmatrix(outer_hand), grad_tex=pmatrix(hand))
        f.update(inner=pmatrix(inner))
        f["s1"], f["s2"] = plain(lb.scores[0]), plain(lb.scores[1])
        return f

    return draw(seed, make)


VARIANTS = {
    "soft_weights": soft_weights,
    "soft_output": soft_output,
    "additive": additive,
    "general": general,
    "gradient": gradient,
}
