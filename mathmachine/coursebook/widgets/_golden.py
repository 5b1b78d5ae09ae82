"""Golden vectors: the engine's answers that the widgets' client modules must reproduce.

A widget whose script recomputes numbers declares ``golden=`` when it registers: a function of
its parsed options and context (the same as its renderer gets) that returns `Golden` cases, each
a call of one function its client module exports, with the engine's answer::

    def vectors(opts, ctx):
        g = Golden("widgets/math.js")
        g.case("softmax", [0.0, 0.5, 2.0], out=engine.softmax(np.array([0.0, 0.5, 2.0])))
        return g

``mathmachine.coursebook.golden`` collects them for every use of the widget in every unit (so the
vectors are the numbers the learner meets) and writes one file per widget, plus math.json for
the kit's shared math.js (MATH below):

    python -m mathmachine.coursebook golden            # (re)write tests/golden/*.json
    python -m mathmachine.coursebook golden --check    # exit 1 if a committed file is stale

tests/js/golden.test.mjs runs every case of every file in Node (floats to TOLERANCE, strings
exactly); tests/golden/test_golden_files.py holds the committed files to what this writes now.
The output is deterministic (same inputs, same float repr, same key order) on one machine; the
engine's floats go through BLAS, whose kernels differ between CPUs in the last bit, so a file is
stale only when `difference` finds one beyond that (STALE_RTOL): `write` leaves a file alone that
equals the new one within it, and `--check` asks the same question as the test.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mathmachine import printing
from mathmachine.engine import alignment_map, context_vector, dot_scores, softmax

__all__ = [
    "MATH_MODULE",
    "PRINTING_MODULE",
    "STALE_RTOL",
    "TOLERANCE",
    "Golden",
    "difference",
    "dump",
    "layer_cases",
    "mask_cases",
    "math_cases",
    "parts_cases",
    "printing_cases",
]

TOLERANCE = 1e-12
#: Two floats of a committed file and a fresh one are the same figure within this relative
#: difference (a few units in the last place: BLAS on another CPU), far inside TOLERANCE.
STALE_RTOL = 1e-13
MATH_MODULE = "widgets/math.js"
PRINTING_MODULE = "widgets/printing.js"
HEATMAP_MODULE = "widgets/heatmap.js"
PLOT_MODULE = "widgets/plot.js"


def plain(value: Any) -> Any:
    """numpy arrays and scalars, tuples -> lists of Python floats / ints / str (exact in JSON)."""
    if isinstance(value, np.ndarray):
        return (
            np.asarray(value, dtype=np.float64).tolist()
            if value.dtype.kind == "f"
            else (value.tolist())
        )
    if isinstance(value, np.floating):
        return float(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, float) and not np.isfinite(value):
        raise ValueError(f"golden vectors must be finite, got {value!r}")
    return value


@dataclass
class Golden:
    """Cases for one client module (a static path such as "widgets/math.js")."""

    module: str
    cases: list[dict[str, Any]] = field(default_factory=list)

    def case(self, fn: str, *args: Any, out: Any) -> Any:
        """Record ``fn(*args) == out`` (to TOLERANCE); returns ``out`` for chaining."""
        self.cases.append({"fn": fn, "args": plain(list(args)), "out": plain(out)})
        return out

    def as_json(self, source: str) -> dict[str, Any]:
        return {"source": source, "module": self.module, "cases": self.cases}


# Softmax inputs [n]: small, equal, a single entry, and large ones that overflow a naive exp().
SOFTMAX_INPUTS: tuple[tuple[float, ...], ...] = (
    (0.0, 0.5, 2.0),
    (1.0, 2.0, 3.0),
    (0.0, 0.0, 0.0),
    (5.0,),
    (3.5, -1.25, 0.0, 7.0, 2.0),
    (1000.0, 1001.0, 1002.0),
    (-1000.0, -999.0, -998.0),
    (710.0, 0.0, -710.0),
    (1e5, 1e5 - 1.0, 0.0, -1e5),
    (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2),
)


def math_cases() -> Golden:
    """The kit's shared math.js against the engine, on inputs no unit needs to contain."""
    g = Golden(MATH_MODULE)
    for x in SOFTMAX_INPUTS:
        g.case("softmax", list(x), out=softmax(np.array(x)))
    for q, notes in (
        ([0.0, 0.5, 2.0], [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]),
        ([0.5, -0.5], [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]),
        ([1.5, -2.25, 3.0, 0.125], [[0.3, 0.1, -0.7, 2.0], [-1.0, 4.5, 0.25, 0.0]]),
    ):
        g.case("scores", q, notes, out=dot_scores(q, notes))
        for h in notes:
            g.case("dot", q, h, out=float(np.dot(q, h)))
    # Notes that are not one-hot, so that a context differs from its weights.
    mixed_notes = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]  # [3, 2]
    mixed_states = [[0.5, -0.5], [2.0, 1.0], [-1.5, 3.0]]  # [3, 2]
    for w in ([0.2, 0.3, 0.5], [0.195, 0.315, 0.49], [1.0, 0.0, 0.0]):
        g.case("context", w, mixed_notes, out=context_vector(w, mixed_notes))
    amap = g.case(
        "alignmentMap", mixed_states, mixed_notes, out=alignment_map(mixed_states, mixed_notes)
    )
    for q, row in zip(mixed_states, amap, strict=True):
        g.case("alignmentRow", q, mixed_notes, out=row)
    g.case("rowSums", amap, out=np.asarray(amap).sum(axis=1))
    lists: tuple[list[float], ...] = ([0.1, 0.2, 0.3], [1e16, 1.0, -1e16], [5.0], [-2.5, 0.25, 7.0])
    for xs in lists:
        g.case("sum", xs, out=float(sum(xs)))  # in order, as the script adds
        g.case("argmax", xs, out=int(np.argmax(xs)))
        g.case("products", xs, xs[::-1], out=np.asarray(xs) * np.asarray(xs[::-1]))
    g.case("argmax", [0.3, 0.7, 0.7], out=1)  # the first of a tie
    return g


