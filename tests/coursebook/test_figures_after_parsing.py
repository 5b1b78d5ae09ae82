"""Figures after parsing (issue 13, part 6) change no written section, except where the old way
was wrong.

The old way is kept here as the reference: every ``{{ name }}`` pasted into the Markdown as text
before parsing (the variant blocks from their functions), with its one special-case escape (a
whole number then "." or ")" that starts a line got a backslash, so as not to open a numbered
list). Its text then goes through today's compiler, which has nothing left to place, so it
compiles exactly as the old compiler did. Compared with today's compile of the same sources:
every written section's HTML (drafts too), every check's and problem's prompt, feedback,
mistakes, hints, solution, options and keys, and 12 seeds of every problem with fresh numbers.

Differences, each explained in EXPECTED_DIFFERENCES: none in Unit 18 as written today (no
figure of it held a character that became syntax once the escape was in place). The last test
shows a difference of the kind the new way exists for: the old way split a table cell at a
figure's "|".
"""

from __future__ import annotations

import re
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

import pytest

from mathmachine.coursebook import CompiledUnit, compile_unit, variants
from mathmachine.coursebook.model import CheckDef
from mathmachine.coursebook.passes.assemble import compile_markdown, leave_the_page, sections_so_far
from mathmachine.coursebook.passes.context import SectionRef, UnitContext
from mathmachine.coursebook.passes.load import load_figures
from mathmachine.coursebook.passes.variants import find_blocks

from .conftest import make_unit

UNIT = Path(__file__).resolve().parents[2] / "content" / "units" / "18-attention-and-transformers"
SEEDS = range(2, 14)
# (what, section or check id) -> why the new HTML differs from the old (and is right).
EXPECTED_DIFFERENCES: dict[tuple[str, str], str] = {}

_REF = re.compile(r"\{\{(.*?)\}\}")
_STARTS_WITH_FIGURE = re.compile(r"^\s*\{\{")
_LIST_MARKER = re.compile(r"^(\s*\d{1,9})([.)])(?=\s|$)")


def old_substitute(text: str, figures: dict[str, str], skip: frozenset[int] = frozenset()) -> str:
    """The old stage 2, as it was: each line's references pasted in, and the escape."""
    out = []
    for n, line in enumerate(text.split("\n"), start=1):
        if "{{" not in line or n in skip:
            out.append(line)
            continue
        pasted = _REF.sub(lambda m: figures.get(m.group(1).strip(), m.group(0)), line)
        if _STARTS_WITH_FIGURE.match(line):
            pasted = _LIST_MARKER.sub(r"\1\\\2", pasted)
        out.append(pasted)
    return "\n".join(out)


def old_text(text: str, unit: UnitContext, seed: int) -> str:
    """The section as the old compiler parsed it: unit figures outside the variant blocks,
    each block from its function at ``seed``."""
    lines = text.split("\n")
    blocks = find_blocks(lines)
    skip = frozenset(n for first, last, _, _ in blocks for n in range(first, last + 1))
    out = old_substitute(text, unit.figures, skip).split("\n")
    for first, last, name, _ in blocks:
        block = "\n".join(lines[first - 1 : last])
        out[first - 1 : last] = old_substitute(block, unit.variants[name](seed)).split("\n")
    return "\n".join(out)


def shown(check: CheckDef) -> dict[str, Any]:
    """What a page shows of a check and how it is graded (not where its source is)."""
    d = asdict(replace(check, variant=None, source=""))
    d["seed"] = check.variant.seed if check.variant else None
    return d


@pytest.fixture(scope="module")
def unit() -> CompiledUnit:
    return compile_unit(UNIT)


@pytest.fixture(scope="module")
def context(unit: CompiledUnit) -> UnitContext:
    figures = load_figures(UNIT, unit.number)
    return UnitContext(
        number=unit.number,
        slug=unit.slug,
        title=unit.title,
        sections={
            s.number: SectionRef(s.number, s.slug, s.title, s.written) for s in unit.sections
        },
        figures=figures.values,
        examples=figures.examples,
        known_units=dict(unit.known_units),
        variants=figures.variants,
        built=sections_so_far(unit),
    )


def _old_compile(text: str, context: UnitContext, number: int, title: str, **kw: Any) -> Any:
    # The old text holds the figures' decimals, which the lint (of the source) would refuse:
    # its errors are no concern here, the HTML is.
    return compile_markdown(
        text, path=UNIT / "x.md", unit=context, number=number, title=title, **kw
    )


def test_every_written_section_compiles_as_before(unit: CompiledUnit, context: UnitContext) -> None:
    differ: dict[tuple[str, str], str] = {}
    sections = [s for s in unit.with_drafts().sections if s.written]
    assert len(sections) >= 8
    for section in sections:
        source = Path(section.source).read_text(encoding="utf-8")
        context.ids.clear()
        old = _old_compile(old_text(source, context, 1), context, section.number, section.title)
        # the unit's pass after the sections compile: what leaves the page (states, pictures)
        if leave_the_page(old.html)[0] != section.html:
            differ[("section", str(section.number))] = "html"
        old_checks = {c.id: shown(c) for c in (*old.ctx.checks, *old.ctx.problems)}
        assert set(old_checks) == {c.id for c in section.gradables}
        for check in section.gradables:
            if old_checks[check.id] != shown(check):
                differ[("check", check.id)] = "prompt, feedback or key"
    assert set(differ) == set(EXPECTED_DIFFERENCES), differ


def test_every_variant_compiles_as_before(unit: CompiledUnit, context: UnitContext) -> None:
    differ: dict[tuple[str, str], list[int]] = {}
    checked = 0
    for section in unit.with_drafts().sections:
        for check in section.gradables:
            if check.variant is None:
                continue
            text = "\n" * (check.variant.line - 1) + check.variant.source
            for seed in SEEDS:
                new = variants.variant_check(unit, check, seed)
                context.ids.clear()
                old = _old_compile(
                    old_text(text, context, seed),
                    context,
                    section.number,
                    section.title,
                    whole_section=False,
                    seed=seed,
                )
                (was,) = [c for c in (*old.ctx.checks, *old.ctx.problems) if c.id == check.id]
                if shown(was) != shown(new):
                    differ.setdefault(("variant", check.id), []).append(seed)
                checked += 1
    assert checked >= 10 * len(SEEDS)
    assert set(differ) == set(EXPECTED_DIFFERENCES), differ


def test_the_old_way_split_a_table_cell_at_a_figure_bar() -> None:
    """The comparison does see a difference where the old way was wrong: a figure holding "|"
    in a table cell made two cells of one."""
    unit = make_unit(figures={"k": "a | b"})
    text = "| key | share |\n|---|---|\n| {{ k }} | 1 |\n"
    new = compile_markdown(text, path=Path("x.md"), unit=unit, number=1, title="T",
                           whole_section=False)  # fmt: skip
    old = compile_markdown(old_substitute(text, unit.figures), path=Path("x.md"), unit=unit,
                           number=1, title="T", whole_section=False)  # fmt: skip
    assert "<td>a | b</td>\n<td>1</td>" in new.html
    assert "<td>a</td>\n<td>b</td>" in old.html
