"""Server helpers every widget renderer uses: HTML built with the coursebook's own escaping, the
initial state as JSON, named targets, and the no-JavaScript fallback's table and figure.

    from . import kit
    kit.h("button", "▶ translate", type="button", target="play")
    # -> <button type="button" data-target="play">▶ translate</button>

`h(tag, *children, **attributes)` returns `HTML` (a str that is already markup). A child that is
a plain str is text: it is escaped, and Devanagari runs in it get ``lang="hi"``
(coursebook.html.text_html). A child that is `HTML` is put in as is. Attribute names are written
Python-style: ``class_`` is ``class``, ``aria_label`` is ``aria-label``; ``target="name"`` is the
named target the element's script finds (``data-target``); ``js=True`` marks a part only the live
widget shows (``data-js`` and ``hidden`` until the script upgrades the element); ``nojs=True`` a
part of the fallback that the live widget replaces (``data-nojs``: the script hides it). ``True``
writes a bare attribute, ``None`` or ``False`` leaves it out.

Nothing here writes an inline style or an event handler attribute: the site's CSP forbids both,
and the conformance test (tests/widgets/test_conformance.py) rejects them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from typing import Any

from .. import html as _html

__all__ = [
    "HTML",
    "cell",
    "element",
    "figure",
    "h",
    "hi",
    "join",
    "state_json",
    "status",
    "table",
    "text",
]

VOID = frozenset({"br", "col", "hr", "img", "input", "link", "meta", "source", "wbr"})
# SVG elements that have no content are closed in place (<line … />).
SVG_EMPTY = frozenset({"circle", "ellipse", "line", "path", "polygon", "polyline", "rect", "use"})
# SVG elements whose content is text: no HTML may go inside them (the HTML parser closes the <svg>
# at the first HTML element and spills the rest out under the figure). Their plain-str children
# are escaped as SVG text; a Devanagari run in a <text> or <tspan> becomes <tspan lang="hi">, and
# a whole-Devanagari label puts lang="hi" on the element itself.
SVG_TEXT = frozenset({"text", "tspan", "title", "desc", "textPath"})


class HTML(str):
    """Markup that is already safe to put in a page (the result of h(), text(), table() …)."""

    __slots__ = ()


Child = str | HTML | int | float | None | Iterable["Child"]


def text(value: object) -> HTML:
    """Text escaped for the page, Devanagari runs marked ``lang="hi"``."""
    if isinstance(value, HTML):
        return value
    return HTML(_html.text_html(str(value)))


def join(children: Iterable[Child]) -> HTML:
    """Children (text, HTML, numbers, nested iterables; None is skipped) as one HTML string."""
    out: list[str] = []
    for child in children:
        if child is None or child is False:
            continue
        if isinstance(child, str):
            out.append(text(child))
        elif isinstance(child, (int, float)):
            out.append(text(str(child)))
        else:
            out.append(join(child))
    return HTML("".join(out))


def _attr_name(name: str) -> str:
    name = name.rstrip("_")  # class_ -> class, for_ -> for
    return name.replace("_", "-")


def attrs(attributes: dict[str, Any]) -> str:
    """' a="1" b' for the given attributes (see the module docstring for the special names)."""
    out: list[str] = []
    for key, value in attributes.items():
        if value is None or value is False:
            continue
        if key == "target":
            key = "data-target"
        elif key in ("js", "nojs"):
            if value is not True:
                raise TypeError(f"{key}= takes True, got {value!r}")
            out.append(" data-js hidden" if key == "js" else " data-nojs")
            continue
        name = _attr_name(key)
        if name == "style" or name.startswith("on"):
            raise ValueError(f"no inline {name}= (the site's CSP forbids it): use a class")
        if value is True:
            out.append(f" {name}")
        else:
            out.append(f' {name}="{_html.escape(str(value))}"')
    return "".join(out)


def h(tag: str, *children: Child, **attributes: Any) -> HTML:
    """One element: ``h("td", "0.736", class_="tl-w7")``."""
    a = attrs(attributes)
    if tag in VOID:
        if any(c is not None for c in children):
            raise ValueError(f"<{tag}> cannot have children")
        return HTML(f"<{tag}{a}>")
    if tag in SVG_TEXT:
        return _svg_text_element(tag, children, attributes)
    inner = join(children)
    if not inner and tag in SVG_EMPTY:
        return HTML(f"<{tag}{a}/>")
    return HTML(f"<{tag}{a}>{inner}</{tag}>")


def _svg_text_child(child: Child, runs: bool) -> str:
    if child is None or child is False:
        return ""
    if isinstance(child, HTML):
        if _HTML_TAG.search(child):
            raise ValueError(f"HTML inside an SVG text element: {child[:60]!r}")
        return child
    if isinstance(child, (str, int, float)):
        value = str(child)
        if not runs:
            return _html.escape_text(value)
        out, pos = [], 0
        for m in _html.DEVANAGARI_RUN.finditer(value):
            out.append(_html.escape_text(value[pos : m.start()]))
            out.append(f'<tspan lang="hi">{_html.escape_text(m.group())}</tspan>')
            pos = m.end()
        out.append(_html.escape_text(value[pos:]))
        return "".join(out)
    return "".join(_svg_text_child(c, runs) for c in child)


def _plain(children: Iterable[Child]) -> str:
    out = []
    for c in children:
        if isinstance(c, HTML) or c is None or c is False:
            continue
        out.append(str(c) if isinstance(c, (str, int, float)) else _plain(c))
    return "".join(out)


def _svg_text_element(tag: str, children: Sequence[Child], attributes: dict[str, Any]) -> HTML:
    """<text>, <tspan>, <title>, <desc>: SVG text, never HTML inside (see SVG_TEXT)."""
    plain = _plain(children)
    whole_hindi = bool(plain) and _html.DEVANAGARI_RUN.fullmatch(plain.strip()) is not None
    if whole_hindi and tag in ("text", "tspan") and "lang" not in attributes:
        attributes = {**attributes, "lang": "hi"}
    runs = tag in ("text", "tspan") and attributes.get("lang") != "hi"
    inner = "".join(_svg_text_child(c, runs) for c in children)
    return HTML(f"<{tag}{attrs(attributes)}>{inner}</{tag}>")


# An element of SVG's own text model may sit inside <text>; anything else is HTML.
_HTML_TAG = re.compile(r"<(?!/?(?:tspan|textPath|a)\b)[a-zA-Z]")


def state_json(data: object) -> HTML:
    """The element's initial state: ``<script type="application/json" data-state>``.

    JSON that is safe inside <script>: no "</script>", no "<!--", no U+2028/2029 surprises, and
    no NaN or Infinity (which JSON.parse would reject): such a value raises ValueError here.
    """
    try:
        body = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except ValueError as exc:
        raise ValueError(f"widget state must be finite numbers: {exc}") from exc
    for char, esc in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026")):
        body = body.replace(char, esc)
    body = body.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    return HTML(f'<script type="application/json" data-state>{body}</script>')


def element(
    name: str, uid: str, state: object, *children: Child, class_: str = "", **attributes: Any
) -> HTML:
    """The widget's custom element: its state first, then its parts (fallback and live parts).
    ``data-kit`` marks it as the owner of the named targets inside it (kit.js)."""
    return h(
        name,
        state_json(state),
        *children,
        id=uid,
        class_=f"widget {class_}".strip(),
        data_kit=True,
        **attributes,
    )


def status(*, class_: str = "widget-status") -> HTML:
    """The status line (shown by the script) and the live region that announces (kit.js say()).

    The visible line is not a live region itself: a slider announces its own aria-valuetext, and
    kit.js's show() updates the line without saying it a second time.
    """
    return join(
        [
            h("p", class_=class_, target="status", js=True),
            h("p", class_="visually-hidden", target="live", role="status"),
        ]
    )


def hi(word: str, translit: str, gloss: str = "") -> HTML:
    """A Hindi word in Devanagari (``lang="hi"``), then its transliteration, and its gloss."""
    extra = f", “{gloss}”" if gloss else ""
    return join(
        [h("span", word, lang="hi"), " ", h("i", f"({translit}{extra})", class_="translit")]
    )


def cell(content: Child, **attributes: Any) -> tuple[Child, dict[str, Any]]:
    """A table cell with attributes, for table(): ``cell("0.736", class_="tl-w7")``."""
    return (content, attributes)


def _cell(tag: str, value: Any, **extra: Any) -> HTML:
    if isinstance(value, tuple) and len(value) == 2 and isinstance(value[1], dict):
        content, attributes = value
        return h(tag, content, **extra, **attributes)
    return h(tag, value, **extra)


def table(
    *,
    caption: Child,
    columns: Sequence[Any],
    rows: Sequence[tuple[Any, Sequence[Any]]],
    row_attrs: Sequence[dict[str, Any]] | None = None,
    **attributes: Any,
) -> HTML:
    """An accessible table of numbers: a caption, column headers (the first heads the row
    headers' column) and one row per (row header, cells). Cells are text, HTML or cell()."""
    if len(columns) < 2:
        raise ValueError("a table needs a header for its row headers and at least one column")
    head = h("tr", [_cell("th", c, scope="col") for c in columns])
    body = []
    for i, (header, cells) in enumerate(rows):
        if len(cells) != len(columns) - 1:
            raise ValueError(f"row {i}: {len(cells)} cells for {len(columns) - 1} columns")
        extra = row_attrs[i] if row_attrs else {}
        body.append(
            h("tr", _cell("th", header, scope="row"), [_cell("td", c) for c in cells], **extra)
        )
    return h("table", h("caption", caption), h("thead", head), h("tbody", body), **attributes)


def figure(
    *children: Child,
    uid: str,
    title: str,
    desc: str,
    caption: Child,
    viewbox: str,
    svg_class: str = "",
    **attributes: Any,
) -> HTML:
    """A static SVG figure with a text alternative (<title> and <desc>) and a visible caption."""
    # Plain text in <title>/<desc> (an accessible name cannot mark part of itself as Hindi: write
    # Hindi words there in transliteration; the visible <text> carries lang="hi").
    svg = h(
        "svg",
        h("title", HTML(_html.escape_text(title)), id=f"{uid}-title"),
        h("desc", HTML(_html.escape_text(desc)), id=f"{uid}-desc"),
        *children,
        class_=svg_class or None,
        viewBox=viewbox,
        role="img",
        aria_labelledby=f"{uid}-title {uid}-desc",
    )
    return h("figure", svg, h("figcaption", caption), **attributes)
