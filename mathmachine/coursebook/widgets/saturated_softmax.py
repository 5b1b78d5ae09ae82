"""Widget 5 of Unit 18, "A saturated softmax" (SPEC §4), rendered on the server.

    :::{widget} saturated-softmax
    :id: w5
    :example: saturation      (optional: a key of figures.EXAMPLES; default "saturation")
    :::

One row of scores multiplied by a "spread": the weights, the softmax's slope (its Jacobian,
alpha_i (delta_ij - alpha_j), mathmachine.engine.scaling.softmax_slope) as a grid, and the size
of its largest entry, which falls towards 0 as one weight takes everything. Without JavaScript:
the weights and slope at the default spread and a table of the largest slope entry at several
spreads. static/widgets/saturated-softmax.js recomputes with scaling-math.js (softmaxSlope,
slopeSize), held to the engine by golden vectors.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from mathmachine.engine.scaling import slope_size, softmax_slope
from mathmachine.engine.shares import softmax
from mathmachine.printing import dec, plain

from . import Golden, WidgetContext, WidgetOptionError, kit, option, parts, register
from ._golden import MATH_MODULE

NAME = "saturated-softmax"
MODULE = "widgets/scaling-math.js"
NEEDS = ("words", "scores", "scale_default", "scale_max", "scale_step", "scale_big")
TABLE_SPREADS = (0.0, 1.0, 2.0, 4.0, 8.0, 16.0)
#: A slope entry's shade: by its size, from 0 to the largest any entry can be, 1/4.
SLOPE = parts.Scale(0.0, 0.25, "linear", magnitude=True)

h = kit.h


def _inputs(opts: dict[str, Any]) -> tuple[dict[str, Any], NDArray[np.float64]]:
    ex, key = opts["example"], opts["example_key"]
    s = np.asarray(ex["scores"], dtype=np.float64)
    if s.ndim != 1 or s.size != len(ex["words"]) or not np.all(np.isfinite(s)):
        raise WidgetOptionError(f"example {key!r}: one finite score per word")
    if not 0 <= ex["scale_default"] <= ex["scale_max"] or ex["scale_step"] <= 0:
        raise WidgetOptionError(f"example {key!r}: need 0 <= scale_default <= scale_max, step > 0")
    return ex, s


def _spreads(ex: dict[str, Any]) -> list[float]:
    """The spreads the no-JS table shows: TABLE_SPREADS, the default and the big one."""
    marks = (*TABLE_SPREADS, float(ex["scale_default"]), float(ex["scale_big"]))
    return sorted({x for x in marks if x <= float(ex["scale_max"])})


def golden(opts: dict[str, Any], ctx: WidgetContext) -> list[Golden]:
    """The slope along the slider: the row (math.js's scale: spread times the scores), its
    softmax, softmaxSlope, jacobian of the weights, its largest entry, and how many times
    smaller it is than at the spread the page starts at."""
    ex, s = _inputs(opts)
    g = Golden(MODULE)
    m = Golden(MATH_MODULE)
    reference = slope_size(float(ex["scale_default"]) * s)
    for c in (*_spreads(ex), 0.3, 2.5, 11.7):
        row = m.case("scale", s, c, out=c * s)
        m.case("softmax", row, out=softmax(row))
        slope = g.case("softmaxSlope", row, out=softmax_slope(row))
        g.case("jacobian", softmax(row), out=slope)  # what the element calls on each input
        size = g.case("largest", slope, out=float(np.abs(slope).max()))
        g.case("slopeSize", row, out=slope_size(row))
        if size > 0:
            g.case("timesSmaller", reference, size, out=reference / size)
            g.case("timesSmaller", size, reference, out=size / reference)
    return [g, m]


@register(
    NAME,
    scripts=("widgets/saturated-softmax.js",),
    styles=("widgets/controls.css", "widgets/plots.css", "widgets/saturated-softmax.css"),
    options=(option.example(default="saturation", needs=NEEDS),),
    control="spread",
    golden=golden,
)
def render(opts: dict[str, Any], ctx: WidgetContext) -> str:
    uid = opts["id"]
    ex, s = _inputs(opts)
    c = float(ex["scale_default"])
    w = softmax(c * s)
    J = softmax_slope(c * s)
    state = {
        "words": list(ex["words"]),
        "scores": s.tolist(),
        "spread": {"value": c, "max": float(ex["scale_max"]), "step": float(ex["scale_step"])},
        "reference": slope_size(float(ex["scale_default"]) * s),
        "shade": SLOPE.as_json(),
    }
    return kit.element(
        NAME,
        uid,
        state,
        _controls(uid, ex, c),
        _weights(uid, ex, c * s, w),
        _slope(uid, ex, J, slope_size(c * s), c),
        _table(uid, ex, s),
        kit.status(class_="wk-status"),
        class_="wk ss",
    )


def _controls(uid: str, ex: dict[str, Any], c: float) -> kit.HTML:
    return parts.slider(
        uid, "spread", "spread", value=c, lo=0, hi=float(ex["scale_max"]),
        step=float(ex["scale_step"]), help="multiplies every score of the row", js=True,
    )  # fmt: skip


def _weights(
    uid: str, ex: dict[str, Any], scores: NDArray[np.float64], w: NDArray[np.floating]
) -> kit.HTML:
    rows = []
    for word, sj, wj in zip(ex["words"], scores, w, strict=True):
        rows.append(
            (word, [kit.cell(dec(sj, 1), target="score"),
                    kit.cell(kit.join([parts.bar(wj), h("span", dec(wj), target="weight")]))])
        )  # fmt: skip
    return parts.scroll_box(
        kit.table(
            caption="The row of scores (the scores of “tea” in §3, times the spread) and its "
            "weights.",
            columns=["key", "score", "weight"],
            rows=rows,
            class_="wk-table ss-weights",
            id=f"{uid}-weights",
        ),
        "the weights, as a table",
    )


def _slope(uid: str, ex: dict[str, Any], J: NDArray[np.float64], size: float, c: float) -> kit.HTML:
    """The slope grid, a heat map in table form: each entry shaded by its size on the kit's
    palette (SLOPE: 0 to the largest possible, 1/4)."""
    words = ex["words"]
    return kit.join(
        [
            parts.matrix_table(
                J, rows=[f"weight of {w}" for w in words], cols=[f"score of {w}" for w in words],
                caption=kit.join(["The softmax's slope: how much each weight (row) moves "
                    "when one score (column) moves up a little, α", h("sub", "i"), "(δ",
                    h("sub", "ij"), " − α", h("sub", "j"), ")."]),
                shade=SLOPE, cell=lambda i, j, v: {"target": "slope"},
                label="the slope, as a table", class_="ss-slope", id=f"{uid}-slope",
            ),
            h(
                "p",
                "Largest entry of the slope: ", h("b", dec(size, 4), target="size"),
                h("span", f" at spread {plain(c)}", target="size-lead"),
                h("span", "", target="size-ratio"),
                class_="ss-size",
            ),
        ]
    )  # fmt: skip


def _table(uid: str, ex: dict[str, Any], s: NDArray[np.float64]) -> kit.HTML:
    rows = []
    for c in _spreads(ex):
        w = softmax(c * s)
        rows.append((plain(c), [dec(x) for x in w] + [dec(slope_size(c * s), 4)]))
    return parts.scroll_box(
        kit.table(
            caption="The same row at other spreads: the weights, and the largest entry of the "
            "slope, which shrinks as one weight takes nearly everything.",
            columns=["spread", *ex["words"], "largest slope"],
            rows=rows,
            class_="wk-table",
            id=f"{uid}-spreads",
        ),
        "the row at other spreads, as a table",
        nojs=True,
    )
