"""The kit's parts: what widgets draw with, styled by static/widgets/controls.css (controls and
tables) and static/widgets/plots.css (heat maps and line plots). A renderer imports them as
``from . import parts`` and reads as layout:

    parts.heatmap(weights, uid=f"{uid}-map", rows=words, cols=words, title=..., desc=...,
                  caption=..., highlight=2)
    parts.matrix_table(values, rows=words, cols=["1", "2"], caption="Q, 3 × 2", fmt=plain)
    parts.line_plot([parts.Series("n²", ns, costs)], uid=..., x_label="n", y_label="scores",
                    y_log=True, title=..., caption=...)
    parts.slider(uid, "beta", "sharpness β", value=1.0, lo=0, hi=10, step=0.1)
    parts.switch(uid, "hard", "hard lookup")
    parts.scroll_box(table, "the weights, as a table")
    parts.bar(0.736)

Every part works without JavaScript (the numbers are in the markup) and has a text alternative:
a heat map is an SVG (role="img", <title>/<desc>) followed by its numbers as a table, a line plot
an SVG with a description and its points as a table. The browser halves are
static/widgets/heatmap.js (redraw a map, mark a row, shade a cell) and plot.js (mark a point);
their pure functions (the palette's level, the heat map's layout, the ticks) are held to the ones
here by golden cases (tests/golden/parts.json).

One palette (PALETTE, 11 shades from paper to the site's teal) shades every heat map and every
shaded table: `Scale` maps a value to a level 0..10, by the square root for weights (so that a
weight of 0.05 still shows) or linearly over any range (positional encodings in -1..1, a slope
by its size).
"""

from __future__ import annotations

import json
import math
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from mathmachine import printing

from .. import html as _html
from . import _kit as kit

__all__ = [
    "PALETTE",
    "WEIGHTS",
    "Scale",
    "Series",
    "bar",
    "heatmap",
    "heatmap_layout",
    "label_width",
    "line_plot",
    "matrix_table",
    "scroll_box",
    "short_label",
    "slider",
    "switch",
    "ticks",
]

h = kit.h

# -- the palette -----------------------------------------------------------------------------------

#: Level 0 (nothing) to 10 (everything): paper to the site's teal. controls.css's .wk-h0 … .wk-h10
#: and heatmap.js's PALETTE are these (tests/coursebook/test_parts.py holds them together).
PALETTE = (
    "#f4f7f7", "#e3f0ee", "#cfe6e3", "#b9dbd7", "#a2cfca", "#8bc3bd",
    "#73b5ae", "#5ba69f", "#2e8079", "#1d766f", "#0b6e69",
)  # fmt: skip
#: From this level on, text on a shade is white (contrast 4.5 or more either way).
WHITE_TEXT_FROM = 8
INK = "#1d2330"
LEVELS = len(PALETTE) - 1


@dataclass(frozen=True)
class Scale:
    """How a value becomes a shade: ``lo`` .. ``hi`` to level 0 .. 10, ``curve`` "sqrt" (small
    weights show) or "linear"; ``magnitude``: shade |value| (the sign is in the number)."""

    lo: float = 0.0
    hi: float = 1.0
    curve: str = "sqrt"
    magnitude: bool = False

    def __post_init__(self) -> None:
        if not (math.isfinite(self.lo) and math.isfinite(self.hi) and self.lo < self.hi):
            raise ValueError(f"a scale needs lo < hi, got {self.lo}, {self.hi}")
        if self.curve not in ("sqrt", "linear"):
            raise ValueError(f"curve must be 'sqrt' or 'linear', got {self.curve!r}")

    def level(self, value: float) -> int:
        """The shade 0..10 of a value (outside lo..hi: the nearest end)."""
        v = abs(float(value)) if self.magnitude else float(value)
        t = min(1.0, max(0.0, (v - self.lo) / (self.hi - self.lo)))
        if self.curve == "sqrt":
            t = math.sqrt(t)
        return math.floor(t * LEVELS + 0.5)

    def fill(self, value: float) -> str:
        return PALETTE[self.level(value)]

    def shade(self, value: float) -> str:
        """The class of a table cell shaded by this scale: "wk-h7"."""
        return f"wk-h{self.level(value)}"

    def as_json(self) -> dict[str, Any]:
        return {"lo": self.lo, "hi": self.hi, "curve": self.curve, "magnitude": self.magnitude}


