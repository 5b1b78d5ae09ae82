"""Widget 7 of Unit 18, "Attention lab" (SPEC §6), rendered on the server.

    :::{widget} attention-lab
    :id: w7
    :example: attention_lab     (optional: a key of figures.EXAMPLES with sentence, layer, head,
                                 toy = §3's words, X, W_Q, W_K, W_V)
    :::

The learner types a sentence; the server runs it through all-MiniLM-L6-v2 with the engine
(mathmachine/learning/lab.py, the JSON API gated like the section) and the element draws one
head: a heat map and an arc view, each token's row on hover and on keyboard focus (in words for
screen readers), all 72 heads as thumbnails, the neuron view of one (query, key) pair, a share
link and the map as an SVG file. A toy mode recomputes §3's three words with attention-math.js
(selfAttention, held to the engine by golden vectors).

The map is the kit's heat map (parts.heatmap, redrawn by heatmap.js): the server draws the
example sentence's, so without JavaScript the element is a GET form to the lab's page
(learning/lab.html: the map of the sentence sent, as a table) and, here, the example's map with its
numbers as a table, computed now by the engine.
"""

from __future__ import annotations

import unicodedata
from typing import Any

import numpy as np

from mathmachine.engine import shares_rounded
from mathmachine.engine.pretrained import NeuronView, load_minilm
from mathmachine.engine.self_attention import self_attention_steps
from mathmachine.printing import dec

from . import Golden, WidgetContext, WidgetOptionError, kit, option, parts, register
from ._golden import MATH_MODULE

NAME = "attention-lab"
MODULE = "widgets/attention-math.js"
NEEDS = ("sentence", "layer", "head", "toy", "max_tokens")
#: The longest text the lab takes: tokens (counting [CLS] and [SEP]) and characters. A map of 48
#: tokens is 2,304 cells, still readable on a phone; the model itself takes 128. The JSON API and
#: the page without JavaScript (mathmachine/learning/lab.py) refuse longer text.
MAX_TOKENS = 48
MAX_CHARS = 250
#: Decimals a head's weights are sent and printed with.
PLACES = 3
LAYERS, HEADS = 6, 12

h = kit.h

#: The dotted circle that stands for a missing base letter (U+25CC), as the prose writes "◌ा".
DOTTED_CIRCLE = "\u25cc"


def token_label(token: str) -> str:
    """A token as the lab shows it: a piece that starts with a combining vowel sign or mark
    ("##ा", "##ी") gets the dotted circle before the mark ("##◌ा"). A mark with no letter to sit
    on is drawn on whatever comes before it: "#" in a font without Devanagari, an empty box in
    one without "#". attention-lab.js's tokenLabel() writes the same."""
    body = token[2:] if token.startswith("##") else token
    if body and unicodedata.category(body[0]).startswith("M"):
        return token[: len(token) - len(body)] + DOTTED_CIRCLE + body
    return token


def _example(opts: dict[str, Any]) -> dict[str, Any]:
    ex, key = opts["example"], opts["example_key"]
    if not (1 <= int(ex["layer"]) <= LAYERS and 1 <= int(ex["head"]) <= HEADS):
        raise WidgetOptionError(f"example {key!r}: layer 1..{LAYERS} and head 1..{HEADS}")
    toy = ex["toy"]
    if not all(k in toy for k in ("words", "X", "W_Q", "W_K", "W_V")):
        raise WidgetOptionError(f"example {key!r}: toy needs words, X, W_Q, W_K, W_V")
    if len(ex["sentence"]) > MAX_CHARS:
        raise WidgetOptionError(f"example {key!r}: the sentence is over {MAX_CHARS} characters")
    if ex["max_tokens"] != MAX_TOKENS:
        raise WidgetOptionError(
            f"example {key!r}: max_tokens is {ex['max_tokens']!r}, but the lab takes at most "
            f"{MAX_TOKENS} tokens (MAX_TOKENS): the unit must say what the lab does"
        )
    return ex


