"""Widget 17 of Unit 18, "Watch it learn" (SPEC §13), rendered on the server.

    :::{widget} tiny-learn
    :id: w17
    :example: tiny_learn   (optional: a key of figures.EXAMPLES; default "tiny_learn")
    :::

The tiny translator's training, from the histories its training runs wrote (history.json, and
the four ablation runs' ablations/*.json, via the figures): a slider walks the saved steps (0,
25, 50, 100, 200, 600) and shows the map of one watched sentence at that step (cross-attention;
for the decoder-only run, the weight its Hindi places put on the English words), what the model
writes then and how many sentences it gets right; the loss curve on a log scale, the full model
beside the chosen run, with the step marked; buttons pick the run (the full model, without
positions, without LayerNorm, with one head, decoder-only) and the sentence ("I drink tea",
trained on; "the girl writes stories", held out). Each run's card says what was taken away, its
weights, its held-out score and what it writes for the unit's sentence and the same words
backwards.

Every number comes from those histories, sent as printed or as the weights to shade: the script
(static/widgets/tiny-learn.js) only picks which to show and redraws the kit's map and plot with
them (heatmap.js, plot.js), so it computes nothing. Without JavaScript: the full model's loss
curve, its map of "I drink tea" at every saved step as tables, and every run's held-out score at
every saved step.
"""

from __future__ import annotations

from typing import Any

from mathmachine.printing import count, dec, percent

from . import WidgetContext, WidgetOptionError, kit, option, parts, register

NAME = "tiny-learn"
NEEDS = ("runs", "watch")
CURVE_EVERY = 10  # plot every 10th step's loss, and the saved steps
EOS = "</s>"

h = kit.h


def _curve(run: dict[str, Any], steps: list[int]) -> dict[str, list[Any]]:
    """The loss at every CURVE_EVERY-th step, the first and the saved steps (x = the step)."""
    by_step = {int(s): float(v) for s, v in run["curve"]}
    keep = sorted(
        {1, *(s for s in by_step if s % CURVE_EVERY == 0), *(s for s in steps if s in by_step)}
    )
    return {"x": keep, "y": [round(by_step[s], 6) for s in keep]}


def _cap(text: str) -> str:
    """The first letter capitalised, the rest as written ("Without LayerNorm")."""
    return text[:1].upper() + text[1:]


def _written(words: list[str]) -> str:
    return " ".join(words) if words else "(nothing)"


def _map_view(run: dict[str, Any], cp: dict[str, Any], k: int) -> dict[str, Any]:
    """What the map shows for one run, saved step and watched sentence."""
    s = cp["sentences"][k]
    cross = run["name"] != "decoder-only"
    values = [[round(float(v), 3) for v in row] for row in s["map"]]
    what = "cross-attention" if cross else "attention on the English words"
    english = " ".join(s["english"])
    tops = [s["english"][max(range(len(r)), key=r.__getitem__)] for r in values]
    rows = [("end" if w == EOS else w) for w in s["hindi"]]
    pattern = "; ".join(f"{w} looks mostly at “{t}”" for w, t in zip(rows, tops, strict=True))
    note = (
        "" if cross else " A row adds up to less than 1: the rest goes to the Hindi written so far."
    )
    return {
        "values": values,
        "rows": rows,
        "cols": list(s["english"]),
        "title": f"{_cap(run['title'])}, step {cp['step']}: {what} for “{english}”",
        "desc": f"Rows: the Hindi word being written, then the end; columns: the English words; "
        f"darker is more weight. {pattern}.{note}",
        "caption": f"{_cap(run['title'])} at step {cp['step']}: {what} for “{english}”",
        "written": _written(s["written"]),
        "right": s["written"] == [w for w in s["hindi"] if w != EOS],
    }


def _runs_state(ex: dict[str, Any]) -> tuple[list[dict[str, Any]], list[int]]:
    runs = ex["runs"]
    steps = [int(c["step"]) for c in runs[0]["checkpoints"]]
    out = []
    for r in runs:
        if [int(c["step"]) for c in r["checkpoints"]] != steps:
            raise WidgetOptionError(
                f"run {r['name']!r}: its saved steps differ from the first run's"
            )
        curve = _curve(r, steps)
        marks = [curve["x"].index(max(s, 1)) for s in steps]  # step 0: the first loss point
        out.append(
            {
                "name": r["name"],
                "title": r["title"],
                "removed": r["removed"],
                "weights": count(r["weights"]),
                "held_out": percent(r["held_out_accuracy"]),
                "final_loss": dec(r["final_loss"], 4),
                "curve": curve,
                "marks": marks,
                "checkpoints": [
                    {
                        "step": int(c["step"]),
                        "train": percent(c["train_accuracy"]),
                        "held": percent(c["held_out_accuracy"]),
                        "maps": [_map_view(r, c, k) for k in range(len(c["sentences"]))],
                    }
                    for c in r["checkpoints"]
                ],
                "mistakes": [
                    f"“{m['english']}”: writes {m['written']} (right: {m['expected']})"
                    for m in r["held_out_mistakes"]
                ],
                "order": [f"“{t['english']}” → {_written(t['written'])}" for t in r["order_test"]],
            }
        )
    return out, steps


def _plot(uid: str, runs: list[dict[str, Any]], shown: list[int]) -> kit.HTML:
    series = [
        parts.Series(runs[k]["title"], runs[k]["curve"]["x"], runs[k]["curve"]["y"], fmt=4)
        for k in shown
    ]
    names = " and ".join(runs[k]["title"] for k in shown)
    return parts.line_plot(
        series,
        uid=f"{uid}-loss",
        title=f"Training loss, step by step: {names}",
        desc="The loss of each training step's batch of 32 sentences, from about 4 down to a few "
        "thousandths",
        caption=f"Training loss: {names}",
        x_label="training step",
        y_label="loss",
        y_log=True,
        target="plot",
        picture=True,  # tiny-learn.js redraws the plot before it marks a point
        class_="tl2-plot",
    )


