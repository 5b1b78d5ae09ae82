"""Widget 2 of Unit 18, "Soft dictionary" (SPEC §2), rendered on the server.

    :::{widget} soft-dictionary
    :id: w2
    :example: soft_lookup     (optional: a key of figures.EXAMPLES; default "soft_lookup")
    :::

A small menu of keys (2-D: how hot, how sweet) and values (prices). The learner drags the query
across the plane (or moves it with two sliders), turns the sharpness beta, and can compare with
the hard lookup. Without JavaScript the element is a figure of the plane at the worked query
(lines as thick as the weights) and a table of the engine's scores and weights, with the answer;
the sliders and the hard-lookup switch are data-js parts. static/widgets/soft-dictionary.js
recomputes with lookup-math.js (softLookup, hardLookup), held to mathmachine.engine.lookup by
golden vectors.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from mathmachine.engine.lookup import hard_lookup, soft_lookup
from mathmachine.printing import dec, plain, rupees, vec

from . import Golden, WidgetContext, WidgetOptionError, kit, option, parts, register

NAME = "soft-dictionary"
MODULE = "widgets/lookup-math.js"
NEEDS = ("axes", "items", "query", "beta", "beta_max", "query_max")
STEP = 0.1  # both sliders of the query and the sharpness move in tenths
# The plane: query coordinates -R..R drawn in a square of SIZE px with a margin PAD.
SIZE, PAD = 240.0, 22.0
# Sharpness values the golden vectors are taken at, besides the example's own.
BETAS = (0.0, 0.5, 1.0, 2.0, 5.0, 10.0)

h = kit.h


def _inputs(
    opts: dict[str, Any],
) -> tuple[dict[str, Any], NDArray[np.float64], NDArray[np.float64]]:
    ex, key = opts["example"], opts["example_key"]
    try:
        keys = np.array([item["key"] for item in ex["items"]], dtype=np.float64)  # [n, 2]
        values = np.array([item["value"] for item in ex["items"]], dtype=np.float64)  # [n]
        q = np.array(ex["query"], dtype=np.float64)  # [2]
    except (KeyError, TypeError, ValueError) as exc:
        raise WidgetOptionError(f"example {key!r}: every item needs a key and a value") from exc
    if keys.ndim != 2 or keys.shape[1] != 2 or q.shape != (2,) or len(ex["axes"]) != 2:
        raise WidgetOptionError(f"example {key!r}: keys and the query must be 2-D points")
    r = float(ex["query_max"])
    if not (r > 0 and np.all(np.abs(keys) <= r) and np.all(np.abs(q) <= r)):
        raise WidgetOptionError(f"example {key!r}: keys and query must lie within ±query_max")
    if not 0 <= float(ex["beta"]) <= float(ex["beta_max"]):
        raise WidgetOptionError(f"example {key!r}: need 0 <= beta <= beta_max")
    return ex, keys, values


def _px(x: float, r: float) -> float:
    """A query coordinate -r..r -> pixels PAD..SIZE-PAD."""
    return PAD + (x + r) / (2 * r) * (SIZE - 2 * PAD)


def _py(y: float, r: float) -> float:
    return SIZE - _px(y, r)


def golden(opts: dict[str, Any], ctx: WidgetContext) -> Golden:
    """softLookup at the worked query and at points around the plane, for several sharpnesses;
    hardLookup at the worked query, a tie between two keys and the centre (every key ties)."""
    ex, keys, values = _inputs(opts)
    g = Golden(MODULE)
    r = float(ex["query_max"])
    queries = [list(ex["query"]), [0.0, 0.0], [1.0, 0.0], [-r, r], [0.3, -1.7], [r, -0.4]]
    for q in queries:
        for beta in (*BETAS, float(ex["beta"]), float(ex["beta_max"])):
            got = soft_lookup(q, keys, values, beta)
            g.case(
                "softLookup", q, keys, values, beta,
                out={"scores": got.scores, "weights": got.weights, "output": float(got.output)},
            )  # fmt: skip
        hard = hard_lookup(q, keys, values)
        g.case(
            "hardLookup",
            q,
            keys,
            values,
            out={"best": list(hard.best), "output": float(hard.output)},
        )
    return g


@register(
    NAME,
    scripts=("widgets/soft-dictionary.js",),
    styles=("widgets/controls.css", "widgets/soft-dictionary.css"),
    options=(option.example(default="soft_lookup", needs=NEEDS),),
    control="beta",
    golden=golden,
)
def render(opts: dict[str, Any], ctx: WidgetContext) -> str:
    """The element: the plane, the weights table, the answer, and the live controls."""
    uid = opts["id"]
    ex, keys, values = _inputs(opts)
    q, beta, r = list(ex["query"]), float(ex["beta"]), float(ex["query_max"])
    got = soft_lookup(q, keys, values, beta)
    hard = hard_lookup(q, keys, values)
    state = {
        "axes": list(ex["axes"]),
        "items": [
            {"name": it["name"], "key": [float(x) for x in it["key"]], "value": float(it["value"])}
            for it in ex["items"]
        ],
        "query": [float(x) for x in q],
        "beta": beta,
        "betaMax": float(ex["beta_max"]),
        "queryMax": r,
        "step": STEP,
        "plane": {"size": SIZE, "pad": PAD},
    }
    return kit.element(
        NAME,
        uid,
        state,
        _plane(uid, ex, keys, got.weights, q, r),
        _controls(uid, ex, q, beta, r),
        _answer(ex, float(got.output), hard.best, float(hard.output), q, beta),
        _table(uid, ex, got.scores, got.weights),
        kit.status(class_="wk-status"),
        class_="wk sd",
    )


def _plane(
    uid: str, ex: dict[str, Any], keys: NDArray[np.float64], w: NDArray[np.float64],
    q: list[float], r: float,
) -> kit.HTML:  # fmt: skip
    """The plane: axes, one point per key with its name and price, the query, and a line from the
    query to every key as thick as that key's weight."""
    hot, sweet = ex["axes"]
    qx, qy = _px(q[0], r), _py(q[1], r)
    lo, hi, mid = PAD, SIZE - PAD, SIZE / 2
    axes = [
        h("line", class_="sd-axis", x1=f"{lo:g}", y1=f"{mid:g}", x2=f"{hi:g}", y2=f"{mid:g}"),
        h("line", class_="sd-axis", x1=f"{mid:g}", y1=f"{lo:g}", x2=f"{mid:g}", y2=f"{hi:g}"),
        h("text", f"{hot} →", class_="sd-axis-label", x=f"{hi:g}", y=f"{mid - 6:g}",
          text_anchor="end"),
        h("text", f"{sweet} ↑", class_="sd-axis-label", x=f"{mid + 6:g}", y=f"{lo + 10:g}"),
    ]  # fmt: skip
    lines = [
        h("line", class_="sd-beam", target="beam", x1=f"{qx:.1f}", y1=f"{qy:.1f}",
          x2=f"{_px(k[0], r):.1f}", y2=f"{_py(k[1], r):.1f}",
          stroke_width=f"{1 + 8 * wj:.2f}", stroke_opacity=f"{0.15 + 0.85 * wj:.3f}")
        for k, wj in zip(keys, w, strict=True)
    ]  # fmt: skip
    points = []
    for k, item in zip(keys, ex["items"], strict=True):
        x, y = _px(k[0], r), _py(k[1], r)
        label_y = y + 20 if k[1] < 0 else y - 12  # below the lower points, above the upper
        points.append(h("circle", class_="sd-key", cx=f"{x:.1f}", cy=f"{y:.1f}", r="6"))
        points.append(
            h("text", f"{item['name']} {rupees(item['value'])}", class_="sd-key-label",
              x=f"{x:.1f}", y=f"{label_y:.1f}", text_anchor="middle")
        )  # fmt: skip
    query = [
        h("circle", class_="sd-query-hit", target="query-hit", cx=f"{qx:.1f}", cy=f"{qy:.1f}",
          r="22"),
        h("circle", class_="sd-query", target="query", cx=f"{qx:.1f}", cy=f"{qy:.1f}", r="8"),
    ]  # fmt: skip
    shares = ", ".join(f"{item['name']} {dec(wj)}" for item, wj in zip(ex["items"], w, strict=True))
    desc = (
        f"The {len(keys)} drinks as points: across, how {hot} (right) or not; up, how {sweet}. "
        + "; ".join(
            f"{it['name']} at {vec(it['key'], plain)}, {rupees(it['value'])}" for it in ex["items"]
        )
        + f". The query sits at {vec(q, plain)}. A line joins it to every drink, as thick "
        f"as that drink's weight: {shares}."
    )
    return kit.figure(
        axes,
        lines,
        points,
        query,
        uid=f"{uid}-plane",
        title="The menu as a plane, and the query",
        desc=desc,
        caption="Keys are points on the plane; the query is the dark dot. Each line is as thick "
        "as that key's share of the weight.",
        viewbox=f"0 0 {SIZE:g} {SIZE:g}",
        svg_class="sd-plane",
        class_="sd-figure",
        target="plane",
    )


