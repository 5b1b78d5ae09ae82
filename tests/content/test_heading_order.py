"""Headings never skip a level in a written section (what screen-reader users jump by, and what
Lighthouse's heading-order audit checks): the page's <h1> is the title, the section's own
blocks start at <h2>, and a widget's headings sit one below (§7's widget once used <h4> right
under an <h2>)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from mathmachine.coursebook import CompiledUnit, compile_unit

UNIT = Path(__file__).resolve().parents[2] / "content" / "units" / "18-attention-and-transformers"
HEADING = re.compile(r"<h([1-6])\b[^>]*>(.*?)</h\1>", re.S)


@pytest.fixture(scope="module")
def unit() -> CompiledUnit:
    return compile_unit(UNIT)


def skips(html: str) -> list[str]:
    """Each heading that is more than one level below the one before it (the title is h1)."""
    found, level = [], 1
    for m in HEADING.finditer(html):
        new = int(m.group(1))
        if new > level + 1:
            found.append(f"h{level} -> h{new} {re.sub(r'<[^>]+>', '', m.group(2)).strip()[:50]}")
        level = new
    return found


def test_the_helper_finds_a_skip() -> None:
    assert skips("<h2>a</h2><h4>b</h4>") == ["h2 -> h4 b"]
    assert skips("<h2>a</h2><h3>b</h3><h2>c</h2>") == []


def test_no_written_section_skips_a_heading_level(unit: CompiledUnit) -> None:
    written = [s for s in unit.with_drafts().sections if s.written]  # drafts too
    assert len(written) >= 8
    assert {s.number: skips(s.html) for s in written if skips(s.html)} == {}
