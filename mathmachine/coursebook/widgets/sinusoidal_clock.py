"""Widget 10 of Unit 18, "Sinusoidal clock" (SPEC §8), rendered on the server.

    :::{widget} sinusoidal-clock
    :id: w10
    :example: clock   (optional: a key of figures.EXAMPLES; default "clock")
    :::

The sinusoidal encoding of Vaswani et al. (2017) for ``positions`` places at width ``d``, as a
heat map (a row per dimension, a column per position). Three sliders: the position p, the
dimension, and a gap k. The element shows the chosen entry (sin or cos of ω_i p), the dot
product PE(p) · PE(p + k) as the sum of its cos(ω_i k) terms, the same at every p (it lists it at
several starts), and the chosen pair's step from p to p + k as one fixed rotation, drawn on a
circle.

Every number from mathmachine.engine.order and engine.positions. The script
(static/widgets/sinusoidal-clock.js) recomputes with position-math.js (peRow, peDotTerms, peDot,
peShiftMatrix, peShifted), held to the engine by golden vectors. Without JavaScript: the map,
the dot product at every gap from several starts (each row one number), and the rotation at the
example's defaults. The map's every number, as a table, is on a page of its own
(``/units/<slug>/<number>/numbers/``, coursebook/own_pages.py), linked under the map: 512
numbers the section's page need not carry on every visit.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from mathmachine.engine import sinusoidal_positions
from mathmachine.engine.order import pe_dot, pe_dot_terms, pe_frequencies, pe_shift_matrix
from mathmachine.printing import compact, dec, vec

from . import Golden, WidgetContext, WidgetOptionError, kit, option, parts, register

NAME = "sinusoidal-clock"
MODULE = "widgets/position-math.js"
NEEDS = ("d", "positions", "max_gap", "pos", "dim", "gap")
#: PE entries lie in -1..1: the map's shade.
SHADE = parts.Scale(-1.0, 1.0, "linear")
#: The starts at which the dot product is listed (the same number at each).
STARTS = (0, 10, 20, 30, 40)
R = 40  # the circle's radius, in SVG units
NUMBERS_PAGE = "numbers"  # the map's numbers: /units/<slug>/<number>/numbers/

h = kit.h


def _inputs(opts: dict[str, Any]) -> dict[str, Any]:
    ex, key = opts["example"], opts["example_key"]
    try:
        d, n, gap_max = int(ex["d"]), int(ex["positions"]), int(ex["max_gap"])
        pe_frequencies(d)
    except (TypeError, ValueError) as exc:
        raise WidgetOptionError(f"example {key!r}: {exc}") from exc
    if not (2 <= n <= 100 and 1 <= gap_max < n and d <= 32):
        raise WidgetOptionError(f"example {key!r}: 2..100 positions, gaps below them, d <= 32")
    if not (0 <= ex["pos"] < n and 0 <= ex["dim"] < d and 0 <= ex["gap"] <= gap_max):
        raise WidgetOptionError(f"example {key!r}: pos, dim and gap must be on their sliders")
    return ex


def _starts(n: int) -> list[int]:
    return [p for p in STARTS if p < n]


def golden(opts: dict[str, Any], ctx: WidgetContext) -> list[Golden]:
    """The clock's numbers at the slider values a learner meets: every row of the map, each gap's
    terms, the dot product at the listed starts, and the shift (its matrix and PE(p) M(k))."""
    ex = _inputs(opts)
    d, n, gap_max = int(ex["d"]), int(ex["positions"]), int(ex["max_gap"])
    g = Golden(MODULE)
    pe = sinusoidal_positions(n + gap_max, d)
    g.case("peFrequencies", d, out=pe_frequencies(d))
    g.case("sinusoidal", n, d, out=pe[:n])
    for p in range(n + gap_max):
        g.case("peRow", p, d, out=pe[p])
    for k in range(gap_max + 1):
        g.case("peDotTerms", k, d, out=pe_dot_terms(k, d))
        g.case("peTurnDegrees", k, d, out=np.degrees(pe_frequencies(d) * k))
        for p in (*_starts(n), n - 1):
            g.case("peDot", p, k, d, out=pe_dot(p, k, d))
    for k in (0, 1, int(ex["gap"]), gap_max):
        m = pe_shift_matrix(k, d)
        g.case("peShiftMatrix", k, d, out=m)
        for p in (0, int(ex["pos"]), n - 1):
            g.case("peShifted", p, k, d, out=pe[p] @ m)
    return [g]


@register(
    NAME,
    scripts=("widgets/sinusoidal-clock.js",),
    styles=("widgets/controls.css", "widgets/plots.css", "widgets/position.css"),
    options=(option.example(default="clock", needs=NEEDS),),
    control="pos",
    golden=golden,
)
def render(opts: dict[str, Any], ctx: WidgetContext) -> str:
    uid = opts["id"]
    ex = _inputs(opts)
    d, n, gap_max = int(ex["d"]), int(ex["positions"]), int(ex["max_gap"])
    p, dim, k = int(ex["pos"]), int(ex["dim"]), int(ex["gap"])
    pe = sinusoidal_positions(n + gap_max, d)
    state = {"d": d, "positions": n, "pos": p, "dim": dim, "gap": k, "starts": _starts(n),
             "radius": R}  # fmt: skip
    return kit.element(
        NAME,
        uid,
        state,
        _map(uid, pe[:n], d, p, dim),
        _numbers(pe[:n], d),
        _controls(uid, d, n, gap_max, p, dim, k),
        _entry(d, pe, p, dim),
        _dot(uid, d, n, p, k),
        _rotation(uid, d, pe, p, dim, k),
        kit.status(class_="wk-status"),
        _gaps_table(uid, d, n, gap_max),
        class_="wk sc",
    )


def _map(uid: str, pe: np.ndarray, d: int, p: int, dim: int) -> kit.HTML:
    n = pe.shape[0]
    return parts.heatmap(
        pe.T,
        uid=f"{uid}-map",
        rows=[str(j) for j in range(d)],
        cols=[str(c) if c % 5 == 0 else "" for c in range(n)],
        title=f"The sinusoidal encoding PE(pos, i): {d} dimensions by {n} positions",
        desc=f"One row per dimension, 0 at the top, one column per position, 0 to {n - 1}; "
        "dark is +1, light is −1 (every number is in a table on a page of its own, linked "
        "under the map). Row 0 changes fastest, one radian a position, like a "
        "second hand; each next pair of rows changes more slowly, and the bottom rows "
        "hardly change across these positions.",
        caption=kit.join(
            [
                f"PE(pos, i) at d = {d}: dimension i down, position across. "
                "The outlined row is the chosen dimension; the marked cell, the "
                "chosen position."
            ]
        ),
        scale=SHADE,
        numbers=None,  # 16 x 32 numbers: on a page of their own (_numbers)
        highlight=dim,
        key=p,
        cell=12,
        font=10,
        slant=90,
        fixed=True,
        scroll="The map, scrolls sideways",
        target="map",
        picture=True,  # 512 cells the script never redraws (it moves the outlines only)
        class_="sc-map",
    )


def _numbers(pe: np.ndarray, d: int) -> kit.HTML:
    """The map's numbers, every position, as a table: a part on a page of its own, a link in
    its place (coursebook/own_pages.py)."""
    n = pe.shape[0]
    table = parts.matrix_table(
        pe.T, rows=[str(j) for j in range(d)], cols=[str(c) for c in range(n)],
        caption=f"PE(pos, i): a row per dimension i, a column per position 0–{n - 1}",
        fmt=3, corner="i ↓ pos →", shade=SHADE, label="The map's numbers, as a table",
        class_="sc-first",
    )  # fmt: skip
    return h("div", table, class_="wk sc sc-numbers", data_own_page=NUMBERS_PAGE,
             data_own_page_title=f"The map's numbers: PE(pos, i) at all {n} positions")  # fmt: skip


def _controls(uid: str, d: int, n: int, gap_max: int, p: int, dim: int, k: int) -> kit.HTML:
    return h(
        "div",
        parts.slider(uid, "pos", "position p", value=p, lo=0, hi=n - 1, step=1, shown=str(p),
                     help="the column of the map", valuetext=f"position {p}"),
        parts.slider(uid, "dim", "dimension i", value=dim, lo=0, hi=d - 1, step=1,
                     shown=str(dim), help="the row of the map", valuetext=f"dimension {dim}"),
        parts.slider(uid, "gap", "gap k", value=k, lo=0, hi=gap_max, step=1, shown=str(k),
                     help="compare p with p + k", valuetext=f"gap {k}"),
        class_="sc-controls",
        js=True,
    )  # fmt: skip


def _entry_words(d: int, pe: np.ndarray, p: int, dim: int) -> list[kit.Child]:
    pair = dim // 2
    fn = "sin" if dim % 2 == 0 else "cos"
    w = pe_frequencies(d)[pair]
    return [
        "PE(", h("span", str(p), target="e-pos"), ", ", h("span", str(dim), target="e-dim"),
        ") = ", h("span", fn, target="e-fn"), "(ω", h("sub", h("span", str(pair), target="e-pair")),
        " × ", h("span", str(p), target="e-pos"), ") with ω", h("sub", h("span", str(pair),
                                                                         target="e-pair")),
        " = ", h("span", compact(w, 5), target="e-w"), ": ",
        h("b", dec(pe[p, dim]), target="e-value"),
    ]  # fmt: skip


def _entry(d: int, pe: np.ndarray, p: int, dim: int) -> kit.HTML:
    return h("p", *_entry_words(d, pe, p, dim), class_="sc-entry")


def _dot(uid: str, d: int, n: int, p: int, k: int) -> kit.HTML:
    terms = pe_dot_terms(k, d)
    cells = [h("span", dec(t), class_="sc-term", target="term") for t in terms]
    starts = [
        h("li", "p = ", h("span", str(s), class_="sc-start"), ": ",
          h("span", dec(pe_dot(s, k, d)), target="at-start"))
        for s in _starts(n)
    ]  # fmt: skip
    return h(
        "section",
        h("h3", "PE(p) · PE(p + k)", class_="sc-h"),
        h("p", "PE(", h("span", str(p), target="d-p"), ") · PE(", h("span", str(p + k),
                                                                    target="d-pk"), ") = ",
          h("b", dec(pe_dot(p, k, d)), target="dot"), class_="sc-line"),
        h("p", "the sum of cos(ω", h("sub", "i"), " k), one term a pair:", class_="sc-line"),
        h("p", cells, class_="sc-terms"),
        h("p", "The same gap from other starts:", class_="sc-line"),
        h("ul", starts, class_="sc-starts"),
        class_="sc-dot",
        aria_label="The dot product of two positions k apart",
    )  # fmt: skip


def _circle(uid: str, before: tuple[float, float], after: tuple[float, float]) -> kit.HTML:
    """Pair i's two entries as a point on the unit circle (cos across, sin up), at p and p + k."""
    c = R + 8

    def at(pt: tuple[float, float]) -> tuple[str, str]:
        s, co = pt
        return f"{c + R * co:.2f}", f"{c - R * s:.2f}"

    bx, by = at(before)
    ax, ay = at(after)
    return kit.figure(
        h("circle", cx=str(c), cy=str(c), r=str(R), class_="sc-ring"),
        h("line", x1=str(c), y1=str(c), x2=bx, y2=by, class_="sc-hand sc-before", target="hand-p"),
        h("line", x1=str(c), y1=str(c), x2=ax, y2=ay, class_="sc-hand sc-after", target="hand-pk"),
        h("circle", cx=bx, cy=by, r="3.5", class_="sc-dot-p", target="dot-p"),
        h("circle", cx=ax, cy=ay, r="3.5", class_="sc-dot-pk", target="dot-pk"),
        uid=f"{uid}-circle",
        title="The chosen pair at p and at p + k",
        desc="The pair's two entries as one point on a circle, cosine across and sine up: "
        "the solid hand at position p, the dashed hand at p + k. Moving p turns both hands "
        "together; the angle between them depends on k only.",
        caption="the pair at p (solid) and p + k (dashed)",
        viewbox=f"0 0 {2 * c} {2 * c}",
        svg_class="sc-circle-svg",
        class_="sc-circle",
    )  # fmt: skip