def _controls(uid: str, ex: dict[str, Any], q: list[float], beta: float, r: float) -> kit.HTML:
    hot, sweet = ex["axes"]
    return h(
        "div",
        parts.slider(uid, "x", f"query: {hot}", value=q[0], lo=-r, hi=r, step=STEP),
        parts.slider(uid, "y", f"query: {sweet}", value=q[1], lo=-r, hi=r, step=STEP),
        parts.slider(
            uid, "beta", "sharpness β", value=beta, lo=0, hi=float(ex["beta_max"]), step=STEP
        ),
        parts.switch(uid, "hard", "hard lookup"),
        class_="sd-controls",
        js=True,
    )


def hard_what(names: list[str]) -> str:
    """What the hard lookup hands back, in words: one key's price, or with a tie the mean of the
    tied keys' prices (soft-dictionary.js's hardWhat)."""
    if len(names) == 1:
        return f"the price of {names[0]}, the best-matching key"
    listed = " and ".join(names) if len(names) < 3 else ", ".join(names[:-1]) + " and " + names[-1]
    return f"the mean of the prices of {listed}, the {len(names)} best-matching keys (a tie)"


def _answer(
    ex: dict[str, Any], output: float, best: tuple[int, ...], hard_out: float,
    q: list[float], beta: float,
) -> kit.HTML:  # fmt: skip
    what = hard_what([ex["items"][j]["name"] for j in best])
    return kit.join(
        [
            h(
                "p",
                h("span", f"For the query {vec(q, plain)} at sharpness {plain(beta)}, ",
                  target="answer-lead"),
                "the soft lookup answers ",
                h("b", rupees(float(output)), target="answer"),
                ".",
                class_="sd-answer",
            ),
            h(
                "p",
                "The hard lookup answers ", h("b", rupees(hard_out), target="hard-answer"),
                ": ", h("span", what, target="hard-what"), ".",
                class_="sd-hard",
                target="hard-line",
                hidden=True,
            ),
        ]
    )  # fmt: skip


def _table(
    uid: str, ex: dict[str, Any], scores: NDArray[np.float64], w: NDArray[np.float64]
) -> kit.HTML:
    rows = []
    for item, s, wj in zip(ex["items"], scores, w, strict=True):
        rows.append(
            (
                item["name"],
                [
                    rupees(item["value"]),
                    kit.cell(dec(s, 2), target="score"),
                    kit.cell(kit.join([parts.bar(wj), h("span", dec(wj), target="weight")]),
                             class_="sd-weight"),
                ],
            )
        )  # fmt: skip
    return parts.scroll_box(
        kit.table(
            caption="Each drink's price (its value), its score q·k (the query against its key) "
            "and its weight after softmax; the weights add up to 1.",
            columns=["drink", "price", "score", "weight"],
            rows=rows,
            class_="wk-table sd-table",
            id=f"{uid}-table",
        ),
        "the weights, as a table",
    )
