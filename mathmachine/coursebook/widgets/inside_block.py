"""Widget 12 of Unit 18, "Inside one block" (SPEC §9), rendered on the server.

    :::{widget} inside-block
    :id: w12
    :example: block   (optional: a key of figures.EXAMPLES; default "block")
    :::

The example names a sentence the tiny translator knows, the word to follow first, the widths
of the weight counter and the one it starts at. One word's vector goes through the tiny
translator's trained encoder block (engine.tiny, run by engine.anatomy.block_walk, the block of
engine.block), stage by stage: in, attention, add, LayerNorm, widen, ReLU, narrow, add,
LayerNorm, as it was trained (post-LN), or with the same weights and LayerNorm before each part
(pre-LN: a switch). A slider and Back/Next step through the stages; buttons pick the word. At
each stage the element shows the vector's every number (shaded by size), its average and
spread, and at the attention the word's weights in every head. A second part counts one block's
weights for a width d picked on a slider, matrix by matrix, with or without biases and
LayerNorms: layer-math.js's blockWeights, held by golden cases to
engine.anatomy.model_weight_count.

Every number of the walk is computed here and sent printed (with its shade): the script only
chooses which stage, word and mode to show. Without JavaScript: the walk of the example's word
as trained, every stage as a table, and the block's weights at every width as a table.
"""

from __future__ import annotations

from collections import defaultdict
from functools import cache
from typing import Any

import numpy as np

from mathmachine.engine import shares_rounded, tiny
from mathmachine.engine.anatomy import BlockWalk, block_walk, model_weight_count
from mathmachine.printing import count, dec, vec

from . import Golden, WidgetContext, WidgetOptionError, kit, option, parts, register

NAME = "inside-block"
MODULE = "widgets/layer-math.js"
NEEDS = ("sentence", "token", "widths", "d_default")
#: Numbers of a vector to a row of the fallback's tables (a phone's width: 32 = 8 rows).
ROW = 4
#: A number's shade: by its size, 0 to 3 (a LayerNorm's output mostly stays inside ±3).
SIZE = parts.Scale(0.0, 3.0, "linear", magnitude=True)

h = kit.h


def _spread(v: np.ndarray) -> float:
    return float(np.sqrt(np.mean((v - v.mean()) ** 2)))


@cache
def _walk(sentence: str, token: int, pre_norm: bool) -> BlockWalk:
    model = tiny.load()
    cfg = model.config
    x = model.walk(sentence)["encoder"]["input"]
    return block_walk(
        x,
        model.params["enc"]["0"],
        cfg.n_heads,
        token,
        pre_norm=pre_norm,
        activation=cfg.activation,
    )


def _stage_text(
    name: str, pre: bool, walk: BlockWalk, d: int, d_ff: int, act: str
) -> tuple[str, str, str]:
    """(short label, formula, what happens) for one stage of one mode."""
    first = defaultdict(str, {s.name: vec(s.vector[:3]) + "…" for s in walk.stages})
    inner = "LN(x)" if pre else "x"
    zero = int(np.sum(walk.stage("hidden") == 0.0))
    bend = "ReLU" if act == "relu" else "GELU"
    texts: dict[str, tuple[str, str, str]] = {
        "x": ("in", "x", f"The word's vector plus its place: {d} numbers."),
        "ln1": ("LayerNorm", "LN(x)" if pre else "LN(h)", (
            "LayerNorm before attention: average 0 and spread 1, then its gain and bias."
            if pre else
            "LayerNorm after the addition: average 0 and spread 1, then its gain and bias."
        )),
        "attn": ("attention", f"MHA({inner})", (
            f"What the heads send back, mixed by W_O: {d} numbers. The word's weights in each "
            "head are in the table below."
        )),
        "resid1": ("add", f"h = x + MHA({inner})", (
            f"The input {first['x']} plus what attention sent, {first['attn']}, gives "
            f"{first['resid1']}"
        )),
        "ln2": ("LayerNorm", "LN(h)", (
            "LayerNorm before the feed-forward network; the sum h itself goes on unchanged."
        )),
        "hidden_in": ("widen", "z W₁ + b₁", (
            f"Times W₁ ({d} × {d_ff}) plus b₁: the vector is {d_ff} numbers wide now."
        )),
        "hidden": (bend, f"{bend}(z W₁ + b₁)", (
            f"{bend} keeps the positive numbers and makes the rest 0: {zero} of the {d_ff} are 0."
            if act == "relu" else
            f"{bend} keeps the large positive numbers and squeezes the negative ones towards 0."
        )),
        "ffn": ("narrow", "FFN", (
            f"Times W₂ ({d_ff} × {d}) plus b₂: back to {d} numbers."
        )),
        "resid2": ("add", "LN(h) + FFN", (
            f"The normalised {first['ln1']} plus what the feed-forward network sent, "
            f"{first['ffn']}, gives {first['resid2']}"
        )),
        "out": (("add", "y = h + FFN(LN(h))", (
            f"The sum {first['resid1']} plus what the feed-forward network sent, {first['ffn']}, "
            f"gives {first['out']}, the block's output. No LayerNorm on the main road: its "
            "spread is its own."
        )) if pre else ("LayerNorm", "y = LN(LN(h) + FFN)", (
            "LayerNorm again, the block's last step: its output has average 0 and spread 1 "
            "before the gain and bias."
        ))),
    }  # fmt: skip
    return texts[name]


