"""§3 Self-attention: "I drink tea" worked by hand, Q = X W_Q, K = X W_K, V = X W_V, with 2-D
word vectors; every printed number from mathmachine.engine.self_attention."""

from __future__ import annotations

from typing import Any

import numpy as np

from mathmachine.engine.self_attention import self_attention_shapes, self_attention_steps
from mathmachine.engine.shares import softmax
from mathmachine.printing import dec, plain, pmatrix, vec

from .variants import carried, distinct, draw, kept

EXAMPLES: dict[str, Any] = {
    "self_attention": {
        "words": ["I", "drink", "tea"],
        # one row per word; "tea" = "I" + "drink" so that its rows of Q, K, V are sums
        "X": [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]],
        "W_Q": [[2.0, 0.0], [0.0, 1.0]],
        "W_K": [[-1.0, 1.0], [1.0, 0.0]],
        "W_V": [[1.0, 1.0], [0.0, 1.0]],
        # the calculator's presets (the first is the worked example)
        "presets": [
            {"id": "worked", "label": "I drink tea (worked above)"},
            {
                "id": "identity",
                "label": "W_Q = W_K = W_V = I",
                "W_Q": [[1.0, 0.0], [0.0, 1.0]],
                "W_K": [[1.0, 0.0], [0.0, 1.0]],
                "W_V": [[1.0, 0.0], [0.0, 1.0]],
            },
            {
                "id": "equal",
                "label": "every key the same",
                "W_K": [[0.0, 0.0], [0.0, 0.0]],
            },
        ],
        "entry_min": -9,
        "entry_max": 9,
    },
    # check s3-shapes: a longer sentence and wider matrices
    "shapes": {"n": 6, "d": 4, "d_k": 3, "d_v": 5},
}


