"""Widget 16 of Unit 18, "The whole walk" (SPEC §13): one English sentence through the tiny
translator, every tensor of it, computed on the server by the engine (``tiny.load().walk``),
rounded as the page prints it; the browser only draws them.

    :::{widget} tiny-walk
    :id: w16
    :example: tiny_walk   (optional: a key of figures.EXAMPLES; default "tiny_walk")
    :::

The element (static/widgets/tiny-walk.js) steps through the walk: the tokens, word plus place,
the encoder's four maps, its block, then for each Hindi word in turn the decoder's input, its
masked self-attention, its cross-attention over the English notes, its block, and the logits
and their softmax, which choose the word. A learner's own sentence goes to the kit's server
route (learning/tiny_walk.py: POST ../widgets/tiny-walk/, gated like §13), which answers
``walk_numbers(text)``. Without JavaScript: the walk of the example's sentence as tables, and
what the model writes for the other sentences it offers.

``walk_numbers(text)`` returns a JSON-ready dict, or raises :class:`WalkInputError` with a
message for the learner (an empty box, too long, an unknown word: the message lists the words
the model knows). Attention weights and probabilities are sent in thousandths that add up to
exactly 1000 a row (``shares_rounded``), sent as those three-decimal numbers, so a printed row
adds up to 1.000; vectors and logits to VECTOR_PLACES / LOGIT_PLACES decimals.
"""

from __future__ import annotations

from functools import cache, lru_cache
from typing import Any

import numpy as np

from mathmachine import printing
from mathmachine.engine import shares_rounded, tiny
from mathmachine.engine.tiny.corpus import MAX_ENGLISH, all_pairs, provenance, tokenize_english

from . import WidgetContext, WidgetOptionError, kit, option, parts, register

VECTOR_PLACES = 3
LOGIT_PLACES = 2
TOP = 5
#: The longest text the box accepts, in characters (4 words of the vocabulary fit many times).
MAX_CHARS = 80
#: Walks kept in the process, by sentence (about 30 kB each).
WALKS_KEPT = 256
ENCODER_STAGES = ("attn", "resid1", "ln1", "ffn", "resid2", "out")
DECODER_STAGES = (
    *("self_attn", "resid1", "ln1", "cross_attn", "resid2", "ln2"),
    *("ffn", "resid3", "out"),
)


class WalkInputError(ValueError):
    """What the learner typed cannot be walked; the message says why, in words for them."""


@cache
def _translit() -> dict[str, str]:
    out = {"<s>": "start", "</s>": "end", "<pad>": "pad"}
    for p in all_pairs():
        out.update(zip(p.hindi, p.translit, strict=True))
    return out


@cache
def known_words() -> tuple[str, ...]:
    """The English words the model knows, as the vocabulary spells them, sorted."""
    return tuple(sorted(tiny.load().vocab.english[1:], key=str.lower))


def _vectors(a: np.ndarray) -> list[list[float]]:
    return np.round(np.asarray(a, dtype=np.float64), VECTOR_PLACES).tolist()


def _shares(a: np.ndarray) -> list[Any]:
    """Weights as printed: three decimals whose row adds up to exactly 1 (in thousandths)."""
    return (shares_rounded(np.asarray(a, dtype=np.float64), 3) / 1000).tolist()


def clean(raw: object) -> str:
    """The sentence as typed, or WalkInputError: not text, empty, too long, or a word the model
    does not know (named, with every word it knows)."""
    if not isinstance(raw, str):
        raise WalkInputError("Send the sentence as text.")
    text = " ".join(raw.split())
    if not text or not tokenize_english(text):
        raise WalkInputError("Type an English sentence first, for example “I drink tea”.")
    if len(text) > MAX_CHARS:
        raise WalkInputError(
            f"That is {len(text)} characters; the tiny translator takes sentences of at most "
            f"{MAX_ENGLISH} words, such as “my mother drinks tea”."
        )
    words = tokenize_english(text)
    known = {w.lower() for w in known_words()}
    unknown = [w for w in words if w not in known]
    if unknown:
        listed = ", ".join(known_words())
        which = "“" + "”, “".join(dict.fromkeys(unknown)) + "”"
        raise WalkInputError(
            f"The tiny translator does not know {which}. It knows only these "
            f"{len(known_words())} English words: {listed}."
        )
    if len(words) > MAX_ENGLISH:
        raise WalkInputError(
            f"That is {len(words)} words; the tiny translator takes at most {MAX_ENGLISH} "
            "(a subject, a verb and a thing, as in “my mother drinks tea”)."
        )
    return text


