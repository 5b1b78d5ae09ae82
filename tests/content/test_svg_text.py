"""No HTML element inside an SVG text element, in any section's page without JavaScript (issue 16).

The HTML parser ends an inline <svg> at the first HTML element it meets in it: a
``<span lang="hi">`` inside a <text> closes the figure and spills the rest of its labels out
under it as one run of words ("मैंmainचायchai…", §1's fallback once). SVG text is marked with SVG's
own elements (a <tspan lang="hi">, lang on the <text>). The parser here walks every written
section's HTML (drafts too) and the widgets' fallbacks in it, and names each HTML element found
inside an SVG <text>, <tspan>, <title> or <desc>."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

import pytest

from mathmachine.coursebook import CompiledUnit, compile_unit
from mathmachine.coursebook.widgets import _kit as kit

UNIT = Path(__file__).resolve().parents[2] / "content" / "units" / "18-attention-and-transformers"
SVG_TEXT = {"text", "tspan", "title", "desc", "textpath"}
SVG_INLINE = {"tspan", "a", "textpath"}


class _Finder(HTMLParser):
    """Each start tag that is not SVG's own inside an SVG text element, with the label it is in."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.svg = 0
        self.stack: list[str] = []  # open SVG text elements (inside an <svg>)
        self.found: list[str] = []
        self.texts = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "svg":
            self.svg += 1
        elif self.svg and self.stack and tag not in SVG_INLINE:
            self.found.append(f"<{tag}> inside <{self.stack[-1]}>")
        if self.svg and tag in SVG_TEXT:
            self.stack.append(tag)
            self.texts += 1

    def handle_endtag(self, tag: str) -> None:
        if tag == "svg" and self.svg:
            self.svg -= 1
        elif self.stack and tag == self.stack[-1]:
            self.stack.pop()


def html_in_svg_text(page: str) -> tuple[list[str], int]:
    finder = _Finder()
    finder.feed(page)
    finder.close()
    return finder.found, finder.texts


@pytest.fixture(scope="module")
def unit() -> CompiledUnit:
    return compile_unit(UNIT)


def test_the_finder_finds_html_in_svg_text() -> None:
    bad = '<svg><text x="1"><span lang="hi">चाय</span></text></svg>'
    good = '<svg><text x="1">chai <tspan lang="hi">चाय</tspan></text><title>t</title></svg>'
    assert html_in_svg_text(bad)[0] == ["<span> inside <text>"]
    assert html_in_svg_text(good) == ([], 3)
    # Outside an <svg>, a <title> element is HTML's own and may hold nothing but text anyway.
    assert html_in_svg_text("<p><span>a</span></p>") == ([], 0)


def test_the_kit_writes_svg_text_with_svg_elements() -> None:
    assert kit.h("text", "चाय", x="1") == '<text x="1" lang="hi">चाय</text>'
    assert kit.h("text", "chai (चाय) ₹12") == 'chai (<tspan lang="hi">चाय</tspan>) ₹12'.join(
        ["<text>", "</text>"]
    )
    with pytest.raises(ValueError, match="HTML inside an SVG text"):
        kit.h("text", kit.h("b", "x"))


def test_no_section_puts_html_inside_svg_text(unit: CompiledUnit) -> None:
    written = [s for s in unit.with_drafts().sections if s.written]
    assert len(written) >= 8
    found = {s.number: html_in_svg_text(s.html)[0] for s in written}
    assert {n: f for n, f in found.items() if f} == {}
    # The test reads real figures: §1's fallback alone labels its alignment figure in SVG text.
    texts = {s.number: html_in_svg_text(s.html)[1] for s in written}
    assert texts[1] >= 8, texts