def _mode(ex: dict[str, Any], words: list[str], pre: bool) -> list[dict[str, Any]]:
    """Per word: every stage of that word's walk, printed (numbers, shades, average, spread,
    the words), and its attention weights per head."""
    cfg = tiny.load().config
    out = []
    for t, _ in enumerate(words):
        walk = _walk(ex["sentence"], t, pre)
        stages = []
        for s in walk.stages:
            label, formula, text = _stage_text(
                s.name, pre, walk, cfg.d_model, cfg.d_ff, cfg.activation
            )
            stages.append(
                {
                    "name": s.name,
                    "label": label,
                    "formula": formula,
                    "text": text,
                    "n": int(s.vector.size),
                    "numbers": [dec(v) for v in s.vector],
                    "shades": [SIZE.level(v) for v in s.vector],
                    "mean": dec(float(s.vector.mean()), 2),
                    "spread": dec(_spread(s.vector), 2),
                }
            )
        w = shares_rounded(walk.weights, 3) / 1000
        out.append(
            {
                "stages": stages,
                "weights": [[dec(v) for v in row] for row in w],
                "weightShades": [[parts.WEIGHTS.level(v) for v in row] for row in w],
            }
        )
    return out


def _inputs(opts: dict[str, Any]) -> tuple[dict[str, Any], list[str], int, list[int], int]:
    ex = opts["example"]
    key = opts["example_key"]
    try:
        words = list(tiny.load().walk(ex["sentence"])["english"])
    except (ValueError, TypeError) as exc:
        raise WidgetOptionError(
            f"example {key!r}: not a sentence the tiny model reads ({exc})"
        ) from exc
    token = ex["token"]
    if not isinstance(token, int) or not 0 <= token < len(words):
        raise WidgetOptionError(f"example {key!r}: token must be a word index 0..{len(words) - 1}")
    widths = ex["widths"]
    if (
        not isinstance(widths, list)
        or len(widths) < 2
        or not all(isinstance(d, int) and d >= 1 for d in widths)
        or widths != sorted(set(widths))
    ):
        raise WidgetOptionError(f"example {key!r}: widths must be rising whole numbers >= 1")
    if ex["d_default"] not in widths:
        raise WidgetOptionError(f"example {key!r}: d_default must be one of the widths")
    return ex, words, token, widths, widths.index(ex["d_default"])


def golden(opts: dict[str, Any], ctx: WidgetContext) -> list[Golden]:
    """blockWeights at every width of the counter, bare and with biases and LayerNorms, and at
    the tiny translator's own width (d_ff = 2 d), against model_weight_count's block."""
    _, _, _, widths, _ = _inputs(opts)
    g = Golden(MODULE)
    cfg = tiny.load().config
    for d, d_ff in [*((w, None) for w in widths), (cfg.d_model, cfg.d_ff), (7, 5)]:
        for extras in (False, True):
            g.case("blockWeights", d, d_ff, extras, extras, out=_count(d, d_ff, extras))
    return [g]


def _count(d: int, d_ff: int | None, extras: bool) -> dict[str, int]:
    """The block's weights as blockWeights returns them, from the engine."""
    c = model_weight_count(d, d_ff=d_ff, bias=extras, norm=extras)
    b = c.block
    ff = int(c.config["d_ff"])  # type: ignore[call-overload]
    return {
        "d": d,
        "dFf": ff,
        "matrix": d * d,
        "attention": b["attention matrices"],
        "w1": d * ff,
        "feedForward": b["feed-forward matrices"],
        "attentionBiases": b["attention biases"],
        "feedForwardBiases": b["feed-forward biases"],
        "norms": b["LayerNorm gains and biases"],
        "biases": b["attention biases"] + b["feed-forward biases"],
        "matrices": b["attention matrices"] + b["feed-forward matrices"],
        "total": c.total,
    }