def _rotation(uid: str, d: int, pe: np.ndarray, p: int, dim: int, k: int) -> kit.HTML:
    pair = dim // 2
    j = 2 * pair
    m = pe_shift_matrix(k, d)
    block = m[j : j + 2, j : j + 2]
    before = (float(pe[p, j]), float(pe[p, j + 1]))
    after = (float(pe[p + k, j]), float(pe[p + k, j + 1]))
    turned = pe[p] @ m
    if not np.allclose(turned, pe[p + k], rtol=0, atol=1e-9):
        raise AssertionError("PE(p + k) = PE(p) M(k)")
    angle = math.degrees(float(pe_frequencies(d)[pair]) * k)
    cells = [[h("span", dec(v), target="m") for v in row] for row in block]
    return h(
        "section",
        h("h3", "From p to p + k: one fixed turn", class_="sc-h"),
        h("div",
          _circle(uid, before, after),
          h("div",
            h("p", "pair ", h("span", str(pair), target="r-pair"), " (dimensions ",
              h("span", f"{j} and {j + 1}", target="r-dims"), ") at p: ",
              h("span", vec(before), target="r-before"), class_="sc-line"),
            h("p", "times the turn by ω", h("sub", "i"), " k = ",
              h("span", dec(angle, 1), target="r-angle"), "°:", class_="sc-line"),
            h("table",
              h("caption", "the turn, a 2 × 2 matrix", class_="visually-hidden"),
              h("tbody", [h("tr", [h("td", c) for c in row]) for row in cells]),
              class_="wk-table sc-block"),
            h("p", "gives ", h("span", vec(after), target="r-after"), ", the pair at p + k. "
              "The same matrix works at every p.", class_="sc-line"),
            class_="sc-rot-text"),
          class_="sc-rot"),
        class_="sc-rotation",
        aria_label="The step from p to p + k as a rotation",
    )  # fmt: skip


def _gaps_table(uid: str, d: int, n: int, gap_max: int) -> kit.HTML:
    """Without JavaScript: the dot product at each gap (rows) from several starts (columns):
    each row holds a single number, since the dot product depends on the gap only."""
    starts = _starts(n)
    gaps = list(range(0, min(gap_max, 10) + 1))
    values = [[pe_dot(s, k, d) for s in starts] for k in gaps]
    table = parts.matrix_table(
        values, rows=[f"k = {k}" for k in gaps], cols=[str(s) for s in starts],
        caption=f"PE(p) · PE(p + k), d = {d}: a row per gap k, a column per start p",
        fmt=3, corner="k ↓ p →", label="The dot products, as a table",
        class_="sc-gaps",
    )  # fmt: skip
    note = h(
        "p",
        f"Each row holds one number: the dot product depends on the gap k, not on where it "
        f"starts. At k = 0 it is d/2 = {d // 2}; it changes with k as the fast pairs turn apart.",
        class_="wk-note",
    )
    return h("div", table, note, nojs=True)