#: Attention weights and other shares in 0..1.
WEIGHTS = Scale()

# -- labels --------------------------------------------------------------------------------------

_NARROW = frozenset(" ilj.,:;'|!()[]{}·")
_SEMI = frozenset("ftrI-")
_WIDE = frozenset("mwMW@%…")


def _devanagari(ch: str) -> bool:
    return "\u0900" <= ch <= "\u097f"


def label_width(text: str, size: float = 12) -> float:
    """About how wide a label is in a sans-serif font of `size` px: a generous estimate (labels
    are laid out with it on the server, where nothing can be measured), so that none is clipped
    (tests/coursebook/test_parts.py holds it above widths measured in Chromium). A vowel sign
    after a letter is narrow or takes no room; alone (after "##") it is drawn on a dotted circle.
    heatmap.js's labelWidth is the same function."""
    em = 0.0
    prev = ""
    for ch in text:
        cat = unicodedata.category(ch)
        after_letter = _devanagari(prev)
        prev = ch
        if ch in "\u200c\u200d":
            continue
        if cat in ("Mn", "Me"):
            em += 0.0 if after_letter else 0.8
        elif cat == "Mc":
            em += 0.4 if after_letter else 0.8
        elif ch in _NARROW:
            em += 0.34
        elif ch in _SEMI:
            em += 0.44
        elif ch in _WIDE:
            em += 1.0
        elif ch == "#":
            em += 0.86
        elif "A" <= ch <= "Z":
            em += 0.76
        elif ch.isascii():
            em += 0.64
        elif _devanagari(ch):
            em += 0.7
        else:
            em += 0.8
    return em * size