def figures() -> dict[str, str]:
    """Every number §3 prints."""
    ex = EXAMPLES["self_attention"]
    words = ex["words"]
    st = self_attention_steps(ex["X"], ex["W_Q"], ex["W_K"], ex["W_V"])
    f: dict[str, str] = {}

    f["sa_X"] = pmatrix(st.x, plain)
    f["sa_WQ"] = pmatrix(np.asarray(ex["W_Q"]), plain)
    f["sa_WK"] = pmatrix(np.asarray(ex["W_K"]), plain)
    f["sa_WV"] = pmatrix(np.asarray(ex["W_V"]), plain)
    f["sa_Q"], f["sa_K"], f["sa_V"] = (pmatrix(m, plain) for m in (st.q, st.k, st.v))
    f["sa_S"] = pmatrix(st.scores, plain)
    f["sa_A"] = pmatrix(st.weights, dec)
    f["sa_out"] = pmatrix(st.output, dec)
    n, d = st.x.shape
    f["sa_n"], f["sa_d"] = str(n), str(d)
    for i, word in enumerate(words):
        f[f"sa_x_{word}"] = vec(st.x[i], plain)
        f[f"sa_q_{word}"] = vec(st.q[i], plain)
        f[f"sa_k_{word}"] = vec(st.k[i], plain)
        f[f"sa_v_{word}"] = vec(st.v[i], plain)
        f[f"sa_scores_{word}"] = vec(st.scores[i], plain)
        f[f"sa_weights_{word}"] = vec(st.weights[i])
        f[f"sa_out_{word}"] = vec(st.output[i])
        for j, other in enumerate(words):
            f[f"sa_s_{word}_{other}"] = plain(st.scores[i, j])
            f[f"sa_w_{word}_{other}"] = dec(st.weights[i, j])
        exps = np.exp(st.scores[i])
        f[f"sa_exps_{word}"] = vec(exps)
        f[f"sa_total_{word}"] = dec(exps.sum())
        f[f"sa_rowsum_{word}"] = dec(st.weights[i].sum())

    # --- check s3-rows: a row adds up to 1, a column need not
    col = words.index("drink")
    col_sum = float(st.weights[:, col].sum())
    printed_sum = float(sum(round(float(w), 3) for w in st.weights[:, col]))
    # the check asks for two decimals, which the printed weights and the exact ones agree on
    if dec(col_sum, 2) != dec(printed_sum, 2):
        raise AssertionError("the column sum from printed weights differs at two decimals")
    f["sa_row_I_sum"] = plain(round(float(st.weights[0].sum()), 12))
    f["sa_col_drink_sum"] = dec(col_sum, 2)
    f["sa_col_drink_printed_sum"] = dec(printed_sum)
    f["sa_col_drink"] = vec(st.weights[:, col])
    f["sa_col_drink_mistake_one"] = "1"  # mistake: "columns sum to 1 too"

    # --- the score as one matrix between two words: q_i . k_j = x_i (W_Q W_K^T) x_j^T
    wqk = np.asarray(ex["W_Q"]) @ np.asarray(ex["W_K"]).T
    if not np.allclose(st.x @ wqk @ st.x.T, st.scores):
        raise AssertionError("x_i W_Q W_K^T x_j^T must be the score q_i . k_j")
    f["sa_WQK"] = pmatrix(wqk, plain)
    f["sa_WQK_12"], f["sa_WQK_21"] = plain(wqk[0, 1]), plain(wqk[1, 0])

    # --- the Try: one number of W_K changed moves the columns of the words it reaches. A key is
    # x_j W_K, so entry (r, c) reaches the words whose x has a non-zero r-th number; the engine
    # confirms it entry by entry (every query meets the changed keys: whole columns move).
    moved_by_row: list[list[str]] = []
    for r in range(d):
        reached = [words[j] for j in range(n) if st.x[j, r] != 0]
        for c in range(st.k.shape[1]):
            wk = np.array(ex["W_K"], dtype=float)
            wk[r, c] += 1.0
            bumped = self_attention_steps(ex["X"], ex["W_Q"], wk, ex["W_V"])
            cols = [
                words[j] for j in range(n) if not np.allclose(bumped.scores[:, j], st.scores[:, j])
            ]
            if cols != reached:
                raise AssertionError(f"W_K[{r}][{c}] moved {cols}, not {reached}")
        moved_by_row.append(reached)
    sizes = {len(m) for m in moved_by_row}
    if len(sizes) != 1:
        raise AssertionError("every entry of W_K should move as many columns")
    f["sa_wk_moved"] = str(sizes.pop())
    for r, reached in enumerate(moved_by_row, start=1):
        f[f"sa_wk_reach_{r}"] = " and ".join(f"“{w}”" for w in reached)

    # --- the Try's preset "every key the same" (W_K = 0): equal weights, the mean of the values
    flat_preset = next(p for p in ex["presets"] if p["id"] == "equal")
    flat = self_attention_steps(ex["X"], ex["W_Q"], flat_preset["W_K"], ex["W_V"])
    if not np.allclose(flat.weights, 1.0 / n, rtol=0, atol=1e-15):
        raise AssertionError("equal keys should give every word the same share")
    f["sa_equal_share"] = f"1/{n}"

    # --- the trap: asking is not being asked
    i, j = words.index("I"), words.index("drink")
    if st.scores[i, j] == st.scores[j, i]:
        raise AssertionError("the trap needs scores[I, drink] != scores[drink, I]")

    # --- check s3-shapes
    sh = EXAMPLES["shapes"]
    shapes = self_attention_shapes(sh["n"], sh["d"], sh["d_k"], sh["d_v"])
    f["sa_check_n"], f["sa_check_d"] = str(sh["n"]), str(sh["d"])
    f["sa_check_dk"], f["sa_check_dv"] = str(sh["d_k"]), str(sh["d_v"])
    f["sa_check_scores_rows"], f["sa_check_scores_cols"] = (str(x) for x in shapes["scores"])
    f["sa_check_out_rows"], f["sa_check_out_cols"] = (str(x) for x in shapes["output"])
    f["sa_check_q_rows"], f["sa_check_q_cols"] = (str(x) for x in shapes["Q"])

    # --- check s3-itself: with W_Q = W_K = I each score is x_i . x_j
    ident = self_attention_steps(ex["X"], np.eye(d), np.eye(d), np.eye(d))
    f["sa_id_S"] = pmatrix(ident.scores, plain)
    t = words.index("tea")
    f["sa_id_tea_len2"] = plain(ident.scores[t, t])
    f["sa_id_I_I"] = plain(ident.scores[0, 0])
    f["sa_id_I_tea"] = plain(ident.scores[0, t])
    return f


# --------------------------------------------------------------------------------------------
# §15, the practice arena: self-attention by hand, with fresh numbers (VARIANTS)

WORDS = ("I", "drink", "tea")


