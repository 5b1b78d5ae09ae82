"""Widget 13 of Unit 18, "The mask" (SPEC §10), rendered on the server.

    :::{widget} causal-mask
    :id: w13
    :example: mask   (optional: a key of figures.EXAMPLES; default "mask")
    :::

A short sentence read by one masked self-attention (§3's matrices, scaled by √d_k as in §4).
The learner picks the word in each place (a select per place) and switches the causal mask on
and off. The element shows the scores (−∞ where the mask hides a pair), the weights as a shaded
table (exactly 0 where hidden), each place's output and whether it is the same, to every printed
digit, as before the last change of a word: with the mask every place before the changed word
stays the same, without it they change. It also lists the guesses one pass trains: place t reads
words 1..t and must guess word t + 1.

static/widgets/causal-mask.js recomputes with mask-math.js (causalMask, maskedSelfAttention),
held to mathmachine.engine.masking by golden vectors (every sentence one change away from the
first, with and without the mask). Without JavaScript the element shows the first sentence's
tables with the mask, and the outputs before and after one change (the example's "edit"), with
and without the mask.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from mathmachine.engine.dot_product import causal_mask
from mathmachine.engine.masking import (
    MaskedSteps,
    allowed_pairs,
    masked_self_attention_steps,
    teacher_forcing_pairs,
)
from mathmachine.printing import dec, vec

from . import Golden, WidgetContext, WidgetOptionError, kit, option, parts, register

NAME = "causal-mask"
MODULE = "widgets/mask-math.js"
NEEDS = ("choices", "vectors", "W_Q", "W_K", "W_V", "end", "edit")
MINUS_INF = "\u2212\u221e"

h = kit.h


def _check(ex: dict[str, Any], key: str) -> tuple[list[list[str]], dict[str, list[float]]]:
    choices, vectors = ex["choices"], ex["vectors"]
    if not (isinstance(choices, list) and 2 <= len(choices) <= 6) or not all(
        isinstance(c, list) and c and all(isinstance(w, str) for w in c) for c in choices
    ):
        raise WidgetOptionError(f"example {key!r}: choices must be 2 to 6 lists of words")
    missing = sorted({w for c in choices for w in c} - set(vectors))
    if missing:
        raise WidgetOptionError(f"example {key!r}: no vector for {', '.join(missing)}")
    edit = ex["edit"]
    place = edit.get("place") if isinstance(edit, dict) else None
    if (
        not (isinstance(place, int) and 2 <= place <= len(choices))
        or edit.get("word") not in (choices[place - 1][1:])
    ):
        raise WidgetOptionError(
            f"example {key!r}: edit must change a place from 2 to {len(choices)} "
            "to another of its words"
        )
    try:
        _steps(ex, [c[0] for c in choices], True)
    except (TypeError, ValueError) as exc:
        raise WidgetOptionError(f"example {key!r}: not a self-attention ({exc})") from exc
    return choices, vectors


def _x(ex: dict[str, Any], words: list[str]) -> np.ndarray:
    return np.array([ex["vectors"][w] for w in words], dtype=np.float64)


def _steps(ex: dict[str, Any], words: list[str], mask: bool) -> MaskedSteps:
    return masked_self_attention_steps(_x(ex, words), ex["W_Q"], ex["W_K"], ex["W_V"], mask)


def _sentences(choices: list[list[str]]) -> list[list[str]]:
    """The first sentence and every sentence one word away from it."""
    first = [c[0] for c in choices]
    out = [first]
    for i, c in enumerate(choices):
        for w in c[1:]:
            out.append([*first[:i], w, *first[i + 1 :]])
    return out


def golden(opts: dict[str, Any], ctx: WidgetContext) -> list[Golden]:
    """maskedSelfAttention (and the causal mask it is given) for the first sentence and every
    sentence one word away from it, with and without the mask."""
    ex = opts["example"]
    choices, _ = _check(ex, opts["example_key"])
    g = Golden(MODULE)
    n = len(choices)
    g.case("causalMask", n, out=causal_mask(n).tolist())
    for words in _sentences(choices):
        x = _x(ex, words)
        for masked in (True, False):
            st = _steps(ex, words, masked)
            mask = causal_mask(n).tolist() if masked else None
            g.case(
                "maskedSelfAttention", x, ex["W_Q"], ex["W_K"], ex["W_V"], mask,
                out={"q": st.q, "k": st.k, "v": st.v, "scaled": st.scaled,
                     "weights": st.weights, "output": st.output},
            )  # fmt: skip
    return [g]


@register(
    NAME,
    scripts=("widgets/causal-mask.js",),
    styles=("widgets/controls.css", "widgets/plots.css", "widgets/causal-mask.css"),
    options=(option.example(default="mask", needs=NEEDS),),
    control="word",
    golden=golden,
)
def render(opts: dict[str, Any], ctx: WidgetContext) -> str:
    uid = opts["id"]
    ex = opts["example"]
    choices, vectors = _check(ex, opts["example_key"])
    words = [c[0] for c in choices]
    st = _steps(ex, words, True)
    n = len(words)
    state = {
        "choices": choices,
        "vectors": {w: vectors[w] for c in choices for w in c},
        "W_Q": ex["W_Q"],
        "W_K": ex["W_K"],
        "W_V": ex["W_V"],
        "end": ex["end"],
        "words": words,
        "masked": True,
        "shade": parts.WEIGHTS.as_json(),
        "pairs": {"masked": allowed_pairs(n), "all": n * n},
        "sqrt_dk": dec(math.sqrt(st.q.shape[1])),
    }
    return kit.element(
        NAME,
        uid,
        state,
        _controls(uid, choices),
        h("div", _scores(words, st), _weights(words, st), class_="cm-maps"),
        _outputs(words, st, None),
        _guesses(words, ex["end"]),
        kit.status(class_="wk-status"),
        _fallback(ex, words),
        class_="wk cm",
    )


def _controls(uid: str, choices: list[list[str]]) -> kit.HTML:
    picks = []
    for i, c in enumerate(choices):
        ident = f"{uid}-word{i + 1}"
        picks.append(
            h("div",
              h("label", f"word {i + 1}", for_=ident),
              h("select", [h("option", w, value=w) for w in c], id=ident, target="word",
                data_i=str(i)),
              class_="cm-pick")
        )  # fmt: skip
    return h(
        "div",
        h("fieldset", h("legend", "The sentence: pick the word in each place"), picks,
          class_="cm-words"),
        h("div", parts.switch(uid, "mask", "causal mask (no peeking ahead)", checked=True),
          class_="wk-toolbar"),
        js=True,
    )  # fmt: skip


def _score_text(v: float) -> str:
    return MINUS_INF if v == -math.inf else dec(v)


def _weight_text(v: float, allowed: bool) -> str:
    return dec(v) if allowed else "0"


def _heads(words: list[str]) -> tuple[list[kit.HTML], list[kit.HTML]]:
    """Row and column headers the script rewrites when a word changes."""
    return (
        [h("span", w, target="row-word") for w in words],
        [h("span", w, target="col-word") for w in words],
    )


def _scores(words: list[str], st: MaskedSteps) -> kit.HTML:
    sq = dec(1 / st.scale)
    rows, cols = _heads(words)
    return parts.matrix_table(
        st.masked, rows=rows, cols=cols, fmt=_score_text,
        caption=kit.join(["Scores ÷ ", sq, h("span", ", with the mask", target="scores-note"),
                          " (row: the word that asks)"]),
        cell=lambda i, j, v: {"target": "score", "class_": "" if st.mask[i, j] else "cm-hidden"},
        label="Scores, as a table", class_="cm-table",
    )  # fmt: skip


def _weights(words: list[str], st: MaskedSteps) -> kit.HTML:
    rows = []
    row_heads, col_heads = _heads(words)
    for i, w in enumerate(row_heads):
        cells = [
            kit.cell(_weight_text(st.weights[i, j], bool(st.mask[i, j])), target="weight",
                     class_=" ".join(c for c in (parts.WEIGHTS.shade(st.weights[i, j]),
                                                 "" if st.mask[i, j] else "cm-hidden") if c))
            for j in range(len(words))
        ]  # fmt: skip
        cells.append(kit.cell(dec(st.weights[i].sum()), target="rowsum"))
        rows.append((w, cells))
    return h(
        "div",
        kit.table(
            caption="Weights: softmax of each row (0 where hidden, exactly)",
            columns=["", *col_heads, "sum"],
            rows=rows,
            class_="wk-table cm-table",
        ),
        class_="wk-table-wrap", role="region", aria_label="Weights, as a table", tabindex="0",
    )  # fmt: skip


def _outputs(words: list[str], st: MaskedSteps, before: MaskedSteps | None) -> kit.HTML:
    rows = []
    for i, w in enumerate(words):
        same = "—" if before is None else _same(before.output[i], st.output[i])
        rows.append(
            (kit.join([str(i + 1), " ", h("span", w, target="out-word")]),
             [kit.cell(vec(st.output[i]), target="out"), kit.cell(same, target="same")])
        )  # fmt: skip
    return h(
        "div",
        kit.table(
            caption="Each place's output, against before your last change",
            columns=["place", "output", "before → now"],
            rows=rows,
            class_="wk-table cm-table cm-outputs",
        ),
        class_="wk-table-wrap", role="region", aria_label="Outputs, as a table", tabindex="0",
        js=True,
    )  # fmt: skip


def _same(a: np.ndarray, b: np.ndarray) -> str:
    return "same" if vec(a) == vec(b) else "changed"


def _guesses(words: list[str], end: str) -> kit.HTML:
    items = [
        h("li", h("span", " ".join(seen), target="reads"), " → guess ",
          h("b", target_word, target="guess"))
        for seen, target_word in teacher_forcing_pairs(words, end)
    ]  # fmt: skip
    return h(
        "div",
        h("h3", f"One pass, {len(words)} guesses", class_="cm-h"),
        h("p", "Place t reads the true words 1 to t and is trained to guess word t + 1. All of "
               "them come out of the pass above, at once.", class_="wk-note"),
        h("ol", items, class_="cm-guesses"),
        class_="cm-train",
    )  # fmt: skip


def _fallback(ex: dict[str, Any], words: list[str]) -> kit.HTML:
    """Without JavaScript: the outputs before and after the example's edit, with the mask and
    without."""
    place, new = ex["edit"]["place"], ex["edit"]["word"]
    edited = [*words[: place - 1], new, *words[place:]]
    tables = []
    for masked in (True, False):
        a, b = _steps(ex, words, masked), _steps(ex, edited, masked)
        rows = [
            (w, [vec(a.output[i]), vec(b.output[i]), _same(a.output[i], b.output[i])])
            for i, w in enumerate(words)
        ]
        tables.append(
            kit.table(
                caption=("With the mask" if masked else "Without the mask")
                + f": “{words[place - 1]}” becomes “{new}”",
                columns=["word", "before", "after", "same?"],
                rows=rows,
                class_="wk-table cm-table cm-outputs",
            )
        )
    return h(
        "div",
        [h("div", t, class_="wk-table-wrap", role="region", tabindex="0",
           aria_label=("Outputs with the mask" if k == 0 else "Outputs without the mask"))
         for k, t in enumerate(tables)],
        class_="cm-fallback",
        nojs=True,
    )  # fmt: skip
