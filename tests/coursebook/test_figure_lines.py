"""A line the writer began with a figure stays a sentence: a whole number there followed by a
full stop or a parenthesis is not read as a numbered list (§3's trap once printed its score
as the "1." of a list)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from mathmachine.coursebook import CompiledUnit, compile_unit
from mathmachine.coursebook.passes.figures import substitute

UNIT = Path(__file__).resolve().parents[2] / "content" / "units" / "18-attention-and-transformers"
SRC = Path("x.md")


@pytest.mark.parametrize(
    ("line", "value", "out"),
    [
        ("{{ s }}. Asking and being asked", "1", "1\\. Asking and being asked"),
        ("   {{ s }}) then", "12", "   12\\) then"),
        ("{{ s }}.", "3", "3\\."),
        ("{{ s }}. Next", "6.960", "6.960. Next"),  # a decimal is no list marker
        ("{{ s }}), and", "512", "512), and"),  # nor a parenthesis before a comma
        ("{{ s }}. Next", "(0.1, 0.2)", "(0.1, 0.2). Next"),
        ("The score is {{ s }}. Next", "1", "The score is 1. Next"),  # not at the line's start
        ("1. {{ s }} items", "2", "1. 2 items"),  # the writer's own list stays one
    ],
)
def test_a_figure_that_starts_a_line_is_not_a_list_marker(line: str, value: str, out: str) -> None:
    text, errors = substitute(line, SRC, {"s": value})
    assert errors == [] and text == out


@pytest.fixture(scope="module")
def unit() -> CompiledUnit:
    return compile_unit(UNIT)


def test_section_3s_trap_is_one_paragraph(unit: CompiledUnit) -> None:
    html = unit.section(3).html
    trap = re.search(r'class="[^"]*trap.*?</(?:aside|div|section)>', html, re.S)
    assert trap, "no trap in §3"
    assert "<ol" not in trap.group(0) and "<li" not in trap.group(0)
    assert re.search(r"key:\s+1\. Asking and being asked", re.sub(r"<[^>]+>", "", trap.group(0)))