@register(
    NAME,
    scripts=("widgets/inside-block.js",),
    styles=("widgets/controls.css", "widgets/plots.css", "widgets/inside-block.css"),
    options=(option.example(default="block", needs=NEEDS),),
    control="stage",
    golden=golden,
)
def render(opts: dict[str, Any], ctx: WidgetContext) -> str:
    uid = opts["id"]
    ex, words, token, widths, d_at = _inputs(opts)
    cfg = tiny.load().config
    post, pre = _mode(ex, words, False), _mode(ex, words, True)
    if cfg.pre_norm:
        raise WidgetOptionError("the tiny translator was trained pre-LN: the widget says post-LN")
    state = {
        "words": words,
        "word": token,
        "stage": 0,
        "pre": False,
        "modes": {"post": post, "pre": pre},
        "widths": widths,
        "width": d_at,
    }
    first = post[token]
    return kit.element(
        NAME,
        uid,
        state,
        _controls(uid, words, token, len(first["stages"])),
        _pipeline(first["stages"]),
        _stage_panel(uid, words, first, cfg.n_heads),
        kit.status(class_="wk-status"),
        _counter(uid, widths, d_at),
        _fallback(uid, words, token, first, cfg.n_heads, widths),
        class_="wk ib",
    )


def _controls(uid: str, words: list[str], token: int, n: int) -> kit.HTML:
    buttons = [
        h("button", w, type="button", class_="wk-button ib-word", target="word", data_i=str(i),
          aria_pressed="true" if i == token else "false")
        for i, w in enumerate(words)
    ]  # fmt: skip
    return h(
        "div",
        h("div", h("span", "Follow the word:", class_="ib-label", id=f"{uid}-pick"), buttons,
          class_="wk-toolbar", role="group", aria_labelledby=f"{uid}-pick"),
        parts.switch(uid, "pre", "LayerNorm before each part (pre-LN)"),
        h("p", "Off: after each addition (post-LN), as the tiny translator was trained.",
          class_="wk-note"),
        parts.slider(uid, "stage", "Stage", value=1, lo=1, hi=n, step=1, shown=f"1 of {n}",
                     valuetext=f"stage 1 of {n}: in",
                     help="steps the word's vector through the block, one stage at a time"),
        h("div",
          h("button", "Back", type="button", class_="wk-button", target="back"),
          h("button", "Next", type="button", class_="wk-button wk-button-main", target="next"),
          class_="wk-toolbar"),
        js=True,
    )  # fmt: skip


def _pipeline(stages: list[dict[str, Any]]) -> kit.HTML:
    """The block's stages in order, the current one marked (the script relabels them when the
    mode changes: the two orders differ)."""
    items = [
        h("li", h("button", s["label"], type="button", class_="ib-chip", target="chip",
                  data_k=str(k), aria_current="step" if k == 0 else None))
        for k, s in enumerate(stages)
    ]  # fmt: skip
    return h("ol", items, class_="ib-pipeline", aria_label="The block's stages, in order", js=True)


def _stage_panel(uid: str, words: list[str], walk: dict[str, Any], heads: int) -> kit.HTML:
    s = walk["stages"][0]
    cells = [
        h("span", s["numbers"][i] if i < s["n"] else "", target="num",
          class_=f"ib-num wk-h{s['shades'][i]}" if i < s["n"] else "ib-num",
          hidden=None if i < s["n"] else True)
        for i in range(max(st["n"] for st in walk["stages"]))
    ]  # fmt: skip
    return h(
        "section",
        h("h3", h("span", s["label"], target="title"), ": ", h("code", s["formula"],
                                                             target="formula"), class_="ib-h"),
        h("p", s["text"], target="text", class_="ib-text"),
        h("p", h("span", str(s["n"]), target="n"), " numbers · average ",
          h("span", s["mean"], target="mean"), " · spread ", h("span", s["spread"],
                                                               target="spread"),
          class_="ib-stats"),
        h("div", cells, class_="ib-vector", role="group", aria_label="The numbers of the vector"),
        h("div", _weights_table(words, walk, heads, target=True), target="weights",
          class_="ib-weights", hidden=True),
        class_="ib-panel",
        aria_live="off",
        js=True,
    )  # fmt: skip


