"""Widget 11 of Unit 18, "Rotary dial" (SPEC §8), rendered on the server.

    :::{widget} rotary-dial
    :id: w11
    :example: dial   (optional: a key of figures.EXAMPLES; default "dial")
    :::

One query q and one key k in a plane, turned by rotary position (Su et al. 2021): the query at
position m by m θ, the key at position n by n θ. Two sliders move m and n; two buttons move both
together, one place back or on. The plane shows both turned arrows; beside it their angles, the
lengths (unchanged), the gap n − m, the angle between them and the score, which stays the same
while both move together.

Every number from mathmachine.engine.order.rotary_pair. The script
(static/widgets/rotary-dial.js) recomputes with position-math.js's rotaryPair, held to the engine
by golden vectors (every pair of positions on the sliders). Without JavaScript: the plane at the
example's positions, and the score for every pair of the first positions, one number along each
diagonal.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from mathmachine.engine.order import RotaryPair, rotary_pair, rotate_plane
from mathmachine.printing import dec, plain, vec

from . import Golden, WidgetContext, WidgetOptionError, kit, option, parts, register

NAME = "rotary-dial"
MODULE = "widgets/position-math.js"
NEEDS = ("q", "k", "theta_degrees", "positions", "m", "n")
C = 110  # the plane's centre, in SVG units
TABLE = 6  # the fallback's table: positions 0..TABLE-1

h = kit.h


def _inputs(opts: dict[str, Any]) -> dict[str, Any]:
    ex, key = opts["example"], opts["example_key"]
    try:
        q, k = np.asarray(ex["q"], dtype=float), np.asarray(ex["k"], dtype=float)
        rotary_pair(q, k, int(ex["m"]), int(ex["n"]), math.radians(ex["theta_degrees"]))
    except (TypeError, ValueError) as exc:
        raise WidgetOptionError(
            f"example {key!r}: not a query and a key in a plane ({exc})"
        ) from exc
    if not (2 <= int(ex["positions"]) <= 64 and 0 < ex["theta_degrees"] < 360):
        raise WidgetOptionError(f"example {key!r}: 2..64 positions, 0 < theta_degrees < 360")
    if not (0 <= ex["m"] < ex["positions"] and 0 <= ex["n"] < ex["positions"]):
        raise WidgetOptionError(f"example {key!r}: m and n must be on the sliders")
    if not (np.linalg.norm(q) > 0 and np.linalg.norm(k) > 0):
        raise WidgetOptionError(f"example {key!r}: q and k must not be 0")
    return ex


def _scale(ex: dict[str, Any]) -> float:
    """SVG units per unit of length: the longer vector reaches 85 of the 110 to the edge."""
    longest = max(float(np.linalg.norm(ex["q"])), float(np.linalg.norm(ex["k"])))
    return 85.0 / longest


def _pair(ex: dict[str, Any], m: int, n: int) -> RotaryPair:
    return rotary_pair(ex["q"], ex["k"], m, n, math.radians(ex["theta_degrees"]))


def golden(opts: dict[str, Any], ctx: WidgetContext) -> list[Golden]:
    """rotaryPair at every pair of positions on the sliders; radians of the step; a few turns."""
    ex = _inputs(opts)
    g = Golden(MODULE)
    deg = ex["theta_degrees"]
    theta = g.case("radians", deg, out=math.radians(deg))
    g.case("degrees", theta, out=math.degrees(theta))
    for m in range(int(ex["positions"])):
        g.case("rotatePlane", ex["q"], m * theta, out=rotate_plane(ex["q"], m * theta))
        for n in range(int(ex["positions"])):
            r = _pair(ex, m, n)
            g.case("rotaryPair", ex["q"], ex["k"], m, n, theta,
                   out={"qRot": r.q_rot, "kRot": r.k_rot, "score": r.score,
                        "plainScore": r.plain_score, "offset": r.offset, "angle": r.angle,
                        "qLength": float(np.linalg.norm(r.q_rot)),
                        "kLength": float(np.linalg.norm(r.k_rot))})  # fmt: skip
    return [g]


@register(
    NAME,
    scripts=("widgets/rotary-dial.js",),
    styles=("widgets/controls.css", "widgets/position.css"),
    options=(option.example(default="dial", needs=NEEDS),),
    control="m",
    golden=golden,
)
def render(opts: dict[str, Any], ctx: WidgetContext) -> str:
    uid = opts["id"]
    ex = _inputs(opts)
    m, n, last = int(ex["m"]), int(ex["n"]), int(ex["positions"]) - 1
    r = _pair(ex, m, n)
    state = {"q": ex["q"], "k": ex["k"], "deg": ex["theta_degrees"], "m": m, "n": n,
             "last": last, "scale": _scale(ex), "centre": C}  # fmt: skip
    return kit.element(
        NAME,
        uid,
        state,
        _controls(uid, ex, m, n, last),
        h("div", _plane(uid, ex, r), _readout(ex, r), class_="rd-main"),
        kit.status(class_="wk-status"),
        _table(ex),
        class_="wk rd",
    )


def _controls(uid: str, ex: dict[str, Any], m: int, n: int, last: int) -> kit.HTML:
    deg = ex["theta_degrees"]
    return h(
        "div",
        parts.slider(uid, "m", "query's position m", value=m, lo=0, hi=last, step=1,
                     shown=str(m), help=f"the query turns m × {deg}°",
                     valuetext=f"query at position {m}"),
        parts.slider(uid, "n", "key's position n", value=n, lo=0, hi=last, step=1,
                     shown=str(n), help=f"the key turns n × {deg}°",
                     valuetext=f"key at position {n}"),
        h("div",
          h("span", "Move both:", class_="rd-label", id=f"{uid}-both"),
          h("button", "one place back", type="button", class_="wk-button", target="back"),
          h("button", "one place on", type="button", class_="wk-button", target="on"),
          class_="wk-toolbar", role="group", aria_labelledby=f"{uid}-both"),
        class_="rd-controls",
        js=True,
    )  # fmt: skip


def _xy(ex: dict[str, Any], v: np.ndarray) -> tuple[str, str]:
    s = _scale(ex)
    return f"{C + s * float(v[0]):.2f}", f"{C - s * float(v[1]):.2f}"


def _plane(uid: str, ex: dict[str, Any], r: RotaryPair) -> kit.HTML:
    qx, qy = _xy(ex, r.q_rot)
    kx, ky = _xy(ex, r.k_rot)
    ring = _scale(ex) * float(np.linalg.norm(ex["q"]))
    marker = [
        h("marker", h("path", d="M0,0 L8,4 L0,8 z", class_=f"rd-head-{name}"),
          id=f"{uid}-{name}-head", viewBox="0 0 8 8", refX="7", refY="4", markerWidth="6",
          markerHeight="6", orient="auto")
        for name in ("q", "k")
    ]  # fmt: skip
    return kit.figure(
        h("defs", marker),
        h("line", x1="4", y1=str(C), x2=str(2 * C - 4), y2=str(C), class_="rd-axis"),
        h("line", x1=str(C), y1="4", x2=str(C), y2=str(2 * C - 4), class_="rd-axis"),
        h("circle", cx=str(C), cy=str(C), r=f"{ring:.2f}", class_="rd-ring"),
        h("line", x1=str(C), y1=str(C), x2=kx, y2=ky, class_="rd-k", target="k-arrow",
          marker_end=f"url(#{uid}-k-head)"),
        h("line", x1=str(C), y1=str(C), x2=qx, y2=qy, class_="rd-q", target="q-arrow",
          marker_end=f"url(#{uid}-q-head)"),
        h("text", "q", x=qx, y=qy, dx="6", dy="-4", class_="rd-tag rd-tag-q", target="q-tag"),
        h("text", "k", x=kx, y=ky, dx="6", dy="-4", class_="rd-tag rd-tag-k", target="k-tag"),
        uid=f"{uid}-plane",
        title="The turned query and key",
        desc=f"A plane with the query (dark) turned by m × {ex['theta_degrees']} degrees and the "
        f"key (teal) turned by n × {ex['theta_degrees']} degrees. The circle is the query's "
        "length: its tip stays on it. Moving both positions together turns both arrows by the "
        "same angle, so the angle between them, and the score, stay the same.",
        caption="q turned by mθ, k by nθ",
        viewbox=f"0 0 {2 * C} {2 * C}",
        svg_class="rd-svg",
        class_="rd-plane",
    )  # fmt: skip


def _readout(ex: dict[str, Any], r: RotaryPair) -> kit.HTML:
    deg = ex["theta_degrees"]
    line = "rd-line"
    return h(
        "div",
        h("p", "query at m = ", h("span", str(r.m), target="m-text"), ": turned ",
          h("span", str(r.m * deg), target="m-deg"), "°, ",
          h("span", vec(r.q_rot), target="q-rot"), ", length ",
          h("span", dec(float(np.linalg.norm(r.q_rot))), target="q-len"), class_=line),
        h("p", "key at n = ", h("span", str(r.n), target="n-text"), ": turned ",
          h("span", str(r.n * deg), target="n-deg"), "°, ",
          h("span", vec(r.k_rot), target="k-rot"), ", length ",
          h("span", dec(float(np.linalg.norm(r.k_rot))), target="k-len"), class_=line),
        h("p", "gap n − m = ", h("span", str(r.offset), target="gap"), ": the key is ",
          h("span", str(r.offset * deg), target="gap-deg"), "° round from the query",
          class_=line),
        h("p", "score = ", h("b", dec(r.score), target="score"), " (without positions, q · k = ",
          plain(r.plain_score), ")", class_=line),
        class_="rd-readout",
    )  # fmt: skip


def _table(ex: dict[str, Any]) -> kit.HTML:
    n = min(TABLE, int(ex["positions"]))
    values = [[_pair(ex, m, nn).score for nn in range(n)] for m in range(n)]
    table = parts.matrix_table(
        values, rows=[f"m = {m}" for m in range(n)], cols=[str(nn) for nn in range(n)],
        caption="The score: a row per query place m, a column per key place n",
        fmt=3, corner="m ↓ n →", label="The scores, as a table", class_="rd-table",
    )  # fmt: skip
    note = h(
        "p",
        "Each diagonal holds one number: the score depends only on the gap n − m. Moving both "
        "positions one place on is one step down a diagonal.",
        class_="wk-note",
    )
    return h("div", table, note, nojs=True)