def walk_numbers(raw: object) -> dict[str, Any]:
    """Every tensor of the walk of one sentence (see the module docstring), or WalkInputError.
    Walks are kept by sentence (an LRU of WALKS_KEPT): a repeat costs nothing. The dict is
    shared: do not change it."""
    return _walk(clean(raw).lower())


@lru_cache(maxsize=WALKS_KEPT)
def _walk(text: str) -> dict[str, Any]:
    model = tiny.load()
    try:
        w = model.walk(text, top_k=TOP)
    except ValueError as e:  # the engine's own checks; clean() should have caught them all
        raise WalkInputError(str(e)) from None
    pair, where = provenance(text)
    enc, dec = w["encoder"], w["decoder"]
    (enc_layer,) = enc["layers"]
    (dec_layer,) = dec["layers"]
    tr = _translit()
    chosen = list(w["chosen"])
    written = chosen[: chosen.index("</s>")] if "</s>" in chosen else chosen
    return {
        "sentence": " ".join(w["english"]),
        "english": list(w["english"]),
        "english_ids": [int(i) for i in w["english_ids"]],
        "where": where,
        "expected": list(pair.hindi) if pair is not None else None,
        "correct": pair is not None and written == list(pair.hindi),
        "encoder": {
            "embeddings": _vectors(enc["embeddings"]),
            "positions": _vectors(enc["positions"]),
            "input": _vectors(enc["input"]),
            "attention": _shares(enc_layer["self_attention"]),  # [H, S, S]
            "stages": {k: _vectors(enc_layer[k]) for k in ENCODER_STAGES},
        },
        "decoder": {
            "input": list(w["hindi_input"]),
            "input_ids": [int(i) for i in w["hindi_input_ids"]],
            "embeddings": _vectors(dec["embeddings"]),
            "positions": _vectors(dec["positions"]),
            "sum": _vectors(dec["input"]),
            "self_attention": _shares(dec_layer["self_attention"]),  # [H, T, T], causal
            "cross_attention": _shares(dec_layer["cross_attention"]),  # [H, T, S]
            "cross_average": _shares(dec_layer["cross_attention"].mean(axis=0)),  # [T, S]
            "stages": {k: _vectors(dec_layer[k]) for k in DECODER_STAGES},
        },
        "logits": np.round(w["logits"], LOGIT_PLACES).tolist(),
        "probabilities": _shares(w["probabilities"]),  # [T, V]
        "chosen": chosen,
        "written": written,
        "translit": [tr.get(h, h) for h in written],
        "top": [[[word, round(float(p), 3)] for word, p in row] for row in w["top"]],
        # every Hindi word at each place, most probable first (the table's order)
        "ranked": np.argsort(-w["probabilities"], axis=-1, kind="stable").tolist(),
        # the English word each place's cross-attention (the heads' average) weighs most
        "looks_at": [
            w["english"][int(j)]
            for j in np.argmax(dec_layer["cross_attention"].mean(axis=0), axis=-1)
        ],
        "vocabulary": list(w["hindi_vocabulary"]),
        "vocabulary_translit": [tr.get(h, h) for h in w["hindi_vocabulary"]],
        "heads": model.config.n_heads,
        "d_model": model.config.d_model,
        "weights": int(w["weight_count"]),
    }


# --------------------------------------------------------------------------------------------
# the widget

NAME = "tiny-walk"
NEEDS = ("sentence", "presets", "english_words", "max_words")
MAPS = 5  # heat maps the live view may show at once: the encoder's four heads, or 4 + average
ROUTE = "../widgets/tiny-walk/"
OWN_PAGE = "walk"  # the fallback's tables: /units/<slug>/<number>/walk/

h = kit.h


def _cols(n: int) -> list[str]:
    return [str(i + 1) for i in range(n)]


def _vectors_table(caption: str, rows: list[str], values: list[list[float]]) -> kit.HTML:
    return parts.matrix_table(
        values, rows=rows, cols=_cols(len(values[0])), caption=caption, fmt=VECTOR_PLACES,
        label=f"{caption}: the numbers", class_="tw-vectors",
    )  # fmt: skip


