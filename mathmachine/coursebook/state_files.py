"""A widget's large initial state as a file of its own, made when the unit compiles (issue 19:
a section's repeat visit in <= 15 KB of HTML, its first visit in <= 50 KB).

A widget's state is JSON in its element (``<script type="application/json" data-state>``,
widgets/_kit.py state_json). Most are a few hundred bytes; a few carry every number their views
show (§9's block, every stage of three words both ways; §13's walk and its training runs: 25 to
49 KB each). Such a state, STATE_FILE_FROM bytes or more, leaves the page: the compiler keeps it
in the compiled unit (CompiledUnit.state_files, named by the hash of its bytes) and the element
keeps an empty state script naming the file, relative to the section's address:

    <script type="application/json" data-state data-src="../data/<hash>.json"></script>

served at ``/units/<slug>/data/<hash>.json`` (learning/views.py state_file), cached a year and
immutable, so a repeat visit fetches only the page. kit.js fetches it when the element comes
near the screen (or is touched or focused): a first visit that does not scroll to the widget
does not fetch it. Until then, and with JavaScript off, the element shows its fallback (text and
tables in the page, as before). Every number in the file is the one the renderer wrote: the
bytes are the same JSON, moved.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from .html import element_end, has_devanagari

STATE_FILE_FROM = 8 * 1024  # bytes of a state's JSON from which it goes to a file of its own
_STATE = re.compile(r'<script type="application/json" data-state>(.*?)</script>', re.DOTALL)


def file_name(body: bytes, suffix: str = ".json") -> str:
    """A file's name: the hash of its bytes, then ``suffix``."""
    return hashlib.sha256(body).hexdigest()[:16] + suffix


def split_states(html: str) -> tuple[str, dict[str, bytes]]:
    """``html`` with every state of STATE_FILE_FROM bytes or more replaced by an empty state
    script naming its file; and the files by name."""
    files: dict[str, bytes] = {}

    def out(match: re.Match[str]) -> str:
        body = match.group(1).encode("utf-8")
        if len(body) < STATE_FILE_FROM:
            return match.group(0)
        name = file_name(body)
        files[name] = body
        return f'<script type="application/json" data-state data-src="../data/{name}"></script>'

    return _STATE.sub(out, html), files


# -- pictures ------------------------------------------------------------------------------------
#
# A figure's drawing, when it is large and its widget's script never touches it (§8's map of the
# sinusoidal encoding, 512 cells; §13's loss curve, which tiny-learn.js redraws before it marks a
# point), leaves the page the same way: the part marks its group (widgets/_parts.py heatmap and
# line_plot, ``picture=True``) and the compiler, for a group of PICTURE_FROM bytes or more, keeps
# a standalone SVG of it in the compiled unit and leaves in its place
#
#     <image href="../data/<hash>.svg" width="W" height="H"/>
#
# at the same place of the same viewBox ("0 0 W H"), so the page draws the same picture, with
# JavaScript or without. Its title and description, its outlines (heatmap.js moves them) and its
# table of numbers stay in the page. The file carries what the page's stylesheets gave the
# group: the site's font for its text, and plots.css for the lines of a plot. A group with
# Devanagari in it stays in the page (an image cannot use the page's cut of the font).

PICTURE_FROM = 4 * 1024  # bytes of a marked group from which it goes to a file of its own
_PICTURE = re.compile(r'<g((?:\s[^>]*?)?)\sdata-picture="([\d.]+) ([\d.]+)"([^>]*)>')
_STYLES = Path(__file__).resolve().parent.parent / "static" / "widgets"
_SITE_CSS = _STYLES.parent / "site" / "site.css"


def _font() -> str:
    """The site's font stack (site.css --font) without its web font, which an image cannot
    load."""
    found = re.search(r"--font:\s*([^;]+);", _SITE_CSS.read_text(encoding="utf-8"))
    if found is None:
        raise ValueError(f"{_SITE_CSS} names no --font")
    fonts = [f.strip() for f in found.group(1).split(",")]
    return ", ".join(f for f in fonts if "Subset" not in f)


def picture_svg(width: str, height: str, attributes: str, inner: str) -> bytes:
    """The standalone SVG of a picture's group: its viewBox, the styles the page gave it."""
    style = f"text{{font-family:{_font()}}}"
    if "wk-plot-" in inner:
        style += (_STYLES / "plots.css").read_text(encoding="utf-8")
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}"><style>{style}</style>'
        f"<g{attributes}>{inner}</g></svg>"
    ).encode()


def split_pictures(html: str) -> tuple[str, dict[str, bytes]]:
    """``html`` with every marked picture group of PICTURE_FROM bytes or more (and no
    Devanagari) replaced by an <image> of its file; and the files by name. A smaller one stays,
    unmarked."""
    files: dict[str, bytes] = {}
    out: list[str] = []
    at = 0
    for m in _PICTURE.finditer(html):
        if m.start() < at:  # inside a picture already moved
            continue
        end = element_end(html, m.start(), "g")
        inner = html[m.end() : end - len("</g>")]
        width, height, attributes = m.group(2), m.group(3), m.group(1) + m.group(4)
        out.append(html[at : m.start()])
        if end - m.start() < PICTURE_FROM or has_devanagari(inner):
            out.append(f"<g{attributes}>{inner}</g>")
        else:
            body = picture_svg(width, height, attributes, inner)
            name = file_name(body, ".svg")
            files[name] = body
            out.append(f'<image href="../data/{name}" width="{width}" height="{height}"/>')
        at = end
    out.append(html[at:])
    return "".join(out), files
