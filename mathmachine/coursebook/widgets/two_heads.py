"""Widget 8 of Unit 18, "Two heads, two questions" (SPEC §7), rendered on the server.

    :::{widget} two-heads
    :id: w8
    :example: two_heads   (optional: a key of figures.EXAMPLES; default "two_heads")
    :word: 3              (optional: the word shown first, 1 = the first; default the example's)
    :::

Two hand-built heads read the same sentence. The element shows their maps side by side (SVG
heat maps with a text alternative), and for the chosen word each head's row of weights (with
bars and numbers), each head's output, the concatenation (n × d_model) and the output after
W_O, each with its shape. Two switches mute a head, to show what the output loses without it.

Every number is computed here by mathmachine.engine.heads and sent as printed text: the script
(static/widgets/two-heads.js) only chooses which row to show, so it needs no golden vectors.
Without JavaScript the maps stay as figures and every matrix is a captioned table (the same
tables sit in a closed <details> once the script runs).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from mathmachine.engine.heads import MultiHeadSteps, multi_head_steps
from mathmachine.printing import dec

from . import WidgetContext, WidgetOptionError, kit, option, parts, register

NAME = "two-heads"
NEEDS = ("words", "roles", "features", "X", "heads", "W_O", "word_default")

h = kit.h


def _steps(ex: dict[str, Any], key: str) -> MultiHeadSteps:
    if not isinstance(ex["heads"], list) or len(ex["heads"]) != 2:
        raise WidgetOptionError(f"example {key!r}: this widget shows two heads")
    try:
        heads = [(hd["W_Q"], hd["W_K"], hd["W_V"]) for hd in ex["heads"]]
        st = multi_head_steps(ex["X"], heads, ex["W_O"])
    except (KeyError, TypeError, ValueError) as exc:
        raise WidgetOptionError(f"example {key!r}: not a multi-head layer ({exc})") from exc
    if len(ex["words"]) != st.concat.shape[0]:
        raise WidgetOptionError(f"example {key!r}: X needs one row per word")
    return st


def _rows(m: NDArray[np.float64]) -> list[list[str]]:
    return [[dec(x) for x in row] for row in m]


def _shape(m: NDArray[np.float64]) -> str:
    return f"{m.shape[0]} × {m.shape[1]}"


def _outputs(st: MultiHeadSteps) -> dict[str, dict[str, list[list[str]]]]:
    """For each choice of heads on ("11" both, "10" head 1 only, "01", "00"): the concatenation
    (a muted head's columns are 0) and the output, as printed."""
    d_v = st.heads[0].output.shape[1]
    out = {}
    for on1 in (True, False):
        for on2 in (True, False):
            concat = st.concat.copy()
            if not on1:
                concat[:, :d_v] = 0.0
            if not on2:
                concat[:, d_v:] = 0.0
            output = concat @ st.w_o
            parts = (st.head_part(0) if on1 else 0.0) + (st.head_part(1) if on2 else 0.0)
            if not np.allclose(output, parts + 0.0 * output, rtol=0, atol=1e-12):
                raise AssertionError("the output must be the sum of the heads' shares")
            out[f"{int(on1)}{int(on2)}"] = {"concat": _rows(concat), "output": _rows(output)}
    return out


@register(
    NAME,
    scripts=("widgets/two-heads.js",),
    styles=("widgets/controls.css", "widgets/plots.css", "widgets/two-heads.css"),
    options=(
        option.example(default="two_heads", needs=NEEDS),
        option.integer("word", default=0, minimum=0),
    ),
    control="word",
)
def render(opts: dict[str, Any], ctx: WidgetContext) -> str:
    uid = opts["id"]
    ex = opts["example"]
    st = _steps(ex, opts["example_key"])
    words = list(ex["words"])
    word = (opts["word"] - 1) if opts["word"] else int(ex["word_default"])
    if not 0 <= word < len(words):
        raise WidgetOptionError(f":word: must be 1 to {len(words)}, got {opts['word']}")
    heads = []
    for k, (spec, head) in enumerate(zip(ex["heads"], st.heads, strict=True), start=1):
        heads.append(
            {
                "name": spec["name"],
                "question": spec["question"],
                "weights": head.weights.round(6).tolist(),  # bar lengths and shades only
                "rows": _rows(head.weights),
                "out": _rows(head.output),
                "top": [words[int(j)] for j in head.weights.argmax(axis=1)],
                "even": [bool(np.allclose(r, r[0])) for r in head.weights],
                "shape": _shape(head.output),
                "k": k,
            }
        )
    d_v = st.heads[0].output.shape[1]
    state = {
        "words": words,
        "word": word,
        "heads": heads,
        "outputs": _outputs(st),
        "d_v": d_v,
        "shapes": {
            "concat": _shape(st.concat),
            "w_o": _shape(st.w_o),
            "output": _shape(st.output),
            "n": len(words),
            "d_model": st.concat.shape[1],
        },
    }
    return kit.element(
        NAME,
        uid,
        state,
        _picker(uid, words, word),
        h("div", [_map(uid, words, hd, word) for hd in heads], class_="th-maps"),
        _rows_panel(uid, words, heads, word),
        _pipeline(words, st, heads, word),
        kit.status(class_="wk-status"),
        _tables(uid, words, ex, st),
        class_="wk th",
    )


def _picker(uid: str, words: list[str], word: int) -> kit.HTML:
    buttons = [
        h("button", w, type="button", class_="wk-button th-word", target="word",
          data_i=str(i), aria_pressed="true" if i == word else "false")
        for i, w in enumerate(words)
    ]  # fmt: skip
    switches = [
        h("label", h("input", type="checkbox", role="switch", checked=True, target="head-on",
                     data_k=str(k)), f"head {k}", class_="wk-switch")
        for k in (1, 2)
    ]  # fmt: skip
    return h(
        "div",
        h("div", h("span", "Pick a word:", class_="th-label", id=f"{uid}-pick"), buttons,
          class_="wk-toolbar th-words", role="group", aria_labelledby=f"{uid}-pick"),
        h("div", switches, class_="wk-toolbar th-switches"),
        js=True,
    )  # fmt: skip


def _map(uid: str, words: list[str], head: dict[str, Any], word: int) -> kit.HTML:
    """One head's map: a row per word (who asks), a column per word (who is looked at); the
    chosen row outlined (the script moves it). The numbers are in the tables below."""
    pattern = "; ".join(
        f"{w} looks " + ("evenly at every word" if even else f"mostly at {top_w}")
        for w, top_w, even in zip(words, head["top"], head["even"], strict=True)
    )
    return parts.heatmap(
        head["weights"],
        uid=f"{uid}-map{head['k']}",
        rows=words,
        cols=words,
        title=f"Map of {head['name']}: {head['question']}",
        desc=f"Rows: the word that asks; columns: the word it looks at; darker is more weight. "
        f"{pattern}.",
        caption=kit.join([h("b", head["name"].capitalize()), f": {head['question']}"]),
        highlight=word,
        numbers=None,
        font=11,
        target=f"map-{head['k']}",
        class_="th-figure",
    )


def _rows_panel(uid: str, words: list[str], heads: list[dict[str, Any]], word: int) -> kit.HTML:
    """The chosen word's row in each head: a bar and the weight for every word."""
    panels = []
    for head in heads:
        k = head["k"]
        lines = [
            h("li", h("span", w, class_="th-key"), parts.bar(head["weights"][word][j]),
              h("span", head["rows"][word][j], class_="th-num", target=f"w{k}"), class_="th-line")
            for j, w in enumerate(words)
        ]  # fmt: skip
        panels.append(
            h("section",
              h("h3", head["name"].capitalize(), ": row of ", h("q", words[word], target="chosen"),
                class_="th-h"),
              h("ul", lines, class_="th-lines", target=f"bars-{k}"),
              class_="th-panel", aria_label=f"{head['name']}, the chosen word's row")
        )  # fmt: skip
    return h("div", panels, class_="th-panels", js=True)


def _cells(values: list[str], name: str) -> kit.HTML:
    return h("span", [h("span", v, class_="th-cell-num", target=name) for v in values],
             class_="th-vec")  # fmt: skip


def _pipeline(
    words: list[str], st: MultiHeadSteps, heads: list[dict[str, Any]], word: int
) -> kit.HTML:
    """head outputs -> concatenation -> × W_O -> output, for the chosen word, shapes shown."""
    d_v = st.heads[0].output.shape[1]
    concat, output = _rows(st.concat)[word], _rows(st.output)[word]
    heads_part = [
        h("div", h("span", kit.join([f"{hd['name']} gives ", h("span", hd["shape"],
                                                                class_="th-shape")]),
                   class_="th-step"),
          _cells(hd["out"][word], f"o{hd['k']}"), class_="th-stage")
        for hd in heads
    ]  # fmt: skip
    shape = f"{st.concat.shape[0]} × {st.concat.shape[1]}"
    return h(
        "div",
        h("h3", "From the heads to one vector: row of ", h("q", words[word], target="chosen"),
          class_="th-h"),
        h("div", heads_part, class_="th-stages"),
        h("div",
          h("span", kit.join(["side by side: the concatenation, ",
                              h("span", shape, class_="th-shape"),
                              " (n × d", h("sub", "model"), ")"]), class_="th-step"),
          h("span", h("span", "head 1", class_="th-tag"), _cells(concat[:d_v], "c1"),
            class_="th-block th-block-1"),
          h("span", h("span", "head 2", class_="th-tag"), _cells(concat[d_v:], "c2"),
            class_="th-block th-block-2"),
          class_="th-stage"),
        h("div",
          h("span", kit.join(["times W", h("sub", "O"), " ",
                              h("span", _shape(st.w_o), class_="th-shape"), " gives the output ",
                              h("span", _shape(st.output), class_="th-shape")]),
            class_="th-step"),
          h("span", h("span", "1–4", class_="th-tag"), _cells(output[:d_v], "y1"),
            class_="th-block"),
          h("span", h("span", "5–8", class_="th-tag"), _cells(output[d_v:], "y2"),
            class_="th-block"),
          class_="th-stage"),
        class_="th-pipeline",
        js=True,
    )  # fmt: skip


def _tables(uid: str, words: list[str], ex: dict[str, Any], st: MultiHeadSteps) -> kit.HTML:
    """Every matrix as a captioned table: the fallback, and 'all the numbers' with JavaScript.
    Captions stay short (a caption is as wide as its table, and a wide table scrolls)."""
    d_v = st.heads[0].output.shape[1]
    cols8 = [str(c + 1) for c in range(st.concat.shape[1])]
    w_o = kit.join(["W", h("sub", "O")])
    tables = []
    for spec, head in zip(ex["heads"], st.heads, strict=True):
        caption = f"{spec['name'].capitalize()}'s map, {_shape(head.weights)}"
        tables.append(_table(caption, caption, words, words, head.weights))
    tables.append(_table(f"Concatenation, {_shape(st.concat)}", "The concatenation", words,
                         cols8, st.concat))  # fmt: skip
    rows8 = [str(r + 1) for r in range(st.w_o.shape[0])]
    tables.append(_table(kit.join([w_o, f", {_shape(st.w_o)}"]), "W_O", rows8, cols8, st.w_o,
                         places=0))  # fmt: skip
    tables.append(_table(f"Output, {_shape(st.output)}", "The output", words, cols8, st.output))
    note = h(
        "p",
        f"Rows: one per word. In a map, row = the word that asks, column = the word it looks at; "
        f"each row adds up to 1. Columns 1–{d_v} of the concatenation come from head 1, "
        f"{d_v + 1}–{2 * d_v} from head 2. The output is the concatenation times ",
        w_o,
        ".",
        class_="wk-note",
    )
    return h(
        "details",
        h("summary", "All the numbers, as tables"),
        note,
        h("div", tables, class_="th-tables"),
        open=True,
        target="tables",
        class_="th-all",
    )


def _table(
    caption: kit.Child,
    label: str,
    rows: list[str],
    cols: list[str],
    m: NDArray[np.float64],
    places: int = 3,
) -> kit.HTML:
    return parts.matrix_table(m, rows=rows, cols=cols, caption=caption, fmt=places,
                              label=f"{label}, as a table", class_="th-table")  # fmt: skip
