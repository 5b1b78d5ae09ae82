"""Many heads worked step by step, every intermediate kept (Unit 18 §7).

Vaswani et al. (2017), §3.2.2:

    MultiHead(X) = Concat(head_1, ..., head_h) W_O,   head_i = Attention(X W_Q^i, X W_K^i, X W_V^i)

Each head is the scaled self-attention of §4 with its own three matrices, of width
d_k = d_model / h; the heads' outputs [n, d_v] are laid side by side into one [n, h * d_v]
matrix, and W_O [h * d_v, d_out] mixes them. :func:`multi_head_steps` computes the heads one
after the other (a plain loop over :func:`.self_attention.self_attention_steps`), which is what
the prose walks through; :func:`.attention.multi_head_attention` computes them all at once, and
the tests hold the two to each other. :func:`multi_head_cost` counts the weights and the
multiplications, which do not depend on h.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ._checks import as_finite
from .dot_product import head_dim
from .self_attention import SelfAttentionSteps, self_attention_steps

__all__ = ["MultiHeadSteps", "multi_head_cost", "multi_head_steps"]


@dataclass(frozen=True)
class MultiHeadSteps:
    """Every stage of one multi-head self-attention: the heads (each a scaled
    :class:`SelfAttentionSteps`: q, k [n, d_k], v [n, d_v], scores and weights [n, n], output
    [n, d_v]), their concatenation [n, h * d_v], W_O [h * d_v, d_out] and the output
    [n, d_out]."""

    heads: tuple[SelfAttentionSteps, ...]
    concat: NDArray[np.float64]
    w_o: NDArray[np.float64]
    output: NDArray[np.float64]

    @property
    def weights(self) -> NDArray[np.float64]:
        """[h, n, n]: every head's map, as :func:`.attention.multi_head_attention` returns it."""
        return np.stack([head.weights for head in self.heads])

    def head_part(self, i: int) -> NDArray[np.float64]:
        """Head i's share of the output, head_i W_O^(i) [n, d_out], where W_O^(i) is the block of
        W_O's rows that reads head i's columns of the concatenation. The shares add up to the
        output: Concat(head_1, ..., head_h) W_O = sum_i head_i W_O^(i)."""
        d_v = self.heads[i].output.shape[1]
        return self.heads[i].output @ self.w_o[i * d_v : (i + 1) * d_v]


def multi_head_steps(
    x: ArrayLike,
    heads: Sequence[tuple[ArrayLike, ArrayLike, ArrayLike]],
    W_o: ArrayLike,
) -> MultiHeadSteps:
    """x [n, d], heads = [(W_Q^i, W_K^i, W_V^i), ...] with W_Q^i, W_K^i [d, d_k] and W_V^i
    [d, d_v] (the same widths for every head), W_o [h * d_v, d_out] -> every stage.

    Every head divides its scores by sqrt(d_k), as transformers do (§4).
    """
    if len(heads) < 1:
        raise ValueError("multi-head attention needs at least one head")
    steps = tuple(
        self_attention_steps(x, wq, wk, wv, scaled=True) for wq, wk, wv in heads
    )  # h x: q, k [n, d_k], v [n, d_v], weights [n, n], output [n, d_v]
    widths = {(s.q.shape[1], s.v.shape[1]) for s in steps}
    if len(widths) != 1:
        raise ValueError(f"every head must have the same widths (d_k, d_v), got {sorted(widths)}")
    concat = np.concatenate([s.output for s in steps], axis=1)  # [n, h * d_v]
    wo = as_finite(W_o, "W_O", min_ndim=2)
    if wo.ndim != 2 or wo.shape[0] != concat.shape[1]:
        raise ValueError(
            f"W_O must have {concat.shape[1]} rows (h * d_v = {len(steps)} x "
            f"{steps[0].v.shape[1]}), one per column of the concatenation; got shape {wo.shape}"
        )
    return MultiHeadSteps(heads=steps, concat=concat, w_o=wo, output=concat @ wo)


def multi_head_cost(n: int, d_model: int, n_heads: int) -> dict[str, int]:
    """Weights and multiplications of one multi-head self-attention over n words, h heads of
    width d_k = d_model / h (no biases), counted head by head:

    - ``weights``: h heads x 3 matrices [d_model, d_k], plus W_O [d_model, d_model] = 4 d^2
    - ``projections``: Q, K, V of every head, h x 3 x n d_model d_k = 3 n d^2
    - ``scores``: h x n^2 d_k = n^2 d;  ``blend``: the weights times V, h x n^2 d_k = n^2 d
    - ``mixing``: the concatenation times W_O, n d^2;  ``multiplications``: the four added

    None of them depends on h: eight heads of width 64 cost what one head of width 512 costs.
    """
    for name, value in (("n", n), ("d_model", d_model), ("n_heads", n_heads)):
        if not isinstance(value, int | np.integer) or isinstance(value, bool) or value < 1:
            raise ValueError(f"{name} must be a positive whole number, got {value!r}")
    n, d, h = int(n), int(d_model), int(n_heads)
    d_k = head_dim(d, h)
    cost = {
        "weights": h * 3 * d * d_k + d * d,
        "projections": h * 3 * n * d * d_k,
        "scores": h * n * n * d_k,
        "blend": h * n * n * d_k,
        "mixing": n * d * d,
    }
    cost["multiplications"] = cost["projections"] + cost["scores"] + cost["blend"] + cost["mixing"]
    return cost
