"""Widget 6 of Unit 18, "Bank by the river" (SPEC §5), rendered on the server.

    :::{widget} bank-by-the-river
    :id: w6
    :example: bank_toy     (optional: the toy plane; default "bank_toy")
    :real: bank_real       (optional: the real model's sentences; default "bank_real")
    :::

Two views, as a tablist once the script runs (without JavaScript both show, one after the
other):

- **Toy model.** A plane of two numbers (how much a word is about water, how much about money).
  The learner picks a sentence (a select of presets) or the words beside "bank" (toggle buttons),
  and sees "bank"'s self-attention output (W_Q = W_K = W_V = I, no ÷√d) move between the water
  side and the money side of the line x = y, with its row of scores and weights. The script
  recomputes with attention-math.js's selfAttention, held to mathmachine.engine.self_attention by
  golden vectors. Without JavaScript: the plane with "bank"'s input and its outputs in "river
  bank" and in "bank loan", the weights table for "river bank", and a table of every preset.
- **Real model.** "bank" in six sentences through all-MiniLM-L6-v2, run by
  mathmachine.engine.pretrained at compile time: the cosine of every pair of its vectors, at the
  input (layer 0), at the last layer (raw), and at the last layer centred (the mean token vector
  subtracted), as three tables; radio buttons choose the one on show. Nothing is recomputed.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from mathmachine.engine.pretrained import group_means, word_senses
from mathmachine.engine.self_attention import self_attention_steps
from mathmachine.printing import dec, plain, vec

from . import Golden, WidgetContext, WidgetOptionError, kit, option, parts, register

NAME = "bank-by-the-river"
MODULE = "widgets/attention-math.js"
TOY_NEEDS = ("axes", "word", "vector", "words", "presets", "margin", "plot_max")
REAL_NEEDS = ("word", "sentences")
SIZE, PAD = 260.0, 30.0  # the plane: data 0..plot_max drawn in SIZE px with a margin PAD
EYE = [[1.0, 0.0], [0.0, 1.0]]
SIDES = {"water": "on the water side", "money": "on the money side",
         "line": "on the line between the two sides"}  # fmt: skip
SHORT = {"water": "water side", "money": "money side", "line": "on the line"}
VIEWS = (
    ("centred", "outputs, centred"),
    ("raw", "outputs, raw"),
    ("input", "inputs (layer 0)"),
)
# The shade of a cosine in the tables: the lower bound of each band (classes bk-h0 … bk-h4).
BANDS = (0.6, 0.7, 0.8, 0.9)

h = kit.h


# ---------------------------------------------------------------- the toy


def _toy(opts: dict[str, Any]) -> dict[str, Any]:
    """The toy example, checked: 2-D vectors inside the plot, presets of known words with
    "bank" once."""
    ex, key = opts["example"], opts["example_key"]
    vectors = {w["word"]: w["vector"] for w in ex["words"]}
    word = ex["word"]
    if word in vectors or len(vectors) != len(ex["words"]):
        raise WidgetOptionError(f"example {key!r}: every word once, and {word!r} not among them")
    vectors[word] = ex["vector"]
    top = float(ex["plot_max"])
    for w, v in vectors.items():
        if len(v) != 2 or not all(0 <= float(c) <= top for c in v):
            raise WidgetOptionError(f"example {key!r}: {w!r} must be a point in 0..plot_max")
    for p in ex["presets"]:
        s = p["sentence"]
        if s.count(word) != 1 or any(w not in vectors for w in s) or len(set(s)) != len(s):
            raise WidgetOptionError(
                f"example {key!r}: preset {p['id']!r} must hold {word!r} once and known words"
            )
    if len(ex["axes"]) != 2 or not 0 < float(ex["margin"]) < top:
        raise WidgetOptionError(f"example {key!r}: two axes and a margin inside the plot")
    return {**ex, "vectors": vectors}


def _attend(toy: dict[str, Any], sentence: list[str]) -> tuple[Any, int]:
    x = [toy["vectors"][w] for w in sentence]
    return self_attention_steps(x, EYE, EYE, EYE), sentence.index(toy["word"])


def _side(toy: dict[str, Any], point: NDArray[np.float64]) -> str:
    gap = float(point[0]) - float(point[1])
    if abs(gap) < float(toy["margin"]):
        return "line"
    return "water" if gap > 0 else "money"


def _label(sentence: list[str]) -> str:
    return " ".join(sentence)


def golden(opts: dict[str, Any], ctx: WidgetContext) -> Golden:
    """selfAttention (identity matrices, unscaled) on every preset's sentence, on "bank" alone
    with each word, on every word at once, and on a mixed pair in both orders."""
    toy = _toy(opts)
    word, words = toy["word"], [w["word"] for w in toy["words"]]
    sentences = [p["sentence"] for p in toy["presets"]]
    sentences += [[w, word] for w in words]
    sentences += [[*words, word], [word, words[0], words[3]], [words[3], word, words[0]]]
    g = Golden(MODULE)
    for s in sentences:
        st, _ = _attend(toy, s)
        x = [toy["vectors"][w] for w in s]
        g.case(
            "selfAttention", x, EYE, EYE, EYE, False,
            out={"q": st.q, "k": st.k, "v": st.v, "scores": st.scores, "scale": st.scale,
                 "weights": st.weights, "output": st.output},
        )  # fmt: skip
    return g


# ---------------------------------------------------------------- the real model


def _real(opts: dict[str, Any]) -> tuple[list[dict[str, Any]], Any]:
    ex, key = opts["real"], opts["real_key"]
    sentences = ex["sentences"]
    senses = {s["sense"] for s in sentences}
    if len(sentences) < 4 or len(senses) != 2:
        raise WidgetOptionError(f"example {key!r}: at least four sentences, in two senses")
    try:
        found = word_senses([s["text"] for s in sentences], ex["word"])
    except ValueError as exc:
        raise WidgetOptionError(f"example {key!r}: {exc}") from exc
    return sentences, found


# ---------------------------------------------------------------- the element


@register(
    NAME,
    scripts=("widgets/bank-by-the-river.js",),
    styles=("widgets/controls.css", "widgets/bank-by-the-river.css"),
    options=(
        option.example(default="bank_toy", needs=TOY_NEEDS),
        option.example("real", default="bank_real", needs=REAL_NEEDS),
    ),
    control="preset",
    golden=golden,
)
def render(opts: dict[str, Any], ctx: WidgetContext) -> str:
    uid = opts["id"]
    toy = _toy(opts)
    sentences, found = _real(opts)
    first = toy["presets"][0]
    state = {
        "axes": list(toy["axes"]),
        "word": toy["word"],
        "vector": [float(c) for c in toy["vector"]],
        "words": [
            {"word": w["word"], "vector": [float(c) for c in w["vector"]], "group": w["group"]}
            for w in toy["words"]
        ],
        "presets": [
            {"id": p["id"], "sentence": list(p["sentence"]), "label": _label(p["sentence"])}
            for p in toy["presets"]
        ],
        "margin": float(toy["margin"]),
        "plot": {"size": SIZE, "pad": PAD, "max": float(toy["plot_max"])},
        "preset": first["id"],
    }
    return kit.element(
        NAME,
        uid,
        state,
        _tabs(uid),
        h(
            "div",
            h("h3", "The toy model", class_="bk-panel-title", nojs=True),
            _toy_panel(uid, toy),
            id=f"{uid}-toy",
            class_="bk-panel",
            target="panel",
            data_tab="toy",
        ),
        h(
            "div",
            h("h3", "The real model", class_="bk-panel-title", nojs=True),
            _real_panel(uid, sentences, found),
            id=f"{uid}-real",
            class_="bk-panel",
            target="panel",
            data_tab="real",
        ),
        h("p", class_="visually-hidden", target="live", role="status"),
        class_="wk bk",
    )


def _tabs(uid: str) -> kit.HTML:
    """The tablist (live only): one Tab stop, the arrow keys move between the tabs."""
    return h(
        "div",
        h("button", "Toy model", type="button", role="tab", id=f"{uid}-tab-toy",
          aria_controls=f"{uid}-toy", aria_selected="true", tabindex="0", target="tab",
          data_tab="toy"),
        h("button", "Real model", type="button", role="tab", id=f"{uid}-tab-real",
          aria_controls=f"{uid}-real", aria_selected="false", tabindex="-1", target="tab",
          data_tab="real"),
        role="tablist",
        aria_label="Bank by the river: two views",
        class_="bk-tabs",
        js=True,
    )  # fmt: skip


def _toy_panel(uid: str, toy: dict[str, Any]) -> kit.HTML:
    first = toy["presets"][0]["sentence"]
    st, i = _attend(toy, first)
    out = st.output[i]
    loan = next((p["sentence"] for p in toy["presets"] if p["id"] == "loan"), None)
    second = None
    if loan is not None:
        st2, j = _attend(toy, loan)
        second = (loan, st2.output[j])
    return kit.join(
        [
            _controls(uid, toy),
            _plane(uid, toy, first, st.weights[i], out, second),
            h(
                "p",
                h("span", toy["word"]), " in “", h("span", _label(first), target="sentence"),
                "” comes out at ", h("b", _vec(out), target="answer"), ", ",
                h("span", SIDES[_side(toy, out)], target="side"), ".",
                class_="bk-answer",
            ),
            _weights_table(uid, toy, first, st.scores[i], st.weights[i]),
            _presets_table(uid, toy),
            h("p", class_="wk-status", target="status", js=True),
        ]
    )  # fmt: skip


def _controls(uid: str, toy: dict[str, Any]) -> kit.HTML:
    options = [h("option", _label(p["sentence"]), value=p["id"]) for p in toy["presets"]]
    options.append(h("option", "your own words (below)", value="own"))
    chosen = set(toy["presets"][0]["sentence"])
    chips = [
        h("button", w["word"], type="button", class_=f"bk-chip bk-chip-{w['group']}",
          aria_pressed="true" if w["word"] in chosen else "false", target="chip",
          data_word=w["word"])
        for w in toy["words"]
    ]  # fmt: skip
    return h(
        "div",
        h(
            "div",
            h("label", "sentence", for_=f"{uid}-preset"),
            h("select", options, id=f"{uid}-preset", target="preset"),
            class_="wk-toolbar bk-preset",
        ),
        h("p", f"Words beside “{toy['word']}” (press to put in or take out):",
          id=f"{uid}-chips-label", class_="bk-chips-label"),
        h("div", chips, role="group", aria_labelledby=f"{uid}-chips-label", class_="bk-chips"),
        class_="bk-controls",
        js=True,
    )  # fmt: skip


def _px(v: float, top: float) -> float:
    return PAD + v / top * (SIZE - 2 * PAD)


def _py(v: float, top: float) -> float:
    return SIZE - _px(v, top)


def _xy(point: Any, top: float) -> tuple[str, str]:
    return f"{_px(float(point[0]), top):.1f}", f"{_py(float(point[1]), top):.1f}"


def _vec(v: Any) -> str:
    return vec(v)


def _plane(
    uid: str, toy: dict[str, Any], sentence: list[str], weights: NDArray[np.float64],
    out: NDArray[np.float64], second: tuple[list[str], NDArray[np.float64]] | None,
) -> kit.HTML:  # fmt: skip
    """The plane: the two sides, every word as a point (those in the sentence dark), a line from
    "bank"'s input to each word of the sentence as thick as its weight, "bank"'s input (a ring)
    and its output (a dot). Without JavaScript a second dot: the output in the second preset."""
    top = float(toy["plot_max"])
    water, money = toy["axes"]
    lo, hi = PAD, SIZE - PAD
    word = toy["word"]
    in_x, in_y = _xy(toy["vector"], top)
    regions = [
        h("polygon", class_="bk-water", points=f"{lo:g},{hi:g} {hi:g},{hi:g} {hi:g},{lo:g}"),
        h("polygon", class_="bk-money", points=f"{lo:g},{hi:g} {lo:g},{lo:g} {hi:g},{lo:g}"),
        h("line", class_="bk-divide", x1=f"{lo:g}", y1=f"{hi:g}", x2=f"{hi:g}", y2=f"{lo:g}"),
        h("text", f"{water} side", class_="bk-region-label", x=f"{hi - 4:g}",
          y=f"{_py(0.45 * top, top):.1f}", text_anchor="end"),
        h("text", f"{money} side", class_="bk-region-label", x=f"{_px(0.6 * top, top):.1f}",
          y=f"{lo + 12:g}", text_anchor="end"),
        h("line", class_="bk-axis", x1=f"{lo:g}", y1=f"{hi:g}", x2=f"{hi:g}", y2=f"{hi:g}"),
        h("line", class_="bk-axis", x1=f"{lo:g}", y1=f"{hi:g}", x2=f"{lo:g}", y2=f"{lo:g}"),
        h("text", f"{water} →", class_="bk-axis-label", x=f"{hi:g}", y=f"{hi + 18:g}",
          text_anchor="end"),
        h("text", f"{money} ↑", class_="bk-axis-label", x=f"{lo - 4:g}", y=f"{lo - 10:g}"),
    ]  # fmt: skip
    in_sentence = set(sentence)
    weight_of = dict(zip(sentence, weights, strict=True))
    beams, dots, labels = [], [], []
    placed: dict[tuple[float, float], list[str]] = {}
    for w in toy["words"]:
        vx, vy = (float(c) for c in w["vector"])
        placed.setdefault((vx, vy), []).append(w["word"])
    for w in toy["words"]:
        x, y = _xy(w["vector"], top)
        on = w["word"] in in_sentence
        wt = float(weight_of.get(w["word"], 0.0))
        beams.append(
            h("line", class_="bk-beam", target="beam", data_word=w["word"], x1=in_x, y1=in_y,
              x2=x, y2=y, stroke_width=f"{1 + 8 * wt:.2f}", visibility=None if on else "hidden")
        )  # fmt: skip
        dots.append(
            h("circle", class_="bk-word bk-on" if on else "bk-word", target="word-dot",
              data_word=w["word"], cx=x, cy=y, r="5")
        )  # fmt: skip
    for point, names in placed.items():
        px, py = _px(point[0], top), _py(point[1], top)
        below = point[1] > point[0]  # money words: label to the right; water words: above
        lx, ly, anchor = (px + 9, py + 4, "start") if below else (px, py - 10, "middle")
        if point[0] == point[1]:
            lx, ly, anchor = px - 8, py + 16, "start"
        labels.append(
            h("text", ", ".join(names), class_="bk-word-label", x=f"{lx:.1f}", y=f"{ly:.1f}",
              text_anchor=anchor)
        )  # fmt: skip
    out_x, out_y = _xy(out, top)
    marks = [
        h("circle", class_="bk-in", cx=in_x, cy=in_y, r="8"),
        h("text", f"{word} in", class_="bk-in-label", x=f"{float(in_x) - 12:.1f}",
          y=f"{float(in_y) + 4:.1f}", text_anchor="end"),
        h("line", class_="bk-move", target="move", x1=in_x, y1=in_y, x2=out_x, y2=out_y),
        h(
            "g",
            h("g", h("circle", class_="bk-out", r="8"),
              h("text", f"{word} out", class_="bk-out-label", x="0", y="-13",
                text_anchor="middle"),
              target="out-inner"),
            target="out", transform=f"translate({out_x} {out_y})",
        ),
    ]  # fmt: skip
    desc_words = "; ".join(f"{w['word']} at {vec(w['vector'], plain)}" for w in toy["words"])
    desc = (
        f"Across: how much a word is about {water}; up: how much about {money}. The line from "
        f"corner to corner splits the {water} side (below it) from the {money} side (above). "
        f"Words: {desc_words}. {word} goes in at {vec(toy['vector'], plain)}, "
        f"on the line. In “{_label(sentence)}” it comes out at {_vec(out)}, "
        f"{SIDES[_side(toy, out)]}."
    )
    extra: list[kit.HTML] = []
    caption_more = ""
    if second is not None:
        s2, o2 = second
        x2, y2 = _xy(o2, top)
        extra = [
            h("line", class_="bk-move bk-second", x1=in_x, y1=in_y, x2=x2, y2=y2, nojs=True),
            h("circle", class_="bk-out bk-second", cx=x2, cy=y2, r="8", nojs=True),
            h("text", f"{word} out in “{_label(s2)}”", class_="bk-out-label bk-second",
              x=f"{float(x2) + 11:.1f}", y=f"{float(y2) + 4:.1f}", nojs=True),
        ]  # fmt: skip
        desc += f" In “{_label(s2)}” it comes out at {_vec(o2)}, {SIDES[_side(toy, o2)]}."
        caption_more = (
            f" Without JavaScript both outputs show: in “{_label(sentence)}” and in “{_label(s2)}”."
        )
    return kit.figure(
        regions,
        beams,
        dots,
        labels,
        marks,
        extra,
        uid=f"{uid}-plane",
        title=f"{word} on the plane of {water} and {money}",
        desc=desc,
        caption=kit.join(
            [
                f"The ring is “{word}” going in, the same in every sentence; the dot is "
                f"“{word}” coming out of self-attention. Each line from the ring is as thick as "
                "that word's weight.",
                h("span", caption_more, nojs=True) if caption_more else None,
            ]
        ),
        viewbox=f"0 0 {SIZE:g} {SIZE:g}",
        svg_class="bk-plane",
        class_="bk-figure",
        target="plane",
    )


def _weights_table(
    uid: str, toy: dict[str, Any], sentence: list[str], scores: NDArray[np.float64],
    weights: NDArray[np.float64],
) -> kit.HTML:  # fmt: skip
    """ "bank"'s row: one line per word it may meet (those not in the sentence hidden)."""
    word = toy["word"]
    score_of = dict(zip(sentence, scores, strict=True))
    weight_of = dict(zip(sentence, weights, strict=True))
    rows, attrs = [], []
    for w in [word, *(x["word"] for x in toy["words"])]:
        on = w in score_of
        s, wt = float(score_of.get(w, 0.0)), float(weight_of.get(w, 0.0))
        v = toy["vectors"][w]
        rows.append(
            (
                w,
                [
                    _vec_plain(v),
                    kit.cell(dec(s, 2), target="score"),
                    kit.cell(kit.join([parts.bar(wt), h("span", dec(wt), target="weight")]),
                             class_="bk-weight"),
                ],
            )
        )  # fmt: skip
        attrs.append({"target": "row", "data_word": w, "hidden": None if on else True})
    return parts.scroll_box(
        kit.table(
            caption=kit.join(
                [
                    f"“{word}” asks every word of “",
                    h("span", _label(sentence), target="table-sentence"),
                    f"”: its score with each (the dot product with “{word}”) and its weight "
                    "after softmax. The weights add up to 1.",
                ]
            ),
            columns=["word", "vector", "score", "weight"],
            rows=rows,
            row_attrs=attrs,
            class_="wk-table bk-table",
            id=f"{uid}-weights",
        ),
        f"the weights of “{word}”, as a table",
    )