LAYER_MODULE = "widgets/layer-math.js"
MASK_MODULE = "widgets/mask-math.js"


def layer_cases() -> Golden:
    """layer-math.js (§9) against the engine: LayerNorm step by step and of a matrix's rows, Φ
    and the exact GELU, on inputs the section will use and on awkward ones."""
    from mathmachine.engine.anatomy import layer_norm_steps
    from mathmachine.engine.layers import gelu, layer_norm, normal_cdf

    g = Golden(LAYER_MODULE)
    vectors = ([1.0, 2.0, 3.0], [2.0, -1.0, 0.5, 4.0], [0.1, 0.1, 0.1, 0.4], [-3.0, 7.0])
    for x in vectors:
        for gain, bias, eps in ((None, None, 0.0), ([1.5] * len(x), [0.5] * len(x), 0.0),
                                (None, None, 1e-5)):  # fmt: skip
            st = layer_norm_steps(x, gain, bias, eps)
            steps = {"mean": st.mean, "centred": st.centred, "variance": st.variance,
                     "std": st.std, "normalised": st.normalised, "output": st.output}  # fmt: skip
            g.case("layerNorm", x, gain, bias, eps, out=steps)
    rows = [[1.0, 2.0, 3.0, 4.0], [0.5, -0.5, 2.0, 0.0], [3.0, 3.0, 3.0, 3.0]]
    gain, bias = [1.0, 0.5, 2.0, -1.0], [0.0, 0.1, -0.2, 0.3]
    g.case("layerNormRows", rows, gain, bias, 1e-5, out=layer_norm(rows, gain, bias, eps=1e-5))
    g.case("layerNormRows", rows[:2], None, None, 1e-5, out=layer_norm(rows[:2], eps=1e-5))
    xs = [-8.0, -3.5, -1.0, -0.25, 0.0, 1e-9, 0.5, 1.0, 1.7, 3.0, 6.0, 9.0]
    g.case("normalCdf", xs, out=normal_cdf(np.array(xs)))
    g.case("gelu", xs, out=gelu(np.array(xs)))
    return g