def _hi_label(word: str) -> str:
    return {"<s>": "start", "</s>": "end"}.get(word, word)


def _fallback(walk: dict[str, Any], others: list[dict[str, Any]]) -> kit.HTML:
    """The walk of the example's sentence as tables, for a reader without JavaScript."""
    en = walk["english"]
    enc, dec = walk["encoder"], walk["decoder"]
    d = walk["d_model"]
    inputs = [_hi_label(w) for w in dec["input"]]
    chosen = [_hi_label(w) for w in walk["chosen"]]
    tokens = kit.table(
        caption="1. Tokens: each English word's number in the vocabulary",
        columns=["word", "number"],
        rows=[(w, [str(i)]) for w, i in zip(en, walk["english_ids"], strict=True)],
        class_="wk-table tw-tokens",
    )
    embed_rows, embed_values = [], []
    for i, w in enumerate(en):
        for what, key in (("word", "embeddings"), ("place", "positions"), ("sum", "input")):
            embed_rows.append(f"{w}: {what}")
            embed_values.append(enc[key][i])
    maps = [
        parts.heatmap(
            enc["attention"][k], uid=f"tw-nojs-enc{k}", rows=en, cols=en,
            title=f"Encoder self-attention, head {k + 1}",
            desc="Rows: the word that asks; columns: the word it looks at; each row adds up to 1.",
            caption=f"3. Encoder self-attention, head {k + 1}", numbers="table", cell=32,
            fixed=True, scroll=f"encoder head {k + 1}",
        )
        for k in range(walk["heads"])
    ]  # fmt: skip
    steps = []
    for t, word in enumerate(chosen):
        cross = [*dec["cross_attention"]]
        rows = [f"head {k + 1}" for k in range(walk["heads"])]
        steps.append(
            h(
                "div",
                # h2: the steps are headings of the walk's page of its own (own_pages.py)
                h("h2", f"Place {t + 1}: after {' '.join(inputs[: t + 1])}, it writes ",
                  h("span", word, lang="hi" if word not in ("start", "end") else None),
                  class_="tw-h"),
                parts.matrix_table(
                    [c[t] for c in cross], rows=rows, cols=en, fmt=3, shade=parts.WEIGHTS,
                    caption=f"Cross-attention of place {t + 1}, each head over the English notes",
                    class_="tw-cross",
                ),
                kit.table(
                    caption=f"The most probable words at place {t + 1} (softmax of the "
                    f"{len(walk['vocabulary'])} logits)",
                    columns=["word", "logit", "probability"],
                    rows=[
                        (_hi_label(walk["vocabulary"][j]),
                         [printing.dec(walk["logits"][t][j], LOGIT_PLACES),
                          printing.dec(walk["probabilities"][t][j])])
                        for j in walk["ranked"][t][:TOP]
                    ],
                    class_="wk-table tw-top",
                ),
                class_="tw-step",
            )
        )  # fmt: skip
    written = " ".join(walk["written"])
    vocabulary = list(walk["vocabulary"])
    writes = kit.table(
        caption="What it writes, place by place: the word it finds most probable",
        columns=["place", "word", "probability"],
        rows=[
            (str(t + 1), [word, printing.dec(walk["probabilities"][t][vocabulary.index(w)])])
            for t, (w, word) in enumerate(zip(walk["chosen"], chosen, strict=True))
        ],
        class_="wk-table tw-writes",
    )
    # Every number of the walk (36 KB of tables) is on a page of its own (coursebook/
    # own_pages.py): a reader with JavaScript never sees it, and the section stays light.
    title = f"The whole walk of “{walk['sentence']}”, step by step, as tables"
    return h(
        "div",
        h("p", "Walked through the model, “", walk["sentence"], "” comes out as ",
          kit.hi(written, " ".join(walk["translit"])), ". Every number the engine computes on "
          "the way is in tables on a page of their own, linked below.", class_="wk-note"),
        writes,
        h("p", "The whole walk: tokens, word and place, the encoder's maps and notes, and at "
          "each place the cross-attention and the most probable words:", class_="wk-note"),
        h("div", h("div",
          tokens,
          _vectors_table(f"2. Word and place: {d} numbers each, and their sum", embed_rows,
                         embed_values),
          h("div", maps, class_="tw-maps"),
          _vectors_table("4. The encoder's output: the notes, one row per English word", en,
                         enc["stages"]["out"]),
          _vectors_table("5. The decoder's output, one row per place", inputs,
                         dec["stages"]["out"]),
          h("div", steps, class_="tw-steps"),
          class_="tw-fallback"),  # its page has no widget around it: the widget's classes
          class_="wk tw tw-walk", data_own_page=OWN_PAGE, data_own_page_title=title),
        h("h3", "Other sentences, and what the model writes", class_="tw-h"),
        h("ul", [
            h("li", f"“{o['sentence']}” ({o['where']}): ",
              kit.hi(" ".join(o["written"]), " ".join(o["translit"])))
            for o in others
        ], class_="tw-others"),
        nojs=True,
        class_="tw-fallback",
    )  # fmt: skip


