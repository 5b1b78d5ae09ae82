"""Widget 1 of Unit 18, "Translate with a look back" (SPEC §1), rendered on the server.

    :::{widget} translate-lookback
    :id: lookback
    :example: lookback        (optional: a key of figures.EXAMPLES; default "lookback")
    :select: 1                (optional: the Hindi word selected at first, 1-based; default 1)
    :::

The output is a <translate-lookback> element around a fallback that works without JavaScript:
a static SVG of the whole alignment (every beam, strength = weight) with <title>/<desc>, and the
alignment map as a table of the engine's numbers. The controls (▶ translate, the Hindi word
buttons, the "how sure" slider, the "no attention" switch) and the live stage are in the markup
with the `hidden` attribute; static/widgets/translate-lookback.js removes it when it upgrades the
element, so a reader without JavaScript never meets a control that does nothing. The initial
state, computed by mathmachine.engine, is a child <script type="application/json">.

Nothing here sets an inline style or an event handler attribute (the site's CSP forbids both):
the map's shading uses classes tl-w0 … tl-w10 (weight in tenths); the script refines it.
"""

from __future__ import annotations

import json
import re
from html import escape
from typing import Any

import numpy as np
from numpy.typing import NDArray

from mathmachine.engine import alignment_map, context_vector

from . import RenderedWidget, WidgetContext, WidgetOptionError, register

NAME = "translate-lookback"
SCRIPTS = ("widgets/translate-lookback.js",)
OPTIONS = frozenset({"id", "example", "select"})
SURE_STEP = 0.1
_ID = re.compile(r"[A-Za-z][\w-]*\Z")


def _e(text: object) -> str:
    return escape(str(text), quote=True)


def _num(x: float) -> str:
    """A weight as the page prints it (3 places, never "-0.000")."""
    s = f"{x:.3f}"
    return "0.000" if s == "-0.000" else s


def _shade(w: float) -> str:
    return f"tl-w{round(min(max(w, 0.0), 1.0) * 10)}"


def _hi(word: dict[str, str], *, gloss: bool = False) -> str:
    """Devanagari with lang="hi", then its transliteration (and optionally its English gloss)."""
    extra = f", “{_e(word['gloss'])}”" if gloss and word.get("gloss") else ""
    return (
        f'<span lang="hi">{_e(word["word"])}</span> '
        f'<i class="translit">({_e(word["translit"])}{extra})</i>'
    )


