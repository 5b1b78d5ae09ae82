"""The pipeline, stage by stage, and the assembly of a CompiledUnit.

    load (unit.toml, figures) -> lint hand-typed decimals (on the source as written)
    -> the figures' scope (variant blocks from their functions) -> parse (markdown-it, the
    {{ name }} references in place) -> directives (their options take their figures) ->
    figures (into the tokens: text, or math) -> structure -> roles -> math (LaTeX -> MathML,
    per token, so errors keep their lines) -> render -> the rules on printed answers -> assemble

Errors of every stage are collected per file, so one run reports all of them.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from pathlib import Path

from ..errors import CompileError, CompileErrors, StructureError
from ..fonts import section_fonts, section_math_fonts
from ..model import CompiledSection, CompiledUnit, OwnPage
from ..own_pages import split_own_pages
from ..parse import parse
from ..state_files import split_pictures, split_states
from ..widgets import SectionSoFar
from .answers import check_printed_answers
from .context import SectionContext, SectionRef, UnitContext
from .directives import expand
from .figures import place_figures
from .lint import lint_decimals
from .load import SectionEntry, UnitSource, load_figures, read_unit, scan_units
from .math import convert_math
from .render import render_section
from .roles import SECTION_URL, resolve_roles
from .structure import check_headings, check_summary, check_title, check_try_boxes
from .variants import DEFAULT_SEED, VariantFunction, variant_scope


@dataclass
class MarkdownResult:
    html: str
    ctx: SectionContext


def compile_markdown(
    text: str,
    *,
    path: Path,
    unit: UnitContext,
    number: int,
    title: str,
    whole_section: bool = True,
    seed: int = DEFAULT_SEED,
) -> MarkdownResult:
    """Compile one section's Markdown. Errors are left in result.ctx.errors (not raised).

    whole_section=False compiles a fragment: no title line or closing summary required, and no
    rules on printed answers (they need the whole page). seed: the variant of every check or
    problem with :variant: (mathmachine.coursebook.variants compiles others on demand).
    """
    ctx = SectionContext(unit=unit, path=path, number=number, title=title)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    ctx.errors.extend(lint_decimals(text, path, unit.figures))
    ctx.figure_scope, ctx.variant_blocks, errors = variant_scope(
        text, path, unit.figures, unit.variants, seed
    )
    ctx.errors.extend(errors)
    ctx.text = ctx.figure_scope.substitute_lines(text)
    tokens = parse(text)
    if whole_section:
        tokens = check_title(tokens, ctx)
    tokens = expand(tokens, ctx)
    place_figures(tokens, ctx)
    check_try_boxes(ctx)
    check_headings(tokens, ctx)
    if whole_section:
        check_summary(tokens, ctx, last_line=max(1, text.count("\n")))
    resolve_roles(tokens, ctx)
    convert_math(tokens, ctx)
    html = render_section(tokens, ctx)
    if whole_section and not ctx.errors:
        check_printed_answers(html, ctx)
    return MarkdownResult(html, ctx)


def _unit_context(
    source: UnitSource,
    figures: dict[str, str],
    examples: dict,
    known: dict[int, str],
    variants: dict[str, VariantFunction],
) -> UnitContext:
    return UnitContext(
        number=source.number,
        slug=source.slug,
        title=source.title,
        sections={
            s.number: SectionRef(s.number, s.slug, s.title, bool(s.file)) for s in source.sections
        },
        figures=figures,
        examples=examples,
        known_units=known,
        variants=variants,
    )


def _plan_sections(source: UnitSource, unit: UnitContext) -> None:
    """Every section as planned (none published yet); compile_unit marks each one published,
    with its widgets, once it is compiled, for the widgets of the sections after it."""
    first = 1
    for s in source.sections:
        unit.built[s.number] = SectionSoFar(
            number=s.number,
            slug=s.slug,
            title=s.title,
            url=SECTION_URL.format(unit=source.slug, number=s.number),
            published=False,
            planned_widgets=s.widgets,
            first_widget=first,
        )
        first += s.widgets


def sections_so_far(unit: CompiledUnit) -> dict[int, SectionSoFar]:
    """What a widget saw of the other sections while `unit` was compiled (its published
    sections with their widgets; drafts and unwritten ones as planned), for compiling one of
    its sections again on its own."""
    out: dict[int, SectionSoFar] = {}
    first = 1
    for s in unit.sections:
        out[s.number] = SectionSoFar(
            number=s.number,
            slug=s.slug,
            title=s.title,
            url=SECTION_URL.format(unit=unit.slug, number=s.number),
            published=s.published,
            planned_widgets=s.published_widgets,
            first_widget=first,
            widgets=tuple((w.id, w.name) for w in s.widgets) if s.published else (),
        )
        first += s.published_widgets
    return out


def _placeholder(entry: SectionEntry) -> CompiledSection:
    """A section as learners see it while it is not written (or only drafted): its title."""
    return CompiledSection(
        number=entry.number,
        slug=entry.slug,
        title=entry.title,
        free=entry.free,
        written=False,
        html="",
        checks=(),
        widgets=(),
        summary_html="",
        published_widgets=entry.widgets,
        published_checks=entry.checks,
        planned_problems=entry.problems or 0,
    )


def _check_counts(
    entry: SectionEntry, ctx: SectionContext, toml: Path, errors: list[CompileError]
) -> None:
    """A published section holds exactly the widgets and checks unit.toml publishes; a draft
    at most as many (it lands a piece at a time). Problems: at most the planned ones."""
    for what, found, published in (
        ("widgets", len(ctx.widgets), entry.widgets),
        ("checks", len(ctx.checks), entry.checks),
    ):
        if entry.draft and found > published:
            errors.append(
                StructureError(
                    toml,
                    entry.line,
                    f"section {entry.number} is a draft of a section that publishes {what} = "
                    f"{published}, but {entry.file} has {found} already: raise the count in "
                    "unit.toml if the plan changed",
                )
            )
        elif not entry.draft and found != published:
            hint = (
                " (a section still being written can land as a draft: draft = true)"
                if found < published
                else ""
            )
            errors.append(
                StructureError(
                    toml,
                    entry.line,
                    f"section {entry.number} publishes {what} = {published}, "
                    f"but {entry.file} has {found}{hint}",
                )
            )
    if entry.problems is not None and len(ctx.problems) > entry.problems:
        errors.append(
            StructureError(
                toml,
                entry.line,
                f"section {entry.number} plans problems = {entry.problems}, "
                f"but {entry.file} has {len(ctx.problems)}",
            )
        )


def _compile_section(
    entry: SectionEntry, source: UnitSource, unit: UnitContext, errors: list[CompileError]
) -> CompiledSection:
    """The section compiled from its file (a draft too: the caller keeps it aside), or its
    placeholder when it has no file."""
    path = entry.path(source.folder)
    if path is None:
        return _placeholder(entry)
    text = path.read_text(encoding="utf-8-sig")
    result = compile_markdown(text, path=path, unit=unit, number=entry.number, title=entry.title)
    ctx = result.ctx
    errors.extend(ctx.errors)
    if not ctx.errors:
        _check_counts(entry, ctx, source.toml_path, errors)
    return CompiledSection(
        number=entry.number,
        slug=entry.slug,
        title=entry.title,
        free=entry.free,
        written=True,
        html=result.html,
        checks=tuple(ctx.checks),
        widgets=tuple(ctx.widgets),
        summary_html=ctx.summary_html,
        published_widgets=entry.widgets,
        published_checks=entry.checks,
        source=str(path),
        scripts=tuple(ctx.scripts),
        styles=tuple(ctx.styles),
        problems=tuple(ctx.problems),
        planned_problems=len(ctx.problems) if entry.problems is None else entry.problems,
        draft=entry.draft,
    )


def source_digest(folder: Path) -> str:
    """sha256 of every file of the unit folder (names and bytes)."""
    h = hashlib.sha256()
    for p in sorted(folder.rglob("*")):
        if p.is_file() and "__pycache__" not in p.parts:
            h.update(p.relative_to(folder).as_posix().encode() + b"\0")
            h.update(p.read_bytes() + b"\0")
    return h.hexdigest()


def leave_the_page(html: str) -> tuple[str, dict[str, bytes], tuple[OwnPage, ...]]:
    """A compiled section's page without what leaves it (the unit's last pass): the long
    fallbacks, for pages of their own (own_pages.py), the large states and pictures, for files
    of the unit's own (state_files.py). The page, the files by name, the pages."""
    page, own = split_own_pages(html)
    page, files = split_states(page)
    page, pictures = split_pictures(page)
    return page, files | pictures, own