def golden(opts: dict[str, Any], ctx: WidgetContext) -> list[Golden]:
    """selfAttention on the toy's words, as the toy mode computes it (unscaled, as §3), and
    what the element computes with math.js: the toy's products q_i × k_j entry by entry, the
    sum of a row, its largest entry."""
    toy = _example(opts)["toy"]
    g = Golden(MODULE)
    st = self_attention_steps(toy["X"], toy["W_Q"], toy["W_K"], toy["W_V"])
    g.case(
        "selfAttention", toy["X"], toy["W_Q"], toy["W_K"], toy["W_V"], False,
        out={"q": st.q, "k": st.k, "v": st.v, "scores": st.scores, "scale": st.scale,
             "weights": st.weights, "output": st.output},
    )  # fmt: skip
    m = Golden(MATH_MODULE)
    for i in range(len(toy["words"])):
        for j in range(len(toy["words"])):
            m.case("products", st.q[i], st.k[j], out=st.q[i] * st.k[j])
        m.case("sum", st.weights[i], out=float(np.sum(st.weights[i])))
        m.case("argmax", st.weights[i], out=int(np.argmax(st.weights[i])))
    return [g, m]


def neuron_numbers(v: NeuronView) -> dict[str, Any]:
    """The neuron view as the lab sends it (3 decimals; the row's weights summing to 1.000)."""

    def r(x: float) -> float:
        return round(float(x), PLACES) + 0.0  # + 0.0: never -0.0

    weights = shares_rounded(v.weights, PLACES)
    return {
        "query": v.query,
        "key": v.key,
        "d_k": len(v.q),
        "places": PLACES,
        "q": [r(x) for x in v.q],
        "k": [r(x) for x in v.k],
        "products": [r(x) for x in v.products],
        "score": r(v.score),
        "sqrt_d": r(v.sqrt_d),
        "scaled": r(v.scaled),
        "row": [r(x) for x in v.row],
        "weights": [round(int(u) / 10**PLACES, PLACES) for u in weights],
        "weight": r(v.weight),
    }


def units_to_text(units: np.ndarray) -> list[str]:
    return [f"{u / 10**PLACES:.{PLACES}f}" for u in units]


@register(
    NAME,
    scripts=("widgets/attention-lab.js",),
    styles=("widgets/controls.css", "widgets/plots.css", "widgets/attention-lab.css"),
    options=(option.example(default="attention_lab", needs=NEEDS),),
    control="head",
    golden=golden,
)
def render(opts: dict[str, Any], ctx: WidgetContext) -> str:
    uid = opts["id"]
    ex = _example(opts)
    model = load_minilm()
    run = model.run(ex["sentence"])
    layer, head = int(ex["layer"]), int(ex["head"])
    w = run.attention[layer - 1, head - 1]
    units = shares_rounded(w, PLACES)
    sink = float((w[:, 0] + w[:, -1]).mean())
    state = {
        "api": "../lab/attention/",
        "share": "../lab/share/",
        "limits": {"tokens": MAX_TOKENS, "characters": MAX_CHARS},
        "layers": LAYERS,
        "heads": HEADS,
        "dk": model.d_model // model.n_heads,
        "sentence": ex["sentence"],
        "layer": layer,
        "head": head,
        "initial": {
            "tokens": run.tokens,
            "layer": layer,
            "head": head,
            "places": PLACES,
            "weights": (units / 10**PLACES).round(PLACES).tolist(),
            "sink": round(sink, 2),
            "notes": [],
        },
        "toy": {k: ex["toy"][k] for k in ("words", "X", "W_Q", "W_K", "W_V")},
        # the first neuron view the page shows ([CLS] against itself), so that opening the page
        # asks the server nothing
        "neuron": {
            "tokens": run.tokens,
            **neuron_numbers(model.neuron_view(run, layer - 1, head - 1, 0, 0)),
        },
    }
    return kit.element(
        NAME,
        uid,
        state,
        _form(uid, ex["sentence"], layer, head),
        h("p", class_="al-error", target="error", role="alert", hidden=True, id=f"{uid}-error"),
        h("p", class_="al-stale", target="stale", hidden=True),
        h("p", _lead(layer, head, sink), class_="al-nojs-note", nojs=True),
        _tokens(uid),
        _figures(uid, run.tokens, units, layer, head),
        h("p", "Type your own sentence above and press “Show the map”: the server draws its map "
          "as a table on a page of its own.", class_="al-nojs-note", nojs=True),
        _live(uid),
        kit.status(class_="wk-status"),
        class_="wk al",
    )  # fmt: skip


def _select(uid: str, name: str, label: str, top: int, value: int) -> kit.HTML:
    options = [
        h("option", str(i), value=str(i), selected=(i == value) or None) for i in range(1, top + 1)
    ]
    return h(
        "span",
        h("label", label, for_=f"{uid}-{name}"),
        h("select", options, id=f"{uid}-{name}", name=name, target=name),
        class_="al-pick",
    )


def _form(uid: str, sentence: str, layer: int, head: int) -> kit.HTML:
    """The sentence, layer and head: a GET form to the lab's page without JavaScript, the live
    widget's own controls with it (the script handles the submit)."""
    limit = (
        f"At most {MAX_CHARS} characters and {MAX_TOKENS} tokens (the model's pieces, counting "
        "[CLS] and [SEP]; a word is one piece or a few). English reads best; Hindi in "
        "Devanagari is accepted. What you type is never saved, unless you share its map; the "
        "lab keeps its numbers for your own requests for 10 minutes."
    )
    return h(
        "form",
        h("label", "Your sentence", for_=f"{uid}-text", class_="al-label"),
        h("span", limit, id=f"{uid}-limit", class_="al-limit"),
        h("input", type="text", id=f"{uid}-text", name="text", value=sentence, target="text",
          required=True, autocomplete="off", spellcheck="false",
          aria_describedby=f"{uid}-limit {uid}-count"),
        # no maxlength: a longer paste is not cut silently; the count says how far over it is
        h("span", id=f"{uid}-count", class_="al-count", target="count", js=True),
        h(
            "div",
            _select(uid, "layer", "Layer", LAYERS, layer),
            _select(uid, "head", "Head", HEADS, head),
            h("button", "Show the map", type="submit", class_="wk-button", target="go"),
            class_="al-pickers",
        ),
        class_="al-form",
        method="get",
        action="../lab/",
        target="form",
    )  # fmt: skip


def _lead(layer: int, head: int, sink: float) -> str:
    return (
        f"The map of layer {layer}, head {head} for the sentence in the box: each row is a token "
        "asking (the query), each column a token looked at (the key). On average "
        f"{dec(sink, 2)} of a row goes to [CLS] and [SEP]."
    )


def map_title(layer: int | None, head: int | None) -> str:
    """The map's name: "Layer 5, head 7" (the toy: "The toy model"). attention-lab.js says the
    same when it redraws."""
    return "The toy model" if layer is None else f"Layer {layer}, head {head}"


def map_desc(n: int) -> str:
    return (
        f"{n} rows (the tokens that ask, the queries) by {n} columns (the tokens looked at, the "
        "keys); darker cells hold more weight. Under the map, the chosen row is read out in "
        "numbers."
    )


def looks_most(tokens: list[str], rows: list[list[str]]) -> list[str]:
    """Each row's largest weight, named: "[CLS]: 0.912" (the first of a tie)."""
    out = []
    for cells in rows:
        j = max(range(len(cells)), key=lambda k: (float(cells[k]), -k))
        out.append(f"{tokens[j]}: {cells[j]}")
    return out


def head_map(
    uid: str, tokens: list[str], units: np.ndarray, layer: int, head: int, **more: Any
) -> kit.HTML:
    """One head's heat map as the server draws it (the kit's parts.heatmap: shaded cells, the
    tokens as labels, its numbers as a table that is the map's text alternative in full), for the
    widget's first map and for the lab's page without JavaScript (learning/lab.html). ``units``:
    the weights in thousandths, rows summing to 1000 (shares_rounded)."""
    title = map_title(layer, head)
    labels = [token_label(t) for t in tokens]
    rows = [units_to_text(u) for u in units]
    return parts.heatmap(
        units / 10**PLACES,
        uid=uid,
        rows=labels,
        cols=labels,
        title=f"Heat map of {title.lower()}",
        desc=map_desc(len(tokens)),
        caption=f"{title}: every row adds up to 1.000.",
        table_caption=f"{title}: every row adds up to 1.000.",
        corner="query ↓ · key →",
        extra=("looks most at", looks_most(labels, rows)),
        cell=map_cell(len(tokens)),
        fixed=True,
        scroll="the map",
        **more,
    )