def _script_json(data: object) -> str:
    """JSON safe inside <script>: no "</script>", no "<!--", no U+2028/2029 surprises."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    for char, esc in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026")):
        text = text.replace(char, esc)
    return text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def _example(options: dict[str, str], ctx: WidgetContext) -> tuple[str, dict[str, Any]]:
    key = options.get("example", "lookback").strip()
    if key not in ctx.examples:
        known = ", ".join(sorted(ctx.examples)) or "none"
        raise WidgetOptionError(f"unknown example {key!r} (figures.EXAMPLES has: {known})")
    ex = ctx.examples[key]
    need = ("english", "hindi", "notes", "states", "sure_min", "sure_max", "sure_default")
    missing = [k for k in need if k not in ex]
    if missing:
        raise WidgetOptionError(f"example {key!r} lacks {', '.join(missing)}")
    return key, ex


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
    if any(not {"word", "translit"} <= set(h) for h in ex["hindi"]):
        raise WidgetOptionError(f"example {key!r}: every Hindi word needs word and translit")
    if not ex["sure_min"] <= ex["sure_default"] <= ex["sure_max"] or ex["sure_min"] < 0:
        raise WidgetOptionError(f"example {key!r}: need 0 <= sure_min <= sure_default <= sure_max")
    return notes, states


def _select(options: dict[str, str], n_out: int) -> int:
    raw = options.get("select", "1").strip()
    if not raw.isdigit() or not 1 <= int(raw) <= n_out:
        raise WidgetOptionError(f":select: must be a word number from 1 to {n_out}, got {raw!r}")
    return int(raw) - 1


@register(NAME)
def render(options: dict[str, str], ctx: WidgetContext) -> RenderedWidget:
    """The element, its no-JS fallback and its engine-computed state (see the module docstring)."""
    unknown = sorted(set(options) - OPTIONS)
    if unknown:
        raise WidgetOptionError(
            f"unknown option(s) {', '.join(unknown)} (known: {', '.join(sorted(OPTIONS))})"
        )
    uid = (options.get("id") or ctx.id or NAME).strip()
    if not _ID.match(uid):
        raise WidgetOptionError(f":id: {uid!r} must be letters, digits, '-' or '_'")
    key, ex = _example(options, ctx)
    notes, states = _arrays(key, ex)
    selected = _select(options, states.shape[0])
    sure = float(ex["sure_default"])
    amap = alignment_map(sure * states, notes)  # [n_out, n_in], each row sums to 1
    contexts = context_vector(amap, notes)  # [n_out, d]

    state = {
        "english": list(ex["english"]),
        "hindi": [
            {"word": h["word"], "translit": h["translit"], "gloss": h.get("gloss", "")}
            for h in ex["hindi"]
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
    html = "".join(
        [
            f'<translate-lookback id="{_e(uid)}" class="tl">',
            f'<script type="application/json" class="tl-state">{_script_json(state)}</script>',
            _toolbar(uid),
            _figure(uid, ex, amap),
            _stage(uid, ex, selected),
            _controls(uid, ex, selected, sure),
            _summary_note(uid, ex),
            _table(uid, ex, amap),
            '<p class="tl-status" role="status" aria-live="polite">'
            '<span class="tl-status-word" lang="hi"></span><span class="tl-status-text"></span>'
            "</p>",
            "</translate-lookback>",
        ]
    )
    return RenderedWidget(html=html, scripts=SCRIPTS)


def _toolbar(uid: str) -> str:
    return (
        '<div class="tl-toolbar" data-tl-js hidden>'
        '<button type="button" class="tl-play" data-tl="play">'
        '<span aria-hidden="true">▶ </span>translate</button>'
        '<label class="tl-switch">'
        f'<input type="checkbox" role="switch" id="{uid}-noattn" data-tl="noattn">'
        "<span>no attention (Unit 17)</span></label>"
        "</div>"
    )


def _figure(uid: str, ex: dict[str, Any], amap: NDArray[np.float64]) -> str:
    """Static SVG: English notes on top, Hindi words below, one line per (word, note)."""
    n_out, n_in = amap.shape
    width, top, bottom = 320.0, 40.0, 142.0
    xe = [width * (j + 0.5) / n_in for j in range(n_in)]
    xh = [width * (i + 0.5) / n_out for i in range(n_out)]
    english = " ".join(ex["english"])
    # Title and description in Latin letters (transliteration): an accessible name cannot mark
    # a part of itself as Hindi, and the visible Devanagari <text> carries lang="hi".
    hindi = " ".join(h["translit"] for h in ex["hindi"])
    strongest = []
    for i, h in enumerate(ex["hindi"]):
        row = amap[i]
        best = [j for j in np.argsort(-row) if row[j] >= 0.3]
        looks = " and ".join(f"{ex['english'][j]} ({_num(row[j])})" for j in best)
        strongest.append(f"{h['translit']} looks at {looks}")
    desc = (
        f"Lines join each Hindi word below to each English note above; the thicker and darker "
        f"a line, the larger its attention weight. {'; '.join(strongest)}. The bright lines bend "
        "instead of running straight down. The table below gives every weight."
    )
    parts = [
        f'<figure class="tl-figure" data-tl="figure">'
        f'<svg class="tl-figure-svg" viewBox="0 0 {width:g} 190" role="img" '
        f'aria-labelledby="{uid}-fig-title {uid}-fig-desc">'
        f'<title id="{uid}-fig-title">'
        f"Alignment of “{_e(english)}” with the Hindi “{_e(hindi)}”</title>"
        f'<desc id="{uid}-fig-desc">{_e(desc)}</desc>'
    ]
    for i in range(n_out):
        for j in range(n_in):
            w = float(amap[i, j])
            parts.append(
                f'<line class="tl-fig-beam" x1="{xe[j]:.1f}" y1="{top:g}" x2="{xh[i]:.1f}" '
                f'y2="{bottom:g}" stroke-width="{1 + 9 * w:.2f}" '
                f'stroke-opacity="{0.12 + 0.88 * w:.3f}"/>'
            )
    for j, word in enumerate(ex["english"]):
        parts.append(
            f'<text class="tl-fig-en" x="{xe[j]:.1f}" y="26" text-anchor="middle">{_e(word)}</text>'
        )
    for i, h in enumerate(ex["hindi"]):
        parts.append(
            f'<text class="tl-fig-hi" x="{xh[i]:.1f}" y="166" text-anchor="middle" lang="hi">'
            f"{_e(h['word'])}</text>"
            f'<text class="tl-fig-tr" x="{xh[i]:.1f}" y="184" text-anchor="middle">'
            f"{_e(h['translit'])}</text>"
        )
    parts.append(
        "</svg><figcaption>The alignment bends: Hindi puts the verb last, so the strong lines "
        "cross instead of running straight down.</figcaption></figure>"
    )
    return "".join(parts)


def _stage(uid: str, ex: dict[str, Any], selected: int) -> str:
    """The live stage (shown by the script): notes, beams from the selected word, word buttons."""
    n_in = len(ex["english"])
    last = n_in - 1
    notes = "".join(
        f'<li class="tl-note">'
        f'<span class="tl-en">{_e(word)}</span>'
        f'<span class="tl-h">h<sub>{_e(word)}</sub></span>'
        + (
            '<span class="tl-badge" data-tl="summary-badge" hidden>summary</span>'
            if j == last
            else ""
        )
        + "</li>"
        for j, word in enumerate(ex["english"])
    )
    beams = "".join(
        '<line class="tl-beam" data-tl-beam x1="0" y1="0" x2="0" y2="100" '
        'vector-effect="non-scaling-stroke"/>'
        for _ in range(n_in)
    )
    labels = "".join('<span class="tl-beam-label" data-tl-beam-label></span>' for _ in range(n_in))
    words = "".join(
        f'<button type="button" class="tl-word" data-tl-word="{i}" '
        f'aria-pressed="{"true" if i == selected else "false"}">'
        f'<span class="tl-word-hi" lang="hi">{_e(h["word"])}</span>'
        f'<span class="tl-word-tr">{_e(h["translit"])}</span></button>'
        for i, h in enumerate(ex["hindi"])
    )
    return (
        '<div class="tl-stage" data-tl-js hidden>'
        f'<p class="tl-rowlabel" id="{uid}-notes-label">notes the encoder wrote (English)</p>'
        f'<ol class="tl-notes" aria-labelledby="{uid}-notes-label">{notes}</ol>'
        '<div class="tl-gap">'
        '<div class="tl-beams" data-tl="beams">'
        f'<svg class="tl-beams-svg" viewBox="0 0 100 100" preserveAspectRatio="none" '
        f'aria-hidden="true" focusable="false">{beams}</svg>{labels}</div>'
        '<p class="tl-gap-off" data-tl="beams-off" hidden>no look back: every word gets '
        f"h<sub>{_e(ex['english'][-1])}</sub></p>"
        "</div>"
        f'<div class="tl-words" role="group" aria-labelledby="{uid}-words-label">{words}</div>'
        f'<p class="tl-rowlabel" id="{uid}-words-label">word being written '
        '<span class="tl-hint">(pick one)</span></p>'
        "</div>"
    )


def _controls(uid: str, ex: dict[str, Any], selected: int, sure: float) -> str:
    h = ex["hindi"][selected]
    d = len(ex["notes"][0])
    ctx_numbers = ", ".join('<span data-tl-c class="tl-num"></span>' for _ in range(d))
    return (
        '<div class="tl-sure" data-tl-js hidden>'
        f'<label class="tl-sure-label" for="{uid}-sure">how sure</label>'
        f'<input type="range" id="{uid}-sure" data-tl="sure" min="{ex["sure_min"]:g}" '
        f'max="{ex["sure_max"]:g}" step="{SURE_STEP:g}" value="{sure:g}" '
        f'aria-describedby="{uid}-sure-help">'
        f'<output class="tl-sure-value" for="{uid}-sure" data-tl="sure-value">{sure:.1f}</output>'
        f'<p class="tl-help" id="{uid}-sure-help">multiplies the decoder state '
        f'<b>q</b> of <span data-tl="sure-word">{_hi(h)}</span></p>'
        "</div>"
        '<p class="tl-context" data-tl-js hidden>'
        '<span data-tl="context-label">context vector for '
        f'<span data-tl="context-word">{_hi(h)}</span></span>: '
        f'<b>c</b> = (<span class="tl-ctx-numbers">{ctx_numbers}</span>)</p>'
    )


def _summary_note(uid: str, ex: dict[str, Any]) -> str:
    last = ex["english"][-1]
    d = len(ex["notes"][-1])
    vec = ", ".join(f"{v:g}" for v in ex["notes"][-1])
    return (
        f'<p class="tl-noattn-note" id="{uid}-noattn-note" data-tl="noattn-note" hidden>'
        "No attention, as in Unit 17: "
        f"the decoder is handed only the last note, "
        f"h<sub>{_e(last)}</sub> = ({_e(vec)}), as the summary of the whole sentence. "
        f"Every Hindi word is written from that same summary of {d} numbers, so there are no "
        "weights to show: no beams, no map.</p>"
    )


def _table(uid: str, ex: dict[str, Any], amap: NDArray[np.float64]) -> str:
    english = " ".join(ex["english"])
    head = "".join(f'<th scope="col">{_e(w)}</th>' for w in ex["english"])
    rows = []
    for i, h in enumerate(ex["hindi"]):
        cells = "".join(f'<td class="{_shade(w)}">{_num(w)}</td>' for w in amap[i])
        rows.append(f'<tr data-tl-row="{i}"><th scope="row">{_hi(h, gloss=True)}</th>{cells}</tr>')
    return (
        f'<div class="tl-map-wrap" data-tl="map"><table class="tl-map" id="{uid}-map">'
        f"<caption>Alignment map for “{_e(english)}”: one row for each Hindi word written, "
        "one column for each English note; each number is the share of attention "
        "(every row adds up to 1).</caption>"
        f'<thead><tr><th scope="col">written</th>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )
