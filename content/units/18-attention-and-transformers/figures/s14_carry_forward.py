"""§14 What to carry forward. The formula map's nodes (widget 18: each concept, its formula and
the section and widget that built it, by the unit's section numbers; the widget finds their
titles, pages and widgets in the compiled unit), and check s14-cross: §1's look-back written as
a transformer's cross-attention, scaled by the square root of d_k (mathmachine.engine.attention).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from mathmachine.engine import attention, look_back
from mathmachine.printing import dec, plain, vec

from . import s01_look_back
from .variants import carried, kept

#: The map, in the order the unit builds it: (id, label, formula as text, section, widget:
#: the k-th widget of that section, counting from 1, whatever its name turns out to be).
NODES: tuple[tuple[str, str, str, int, int], ...] = (
    ("scores", "scores", "sⱼ = q · hⱼ", 1, 1),
    ("softmax", "softmax", "αⱼ = e^sⱼ / Σₖ e^sₖ", 1, 1),
    ("context", "context", "c = Σⱼ αⱼ vⱼ", 2, 1),
    ("qkv", "Q, K and V", "Q = XW_Q, K = XW_K, V = XW_V", 3, 1),
    ("scaling", "scaling", "softmax(QKᵀ / √d_k) V", 4, 1),
    ("heads", "heads", "Concat(head₁ … head_h) W_O, d_k = d_model / h", 7, 1),
    ("position", "position", "PE(p, 2i) = sin(p / 10000^(2i/d))", 8, 1),
    ("block", "block", "x → LN(x + Attention(x)) → LN(x + FFN(x))", 9, 1),
    ("mask", "mask", "softmax(QKᵀ / √d_k + M) V, Mᵢⱼ = −∞ if j > i", 10, 1),
    ("families", "families", "cross-attention: Q from the decoder, K, V from the encoder", 11, 1),
    ("cost", "cost", "n² scores per head per layer", 12, 1),
    ("whole", "the whole model", "p(yₜ | y₍<ₜ₎, x) = softmax(dₜ W + b)", 13, 1),
)
#: What each node adds to the one before it (the map's links, read along the chain).
LINKS: dict[str, str] = {
    "softmax": "turns the scores into shares that add up to 1",
    "context": "blends the values by those shares",
    "qkv": "lets every word ask every word, through three learned matrices",
    "scaling": "keeps the scores near size 1, whatever d is",
    "heads": "asks several questions at once, each in a smaller space",
    "position": "tells the model where each word stands",
    "block": "wraps attention with a feed-forward network, residuals and LayerNorm",
    "mask": "hides the words that come later",
    "families": "chooses the mask and where Q, K and V come from",
    "cost": "counts the price: a score for every pair",
    "whole": "puts every part together, trained",
}
#: Links off the chain: (from, to, why).
ECHOES: tuple[tuple[str, str, str], ...] = (
    ("context", "families", "cross-attention is §1's look-back, grown up"),
)

EXAMPLES: dict[str, Any] = {
    "formula_map": {
        "nodes": [
            {"id": i, "label": label, "formula": formula, "section": sec, "widget": k}
            for i, label, formula, sec, k in NODES
        ],
        "links": LINKS,
        "echoes": [list(e) for e in ECHOES],
    }
}

D_K = 3  # §1's notes have three numbers each


def _cross() -> dict[str, str]:
    """Check s14-cross: §1's state for चाय as the query, its notes as keys and values."""
    lb_in = s01_look_back.EXAMPLES["lookback"]
    q = np.asarray(lb_in["states"][1], dtype=float)  # चाय: (0, 0.5, 2)
    notes = np.asarray(lb_in["notes"], dtype=float)
    out, w = attention(q[None, :], notes, notes)  # W_Q = W_K = W_V = I, scaled by sqrt(3)
    weights = w[0]
    unscaled = look_back(q, notes).weights  # §1's weights: no sqrt(d_k)
    by_d = attention(q[None, :] / math.sqrt(D_K), notes, notes)[1][0]  # divided by d: sqrt twice
    raw = q @ notes.T
    s = carried(raw / math.sqrt(D_K))  # by hand: the printed scaled scores,
    e = carried(np.exp(s))  # their printed exponentials,
    total = carried(e.sum())  # the total of those,
    hand = carried(e / total)  # each share of it
    f = {
        "cf_q": vec(q, plain),
        "cf_dk": str(D_K),
        "cf_root": dec(math.sqrt(D_K)),
        "cf_scores_raw": vec(raw, plain),
        "cf_scores": vec(s),
        "cf_exps": vec(e),
        "cf_total": dec(total),
        "cf_weights": vec(weights),
        "cf_weights_by_hand": vec(hand),
        "cf_unscaled": vec(unscaled),
        "cf_by_d": vec(by_d),
        "cf_context": vec(out[0]),
        "cf_kept": kept(vec(hand), vec(weights), "they are"),
    }
    for i, (si, ei, wi) in enumerate(zip(s, e, hand, strict=True), start=1):
        f[f"cf_s{i}"], f[f"cf_e{i}"], f[f"cf_w{i}"] = dec(si), dec(ei), dec(wi)
    return f


def figures() -> dict[str, str]:
    return {**_cross(), "cf_nodes": str(len(NODES))}
