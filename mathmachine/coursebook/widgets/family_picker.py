"""Widget 14 of Unit 18, "Family picker" (SPEC §11), rendered on the server.

    :::{widget} family-picker
    :id: w14
    :example: family_picker   (optional: a key of figures.EXAMPLES; default "family_picker")
    :::

Three buttons pick a family: encoder-only (BERT), decoder-only (GPT), encoder–decoder (T5).
Each family's panel shows who may look at whom in its attention, as heat maps of the pairs
allowed for the running sentence (the masks come from the figures, which take them from
mathmachine.engine.causal_mask), one training example from the tiny translator's corpus, what the
family is good at and some of its members. The encoder–decoder's panel adds its cross-attention
as §1's map, learned: the tiny translator's real weights while it translates a sentence (head
average and each head, from mathmachine.engine.tiny), with buttons for the heads.

Every number is computed by the figures and sent printed or as the weights to shade: the script
(static/widgets/family-picker.js) only shows a panel and redraws the map with the server's
numbers (heatmap.js), so it computes nothing. Without JavaScript every panel is on show, one
after another, each map with its pairs in a table (✓ allowed, · hidden).
"""

from __future__ import annotations

from typing import Any

from mathmachine.printing import count, dec

from . import WidgetContext, WidgetOptionError, kit, option, parts, register

NAME = "family-picker"
EOS = "</s>"
NEEDS = ("english", "hindi_in", "hindi_out", "families", "cross")

h = kit.h


def _mark(v: float) -> str:
    return "✓" if v else "·"


def _quote(words: list[str]) -> str:
    return " ".join(words)


def _mask_map(uid: str, fam: dict[str, Any], i: int, m: dict[str, Any]) -> kit.HTML:
    allowed = m["allowed"]
    n = sum(sum(r) for r in allowed)
    total = len(allowed) * len(allowed[0])
    if n == total:
        pattern = f"every cell allowed: {count(n)} pairs"
    else:
        pattern = (
            f"the lower triangle with its diagonal: {count(n)} of {count(total)} pairs; each "
            "word sees itself and the words before it"
        )
    return parts.heatmap(
        allowed,
        uid=f"{uid}-{fam['id']}-m{i}",
        rows=m["rows"],
        cols=m["cols"],
        title=f"{fam['name']}, {m['title']}: who may look at whom",
        desc=f"Rows: the word that asks; columns: the word it may look at. Dark: allowed. "
        f"{pattern.capitalize()}.",
        caption=kit.join([h("b", m["title"].capitalize()), f": {pattern}"]),
        fmt=_mark,
        numbers="details",
        table_caption=f"{m['title'].capitalize()}: ✓ allowed, · hidden",
        corner="asks ↓ · looked at →",
        cell=28,
        font=13,
        fixed=True,
        scroll=f"{fam['name']}, {m['title']}",
        class_="fp-map",
    )


def _example(fam: dict[str, Any], ex: dict[str, Any]) -> kit.HTML:
    e = fam["example"]
    if fam["id"] == "encoder":
        words = [h("code", w) if w == "[MASK]" else w for w in e["input"]]
        shown = kit.join([x for w in words for x in (w, " ")][:-1])
        what = kit.join(["input “", shown, "”, guess the hidden word: “", _quote(e["target"]),
                         "”"])  # fmt: skip
    elif fam["id"] == "decoder":
        guesses = [
            f"after “{_quote(e['input'][: k + 1])}” comes "
            + ("the end of the text" if e["target"][k] == EOS else f"“{e['target'][k]}”")
            for k in range(len(e["input"]))
        ]
        what = kit.join(["one text, a guess at every place: ", "; ".join(guesses)])
    else:
        what = kit.join(["a pair: “", _quote(e["input"]), "” → ",
                         kit.hi(_quote(e["target"][:-1]), _quote(ex["translit"]))])  # fmt: skip
    return h("p", h("b", "One training example: "), what, class_="fp-line")


def _panel(uid: str, fam: dict[str, Any], ex: dict[str, Any]) -> kit.HTML:
    body: list[Any] = [
        h("h3", fam["name"], class_="fp-h", id=f"{uid}-{fam['id']}-h"),
        h("p", h("b", "Attention: "), fam["sees"], class_="fp-line"),
        h("div", [_mask_map(uid, fam, i, m) for i, m in enumerate(fam["maps"])],
          class_="fp-maps"),
        _example(fam, ex),
        h("p", h("b", "Good at: "), fam["good_at"], class_="fp-line"),
        h("p", h("b", "Members: "), fam["models"], class_="fp-line"),
    ]  # fmt: skip
    if fam["id"] == "encoder-decoder":
        body.append(_cross(uid, ex["cross"]))
    return h(
        "section",
        body,
        class_="fp-panel",
        target="panel",
        data_family=fam["id"],
        aria_labelledby=f"{uid}-{fam['id']}-h",
    )