def _live(uid: str, ex: dict[str, Any], walk: dict[str, Any]) -> kit.HTML:
    presets = [
        h("option", f"{p['english']} · {p['where']}", value=p["english"],
          selected=p["english"] == walk["sentence"] or None)
        for p in ex["presets"]
    ]  # fmt: skip
    # Empty frames: tiny-walk.js draws every map it shows (drawHeatmap) before showing it.
    maps = [
        parts.heatmap(
            [[0.0]], uid=f"{uid}-map{k}",
            rows=[""], cols=[""], title=f"Map {k + 1}", desc="A map of attention weights.",
            caption=f"map {k + 1}", numbers="details", target=f"map-{k}", cell=32, fixed=True,
            scroll=f"map {k + 1}", class_="tw-map",
        )
        for k in range(MAPS)
    ]  # fmt: skip
    form = h(
        "form",
        h("label", "A sentence in the model's words (at most ", str(ex["max_words"]), ")",
          for_=f"{uid}-text"),
        h("div",
          h("input", type="text", id=f"{uid}-text", name="text", value=walk["sentence"],
            maxlength=str(MAX_CHARS), autocomplete="off", autocapitalize="none",
            spellcheck="false", target="text", aria_describedby=f"{uid}-error"),
          h("button", "Walk it", type="submit", class_="wk-button wk-button-main",
            target="go"),
          class_="tw-row"),
        h("label", "or pick one", for_=f"{uid}-preset"),
        h("select", presets, id=f"{uid}-preset", target="preset"),
        h("p", id=f"{uid}-error", class_="tw-error", target="error", aria_live="polite"),
        target="form",
        class_="tw-form",
        novalidate=True,
    )  # fmt: skip
    nav = h(
        "div",
        parts.slider(uid, "stage", "Stage", value=0, lo=0, hi=1, step=1, shown="1",
                     valuetext="stage 1: tokens"),
        h("div",
          h("button", "◀ Back", type="button", class_="wk-button", target="prev"),
          h("button", "Next ▶", type="button", class_="wk-button wk-button-main", target="next"),
          class_="wk-toolbar tw-nav"),
        class_="tw-navbox",
    )  # fmt: skip
    return h(
        "div",
        form,
        h("p", class_="tw-where", target="where"),
        nav,
        h("h3", class_="tw-stage-title", target="stage-title"),
        h("p", class_="tw-stage-text", target="stage-text"),
        h("div", maps, class_="tw-maps", target="maps"),
        h("div", class_="tw-tables", target="tables"),
        h("p", class_="tw-written", target="written"),
        js=True,
    )


@register(
    NAME,
    scripts=("widgets/tiny-walk.js",),
    styles=("widgets/controls.css", "widgets/plots.css", "widgets/tiny-walk.css"),
    options=(option.example(default="tiny_walk", needs=NEEDS),),
    control="stage",
)
def render(opts: dict[str, Any], ctx: WidgetContext) -> str:
    uid = opts["id"]
    ex = opts["example"]
    try:
        walk = walk_numbers(ex["sentence"])
        others = [walk_numbers(p["english"]) for p in ex["presets"]]
    except WalkInputError as e:
        raise WidgetOptionError(f"example {opts['example_key']!r}: {e}") from None
    state = {
        "walk": walk,
        "api": ROUTE,
        "words": list(ex["english_words"]),
        "max_words": ex["max_words"],
    }
    return kit.element(
        NAME,
        uid,
        state,
        _live(uid, ex, walk),
        kit.status(class_="wk-status"),
        _fallback(walk, [o for o in others if o["sentence"] != walk["sentence"]]),
        class_="wk tw",
    )