def short_label(text: str, limit: int = 9) -> str:
    """A label cut to `limit` characters with an ellipsis ("pharmacol…"); full names stay in the
    table and the description."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _svg_text(label: str, **attributes: Any) -> kit.HTML:
    """SVG <text>: escaped plainly (no HTML inside SVG), lang="hi" on the element for Devanagari."""
    lang = "hi" if _html.has_devanagari(label) else None
    a = kit.attrs({"lang": lang, **attributes})
    return kit.HTML(f"<text{a}>{_html.escape_text(label)}</text>")


# -- tables --------------------------------------------------------------------------------------

CellAttrs = Callable[[int, int, float], dict[str, Any]]


def matrix_table(
    values: Sequence[Sequence[float]] | Any,
    *,
    rows: Sequence[kit.Child],
    cols: Sequence[kit.Child],
    caption: kit.Child,
    fmt: printing.Entry = 3,
    corner: kit.Child = "",
    shade: Scale | None = None,
    cell: CellAttrs | None = None,
    row_attrs: Sequence[dict[str, Any]] | None = None,
    extra: tuple[kit.Child, Sequence[kit.Child]] | None = None,
    label: str | None = None,
    class_: str = "",
    **attributes: Any,
) -> kit.HTML:
    """A matrix as an accessible table: a caption, a header per column (``corner`` heads the row
    headers) and per row, each entry printed by ``fmt`` (printing's: places, a function, or None
    for plain). ``shade``: shade each cell on the kit's palette by that Scale (a heat map in table
    form). ``cell(i, j, value)``: more attributes for a cell (``target``, ``data_r`` …).
    ``extra``: one more column (header, one cell per row), e.g. the row sums. ``label``: put the
    table in a scroll box with this name (wide tables on a phone)."""
    show = printing.printer(fmt)
    body = []
    for i, header in enumerate(rows):
        cells: list[Any] = []
        for j, value in enumerate(values[i]):
            a: dict[str, Any] = dict(cell(i, j, float(value))) if cell else {}
            if shade is not None:
                a["class_"] = " ".join(c for c in (a.get("class_"), shade.shade(value)) if c)
            cells.append(kit.cell(show(float(value)), **a) if a else show(float(value)))
        if extra is not None:
            cells.append(extra[1][i])
        body.append((header, cells))
    columns = [corner, *cols, *([extra[0]] if extra is not None else [])]
    table = kit.table(
        caption=caption,
        columns=columns,
        rows=body,
        row_attrs=row_attrs,
        class_=f"wk-table {class_}".strip(),
        **attributes,
    )
    return table if label is None else scroll_box(table, label)


def scroll_box(content: kit.HTML, label: str, **attributes: Any) -> kit.HTML:
    """A table that may be wider than a phone, in a box that scrolls sideways. The box is a
    labelled region in the Tab order, so a keyboard can scroll it too (axe's
    scrollable-region-focusable)."""
    return h(
        "div", content, class_="wk-table-wrap", role="region", aria_label=label, tabindex="0",
        **attributes,
    )  # fmt: skip


# -- controls ------------------------------------------------------------------------------------


def bar(weight: float) -> kit.HTML:
    """A share drawn as a bar (an SVG rect whose width attribute the script rewrites)."""
    return h(
        "svg",
        h("rect", class_="wk-bar-bg", x="0", y="0", width="100", height="10"),
        h("rect", class_="wk-bar", target="bar", x="0", y="0", width=f"{100 * weight:.1f}",
          height="10"),
        class_="wk-bar-svg", viewBox="0 0 100 10", preserveAspectRatio="none",
        aria_hidden="true", focusable="false",
    )  # fmt: skip


def slider(
    uid: str,
    name: str,
    label: kit.Child,
    *,
    value: float,
    lo: float,
    hi: float,
    step: float,
    shown: str | None = None,
    help: kit.Child = None,
    valuetext: str | None = None,
    js: bool = False,
    class_: str = "",
) -> kit.HTML:
    """A labelled range input (data-target `name`, id ``uid-name``) with its value beside it (an
    <output>, data-target `name`-value; ``shown`` is its text, by default the value to one
    decimal), a ``help`` line under it that describes it, and its first ``valuetext`` (what a
    screen reader says; the script keeps it up to date). ``js=True``: only the live widget shows
    it."""
    ident = f"{uid}-{name}"
    return h(
        "div",
        h("label", label, for_=ident),
        h("input", type="range", id=ident, target=name, min=f"{lo:g}", max=f"{hi:g}",
          step=f"{step:g}", value=f"{value:g}", aria_valuetext=valuetext,
          aria_describedby=f"{ident}-help" if help is not None else None),
        h("output", printing.dec(value, 1) if shown is None else shown, for_=ident,
          target=f"{name}-value"),
        None if help is None else h("p", help, class_="wk-note wk-slider-help", id=f"{ident}-help"),
        class_=f"wk-slider {class_}".strip(),
        js=js or None,
    )  # fmt: skip


def switch(
    uid: str, name: str, label: kit.Child, *, checked: bool = False, **attrs: Any
) -> kit.HTML:
    """An on/off switch: a checkbox with role="switch" (data-target `name`) and its label."""
    return h(
        "label",
        h("input", type="checkbox", role="switch", id=f"{uid}-{name}", target=name,
          checked=checked or None, **attrs),
        h("span", label),
        class_="wk-switch",
    )  # fmt: skip


# -- heat maps -----------------------------------------------------------------------------------

#: Column labels slant up by this many degrees: (sin, cos), written out so that the server and the
#: browser (heatmap.js) lay a map out to the same pixel.
SLANTS = {90: (1.0, 0.0), 60: (0.866, 0.5), 45: (0.7071, 0.7071)}


def heatmap_layout(
    rows: Sequence[str],
    cols: Sequence[str],
    *,
    cell: float = 24,
    font: float = 12,
    slant: int = 60,
    max_label: int = 9,
) -> dict[str, Any]:
    """Where everything of a heat map goes: the plot's left and top edges (room for the longest
    row label, and for the slanted column labels), the whole width and height (the last column's
    label fits: "[SEP]" is not clipped), the anchor of every column label. heatmap.js's layout()
    computes the same numbers (golden cases)."""
    if slant not in SLANTS:
        raise ValueError(f"slant must be one of {sorted(SLANTS)}, got {slant}")
    sin, cos = SLANTS[slant]
    row_w = max((label_width(short_label(r, max_label), font) for r in rows), default=0.0)
    col_w = [label_width(short_label(c, max_label), font) for c in cols]
    left = math.ceil(row_w + 8)
    top = math.ceil(max(col_w, default=0.0) * sin + font * cos + 8)
    anchors = [left + j * cell + cell / 2 + font * 0.35 * sin for j in range(len(cols))]
    right = max((x + w * cos for x, w in zip(anchors, col_w, strict=True)), default=0.0)
    width = math.ceil(max(left + len(cols) * cell, right) + 4)
    height = math.ceil(top + len(rows) * cell + 4)
    return {
        "left": left,
        "top": top,
        "width": width,
        "height": height,
        "cols": [[x, top - 6] for x in anchors],
    }


def _num(x: float) -> str:
    """An SVG coordinate to two decimals at most, no trailing zeros ("60", "57.64")."""
    text = f"{float(x):.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def heatmap(
    values: Sequence[Sequence[float]] | Any,
    *,
    uid: str,
    rows: Sequence[str],
    cols: Sequence[str],
    title: str,
    desc: str,
    caption: kit.Child,
    scale: Scale = WEIGHTS,
    fmt: printing.Entry = 3,
    highlight: int | None = None,
    key: int | None = None,
    numbers: str | None = "details",
    table_caption: kit.Child | None = None,
    corner: kit.Child = "row ↓ · column →",
    extra: tuple[kit.Child, Sequence[kit.Child]] | None = None,
    cell: float = 24,
    font: float = 12,
    slant: int = 60,
    max_label: int = 9,
    fixed: bool = False,
    scroll: str | None = None,
    target: str | None = None,
    svg_target: str | None = None,
    picture: bool = False,
    class_: str = "",
) -> kit.HTML:
    """A heat map: an SVG of shaded cells, a row per ``rows`` label (who asks), a column per
    ``cols`` label (who is looked at), labels that fit (cut to ``max_label`` characters, the full
    ones in the table), with ``title`` and ``desc`` as its text alternative, a ``caption``, and
    its numbers as a table (the text alternative in full, printed by ``fmt``):
    ``numbers="details"`` in a closed <details>, "open" open, "table" as a plain table, None
    when the widget shows them elsewhere. ``highlight``: the row outlined (heatmap.js markRow
    moves it); ``key``: one cell of it marked. ``fixed``: the SVG keeps its pixel size (in a box
    that scrolls, named ``scroll``) instead of shrinking to its column. Every cell carries
    data-r/data-c and its fill from the palette, so the SVG stands alone (saved as a file).
    ``picture``: its labels and cells, in one group marked data-picture, may leave the page for
    a file of the unit's own (coursebook/state_files.py split_pictures), for a widget whose
    script never touches them (heatmap.js markRow/markKey place the outlines from the options:
    the plot's left and top edges are in them); a column label cut to nothing is not drawn."""
    n_r, n_c = len(rows), len(cols)
    if len(values) != n_r or any(len(r) != n_c for r in values):
        raise ValueError(f"a heat map of {n_r} × {n_c} labels needs {n_r} × {n_c} values")
    lay = heatmap_layout(rows, cols, cell=cell, font=font, slant=slant, max_label=max_label)
    left, top = lay["left"], lay["top"]
    col_labels = [
        _svg_text(short_label(c, max_label), x=_num(x), y=_num(y), data_c=str(j),
                  transform=f"rotate(-{slant} {_num(x)} {_num(y)})")
        for j, (c, (x, y)) in enumerate(zip(cols, lay["cols"], strict=True))
        if short_label(c, max_label)
    ]  # fmt: skip
    row_labels = [
        _svg_text(short_label(r, max_label), x=_num(left - 6),
                  y=_num(top + i * cell + cell / 2 + font * 0.35), text_anchor="end",
                  data_r=str(i))
        for i, r in enumerate(rows)
    ]  # fmt: skip
    cells = [
        h("rect", x=_num(left + j * cell), y=_num(top + i * cell), width=_num(cell),
          height=_num(cell), fill=scale.fill(float(values[i][j])), data_r=str(i), data_c=str(j))
        for i in range(n_r)
        for j in range(n_c)
    ]  # fmt: skip
    row = 0 if highlight is None else highlight
    marks = [
        h("rect", class_="wk-hm-row", x=_num(left - 1), y=_num(top + row * cell),
          width=_num(n_c * cell + 2), height=_num(cell), fill="none", stroke=INK,
          stroke_width="2", visibility="hidden" if highlight is None else None,
          data_row=None if highlight is None else str(highlight)),
        h("rect", class_="wk-hm-key", x=_num(left + (key or 0) * cell), y=_num(top + row * cell),
          width=_num(cell), height=_num(cell), fill="none", stroke="#b45309", stroke_width="3",
          visibility="hidden" if key is None or highlight is None else None),
    ]  # fmt: skip
    size = {"width": _num(lay["width"]), "height": _num(lay["height"])} if fixed else {}
    more = "" if numbers is None else " The numbers are in the table that follows."
    drawn = [
        h("g", col_labels, class_="wk-hm-cols", font_size=_num(font), fill=INK),
        h("g", row_labels, class_="wk-hm-rows", font_size=_num(font), fill=INK),
        h("g", cells, class_="wk-hm-cells", stroke="#ffffff", stroke_width="0.5"),
    ]
    svg = h(
        "svg",
        h("title", kit.HTML(_html.escape_text(title)), id=f"{uid}-title"),
        h("desc", kit.HTML(_html.escape_text(f"{desc}{more}")), id=f"{uid}-desc"),
        h("g", drawn, data_picture=f"{_num(lay['width'])} {_num(lay['height'])}")
        if picture
        else drawn,
        marks,
        class_="wk-hm-svg" + (" wk-hm-fixed" if fixed else ""),
        viewBox=f"0 0 {_num(lay['width'])} {_num(lay['height'])}",
        role="img",
        aria_labelledby=f"{uid}-title {uid}-desc",
        target=svg_target,
        **size,
    )
    plot = h("div", svg, class_="wk-hm-plot", role="region", aria_label=scroll, tabindex="0") if (
        scroll
    ) else svg  # fmt: skip
    table = None
    if numbers is not None:
        t = matrix_table(
            values, rows=list(rows), cols=list(cols), caption=table_caption or title, fmt=fmt,
            corner=corner, shade=scale, extra=extra, label=f"{title}: the numbers",
            class_="wk-hm-table",
        )  # fmt: skip
        if numbers == "table":
            table = t
        elif numbers in ("details", "open"):
            table = h("details", h("summary", "The numbers, as a table"), t,
                      class_="wk-hm-numbers", open=numbers == "open")  # fmt: skip
        else:
            raise ValueError(f"numbers must be 'details', 'open', 'table' or None, not {numbers!r}")
    options = {"cell": cell, "font": font, "slant": slant, "maxLabel": max_label,
               "scale": scale.as_json(), "fixed": fixed, "left": left, "top": top}  # fmt: skip
    return h(
        "figure",
        plot,
        h("figcaption", caption),
        table,
        class_=f"wk-hm {class_}".strip(),
        id=uid,
        target=target,
        data_heatmap=json.dumps(options, separators=(",", ":")),
    )


# -- line plots ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Series:
    """One line of a plot: its name (in the legend and the table), x and y values, and how its
    numbers print in the table (printing's fmt)."""

    name: str
    x: Sequence[float]
    y: Sequence[float]
    fmt: printing.Entry = 3


def _nice(step: float) -> float:
    """1, 2 or 5 times a power of ten, the nearest above `step`."""
    power = 10.0 ** math.floor(math.log10(step))
    for m in (1.0, 2.0, 5.0, 10.0):
        if step <= m * power * (1 + 1e-9):
            return m * power
    return 10.0 * power


def ticks(lo: float, hi: float, *, log: bool = False, most: int = 6) -> list[float]:
    """Tick values for an axis from lo to hi: at most `most` round numbers (1, 2 or 5 times a
    power of ten apart), or on a log axis the powers of ten in range (every other one if there
    are too many). plot.js's ticks is the same function."""
    if not (math.isfinite(lo) and math.isfinite(hi)) or lo > hi:
        raise ValueError(f"ticks need lo <= hi, got {lo}, {hi}")
    if log:
        if lo <= 0:
            raise ValueError("a log axis needs positive values")
        a, b = math.floor(math.log10(lo) + 1e-9), math.ceil(math.log10(hi) - 1e-9)
        powers = list(range(a, b + 1))
        every = max(1, math.ceil(len(powers) / most))
        return [10.0**p for p in powers[::every]]
    if lo == hi:
        return [lo]
    step = _nice((hi - lo) / max(1, most - 1))
    first = math.ceil(lo / step - 1e-9)
    last = math.floor(hi / step + 1e-9)
    return [float(f"{k * step:.12g}") + 0.0 for k in range(first, last + 1)]


def tick_label(v: float, places: int | None = None) -> str:
    """A tick as printed: dec with `places`, or (None) whole numbers with separators from 1,000
    ("1,048,576") and others plain ("0.5"). plot.js's tickLabel is the same."""
    if places is not None:
        return printing.dec(v, places)
    if float(v).is_integer() and abs(v) >= 1000:
        return printing.count(int(v))
    return printing.plain(v)


PLOT_FONT = 11.0


def plot_layout(
    xs: Sequence[float],
    ys: Sequence[float],
    *,
    x_log: bool = False,
    y_log: bool = False,
    width: float = 320,
    height: float = 200,
    lines: int = 1,
    x_places: int | None = None,
    y_places: int | None = None,
) -> dict[str, Any]:
    """Where a line plot's parts go, from all its x and y values: the plot area (left, top,
    width, height inside the SVG), the ticks with their positions and labels, the axes' ranges.
    A linear y axis starts at 0 (or below, for negative values), a linear x axis at 0 when its
    values start near it. plot.js's layout() computes the
    same (golden cases), so a plot the script redraws is the server's."""
    if not xs or len(xs) != len(ys):
        raise ValueError("a plot needs as many x values as y values, and at least one")
    x_from = 0.0 if not x_log and 0 < min(xs) < max(xs) / 5 else min(xs)  # from 0 if near it
    x_ticks = ticks(x_from, max(xs), log=x_log)
    y_ticks = ticks(min(ys) if y_log else min(0.0, min(ys)), max(ys), log=y_log)
    x_lo, x_hi = min(x_ticks[0], min(xs)), max(x_ticks[-1], max(xs))
    y_lo, y_hi = min(y_ticks[0], min(ys)), max(y_ticks[-1], max(ys))
    y_text = [tick_label(v, y_places) for v in y_ticks]
    left = math.ceil(max(label_width(t, PLOT_FONT) for t in y_text) + 10 + PLOT_FONT + 6)
    top = 10 + (16 * lines if lines > 1 else 0)
    bottom = math.ceil(PLOT_FONT * 2 + 16)
    # the last x tick's label is centred on the right edge: room for its half
    right = max(12, math.ceil(label_width(tick_label(x_ticks[-1], x_places), PLOT_FONT) / 2 + 4))
    area = {
        "left": left,
        "top": top,
        "width": width - left - right,
        "height": height - top - bottom,
    }
    lay = {**area, "x": [x_lo, x_hi], "y": [y_lo, y_hi], "xLog": x_log, "yLog": y_log}
    lay["xTicks"] = [[v, plot_x(lay, v), tick_label(v, x_places)] for v in x_ticks]
    lay["yTicks"] = [[v, plot_y(lay, v), t] for v, t in zip(y_ticks, y_text, strict=True)]
    return lay


def _along(v: float, lo: float, hi: float, log: bool) -> float:
    if log:
        return (math.log10(v) - math.log10(lo)) / (math.log10(hi) - math.log10(lo))
    return (v - lo) / (hi - lo) if hi > lo else 0.5


def plot_x(lay: dict[str, Any], v: float) -> float:
    """The SVG x of a value on the plot's x axis."""
    lo, hi = lay["x"]
    return float(lay["left"] + _along(float(v), lo, hi, lay["xLog"]) * lay["width"])


def plot_y(lay: dict[str, Any], v: float) -> float:
    """The SVG y of a value on the plot's y axis (up is larger)."""
    lo, hi = lay["y"]
    return float(lay["top"] + lay["height"] - _along(float(v), lo, hi, lay["yLog"]) * lay["height"])


def _f1(x: float) -> str:
    """A plot coordinate to one decimal (rounded as printing.js rounds: plot.js writes the same)."""
    return printing.tex(printing.dec(x, 1))


def line_plot(
    series: Sequence[Series],
    *,
    uid: str,
    title: str,
    desc: str,
    caption: kit.Child,
    x_label: str,
    y_label: str,
    x_log: bool = False,
    y_log: bool = False,
    x_places: int | None = None,
    y_places: int | None = None,
    numbers: str | None = "details",
    table_caption: kit.Child | None = None,
    width: float = 320,
    height: float = 200,
    target: str | None = None,
    picture: bool = False,
    class_: str = "",
) -> kit.HTML:
    """A line plot: one polyline and its points per Series, axes with round ticks (linear, or log
    with ``x_log``/``y_log``: powers of ten), the axis names, a legend when there are several
    lines, ``title`` and ``desc`` as its text alternative and every point in a table (as
    heatmap's ``numbers``). Ticks print by ``tick_label`` (``x_places``/``y_places``: fixed
    decimals). Each point carries data-s/data-i (plot.js's markPoint rings one; drawLinePlot
    redraws the plot and its table with new lines). ``picture``: the lines and points, marked
    data-picture, may leave the page for a file of the unit's own (as heatmap's), for a widget
    whose script redraws the plot before it marks a point."""
    if not series:
        raise ValueError("a line plot needs at least one series")
    for s in series:
        if len(s.x) != len(s.y) or not s.x:
            raise ValueError(f"series {s.name!r}: x and y need the same, non-zero length")
    xs = [float(v) for s in series for v in s.x]
    ys = [float(v) for s in series for v in s.y]
    if (x_log and min(xs) <= 0) or (y_log and min(ys) <= 0):
        raise ValueError("a log axis needs positive values")
    lay = plot_layout(xs, ys, x_log=x_log, y_log=y_log, width=width, height=height,
                      lines=len(series), x_places=x_places, y_places=y_places)  # fmt: skip
    left, top, pw, ph = lay["left"], lay["top"], lay["width"], lay["height"]
    font = PLOT_FONT
    grid, labels = [], []
    for _, x, text in lay["xTicks"]:
        grid.append(h("line", x1=_f1(x), y1=_f1(top), x2=_f1(x), y2=_f1(top + ph)))
        labels.append(_svg_text(text, x=_f1(x), y=_f1(top + ph + font + 4), text_anchor="middle"))
    for _, y, text in lay["yTicks"]:
        grid.append(h("line", x1=_f1(left), y1=_f1(y), x2=_f1(left + pw), y2=_f1(y)))
        labels.append(_svg_text(text, x=_f1(left - 6), y=_f1(y + font * 0.35), text_anchor="end"))
    mid_y = top + ph / 2
    names = [
        _svg_text(x_label, x=_f1(left + pw / 2), y=_f1(height - 4), text_anchor="middle",
                  class_="wk-plot-axis-name"),
        _svg_text(y_label, x=_f1(font), y=_f1(mid_y), text_anchor="middle",
                  transform=f"rotate(-90 {_f1(font)} {_f1(mid_y)})", class_="wk-plot-axis-name"),
    ]  # fmt: skip
    lines, keys = [], []
    for k, s in enumerate(series):
        pts = [(plot_x(lay, a), plot_y(lay, b)) for a, b in zip(s.x, s.y, strict=True)]
        cls = f"wk-plot-line wk-plot-line-{k % 3}"
        lines.append(
            h("polyline", class_=cls, points=" ".join(f"{_f1(a)},{_f1(b)}" for a, b in pts))
        )
        lines.extend(
            h("circle", class_=f"wk-plot-point wk-plot-line-{k % 3}", cx=_f1(a), cy=_f1(b), r="3",
              data_s=str(k), data_i=str(i))
            for i, (a, b) in enumerate(pts)
        )  # fmt: skip
        if len(series) > 1:
            ky = 8.0 + 16 * k
            keys.append(h("line", class_=cls, x1=_f1(left), y1=_f1(ky), x2=_f1(left + 18),
                          y2=_f1(ky)))  # fmt: skip
            keys.append(_svg_text(s.name, x=_f1(left + 24), y=_f1(ky + 4)))
    svg = h(
        "svg",
        h("title", kit.HTML(_html.escape_text(title)), id=f"{uid}-title"),
        h("desc", kit.HTML(_html.escape_text(plot_desc(desc, x_label, y_label, x_log, y_log,
                                                       numbers is not None))),
          id=f"{uid}-desc"),
        h("g", grid, class_="wk-plot-grid"),
        h("line", class_="wk-plot-axis", x1=_f1(left), y1=_f1(top + ph), x2=_f1(left + pw),
          y2=_f1(top + ph)),
        h("line", class_="wk-plot-axis", x1=_f1(left), y1=_f1(top), x2=_f1(left), y2=_f1(top + ph)),
        h("g", labels, names, keys, class_="wk-plot-labels", font_size=_num(font)),
        h("g", lines, class_="wk-plot-lines",
          data_picture=f"{_num(width)} {_num(height)}" if picture else None),
        class_="wk-plot-svg",
        viewBox=f"0 0 {_num(width)} {_num(height)}",
        role="img",
        aria_labelledby=f"{uid}-title {uid}-desc",
    )  # fmt: skip
    table = None
    if numbers is not None:
        table = _points_table(series, x_label, table_caption or title, x_places, numbers)
    options = {
        "xLabel": x_label, "yLabel": y_label, "xLog": x_log, "yLog": y_log,
        "xPlaces": x_places, "yPlaces": y_places, "width": width, "height": height,
    }  # fmt: skip
    return h(
        "figure", svg, h("figcaption", caption), table, class_=f"wk-plot {class_}".strip(),
        id=uid, target=target, data_plot=json.dumps(options, separators=(",", ":")),
    )  # fmt: skip


def plot_desc(desc: str, x_label: str, y_label: str, x_log: bool, y_log: bool, table: bool) -> str:
    """A plot's description: the author's, which axes are logarithmic, and where the points are.
    plot.js's drawLinePlot writes the same."""
    logs = [f"{name} on a log scale" for name, log in ((x_label, x_log), (y_label, y_log)) if log]
    text = desc.rstrip(".") + (f" ({'; '.join(logs)})" if logs else "") + "."
    return text + (" Every point is in the table that follows." if table else "")


def _points_table(
    series: Sequence[Series], x_label: str, caption: kit.Child, x_places: int | None, numbers: str
) -> kit.HTML:
    """Every point: one row per x, one column per series (the x values of the first series, when
    all share them; else one row per point of each series)."""
    shared = all(list(s.x) == list(series[0].x) for s in series)
    if shared:
        body = [
            (
                tick_label(float(x), x_places),
                [printing.printer(s.fmt)(float(s.y[i])) for s in series],
            )
            for i, x in enumerate(series[0].x)
        ]
        columns: list[kit.Child] = [x_label, *[s.name for s in series]]
    else:
        body = [
            (tick_label(float(x), x_places), [s.name, printing.printer(s.fmt)(float(y))])
            for s in series
            for x, y in zip(s.x, s.y, strict=True)
        ]
        columns = [x_label, "line", "value"]
    name = caption if isinstance(caption, str) else "the plot"
    table = scroll_box(
        kit.table(caption=caption, columns=columns, rows=body, class_="wk-table wk-plot-table"),
        f"{name}: the points",
    )
    if numbers == "table":
        return table
    if numbers not in ("details", "open"):
        raise ValueError(f"numbers must be 'details', 'open', 'table' or None, not {numbers!r}")
    return h("details", h("summary", "The points, as a table"), table, class_="wk-plot-numbers",
             open=numbers == "open")  # fmt: skip