def _cross_views(cross: dict[str, Any]) -> list[dict[str, Any]]:
    """The map as the buttons show it: the heads' average, then each head; weights as numbers
    to shade (thousandths / 1000: exactly what is printed) and the words for the reader."""
    english, hindi = cross["english"], [w["word"] for w in cross["hindi"]]
    views = []
    for k, rows in enumerate([cross["average"], *cross["heads"]]):
        name = "the four heads' average" if k == 0 else f"head {k}"
        values = [[u / 1000 for u in r] for r in rows]
        tops = [english[max(range(len(r)), key=r.__getitem__)] for r in rows]
        pattern = "; ".join(
            f"{w} looks mostly at “{t}” ({dec(max(r))})"
            for w, t, r in zip(hindi, tops, values, strict=True)
        )
        views.append(
            {
                "name": name,
                "values": values,
                "rows": hindi,
                "cols": english,
                "title": f"Cross-attention of the tiny translator, {name}",
                "desc": f"Rows: the Hindi word being written; columns: the English word looked "
                f"at; darker is more weight; each row adds up to 1. {pattern}.",
                "caption": f"Its cross-attention, learned ({name}): “{' '.join(english)}” → "
                f"{' '.join(hindi)}",
            }
        )
    return views


def _cross(uid: str, cross: dict[str, Any]) -> kit.HTML:
    views = _cross_views(cross)
    v = views[0]
    buttons = [
        h("button", "average" if k == 0 else f"head {k}", type="button",
          class_="wk-button fp-head", target="head", data_k=str(k),
          aria_pressed="true" if k == 0 else "false")
        for k in range(len(views))
    ]  # fmt: skip
    translit = " ".join(w["translit"] for w in cross["hindi"])
    return h(
        "div",
        h("h3", "Its cross-attention, learned", class_="fp-h"),
        h("p", "The tiny translator of §13 while it translates “", " ".join(cross["english"]),
          "” into ", kit.hi(" ".join(w["word"] for w in cross["hindi"]), translit),
          ": one row per Hindi word written, one column per English word. §1's map, drawn by "
          "a model that learned it.", class_="fp-line"),
        h("div", h("span", "Show:", class_="fp-label", id=f"{uid}-heads"), buttons,
          class_="wk-toolbar fp-heads", role="group", aria_labelledby=f"{uid}-heads",
          js=True),
        parts.heatmap(v["values"], uid=f"{uid}-cross", rows=v["rows"], cols=v["cols"],
                      title=v["title"], desc=v["desc"], caption=v["caption"], numbers="open",
                      target="cross", cell=44, font=14, fixed=True, scroll="the learned map",
                      class_="fp-cross"),
        class_="fp-cross-box",
    )  # fmt: skip


SHORT = {"encoder": "BERT", "decoder": "GPT", "encoder-decoder": "T5"}
SEES = {
    "encoder": "every word looks at every word, before it and after it: no mask.",
    "decoder": "each word looks at itself and the words before it: the causal mask.",
    "encoder-decoder": "two stacks. The encoder reads the input with no mask; the decoder writes "
    "with the causal mask, and its cross-attention lets every word it writes look at every "
    "word of the input.",
}


@register(
    NAME,
    scripts=("widgets/family-picker.js",),
    styles=("widgets/controls.css", "widgets/plots.css", "widgets/family-picker.css"),
    options=(option.example(default="family_picker", needs=NEEDS),),
    control="family",
)
def render(opts: dict[str, Any], ctx: WidgetContext) -> str:
    uid = opts["id"]
    ex = opts["example"]
    families = [
        dict(f, sees=SEES.get(f["id"], ""), short=SHORT.get(f["id"], "")) for f in ex["families"]
    ]
    if [f["id"] for f in families] != list(SEES):
        raise WidgetOptionError(f"example {opts['example_key']!r}: the three families, in order")
    first = families[0]["id"]
    buttons = [
        h("button", f["name"], h("span", f" · {f['short']}", class_="fp-first"),
          type="button", class_="wk-button fp-family", target="family", data_family=f["id"],
          aria_pressed="true" if f["id"] == first else "false")
        for f in families
    ]  # fmt: skip
    picker = h(
        "div",
        h("span", "Pick a family:", class_="fp-label", id=f"{uid}-pick"),
        buttons,
        class_="wk-toolbar fp-families",
        role="group",
        aria_labelledby=f"{uid}-pick",
        js=True,
    )
    state = {
        "family": first,
        "families": [
            {"id": f["id"], "name": f["name"], "short": f["short"], "models": f["models"]}
            for f in families
        ],
        "cross": _cross_views(ex["cross"]),
    }
    return kit.element(
        NAME,
        uid,
        state,
        picker,
        kit.status(class_="wk-status"),
        h("div", [_panel(uid, f, ex) for f in families], class_="fp-panels"),
        class_="wk fp",
    )