def _vec_plain(v: Any) -> str:
    return vec(v, plain)


def _presets_table(uid: str, toy: dict[str, Any]) -> kit.HTML:
    """Without JavaScript: every preset sentence and where "bank" comes out."""
    rows = []
    for p in toy["presets"]:
        st, i = _attend(toy, p["sentence"])
        out = st.output[i]
        rows.append(
            (f"“{_label(p['sentence'])}”", [kit.join([_vec(out), h("br"),
                                                       SHORT[_side(toy, out)]])])
        )  # fmt: skip
    return parts.scroll_box(
        kit.table(
            caption=f"Where “{toy['word']}” comes out in each sentence of the widget.",
            columns=["sentence", f"“{toy['word']}” comes out at"],
            rows=rows,
            class_="wk-table bk-table bk-presets",
            id=f"{uid}-presets",
        ),
        "every sentence, as a table",
        nojs=True,
    )


def _band(c: float) -> str:
    return f"bk-h{sum(c >= b for b in BANDS)}"


def _real_panel(uid: str, sentences: list[dict[str, Any]], found: Any) -> kit.HTML:
    word = found.word
    ids = [s["id"] for s in sentences]
    senses = [s["sense"] for s in sentences]
    listing = h(
        "ol",
        [
            h("li", h("b", s["id"]), f" ({s['sense']}): ", s["text"], data_sense=s["sense"])
            for s in sentences
        ],
        class_="bk-sentences",
    )
    matrices = {"input": found.input_cosines, "raw": found.raw, "centred": found.centred}
    about = {
        "input": f"“{word}” at the input (layer 0: its embedding plus its position), before any "
        "attention.",
        "raw": f"“{word}” at the last layer, raw cosines.",
        "centred": f"“{word}” at the last layer, centred: the mean of every token vector of the "
        "six sentences subtracted first.",
    }
    tables = []
    for view, label in VIEWS:
        c = matrices[view]
        same, across = group_means(c, senses)
        rows = []
        for i, row_id in enumerate(ids):
            cells = [
                kit.cell(dec(float(c[i, j]), 2),
                         class_=f"{_band(float(c[i, j]))}"
                                f"{' bk-same' if senses[i] == senses[j] else ''}")
                for j in range(len(ids))
            ]  # fmt: skip
            rows.append((h("abbr", row_id, title=sentences[i]["text"]), cells))
        tables.append(
            h(
                "div",
                parts.scroll_box(
                    kit.table(
                        caption=f"{label.capitalize()}: cosine of “{word}” in each pair of "
                        f"sentences, to two decimals. {about[view]}",
                        columns=["sentence", *ids],
                        rows=rows,
                        class_="wk-table bk-cos",
                        id=f"{uid}-{view}",
                    ),
                    f"cosines, {label}, as a table",
                ),
                h("p", "Mean over pairs of the same sense: ", h("b", dec(same)),
                  "; of different senses: ", h("b", dec(across)), ".", class_="bk-means"),
                class_="bk-view",
                target="view",
                data_view=view,
            )
        )  # fmt: skip
    choose = h(
        "fieldset",
        h("legend", "Show the cosines of"),
        [
            h("label",
              h("input", type="radio", name=f"{uid}-view", value=view, target="pick",
                checked=view == VIEWS[0][0]),
              h("span", label), class_="bk-radio")
            for view, label in VIEWS
        ],
        class_="bk-pick",
        js=True,
    )  # fmt: skip
    return kit.join(
        [
            h("p", f"“{word}” in six sentences, run through all-MiniLM-L6-v2 (6 layers, width "
              f"{found.outputs.shape[1]}) by the course's own engine. A cosine of 1 means the two "
              "vectors point the same way.", class_="bk-note"),
            listing,
            choose,
            tables,
        ]
    )  # fmt: skip