def compile_unit(
    folder: str | Path, *, known_units: dict[int, str] | None = None, source_hash: str = ""
) -> CompiledUnit:
    """Compile a unit folder. Raises CompileErrors (a CompileError) listing every problem.

    known_units: number -> slug of the units that exist (for {unit} links); default: the
    folder's siblings. source_hash: recorded in the result (the cache passes its key).
    """
    folder = Path(folder)
    source = read_unit(folder)
    figures = load_figures(folder, source.number)
    if known_units is None:
        known_units = {info.number: info.slug for info in scan_units(folder.parent)}
    unit = _unit_context(source, figures.values, figures.examples, known_units, figures.variants)
    errors: list[CompileError] = []
    _plan_sections(source, unit)
    compiled = []
    for e in source.sections:
        c = _compile_section(e, source, unit, errors)
        compiled.append(c)
        if c.written and not e.draft:
            ref = unit.built[e.number]
            unit.built[e.number] = replace(
                ref, published=True, widgets=tuple((w.id, w.name) for w in c.widgets)
            )
    if errors:
        raise CompileErrors(errors)
    # Each section's own cut of the Devanagari font, for what it (or the contents list) prints.
    titles = [source.title, source.subtitle, *(e.title for e in source.sections)]
    font_names, fonts = section_fonts(compiled, titles)
    compiled = [replace(c, devanagari_font=font_names.get(c.number, "")) for c in compiled]
    # Each section's own cut of the math fences font, for the fences its math prints.
    math_names, math_fonts = section_math_fonts(compiled)
    fonts.update(math_fonts)
    compiled = [
        replace(c, math_font=math_names[c.number][0], math_font_range=math_names[c.number][1])
        if c.number in math_names
        else c
        for c in compiled
    ]
    # A widget's large state leaves the page for a file of its own (fetched by kit.js), and so
    # does a large picture its script never touches (drawn by an <image>); a long fallback
    # goes to a page of its own (coursebook/own_pages.py).
    state_files: dict[str, bytes] = {}
    state_file_sections: dict[str, int] = {}
    for i, c in enumerate(compiled):
        page, files, own = leave_the_page(c.html)
        if own or files:
            compiled[i] = replace(c, html=page, own_pages=own)
            state_files.update(files)
            state_file_sections.update(dict.fromkeys(files, c.number))
    # A draft stands among the sections as a placeholder; the compiled draft is kept aside.
    sections = tuple(
        _placeholder(e) if e.draft else c for e, c in zip(source.sections, compiled, strict=True)
    )
    return CompiledUnit(
        number=source.number,
        slug=source.slug,
        title=source.title,
        subtitle=source.subtitle,
        sections=sections,
        drafts=tuple(c for c in compiled if c.draft),
        source_hash=source_hash or source_digest(folder),
        offer=source.offer,
        course=source.course,
        known_units=dict(known_units),
        fonts=fonts,
        state_files=state_files,
        state_file_sections=state_file_sections,
    )