def map_cell(n: int) -> int:
    """A map cell's side in px for n tokens: a sentence of 13 tokens fits a phone; past that the
    cells shrink to 12 px at most (the widget offers a larger map to tap)."""
    return max(12, min(24, 250 // n))


def _figures(uid: str, tokens: list[str], units: np.ndarray, layer: int, head: int) -> kit.HTML:
    """The heat map (the server draws the example's; the script redraws it for every head) with
    its numbers as a table, and the arcs view (drawn by the script)."""
    heat = head_map(
        f"{uid}-map", tokens, units, layer, head,
        numbers="open", svg_target="map", target="map-box", class_="al-heatmap",
    )  # fmt: skip
    arcs = h(
        "div",
        h("svg", target="arcs", class_="al-arcs", role="img",
          aria_label="The arcs of the chosen token"),
        class_="wk-table-wrap", role="region", aria_label="the arcs", tabindex="0",
        target="arcs-box", hidden=True,
    )  # fmt: skip
    return h("div", heat, arcs, class_="al-figure", target="figures")


def _tokens(uid: str) -> kit.HTML:
    """The token list (pick the row to read) and what the model did with the text."""
    views = h(
        "fieldset",
        h("legend", "Show"),
        h("label", h("input", type="radio", name=f"{uid}-view", value="map", target="view",
                     checked=True), " heat map"),
        h("label", h("input", type="radio", name=f"{uid}-view", value="arcs", target="view"),
          " arcs"),
        class_="al-views",
    )  # fmt: skip
    return h(
        "div",
        h("p", h("span", "The model sees these tokens. ", class_="al-tokens-lead"),
          "Pick one (arrow keys, or hover the map) to read its row.", class_="al-tokens-help",
          id=f"{uid}-tokens-help"),
        h("ul", role="listbox", aria_label="Tokens: pick the query whose row you read",
          aria_describedby=f"{uid}-tokens-help", aria_orientation="horizontal", tabindex="0",
          target="tokens", class_="al-tokens"),
        h("p", "[CLS] and [SEP] are not your words: the model adds [CLS] at the start and [SEP] "
          "at the end of every input. Heads with nothing to look for park their weight on them, "
          "so from the second layer on they take much of every row.", class_="al-special"),
        h("div", target="notes", class_="al-notes"),
        views,
        js=True,
    )  # fmt: skip


def _live(uid: str) -> kit.HTML:
    """What only the live widget shows (drawn by static/widgets/attention-lab.js)."""
    tools = h(
        "div",
        h("button", "All 72 heads", type="button", class_="wk-button", target="all",
          aria_expanded="false", aria_controls=f"{uid}-grid"),
        h("button", "Share link", type="button", class_="wk-button", target="share"),
        h("button", "Save map as SVG", type="button", class_="wk-button", target="export"),
        h("button", "Larger map", type="button", class_="wk-button", target="zoom",
          aria_pressed="false"),
        parts.switch(uid, "toy", "toy model (§3's weights)"),
        class_="al-tools",
    )  # fmt: skip
    return h(
        "div",
        h("p", target="row-words", class_="al-row-words"),
        tools,
        h("p", h("label", "A link to this map, for anyone:", for_=f"{uid}-share-url"),
          h("input", type="text", id=f"{uid}-share-url", readonly=True, target="share-url",
            aria_describedby=f"{uid}-share-note"),
          h("span", "Sharing keeps this sentence and its map on our server, so that the link "
            "works for whoever you send it to (signed in or not). Only the map is shown, with "
            "the offer to unlock the unit.", id=f"{uid}-share-note", class_="al-limit"),
          class_="al-share", target="share-box", hidden=True),
        h("div", id=f"{uid}-grid", target="grid", class_="al-grid", hidden=True),
        h(
            "section",
            h("h3", "How one weight came about", class_="al-h"),
            h("p", "The query is the token you picked; choose the key. The weight is that "
              "head's query vector q against the key's vector k, summed, divided by √d, and "
              "softmaxed with the rest of the row.", class_="al-neuron-help"),
            h("span", h("label", "Key token", for_=f"{uid}-key"),
              h("select", id=f"{uid}-key", target="key"), class_="al-pick"),
            h("div", target="neuron", class_="al-neuron"),
            class_="al-neuron-box",
            aria_label="How one weight came about",
        ),
        js=True,
    )  # fmt: skip