def mask_cases() -> Golden:
    """mask-math.js (§10) against the engine: the causal mask and scaled dot-product attention
    with it (the masked weights exactly 0), and without a mask."""
    from mathmachine.engine.dot_product import attention, causal_mask

    g = Golden(MASK_MODULE)
    for n in (1, 3, 5):
        mask = causal_mask(n)
        g.case("causalMask", n, out=mask.tolist())
        g.case("allowedCount", mask.tolist(), out=int(mask.sum()))
    x = np.array([[1.0, 0.0, 1.0], [0.0, 2.0, 0.0], [1.0, 1.0, 0.0], [0.5, -1.0, 2.0]])
    wq = np.array([[0.5, -1.0], [1.0, 0.5], [0.0, 2.0]])
    wk = np.array([[1.0, 0.0], [0.5, 1.5], [-1.0, 1.0]])
    wv = np.array([[2.0, 0.0, 1.0], [0.0, 1.0, -1.0], [1.0, 1.0, 0.0]])
    q, k, v = x @ wq, x @ wk, x @ wv
    masks: tuple[np.ndarray | None, ...] = (
        causal_mask(4),
        None,
        np.array([[True, False, True, False]] * 4),
    )
    for allowed in masks:
        out, weights = attention(q, k, v, allowed)
        m = None if allowed is None else allowed.tolist()
        scaled = q @ k.T / np.sqrt(q.shape[1])
        g.case("attention", q, k, v, m, out={"scaled": scaled, "weights": weights, "output": out})
        g.case("maskedSelfAttention", x, wq, wk, wv, m,
               out={"q": q, "k": k, "v": v, "scaled": scaled, "weights": weights,
                    "output": out})  # fmt: skip
    return g


# dec(x, places): everyday numbers, negatives, "never −0.000", exact ties (half to even on the
# binary value: 0.125 and 2.5 are ties, 0.005 and 2.675 are not), carries and large numbers.
DEC_INPUTS: tuple[tuple[float, int], ...] = (
    (0.7361, 3), (-0.0251, 3), (-0.0001, 3), (-0.0, 3), (0.0, 0), (2.05, 1), (1.0, 1),
    (-1.2, 2), (0.125, 2), (0.375, 2), (-0.125, 2), (2.5, 0), (3.5, 0), (-2.5, 0), (0.005, 2),
    (2.675, 2), (0.9995, 3), (9.9999, 3), (-9.9996, 3), (99.95, 1), (1234567.891, 2),
    (1e-7, 3), (-1e-7, 3), (0.1 + 0.2, 17), (1 / 3, 12), (-2 / 3, 6), (5e20, 0), (7.0, 0),
)  # fmt: skip
PLAIN_INPUTS: tuple[float, ...] = (2.0, -0.5, 0.1, 1.25, -3.0, 0.0, -0.0, 0.3333, 1024.0, -7.125)
VEC_INPUTS: tuple[tuple[tuple[float, ...], int | None], ...] = (
    ((0.1, 0.164, 0.736), 3), ((-1.0, -2.0), None), ((-1.0, -2.0), 3), ((0.5, -0.25, 3.0), 2),
    ((), 3), ((-0.0004, 0.0004), 3),
)  # fmt: skip
MATRIX_INPUTS: tuple[tuple[tuple[tuple[float, ...], ...], int | None], ...] = (
    (((0.5, -1.0), (2.0, -0.0)), 3),
    (((1.0, -2.0), (-3.0, 4.5)), None),
    (((0.1234,),), 2),
)
COUNT_INPUTS: tuple[int, ...] = (0, 7, 999, 1000, 10000, 99999, 100000, 1048576, -1234567, 10**9)
RUPEE_INPUTS: tuple[float, ...] = (
    26.0, 19.3, 19.299999999999997, 11.996, 12.004, 299.5, 100000.0, 1234567.891, -19.3, 0.0, 0.5,
)  # fmt: skip


PERCENT_INPUTS: tuple[float, ...] = (
    1.0, 0.6, 73 / 74, 45 / 74, 0.00049, 0.0, -0.125, 0.99999999999, 1 / 3, 0.0005,
)  # fmt: skip