def _scores(runs: list[dict[str, Any]], steps: list[int]) -> kit.HTML:
    table = kit.table(
        caption="Held-out sentences translated right, at each saved step",
        columns=["run", *(f"step {s}" for s in steps)],
        rows=[(r["title"], [c["held"] for c in r["checkpoints"]]) for r in runs],
        class_="wk-table tl2-scores",
    )
    return parts.scroll_box(table, "Held-out sentences right, by run and step")


def _nojs_maps(uid: str, run: dict[str, Any]) -> kit.HTML:
    tables = []
    for c in run["checkpoints"]:
        v = c["maps"][0]
        tables.append(
            parts.matrix_table(
                v["values"],
                rows=v["rows"],
                cols=v["cols"],
                caption=f"Step {c['step']}: writes {v['written']}",
                fmt=3,
                shade=parts.WEIGHTS,
                class_="tl2-step",
            )
        )
    return h(
        "div",
        h("p", f"{_cap(run['title'])}: its cross-attention for “I drink tea” at each saved "
          "step, one row per Hindi word written (then the end), one column per English word.",
          class_="wk-note"),
        h("div", tables, class_="tl2-steps"),
        nojs=True,
    )  # fmt: skip


def _card(run: dict[str, Any]) -> kit.HTML:
    return h(
        "div",
        h("h3", _cap(run["title"]), class_="tl2-h", target="run-title"),
        h("p", run["removed"], target="run-removed", class_="tl2-line"),
        h("p", h("b", "Weights: "), h("span", run["weights"], target="run-weights"),
          ". Held out, at the end: ", h("span", run["held_out"], target="run-held"),
          ". Final loss: ", h("span", run["final_loss"], target="run-loss"), ".",
          class_="tl2-line"),
        h("p", h("b", "Word order: "), h("span", "; ".join(run["order"]), target="run-order"),
          class_="tl2-line"),
        h("p", h("b", "Held-out mistakes at the end: "),
          h("span", "; ".join(run["mistakes"]) or "none", target="run-mistakes"),
          class_="tl2-line"),
        class_="tl2-card",
        js=True,
    )  # fmt: skip


@register(
    NAME,
    scripts=("widgets/tiny-learn.js",),
    styles=("widgets/controls.css", "widgets/plots.css", "widgets/tiny-learn.css"),
    options=(option.example(default="tiny_learn", needs=NEEDS),),
    control="step",
)
def render(opts: dict[str, Any], ctx: WidgetContext) -> str:
    uid = opts["id"]
    ex = opts["example"]
    runs, steps = _runs_state(ex)
    if runs[0]["name"] != "full":
        raise WidgetOptionError(f"example {opts['example_key']!r}: the full model comes first")
    last = len(steps) - 1
    full = runs[0]
    first = full["checkpoints"][last]["maps"][0]
    run_buttons = [
        h("button", r["title"], type="button", class_="wk-button tl2-run", target="run",
          data_k=str(k), aria_pressed="true" if k == 0 else "false")
        for k, r in enumerate(runs)
    ]  # fmt: skip
    sentence_buttons = [
        h("button", f"“{s}”" + (" (trained on)" if k == 0 else " (held out)"), type="button",
          class_="wk-button tl2-sentence", target="sentence", data_k=str(k),
          aria_pressed="true" if k == 0 else "false")
        for k, s in enumerate(ex["watch"])
    ]  # fmt: skip
    controls = h(
        "div",
        parts.slider(uid, "step", "Training step", value=last, lo=0, hi=last, step=1,
                     shown=str(steps[last]), valuetext=f"step {steps[last]}",
                     help="The saved steps: " + ", ".join(str(s) for s in steps) + "."),
        h("div", h("span", "Run:", class_="tl2-label", id=f"{uid}-runs"), run_buttons,
          class_="wk-toolbar tl2-runs", role="group", aria_labelledby=f"{uid}-runs"),
        h("div", h("span", "Sentence:", class_="tl2-label", id=f"{uid}-sents"), sentence_buttons,
          class_="wk-toolbar tl2-sentences", role="group", aria_labelledby=f"{uid}-sents"),
        js=True,
    )  # fmt: skip
    live_map = h(
        "div",
        parts.heatmap(first["values"], uid=f"{uid}-map", rows=first["rows"], cols=first["cols"],
                      title=first["title"], desc=first["desc"], caption=first["caption"],
                      numbers="details", target="map", cell=40, font=14, fixed=True,
                      scroll="the map", class_="tl2-map"),
        h("p", h("b", "It writes: "), h("span", first["written"], target="written", lang="hi"),
          class_="tl2-line"),
        h("p", "Right at this step: ", h("span", full["checkpoints"][last]["train"],
                                         target="train"),
          " of the training sentences, ", h("span", full["checkpoints"][last]["held"],
                                            target="held"),
          " of the held-out ones.", class_="tl2-line"),
        js=True,
    )  # fmt: skip
    state = {"runs": runs, "steps": steps, "step": last, "run": 0, "sentence": 0}
    return kit.element(
        NAME,
        uid,
        state,
        controls,
        kit.status(class_="wk-status"),
        live_map,
        _plot(uid, runs, [0]),
        _card(full),
        _nojs_maps(uid, full),
        _scores(runs, steps),
        class_="wk tl2",
    )
