"""Widget 1 of Unit 18, "Translate with a look back" (SPEC §1), rendered on the server.

    :::{widget} translate-lookback
    :id: w1
    :example: lookback        (optional: a key of figures.EXAMPLES; default "lookback")
    :select: 1                (optional: the Hindi word selected at first, 1-based; default 1)
    :::

The <translate-lookback> element wraps a fallback that works without JavaScript: a static SVG of
the whole alignment (every beam, strength = weight) with <title>/<desc>, and the alignment map as
a table of the engine's numbers. The controls (▶ translate, the Hindi word buttons, the "how sure"
slider, the "no attention" switch), the live stage and the no-attention table of contexts are in
the markup as data-js parts (hidden until static/widgets/translate-lookback.js upgrades the
element), so a reader without JavaScript never meets a control that does nothing. The state,
computed by mathmachine.engine, is the element's data-state JSON. The map is the kit's shaded
table (parts.matrix_table with the palette's classes wk-h0 … wk-h10); the script reshades a row
with heatmap.js's shadeCell when its weights change.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from mathmachine.engine import alignment_map, context_vector
from mathmachine.printing import dec, plain, vec

from . import Golden, WidgetContext, WidgetOptionError, kit, option, parts, register
from ._golden import MATH_MODULE, PRINTING_MODULE

NAME = "translate-lookback"
SURE_STEP = 0.1
# The "how sure" values the golden vectors are taken at (the slider runs min..max in 0.1 steps).
SURE_VALUES = (0.0, 0.5, 1.0, 2.0, 3.0)
NEEDS = ("english", "hindi", "notes", "states", "sure_min", "sure_max", "sure_default")

h = kit.h


def _hi(word: dict[str, str], *, gloss: bool = False) -> kit.HTML:
    return kit.hi(word["word"], word["translit"], word.get("gloss", "") if gloss else "")


def _arrays(key: str, ex: dict[str, Any]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    try:
        notes = np.asarray(ex["notes"], dtype=np.float64)  # [n_in, d]
        states = np.asarray(ex["states"], dtype=np.float64)  # [n_out, d]
    except (TypeError, ValueError) as exc:
        raise WidgetOptionError(f"example {key!r}: notes and states must be numbers") from exc
    if notes.ndim != 2 or states.ndim != 2 or notes.shape[1] != states.shape[1]:
        raise WidgetOptionError(
            f"example {key!r}: notes {notes.shape} and states {states.shape} must be "
            "[n_in, d] and [n_out, d] with the same d"
        )
    if len(ex["english"]) != notes.shape[0] or len(ex["hindi"]) != states.shape[0]:
        raise WidgetOptionError(
            f"example {key!r}: {len(ex['english'])} English words for {notes.shape[0]} notes, "
            f"{len(ex['hindi'])} Hindi words for {states.shape[0]} decoder states"
        )
    if not (np.all(np.isfinite(notes)) and np.all(np.isfinite(states))):
        raise WidgetOptionError(f"example {key!r}: notes and states must be finite")
    if any(not {"word", "translit"} <= set(w) for w in ex["hindi"]):
        raise WidgetOptionError(f"example {key!r}: every Hindi word needs word and translit")
    if not ex["sure_min"] <= ex["sure_default"] <= ex["sure_max"] or ex["sure_min"] < 0:
        raise WidgetOptionError(f"example {key!r}: need 0 <= sure_min <= sure_default <= sure_max")
    return notes, states


def _inputs(
    opts: dict[str, Any],
) -> tuple[dict[str, Any], NDArray[np.float64], NDArray[np.float64]]:
    ex = opts["example"]
    notes, states = _arrays(opts["example_key"], ex)
    if opts["select"] > states.shape[0]:
        raise WidgetOptionError(
            f":select: must be a word number from 1 to {states.shape[0]}, got {opts['select']}"
        )
    return ex, notes, states


def golden(opts: dict[str, Any], ctx: WidgetContext) -> list[Golden]:
    """What the element recomputes with math.js on every input, for this use's example: for each
    word t and "how sure" s, q = s·q_t, its weights, its context, and (printing.js) the weights as
    printed; the map at the default; the no-attention summary is the last note as given."""
    ex, notes, states = _inputs(opts)
    g = Golden(MATH_MODULE)
    p = Golden(PRINTING_MODULE)
    for state in states:
        for s in SURE_VALUES:
            q = g.case("scale", state, s, out=s * state)  # [d]
            weights = g.case("alignmentRow", q, notes, out=alignment_map(q[None, :], notes)[0])
            g.case("context", weights, notes, out=context_vector(weights, notes))
            for w in weights:
                p.case("dec", w, 3, out=dec(w))
    default = float(ex["sure_default"])
    g.case("alignmentMap", default * states, notes, out=alignment_map(default * states, notes))
    return [g, p]


@register(
    NAME,
    scripts=("widgets/translate-lookback.js",),
    styles=("widgets/plots.css", "widgets/translate-lookback.css"),
    options=(
        option.example(default="lookback", needs=NEEDS),
        option.integer("select", default=1, minimum=1),
    ),
    control="sure",
    golden=golden,
)
def render(opts: dict[str, Any], ctx: WidgetContext) -> str:
    """The element, its no-JS fallback and its engine-computed state (see the module docstring)."""
    uid = opts["id"]
    ex, notes, states = _inputs(opts)
    selected = opts["select"] - 1
    sure = float(ex["sure_default"])
    amap = alignment_map(sure * states, notes)  # [n_out, n_in], each row sums to 1
    contexts = context_vector(amap, notes)  # [n_out, d]
    state = {
        "english": list(ex["english"]),
        "hindi": [
            {"word": w["word"], "translit": w["translit"], "gloss": w.get("gloss", "")}
            for w in ex["hindi"]
        ],
        "notes": notes.tolist(),
        "states": states.tolist(),
        "sure": {
            "min": float(ex["sure_min"]),
            "max": float(ex["sure_max"]),
            "step": SURE_STEP,
            "default": sure,
        },
        "selected": selected,
        "map": amap.tolist(),
        "contexts": contexts.tolist(),
        "summary": notes[-1].tolist(),
    }
    return kit.element(
        NAME,
        uid,
        state,
        _toolbar(uid),
        _figure(uid, ex, amap),
        _stage(uid, ex, selected),
        _controls(uid, ex, selected, sure),
        _summary_note(ex),
        _map(uid, ex, amap),
        _summary_table(uid, ex),
        kit.status(class_="tl-status"),
        class_="tl",
    )


def _toolbar(uid: str) -> kit.HTML:
    return h(
        "div",
        h("button", h("span", "▶ ", aria_hidden="true"), "translate", type="button",
          class_="tl-play", target="play"),
        h(
            "label",
            h("input", type="checkbox", role="switch", id=f"{uid}-noattn", target="noattn"),
            h("span", "no attention (Unit 17)"),
            class_="tl-switch",
        ),
        class_="tl-toolbar",
        js=True,
    )  # fmt: skip


def _figure(uid: str, ex: dict[str, Any], amap: NDArray[np.floating[Any]]) -> kit.HTML:
    """Static SVG: English notes on top, Hindi words below, one line per (word, note)."""
    n_out, n_in = amap.shape
    width, top, bottom = 320.0, 40.0, 142.0
    xe = [width * (j + 0.5) / n_in for j in range(n_in)]
    xh = [width * (i + 0.5) / n_out for i in range(n_out)]
    english = " ".join(ex["english"])
    hindi = " ".join(w["translit"] for w in ex["hindi"])
    strongest = []
    for i, w in enumerate(ex["hindi"]):
        row = amap[i]
        best = [j for j in np.argsort(-row) if row[j] >= 0.3]
        looks = " and ".join(f"{ex['english'][j]} ({dec(row[j])})" for j in best)
        strongest.append(f"{w['translit']} looks at {looks}")
    desc = (
        "Lines join each Hindi word below to each English note above; the thicker and darker "
        f"a line, the larger its attention weight. {'; '.join(strongest)}. The bright lines bend "
        "instead of running straight down. The table below gives every weight."
    )
    beams = [
        h(
            "line",
            class_="tl-fig-beam",
            x1=f"{xe[j]:.1f}",
            y1=f"{top:g}",
            x2=f"{xh[i]:.1f}",
            y2=f"{bottom:g}",
            stroke_width=f"{1 + 9 * amap[i, j]:.2f}",
            stroke_opacity=f"{0.12 + 0.88 * amap[i, j]:.3f}",
        )
        for i in range(n_out)
        for j in range(n_in)
    ]
    labels = [
        h("text", word, class_="tl-fig-en", x=f"{xe[j]:.1f}", y="26", text_anchor="middle")
        for j, word in enumerate(ex["english"])
    ]
    for i, w in enumerate(ex["hindi"]):
        x = f"{xh[i]:.1f}"
        labels.append(
            h("text", w["word"], class_="tl-fig-hi", x=x, y="166", text_anchor="middle", lang="hi")
        )
        labels.append(
            h("text", w["translit"], class_="tl-fig-tr", x=x, y="184", text_anchor="middle")
        )
    return kit.figure(
        beams,
        labels,
        uid=f"{uid}-fig",
        title=f"Alignment of “{english}” with the Hindi “{hindi}”",
        desc=desc,
        caption="The alignment bends: Hindi puts the verb last, so the strong lines cross "
        "instead of running straight down.",
        viewbox=f"0 0 {width:g} 190",
        svg_class="tl-figure-svg",
        class_="tl-figure",
        nojs=True,
    )


def _stage(uid: str, ex: dict[str, Any], selected: int) -> kit.HTML:
    """The live stage: the notes, beams from the selected word (with their shares), the words."""
    n_in = len(ex["english"])
    notes = [
        h(
            "li",
            h("span", word, class_="tl-en"),
            h("span", "h", h("sub", word), class_="tl-h"),
            h("span", "summary", class_="tl-badge", target="summary-badge", hidden=True)
            if j == n_in - 1
            else None,
            class_="tl-note",
        )
        for j, word in enumerate(ex["english"])
    ]
    lines = [
        h("line", class_="tl-beam", target="beam", x1="0", y1="0", x2="0", y2="100",
          vector_effect="non-scaling-stroke")
        for _ in range(n_in)
    ]  # fmt: skip
    # Each beam's share, named by its note for a screen reader ("tea: 0.736").
    shares = [
        h(
            "li",
            h("span", f"{word}: ", class_="visually-hidden"),
            h("span", target="beam-share"),
            class_="tl-beam-label",
            target="beam-label",
        )
        for word in ex["english"]
    ]
    words = [
        h(
            "button",
            h("span", w["word"], class_="tl-word-hi", lang="hi"),
            h("span", w["translit"], class_="tl-word-tr"),
            type="button",
            class_="tl-word",
            target="word",
            aria_pressed="true" if i == selected else "false",
        )
        for i, w in enumerate(ex["hindi"])
    ]
    return h(
        "div",
        h("p", "notes the encoder wrote (English)", class_="tl-rowlabel", id=f"{uid}-notes-label"),
        h("ol", notes, class_="tl-notes", aria_labelledby=f"{uid}-notes-label"),
        h(
            "div",
            h(
                "div",
                h("svg", lines, class_="tl-beams-svg", viewBox="0 0 100 100",
                  preserveAspectRatio="none", aria_hidden="true", focusable="false"),
                h("ul", shares, class_="tl-beam-labels", target="beam-list",
                  aria_labelledby=f"{uid}-beams-label"),
                class_="tl-beams",
                target="beams",
            ),
            h("p", "shares of attention, from the word being written", class_="visually-hidden",
              id=f"{uid}-beams-label"),
            h("p", h("span", "no look back: every word gets h", h("sub", ex["english"][-1])),
              class_="tl-gap-off", target="beams-off", hidden=True),
            class_="tl-gap",
        ),
        h("div", words, class_="tl-words", role="group", aria_labelledby=f"{uid}-words-label"),
        h("p", "word being written ", h("span", "(pick one)", class_="tl-hint"),
          class_="tl-rowlabel", id=f"{uid}-words-label"),
        class_="tl-stage",
        js=True,
    )  # fmt: skip


def _controls(uid: str, ex: dict[str, Any], selected: int, sure: float) -> kit.HTML:
    word = ex["hindi"][selected]
    d = len(ex["notes"][0])
    numbers = kit.join(
        [", " if k else None, h("span", class_="tl-num", target="c")] for k in range(d)
    )
    return kit.join(
        [
            h(
                "div",
                h("label", "how sure", class_="tl-sure-label", for_=f"{uid}-sure"),
                h("input", type="range", id=f"{uid}-sure", target="sure",
                  min=f"{ex['sure_min']:g}", max=f"{ex['sure_max']:g}", step=f"{SURE_STEP:g}",
                  value=f"{sure:g}", aria_describedby=f"{uid}-sure-help"),
                h("output", dec(sure, 1), class_="tl-sure-value", for_=f"{uid}-sure",
                  target="sure-value"),
                h("p", "multiplies the decoder state ", h("b", "q"), " of ",
                  h("span", _hi(word), target="sure-word"),
                  class_="tl-help", id=f"{uid}-sure-help", target="sure-help"),
                class_="tl-sure",
                js=True,
            ),
            h(
                "p",
                h("span", "context vector for ", h("span", _hi(word), target="context-word"),
                  target="context-label"),
                ": ", h("b", "c"), " = (", h("span", numbers, class_="tl-ctx-numbers"), ")",
                class_="tl-context",
                target="context",
                js=True,
            ),
        ]
    )  # fmt: skip


def _summary_note(ex: dict[str, Any]) -> kit.HTML:
    last = ex["english"][-1]
    d = len(ex["notes"][-1])
    last_note = vec(ex["notes"][-1], plain)
    return h(
        "p",
        "No attention, as in Unit 17: the decoder is handed only the last note, ",
        h("span", "h", h("sub", last)),
        f" = {last_note}, as the summary of the whole sentence. Every Hindi word is written from "
        f"that same summary of {d} numbers, so there are no weights to show: no beams, no map. "
        "The table shows what each word is handed.",
        class_="tl-noattn-note",
        target="noattn-note",
        hidden=True,
    )


def _map(uid: str, ex: dict[str, Any], amap: NDArray[np.floating[Any]]) -> kit.HTML:
    """The alignment map: the kit's heat map in table form (each share shaded on its palette)."""
    english = " ".join(ex["english"])
    return h(
        "div",
        parts.matrix_table(
            amap,
            rows=[_hi(w, gloss=True) for w in ex["hindi"]],
            cols=ex["english"],
            corner="written",
            caption=f"Alignment map for “{english}”: one row for each Hindi word written, one "
            "column for each English note; each number is the share of attention (every row "
            "adds up to 1).",
            shade=parts.WEIGHTS,
            row_attrs=[{"target": "row"} for _ in ex["hindi"]],
            class_="tl-map",
            id=f"{uid}-map",
        ),
        class_="tl-map-wrap",
        target="map",
    )


def _summary_table(uid: str, ex: dict[str, Any]) -> kit.HTML:
    """What each word is handed without attention: the same last note in every row (the cost)."""
    last = ex["english"][-1]
    summary = ex["notes"][-1]
    d = len(summary)
    return h(
        "div",
        kit.table(
            caption=kit.join(
                [
                    "Without attention: the vector each Hindi word is written from. Every row is "
                    "the same summary, the last note ",
                    h("span", "h", h("sub", last)),
                    ", whichever word is being written.",
                ]
            ),
            columns=["written", *[kit.join(["c", h("sub", k + 1)]) for k in range(d)]],
            rows=[(_hi(w), [dec(v) for v in summary]) for w in ex["hindi"]],
            row_attrs=[{"target": "summary-row"} for _ in ex["hindi"]],
            class_="tl-map tl-summary-map",
            id=f"{uid}-summary",
        ),
        class_="tl-map-wrap",
        target="summary-map",
        hidden=True,
    )