def printing_cases() -> Golden:
    """The browser's printer (printing.js) against mathmachine.printing: every answer here is the
    server's own, so a number prints the same whichever side drew it."""
    g = Golden(PRINTING_MODULE)
    for x, places in DEC_INPUTS:
        g.case("dec", x, places, out=printing.dec(x, places))
    for x in PLAIN_INPUTS:
        g.case("plain", x, out=printing.plain(x))
    for x in (*PLAIN_INPUTS, 2.0000000001, -0.9999999999, 0.25, -1.5, 7.0004):
        g.case("compact", x, out=printing.compact(x))
    g.case("compact", 0.123456, 5, out=printing.compact(0.123456, 5))
    for xs, entry in VEC_INPUTS:
        g.case("vec", list(xs), entry, out=printing.vec(xs, entry))
    for rows, entry in MATRIX_INPUTS:
        g.case("matrix", [list(r) for r in rows], entry, out=printing.matrix(rows, entry))
    for n in COUNT_INPUTS:
        g.case("count", n, out=printing.count(n))
        g.case("count", n, {"indian": True}, out=printing.count(n, indian=True))
    for v in RUPEE_INPUTS:
        g.case("rupees", v, out=printing.rupees(v))
        g.case("rupees", v, {"exact": True}, out=printing.rupees(v, exact=True))
    for text in ("(-1, -2)", "-0.5 and -2", "no sign", "x - y"):
        g.case("signed", text, out=printing.signed(text))
    for share in PERCENT_INPUTS:
        g.case("percent", share, out=printing.percent(share))
    g.case("percent", 0.98649, 2, out=printing.percent(0.98649, 2))
    return g


# Labels a heat map lays out: the lab's tokens ([SEP] last, a long word cut), Devanagari pieces
# with their marks, and short words.
LABEL_SETS: tuple[tuple[str, ...], ...] = (
    ("[CLS]", "the", "bank", "of", "the", "river", "was", "muddy", ".", "[SEP]"),
    ("I", "always", "drink", "tea"),
    ("[CLS]", "म", "##ै", "##ं", "च", "##ा", "##य", "[SEP]"),
    ("pharmacology", "W", "i", "Ⅻ", "42", "#", "मैं"),
)


def parts_cases() -> list[Golden]:
    """The kit's parts in the browser (heatmap.js: the palette's level, the labels' widths, the
    layout of a map; plot.js: the ticks) against the server's (widgets/_parts.py), so a map or a
    plot the script redraws is laid out as the server drew it."""
    from . import _parts as parts

    g = Golden(HEATMAP_MODULE)
    scales = (
        parts.WEIGHTS,
        parts.Scale(-1.0, 1.0, "linear"),
        parts.Scale(0.0, 0.25, "linear", magnitude=True),
    )
    for scale in scales:
        for v in (0.0, 0.004, 0.0049, 0.0051, 0.05, 0.1, 0.2025, 0.25, 0.5, 0.736, 0.99, 1.0, 1.5,
                  -0.1, -0.2, -0.75, -1.0, -2.0):  # fmt: skip
            g.case("level", v, scale.as_json(), out=scale.level(v))
    for labels in LABEL_SETS:
        for text in labels:
            g.case("labelWidth", text, 12, out=parts.label_width(text, 12))
            g.case("shortLabel", text, 5, out=parts.short_label(text, 5))
    for rows in LABEL_SETS:
        for options in ({}, {"cell": 19, "font": 11, "slant": 90, "maxLabel": 6},
                        {"cell": 13, "font": 12, "slant": 45, "maxLabel": 9}):  # fmt: skip
            kwargs = {"max_label" if k == "maxLabel" else k: v for k, v in options.items()}
            g.case("layout", list(rows), list(rows[::-1]), options,
                   out=parts.heatmap_layout(rows, rows[::-1], **kwargs))  # fmt: skip
    p = Golden(PLOT_MODULE)
    for lo, hi, log in ((0.0, 1.0, False), (0.0, 7.3, False), (-1.0, 1.0, False),
                        (3.0, 1048576.0, False), (1.0, 1e6, True), (2.0, 5e9, True),
                        (0.5, 0.5, False), (1e-3, 2.5, True), (12.0, 480.0, False)):  # fmt: skip
        p.case("ticks", lo, hi, log, out=parts.ticks(lo, hi, log=log))
    for v, places in ((1000.0, None), (1048576.0, None), (0.5, None), (-2.0, None), (999.0, None),
                      (0.25, 2), (1e-3, None), (1e9, None)):  # fmt: skip
        p.case("tickLabel", v, places, out=parts.tick_label(v, places))
    ns = [2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0, 512.0, 1024.0, 2048.0, 4096.0]
    plots: tuple[tuple[list[float], list[float], dict[str, Any]], ...] = (
        (ns, [n * n for n in ns], {"xLog": True, "yLog": True}),
        (ns, [n * n for n in ns], {}),
        (ns * 2, [n * n for n in ns] + [n for n in ns], {"lines": 2, "yLog": True}),
        ([0.0, 100.0, 200.0, 300.0, 400.0, 500.0, 600.0], [3.9, 2.1, 1.2, 0.8, 0.6, 0.5, 0.45],
         {"width": 300, "height": 180, "yPlaces": 1}),
        ([-1.0, 0.0, 1.0], [-0.5, 0.25, 2.0], {}),
    )  # fmt: skip
    names = {"xLog": "x_log", "yLog": "y_log", "xPlaces": "x_places", "yPlaces": "y_places"}
    for xs, ys, options in plots:
        plot_kw: dict[str, Any] = {names.get(k, k): v for k, v in options.items()}
        lay = p.case("layout", xs, ys, options, out=parts.plot_layout(xs, ys, **plot_kw))
        for x, y in zip(xs[:3], ys[:3], strict=True):
            p.case("plotX", lay, x, out=parts.plot_x(lay, x))
            p.case("plotY", lay, y, out=parts.plot_y(lay, y))
    for desc, logs, table in (("n² grows.", (True, True), True), ("A loss", (False, False), False),
                              ("Scores", (False, True), True)):  # fmt: skip
        p.case("plotDesc", desc, "n", "scores", *logs, table,
               out=parts.plot_desc(desc, "n", "scores", *logs, table))  # fmt: skip
    return [g, p]