def _weights_table(
    words: list[str], walk: dict[str, Any], heads: int, *, target: bool = False
) -> kit.HTML:
    rows = []
    for k in range(heads):
        cells = [
            kit.cell(walk["weights"][k][j], class_=f"wk-h{walk['weightShades'][k][j]}",
                     target="weight" if target else None)
            for j in range(len(words))
        ]  # fmt: skip
        rows.append((f"head {k + 1}", cells))
    return kit.table(
        caption="The word's weights on each word, head by head (each row adds up to 1)",
        columns=["", *words],
        rows=rows,
        class_="wk-table ib-table",
    )


def _counter(uid: str, widths: list[int], at: int) -> kit.HTML:
    d = widths[at]
    c = _count(d, None, False)
    lines = [
        ("W_Q, W_K, W_V, W_O", f"4 × ({count(d)} × {count(d)})", count(c["attention"]), "att"),
        ("W₁", f"{count(d)} × {count(c['dFf'])}", count(c["w1"]), "w1"),
        ("W₂", f"{count(c['dFf'])} × {count(d)}", count(c["w1"]), "w2"),
        ("biases", "—", "0", "bias"),
        ("LayerNorms", "—", "0", "norm"),
    ]
    rows = [
        (kit.join([name, h("br"), h("span", shape, target=f"{t}-shape", class_="ib-shape")]),
         [kit.cell(n, target=f"{t}-n")])
        for name, shape, n, t in lines
    ]  # fmt: skip
    return h(
        "section",
        h("h3", "A block's weights, for any width", class_="ib-h"),
        parts.slider(uid, "width", "Width d", value=at, lo=0, hi=len(widths) - 1, step=1,
                     shown=count(d), valuetext=f"d = {count(d)}",
                     help="the feed-forward network widens to 4 d"),
        parts.switch(uid, "extras", "Count the biases and LayerNorms too"),
        kit.table(caption="One block, matrix by matrix", columns=["part and shape", "weights"],
                  rows=rows, class_="wk-table ib-table ib-count"),
        h("p", "In all: ", h("b", count(c["total"]), target="total"), " (",
          h("span", "12 d²", target="rule"), ")", class_="ib-total"),
        class_="ib-counter",
        js=True,
    )  # fmt: skip


def _fallback(
    uid: str,
    words: list[str],
    token: int,
    walk: dict[str, Any],
    heads: int,
    widths: list[int],
) -> kit.HTML:
    """The walk of the example's word as trained, each stage a table of its numbers (ROW to a
    row) under a summary that says what the stage is and its average and spread (the first and
    the last open), and the block's weights at every width."""
    word = words[token]
    tables = []
    for k, s in enumerate(walk["stages"], start=1):
        n = s["n"]
        body = []
        for r in range(0, n, ROW):
            cells = [kit.cell(s["numbers"][i], class_=f"wk-h{s['shades'][i]}")
                     for i in range(r, min(n, r + ROW))]  # fmt: skip
            body.append((f"{r + 1}–{min(n, r + ROW)}", cells))
        about = (
            f"{k}. {s['label']}, {s['formula']}: {n} numbers, average {s['mean']}, "
            f"spread {s['spread']}"
        )
        table = parts.scroll_box(
            kit.table(caption=f"Stage {k}, {s['label']}: the numbers",
                      columns=["place", *[str(j + 1) for j in range(ROW)]],
                      rows=body, class_="wk-table ib-table"),
            f"Stage {k}, as a table",
        )  # fmt: skip
        weights = _weights_table(words, walk, heads) if s["name"] == "attn" else None
        last = k in (1, len(walk["stages"]))  # the first and the last stage open
        tables.append(h("details", h("summary", about), table, weights, class_="ib-stage",
                        open=last or None))  # fmt: skip
    counts = []
    for d in widths:
        bare, full = _count(d, None, False), _count(d, None, True)
        counts.append((count(d), [count(bare["total"]), count(full["total"])]))
    return h(
        "div",
        h("p", f"“{word}” in “{' '.join(words)}” through the tiny translator's encoder block, "
          "as it was trained (post-LN): every stage, every number.", class_="wk-note"),
        h("div", tables, class_="ib-tables"),
        parts.scroll_box(
            kit.table(caption="One block's weights (d_ff = 4 d)",
                      columns=["d", "matrices, 12 d²", "with biases and LayerNorms"],
                      rows=counts, class_="wk-table ib-table"),
            "One block's weights at every width, as a table",
        ),
        class_="ib-fallback",
        nojs=True,
    )  # fmt: skip
