"""The kit's parts (mathmachine/coursebook/widgets/_parts.py): one palette held together in Python,
CSS and JavaScript; the heat map, the shaded matrix table and the line plot as markup (text
alternatives, labels that fit, the numbers in a table); the ticks. Their browser halves are held
to the same layout by golden cases (tests/golden/parts.json) and tests/browser/test_parts.py."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from mathmachine.coursebook.widgets import parts
from mathmachine.printing import MINUS

STATIC = Path(parts.__file__).resolve().parents[2] / "static" / "widgets"


class Elements(HTMLParser):
    """(tag, attrs, text inside, ancestors) of a fragment."""

    VOID = frozenset({"br", "col", "hr", "img", "input", "link", "meta", "source", "wbr"})

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, dict[str, str | None]]] = []
        self.found: list[tuple[str, dict[str, str | None], list[str], tuple[str, ...]]] = []
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        entry = (tag, dict(attrs), [], tuple(t for t, _ in self.stack))
        self.found.append(entry)
        if tag not in self.VOID:
            self.stack.append((tag, dict(attrs)))
            self._open = [*getattr(self, "_open", []), entry]

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found.append((tag, dict(attrs), [], tuple(t for t, _ in self.stack)))

    def handle_endtag(self, tag: str) -> None:
        while self.stack:
            t, _ = self.stack.pop()
            self._open.pop()
            if t == tag:
                break

    def handle_data(self, data: str) -> None:
        for entry in getattr(self, "_open", []):
            entry[2].append(data)

    def all(self, tag: str) -> list[tuple[dict[str, str | None], str, tuple[str, ...]]]:
        return [(a, "".join(t), up) for g, a, t, up in self.found if g == tag]


def css_shades() -> dict[int, tuple[str, str | None]]:
    css = (STATIC / "plots.css").read_text(encoding="utf-8")
    out = {}
    for m in re.finditer(
        r"\.wk-h(\d+) \{ background-color: (#[0-9a-f]{6});( color: (#[0-9a-f]+);)?", css
    ):
        out[int(m.group(1))] = (m.group(2), m.group(4))
    return out


def _luminance(hex_colour: str) -> float:
    r, g, b = (int(hex_colour[i : i + 2], 16) / 255 for i in (1, 3, 5))

    def f(c: float) -> float:
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b)


def _contrast(a: str, b: str) -> float:
    hi, lo = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_one_palette_in_python_css_and_javascript() -> None:
    shades = css_shades()
    assert [shades[k][0] for k in range(11)] == list(parts.PALETTE)
    js = (STATIC / "heatmap.js").read_text(encoding="utf-8")
    block = re.search(r"export const PALETTE = \[(.*?)\]", js, re.S)
    assert block and re.findall(r"'(#[0-9a-f]{6})'", block.group(1)) == list(parts.PALETTE)
    for k, (background, colour) in shades.items():
        text = "#ffffff" if k >= parts.WHITE_TEXT_FROM else parts.INK
        assert (colour == "#fff") == (k >= parts.WHITE_TEXT_FROM), k
        assert _contrast(background, text) >= 4.5, (k, background)  # numbers on a shade read


def test_a_scale_maps_values_to_the_eleven_levels() -> None:
    assert [parts.WEIGHTS.level(w) for w in (0, 0.0025, 0.01, 0.25, 0.736, 1, 7)] == [
        0, 1, 1, 5, 9, 10, 10,
    ]  # fmt: skip
    signed = parts.Scale(-1, 1, "linear")
    assert [signed.level(v) for v in (-1, -0.5, 0, 0.5, 1, -3)] == [0, 3, 5, 8, 10, 0]
    size = parts.Scale(0, 0.25, "linear", magnitude=True)
    assert size.level(-0.25) == size.level(0.25) == 10 and size.shade(-0.125) == "wk-h5"
    for bad in ({"lo": 1, "hi": 1}, {"lo": 0, "hi": float("nan")}, {"curve": "log"}):
        with pytest.raises(ValueError):
            parts.Scale(**bad)  # type: ignore[arg-type]


TOKENS = ["[CLS]", "the", "bank", "of", "the", "river", "was", "muddy", ".", "[SEP]"]


def _map(**kw: Any) -> str:
    n = len(TOKENS)
    w = [[1.0 / n] * n for _ in range(n)]
    w[2] = [0.0] * n
    w[2][5] = 1.0
    args: dict[str, Any] = {"uid": "m", "rows": TOKENS, "cols": TOKENS, "title": "A map",
                            "desc": "Rows ask.", "caption": "The caption"}  # fmt: skip
    args.update(kw)
    return parts.heatmap(w, **args)


def test_a_heat_map_is_an_svg_with_its_text_alternative_and_its_numbers() -> None:
    html = _map(highlight=2, key=5)
    e = Elements(html)
    ((svg, _, _),) = e.all("svg")
    assert svg["role"] == "img" and svg["aria-labelledby"] == "m-title m-desc"
    assert e.all("title")[0][1] == "A map"
    assert e.all("desc")[0][1] == "Rows ask. The numbers are in the table that follows."
    cells = [a for a, _, _ in e.all("rect") if a.get("data-r") is not None]
    assert len(cells) == len(TOKENS) ** 2
    assert {a["fill"] for a in cells} <= set(parts.PALETTE)
    bright = [a for a in cells if a["data-r"] == "2" and a["data-c"] == "5"]
    assert bright[0]["fill"] == parts.PALETTE[10]
    row = [a for a, _, _ in e.all("rect") if a.get("class") == "wk-hm-row"]
    assert row[0]["data-row"] == "2" and "visibility" not in row[0]
    key = [a for a, _, _ in e.all("rect") if a.get("class") == "wk-hm-key"]
    assert "visibility" not in key[0]
    # the numbers: a captioned table in a closed <details>, shaded on the same palette
    ((details, _, _),) = e.all("details")
    assert "open" not in details
    assert e.all("caption")[0][1] == "A map"
    tds = e.all("td")
    assert len(tds) == len(TOKENS) ** 2 and tds[2 * len(TOKENS) + 5][1] == "1.000"
    assert tds[2 * len(TOKENS) + 5][0]["class"] == "wk-h10"
    assert e.all("figcaption")[0][1] == "The caption"
    options = json.loads(e.all("figure")[0][0]["data-heatmap"] or "{}")
    assert options["cell"] == 24 and options["scale"] == parts.WEIGHTS.as_json()


def test_a_heat_map_without_a_row_chosen_hides_its_marks_and_can_leave_out_its_table() -> None:
    e = Elements(_map(numbers=None))
    marks = [a for a, _, _ in e.all("rect") if a.get("class") in ("wk-hm-row", "wk-hm-key")]
    assert [a.get("visibility") for a in marks] == ["hidden", "hidden"]
    assert not e.all("table") and e.all("desc")[0][1] == "Rows ask."
    assert "open" in Elements(_map(numbers="open")).all("details")[0][0]
    assert not Elements(_map(numbers="table")).all("details")
    with pytest.raises(ValueError):
        _map(numbers="sometimes")
    with pytest.raises(ValueError):
        parts.heatmap([[0.5]], uid="x", rows=["a", "b"], cols=["c"], title="t", desc="d",
                      caption="c")  # fmt: skip


def test_labels_fit_and_are_plain_svg_text() -> None:
    """Every label's estimated extent lies inside the SVG: the last column's ("[SEP]", slanted)
    and the longest row's. Long labels are cut (the table keeps them whole); Devanagari is marked
    on the <text> itself, never with HTML inside SVG."""
    rows = [*TOKENS, "pharmacology", "मैं"]
    for slant in (45, 60, 90):
        lay = parts.heatmap_layout(rows, rows, slant=slant)
        sin, cos = parts.SLANTS[slant]
        for (x, y), label in zip(lay["cols"], rows, strict=True):
            w = parts.label_width(parts.short_label(label), 12)
            assert x + w * cos <= lay["width"] and y - w * sin >= 0, (slant, label)
        widest = max(parts.label_width(parts.short_label(r), 12) for r in rows)
        assert lay["left"] - 6 - widest >= 0
    html = parts.heatmap([[0.5] * len(rows)] * len(rows), uid="h", rows=rows, cols=rows,
                         title="t", desc="d", caption="c")  # fmt: skip
    e = Elements(html)
    texts = e.all("text")
    assert all("span" not in up[up.index("svg") :] for _, _, up in e.all("span") if "svg" in up)
    labels = [t for _, t, _ in texts]
    assert "pharmaco…" in labels and "pharmacology" not in labels
    assert [a.get("lang") for a, t, _ in texts if t == "मैं"] == ["hi", "hi"]
    assert "pharmacology" in [t for _, t, _ in e.all("th")]


def test_the_label_estimate_is_generous() -> None:
    """Widths at 12 px measured in Debian's Chromium (getComputedTextLength, the site's
    system-ui font: DejaVu Sans), which the estimate must not undercut."""
    measured = {
        "[CLS]": 32.0,
        "[SEP]": 31.8,
        "the": 19.7,
        "bank": 29.5,
        "of": 11.6,
        "river": 27.7,
        "was": 23.4,
        "muddy": 41.6,
        "after": 28.4,
        "rain": 23.2,
        ".": 3.8,
        "always": 41.2,
        "drink": 30.5,
        "tea": 19.5,
        "I": 3.5,
        "pharmaco…": 72.3,
        "##ा": 27.3,
        "##ै": 27.3,
        "म": 7.2,
        "च": 7.6,
        "मैं": 7.2,
        "चाय": 17.7,
        "पीता": 19.9,
        "हूँ": 6.4,
        "She": 22.6,
        "reads": 33.3,
        "book": 29.2,
        "train": 27.9,
        "WWWW": 47.5,
        "mmmm": 46.8,
        "iiii": 13.3,
        "1024": 30.5,
        "0.736": 34.4,
        "[UNK]": 35,
        "##ing": 38.7,
        "Monday": 47.4,
        "ABCDEFGH": 66.7,
    }
    for text, px in measured.items():
        assert parts.label_width(text, 12) >= px, text


def test_a_matrix_table_prints_shades_and_adds_a_column() -> None:
    html = parts.matrix_table(
        [[0.5, -0.25], [1.0, 0.0]], rows=["a", "b"], cols=["x", "y"], caption="M", fmt=2,
        shade=parts.Scale(-1, 1, "linear"), cell=lambda i, j, v: {"target": "cell", "data_r": i},
        extra=("sum", ["0.25", "1.00"]), label="M as a table", corner="m",
    )  # fmt: skip
    e = Elements(html)
    assert e.all("div")[0][0]["role"] == "region"
    assert [t for _, t, _ in e.all("th")] == ["m", "x", "y", "sum", "a", "b"]
    tds = e.all("td")
    assert [t for _, t, _ in tds] == ["0.50", f"{MINUS}0.25", "0.25", "1.00", "0.00", "1.00"]
    assert tds[0][0]["class"] == "wk-h8" and tds[0][0]["data-target"] == "cell"
    assert "class" not in tds[2][0]  # the extra column is as given
    plain = Elements(parts.matrix_table([[1, -2]], rows=["r"], cols=["c1", "c2"], caption="P",
                                        fmt=None))  # fmt: skip
    assert [t for _, t, _ in plain.all("td")] == ["1", f"{MINUS}2"] and not plain.all("div")


def test_ticks_are_round_numbers_or_powers_of_ten() -> None:
    assert parts.ticks(0, 1) == [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]
    assert parts.ticks(0, 7.3) == [0.0, 2.0, 4.0, 6.0]
    assert (
        parts.ticks(1, 1e6, log=True) == [1.0, 10.0, 100.0, 1e3, 1e4, 1e5, 1e6][::2]
        or len(parts.ticks(1, 1e6, log=True)) <= 6
    )
    assert parts.ticks(2, 5e9, log=True)[0] == 1.0 and parts.ticks(2, 5e9, log=True)[-1] >= 5e9
    assert parts.ticks(0.5, 0.5) == [0.5]
    for bad in ((1, 0, False), (0, 10, True), (float("nan"), 1, False)):
        with pytest.raises(ValueError):
            parts.ticks(bad[0], bad[1], log=bad[2])


def test_a_line_plot_has_axes_points_a_legend_and_its_table() -> None:
    ns = [2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]
    html = parts.line_plot(
        [parts.Series("n²", ns, [n * n for n in ns], fmt=None),
         parts.Series("n", ns, ns, fmt=None)],
        uid="p", title="Scores against n", desc="n² grows much faster than n",
        caption="On a log scale both are lines.", x_label="n", y_label="scores",
        x_log=True, y_log=True,
    )  # fmt: skip
    e = Elements(html)
    ((svg, _, _),) = e.all("svg")
    assert svg["role"] == "img" and svg["aria-labelledby"] == "p-title p-desc"
    desc = e.all("desc")[0][1]
    assert "n on a log scale; scores on a log scale" in desc and "table that follows" in desc
    assert len(e.all("polyline")) == 2 and len(e.all("circle")) == 2 * len(ns)
    texts = [t for _, t, _ in e.all("text")]
    assert "1,000" in texts and "1" in texts and "n²" in texts  # ticks, legend
    rows = e.all("tr")
    assert len(rows) == 1 + len(ns)
    assert [t for _, t, _ in e.all("td")][-2:] == ["1048576", "1024"]
    with pytest.raises(ValueError):
        parts.line_plot([parts.Series("bad", [0, 1], [1, 2])], uid="q", title="t", desc="d",
                        caption="c", x_label="x", y_label="y", x_log=True)  # fmt: skip
    with pytest.raises(ValueError):
        parts.line_plot([], uid="q", title="t", desc="d", caption="c", x_label="x", y_label="y")
