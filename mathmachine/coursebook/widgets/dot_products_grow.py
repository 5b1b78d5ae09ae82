"""Widget 4 of Unit 18, "Dot products grow with d" (SPEC §4), rendered on the server.

    :::{widget} dot-products-grow
    :id: w4
    :example: dot_growth      (optional: a key of figures.EXAMPLES; default "dot_growth")
    :::

q·k for many random pairs of vectors (mulberry32 + Box-Muller from a seed,
mathmachine.engine.scaling), at every width d = 1, 2, 4, …, 1024: two histograms, raw and
divided by √d, with the measured variance beside the predicted one. The server draws every
width's histograms (the state), so moving the d slider only redraws; "draw again" makes the
script draw a fresh seed itself with scaling-math.js (dotProductSamples, histogram, variance),
held to the engine by golden vectors. Without JavaScript: the histograms at the default d and a
table of every width's variances.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from mathmachine.engine.scaling import (
    dot_product_samples,
    dot_product_variance,
    histogram,
    mulberry32,
    normal_stream,
)
from mathmachine.printing import count, dec, plain

from . import Golden, WidgetContext, WidgetOptionError, kit, option, parts, register
from ._golden import MATH_MODULE

NAME = "dot-products-grow"
MODULE = "widgets/scaling-math.js"
NEEDS = ("seed", "samples", "dims", "d_default", "raw", "scaled")
RAW_LABEL, SCALED_LABEL = "q·k", "q·k ÷ √d"  # the two histograms, as their readouts name them
W, H, AXIS = 240.0, 84.0, 16.0  # a histogram's plot area and the axis strip under it

h = kit.h


def _inputs(opts: dict[str, Any]) -> dict[str, Any]:
    ex, key = opts["example"], opts["example_key"]
    dims = list(ex["dims"])
    if not dims or any(not isinstance(d, int) or d < 1 for d in dims) or dims != sorted(set(dims)):
        raise WidgetOptionError(f"example {key!r}: dims must be increasing whole numbers >= 1")
    if ex["d_default"] not in dims:
        raise WidgetOptionError(f"example {key!r}: d_default must be one of the dims")
    for name in ("raw", "scaled"):
        r = ex[name]
        if not (r["lo"] < r["hi"] and isinstance(r["bins"], int) and r["bins"] > 0):
            raise WidgetOptionError(f"example {key!r}: {name} needs lo < hi and bins >= 1")
    return ex


def draws(ex: dict[str, Any], seed: int) -> list[dict[str, Any]]:
    """For every width: both histograms and both measured variances, from the engine."""
    got = dot_product_samples(seed, int(ex["samples"]), tuple(ex["dims"]))
    raw, scaled = got.dots, got.scaled()
    out = []
    for i, d in enumerate(got.dims):
        parts: dict[str, Any] = {"d": d}
        for name, x in (("raw", raw[i]), ("scaled", scaled[i])):
            r = ex[name]
            hist = histogram(x, r["lo"], r["hi"], r["bins"])
            parts[name] = {
                "counts": hist.counts.tolist(),
                "below": hist.below,
                "above": hist.above,
                "variance": float(np.mean((x - x.mean()) ** 2)),
            }
        out.append(parts)
    return out


def golden(opts: dict[str, Any], ctx: WidgetContext) -> list[Golden]:
    """The generator, a few small draws, their variances, their division by √d and their
    histograms; the predicted spread √d of every width; the counts' total (math.js's sum)."""
    ex = _inputs(opts)
    seed = int(ex["seed"])
    g = Golden(MODULE)
    for s in (seed, seed + 1, 0, 2**32 - 1):
        g.case("mulberry32", s, 8, out=mulberry32(s, 8))
    g.case("normalStream", seed, 64, out=normal_stream(seed, 64))
    small = [d for d in ex["dims"] if d <= 16]
    for s in (seed, seed + 1):
        got = dot_product_samples(s, 12, tuple(small))
        g.case("dotProductSamples", s, 12, small, out=got.dots)
        g.case("dotProductSamples", s, 12, small, 3, 7, out=got.dots[:, 3:7])
        for i, row in enumerate(got.dots):
            g.case("variance", row, out=float(np.mean((row - row.mean()) ** 2)))
            for name, x in (("raw", row), ("scaled", got.scaled()[i])):
                r = ex[name]
                hist = histogram(x, r["lo"], r["hi"], r["bins"])
                g.case("histogram", x, r["lo"], r["hi"], r["bins"],
                       out={"counts": hist.counts, "below": hist.below,
                            "above": hist.above})  # fmt: skip
            d = small[i]
            g.case("scaledByRootD", row, d, out=got.scaled()[i])
    for d in ex["dims"]:
        g.case("predictedSpread", d, out=math.sqrt(d))
    m = Golden(MATH_MODULE)
    for item in draws(ex, seed)[:3]:
        for name in ("raw", "scaled"):
            counts = item[name]["counts"]
            m.case("sum", counts, out=float(sum(counts)))
    return [g, m]


@register(
    NAME,
    scripts=("widgets/dot-products-grow.js",),
    styles=("widgets/controls.css", "widgets/dot-products-grow.css"),
    options=(option.example(default="dot_growth", needs=NEEDS),),
    control="d",
    golden=golden,
)
def render(opts: dict[str, Any], ctx: WidgetContext) -> str:
    uid = opts["id"]
    ex = _inputs(opts)
    dims = list(ex["dims"])
    at = dims.index(ex["d_default"])
    data = draws(ex, int(ex["seed"]))
    state = {
        "seed": int(ex["seed"]),
        "samples": int(ex["samples"]),
        "dims": dims,
        "index": at,
        "raw": ex["raw"],
        "scaled": ex["scaled"],
        "labels": {"raw": RAW_LABEL, "scaled": SCALED_LABEL},
        "plot": {"width": W, "height": H},
        "draws": data,
    }
    d = dims[at]
    return kit.element(
        NAME,
        uid,
        state,
        _controls(uid, dims, at),
        _panel(uid, "raw", RAW_LABEL, ex["raw"], data[at]["raw"], d, float(d), math.sqrt(d)),
        _panel(uid, "scaled", SCALED_LABEL, ex["scaled"], data[at]["scaled"], d, 1.0, 1.0),
        _table(uid, ex, data),
        kit.status(class_="wk-status"),
        class_="wk dg",
    )


def _controls(uid: str, dims: list[int], at: int) -> kit.HTML:
    return h(
        "div",
        parts.slider(uid, "d", "d", value=at, lo=0, hi=len(dims) - 1, step=1,
                     shown=str(dims[at]), valuetext=f"d = {dims[at]}",
                     help=f"the length of q and k: {', '.join(str(x) for x in dims)}"),
        h("div", h("button", "draw again", type="button", class_="wk-button", target="redraw"),
          h("span", "", class_="wk-note", target="draw-note"), class_="wk-toolbar"),
        class_="dg-controls",
        js=True,
    )  # fmt: skip


def _panel(
    uid: str, name: str, label: str, r: dict[str, Any], hist: dict[str, Any], d: int,
    predicted: float, std: float,
) -> kit.HTML:  # fmt: skip
    """One histogram as an SVG figure: bars (heights relative to the tallest), the predicted ±1
    standard deviation as dashed lines, the axis, and the counts that fall off either edge."""
    lo, hi, bins = float(r["lo"]), float(r["hi"]), int(r["bins"])
    counts = hist["counts"]
    top = max(max(counts), 1)
    bw = W / bins
    bars = [
        h("rect", class_="dg-bar", target=f"{name}-bar", x=f"{b * bw + 0.5:.1f}",
          y=f"{H - H * c / top:.1f}", width=f"{bw - 1:.1f}", height=f"{H * c / top:.1f}")
        for b, c in enumerate(counts)
    ]  # fmt: skip

    def xpx(v: float) -> float:
        return (v - lo) / (hi - lo) * W

    sx = min(max(xpx(-std), 0.0), W), min(max(xpx(std), 0.0), W)
    marks = [
        h("line", class_="dg-std", target=f"{name}-std", x1=f"{x:.1f}", y1="0", x2=f"{x:.1f}",
          y2=f"{H:g}")
        for x in sx
    ]  # fmt: skip
    ticks = []
    for v in (lo, lo / 2, 0.0, hi / 2, hi):
        anchor = "start" if v == lo else "end" if v == hi else "middle"
        ticks.append(h("text", dec(v, 0), class_="dg-tick", x=f"{xpx(v):.1f}", y=f"{H + 13:g}",
                       text_anchor=anchor))  # fmt: skip
    edges = [
        h("text", f"◀ {hist['below']}" if hist["below"] else "", class_="dg-off",
          target=f"{name}-below", x="2", y="11"),
        h("text", f"{hist['above']} ▶" if hist["above"] else "", class_="dg-off",
          target=f"{name}-above", x=f"{W - 2:g}", y="11", text_anchor="end"),
    ]  # fmt: skip
    var = hist["variance"]
    places = variance_places(predicted)
    total = sum(counts) + hist["below"] + hist["above"]
    desc = (
        f"Histogram of {count(total)} values of {label} for d = {d}, from {dec(lo, 0)} to "
        f"{dec(hi, 0)}: measured variance {dec(var, places)}, predicted {plain(predicted)}. "
        f"{hist['below']} fall below the left edge and {hist['above']} beyond the right. Dashed "
        "lines mark one predicted standard deviation either side of 0."
    )
    readout = h(
        "p",
        h("b", label), h("span", f" at d = {d}", target=f"{name}-d"),
        ": measured variance ", h("b", dec(var, places), target=f"{name}-var"),
        ", predicted ", h("b", plain(predicted), target=f"{name}-predicted"),
        class_="dg-readout",
    )  # fmt: skip
    return h(
        "div",
        readout,
        kit.figure(
            bars, marks, ticks, edges,
            uid=f"{uid}-{name}",
            title=f"Histogram of {label}",
            desc=desc,
            caption=f"{label}: counts from {dec(lo, 0)} to {dec(hi, 0)}; ◀ ▶ count what falls "
            "off the edges; dashed lines at ± one predicted standard deviation.",
            viewbox=f"0 0 {W:g} {H + AXIS:g}",
            svg_class="dg-svg",
            class_="dg-figure",
            target=f"{name}-figure",
        ),
        class_=f"dg-panel dg-{name}",
    )  # fmt: skip


def variance_places(predicted: float) -> int:
    """Decimals a measured variance is printed with, by the variance predicted: 2 below 10, 1
    below 1000, else 0. The same number always prints the same way (at d = 1 the raw and the
    scaled variance are one number: "0.96" both, never "1.0" beside "0.96");
    dot-products-grow.js's varPlaces is the same rule."""
    return 2 if predicted < 10 else 1 if predicted < 1000 else 0


def _table(uid: str, ex: dict[str, Any], data: list[dict[str, Any]]) -> kit.HTML:
    rows = [
        (
            str(item["d"]),
            [
                plain(dot_product_variance(item["d"])),
                dec(item["raw"]["variance"], variance_places(dot_product_variance(item["d"]))),
                dec(item["scaled"]["variance"], variance_places(1)),
            ],
        )
        for item in data
    ]
    return parts.scroll_box(
        kit.table(
            caption=f"Variance of q·k over {count(ex['samples'])} random pairs, for every d: "
            "predicted, measured, and measured after dividing by √d (predicted: 1).",
            columns=["d", "predicted", "measured", "after ÷ √d"],
            rows=rows,
            class_="wk-table",
            id=f"{uid}-table",
        ),
        "the variances for every d, as a table",
        nojs=True,
    )