def _small_matrix(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    return rng.integers(-1, 3, size=shape).astype(float)  # entries -1..2


def attention_row(seed: int) -> dict[str, str]:
    """Problem: X [3, 2] and W_K [2, 2] of small whole numbers, W_Q [2, 2] of halves; one word's
    row of weights."""

    def make(rng: np.random.Generator) -> dict[str, str] | None:
        x = _small_matrix(rng, (3, 2))
        # W_Q in halves: the scores are then halves too, so the rows of weights vary (whole
        # scores within a gap of 4 would give only a few dozen different rows)
        wq = rng.integers(-2, 5, size=(2, 2)) / 2.0  # entries -1, -0.5, ..., 2
        wk = _small_matrix(rng, (2, 2))
        i = int(rng.integers(0, 3))
        if len({tuple(r) for r in x}) < 3 or not np.all(np.abs(x).sum(axis=1)):
            return None  # two words the same, or a word of zeros
        st = self_attention_steps(x, wq, wk, np.eye(2))
        row = st.scores[i]
        if len(set(row)) < 3 or np.abs(row).max() > 6 or np.ptp(row) > 4:
            return None  # a tie, or numbers too big or too far apart to work by hand
        if row.sum() == 0 or st.weights[i].min() < 0.01:
            return None  # the "shares of the scores" slip would divide by 0; a weight of 0.000
        key = vec(st.weights[i])
        no_matrices = vec(softmax(st.x[i] @ st.x.T))  # forgot W_Q and W_K
        column = vec(softmax(st.scores[:, i]))  # how well the others' queries fit word i's key
        no_exp = vec(row / row.sum())  # the raw scores divided by their total, no exponentials
        if not distinct(key, no_matrices, column, no_exp, vec(st.weights[i][::-1])):
            return None
        exps = carried(np.exp(row))  # by hand: the exponentials as printed, their total
        total = carried(exps.sum())
        hand = vec(carried(exps / total))
        f = {
            "word": WORDS[i],
            "X": pmatrix(st.x, plain),
            "WQ": pmatrix(wq, plain),
            "WK": pmatrix(wk, plain),
            "x_i": vec(st.x[i], plain),
            "q_i": vec(st.q[i], plain),
            "K": pmatrix(st.k, plain),
            "scores": vec(row, plain),
            "exps": vec(exps),
            "total": dec(total),
            "weights": key,
            "weights_by_hand": hand,
            "kept": kept(hand, key, "they are"),
            "no_matrices": no_matrices,
            "column": column,
            "no_exp": no_exp,
            "top": WORDS[int(np.argmax(st.weights[i]))],
        }
        for j in range(len(WORDS)):
            f[f"k_{j}"] = vec(st.k[j], plain)
            f[f"s_{j}"] = plain(row[j])
        return f

    return draw(seed, make)


def attention_output(seed: int) -> dict[str, str]:
    """Problem: Q, K, V [3, 2] of small whole numbers; the new vector of one word."""

    def make(rng: np.random.Generator) -> dict[str, str] | None:
        q, k, v = (_small_matrix(rng, (3, 2)) for _ in range(3))
        i = int(rng.integers(0, 3))
        scores = q @ k.T  # [3, 3]
        row = scores[i]
        if len(set(row)) < 3 or np.abs(row).max() > 6 or len({tuple(r) for r in v}) < 3:
            return None
        w = softmax(row)
        if np.ptp(row) > 4 or w.min() < 0.01:
            return None  # scores too far apart: one weight would take nearly everything
        out = w @ v
        key = vec(out)
        keys_blended = vec(w @ k)  # blended the keys instead of the values
        mean = vec(v.mean(axis=0))  # the plain mean of the values
        column = vec(softmax(scores[:, i]) @ v)  # weights from the column
        if not distinct(key, keys_blended, mean, column, vec(out[::-1])):
            return None
        w_hand = carried(w)  # by hand: the weights as printed, times the values
        hand = vec(carried(w_hand @ v))
        f = {
            "word": WORDS[i],
            "Q": pmatrix(q, plain),
            "K": pmatrix(k, plain),
            "V": pmatrix(v, plain),
            "q_i": vec(q[i], plain),
            "scores": vec(row, plain),
            "weights": vec(w_hand),
            "output": key,
            "output_by_hand": hand,
            "kept": kept(hand, key, "it is"),
            "keys_blended": keys_blended,
            "mean": mean,
            "column": column,
        }
        for j in range(3):
            f[f"w_{j}"] = dec(w_hand[j])
            f[f"v_{j}"] = vec(v[j], plain)
            f[f"k_{j}"] = vec(k[j], plain)
            f[f"word_{j}"] = WORDS[j]
        return f

    return draw(seed, make)


VARIANTS = {"attention_row": attention_row, "attention_output": attention_output}