def difference(committed: Any, written: Any, where: str = "") -> str | None:
    """Where two golden files (parsed JSON) differ, or None: the same structure, keys in the same
    order, the same text and integers, floats within STALE_RTOL of each other."""
    if isinstance(written, float) or isinstance(committed, float):
        numbers = all(isinstance(x, (int, float)) for x in (committed, written))
        if not numbers or not math.isclose(committed, written, rel_tol=STALE_RTOL, abs_tol=1e-300):
            return f"{where}: {committed!r} != {written!r}"
        return None
    if isinstance(written, dict):
        if not isinstance(committed, dict) or list(committed) != list(written):
            keys = list(committed) if isinstance(committed, dict) else committed
            return f"{where}: keys {keys!r}"
        for k in written:
            found = difference(committed[k], written[k], f"{where}.{k}")
            if found:
                return found
        return None
    if isinstance(written, list):
        if not isinstance(committed, list) or len(committed) != len(written):
            return f"{where}: length"
        for i, (c, w) in enumerate(zip(committed, written, strict=True)):
            found = difference(c, w, f"{where}[{i}]")
            if found:
                return found
        return None
    return None if committed == written else f"{where}: {committed!r} != {written!r}"


def dump(obj: Any, indent: str = "") -> str:
    """JSON with one line per leaf record: dicts and lists of records are broken over lines, a
    dict or list holding only numbers, strings or lists of those stays on one line (diffable)."""

    def flat(o: Any) -> bool:
        if isinstance(o, dict):
            return all(not isinstance(v, dict) and flat(v) for v in o.values())
        if isinstance(o, list):
            return all(not isinstance(v, dict) and flat(v) for v in o)
        return True

    if flat(obj):
        return json.dumps(obj, ensure_ascii=False, separators=(", ", ": "))
    inner = indent + " "
    if isinstance(obj, dict):
        items = [f"{inner}{json.dumps(k)}: {dump(v, inner)}" for k, v in obj.items()]
        return "{\n" + ",\n".join(items) + "\n" + indent + "}"
    items = [inner + dump(v, inner) for v in obj]
    return "[\n" + ",\n".join(items) + "\n" + indent + "]"
