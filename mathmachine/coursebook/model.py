"""The compiled form of a unit: frozen, picklable dataclasses the web layer reads.

A request never parses Markdown: it reads these (from the in-process memo or the pickle cache).
Answers and feedback of checks live here, server-side; only `CheckDef.prompt_html` is meant for
the page before the learner answers.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

from .kinds.base import Option


@dataclass(frozen=True)
class Field:
    """One answer box of a check.

    kind: the name of its check kind (mathmachine.coursebook.kinds). key: that kind's key,
    read from the source at compile time (for a number: its value, printed precision and
    tolerance). answer_text: the answer as the source printed it, e.g. "(0.017, 0.047, 0.936)".
    """

    label: str
    kind: str
    key: Any
    answer_text: str


@dataclass(frozen=True)
class Mistake:
    """A named mistake and its explanation. answer: per field, the kind's key for the wrong
    answer (None: any answer in that box); empty for a mistake the kind itself recognises
    (a transposed matrix: name "transposed")."""

    name: str
    answer: tuple[Any, ...]
    html: str

    @property
    def builtin(self) -> bool:
        return not self.answer


@dataclass(frozen=True)
class Variant:
    """A check or problem with fresh numbers: ``function`` (in the unit's figures) gives, for a
    seed, the figures its text uses; ``source`` is its Markdown (the directive as written, from
    the opening fence), compiled again for each seed. ``seed`` is the variant compiled into the
    CheckDef that holds this."""

    function: str
    source: str
    line: int
    seed: int


@dataclass(frozen=True)
class CheckDef:
    """A check ("Pause & predict" in a section) or a problem (the practice arena). Its marker
    in the section HTML is ``<!--check:ID-->``.

    feedback_wrong_html: optional general words for a wrong answer (never the key);
    solution_html: the worked answer, shown after a few tries, on request ("show me"), and for
    a problem after a correct answer. options: the choices of a choice check.
    version: a digest of what grading reads (kinds, keys, tolerances, mistakes): stored with
    each answer, so an answer keeps the verdict it was given. problem: a practice problem,
    not a prediction. heading_level: the level (2..6) a heading for it takes where it stands.
    source: "path:line" of its opening line.
    """

    id: str
    section: int
    prompt_html: str
    fields: tuple[Field, ...]
    feedback_correct_html: str
    feedback_wrong_html: str = ""
    mistakes: tuple[Mistake, ...] = ()
    hints_html: tuple[str, ...] = ()
    solution_html: str = ""
    options: tuple[Option, ...] = ()
    title: str = ""
    problem: bool = False
    variant: Variant | None = None
    version: str = ""
    heading_level: int = 2
    source: str = ""

    @property
    def marker(self) -> str:
        return f"<!--check:{self.id}-->"

    def mistake(self, name: str) -> Mistake | None:
        return next((m for m in self.mistakes if m.name == name), None)


@dataclass(frozen=True)
class WidgetUse:
    """A widget on the page: its id, registered name, the static files it declared (JS modules
    and stylesheets) and the directive's options as written (key, value) (the golden vectors
    are collected from them)."""

    id: str
    name: str
    scripts: tuple[str, ...]
    styles: tuple[str, ...] = ()
    options: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class OwnPage:
    """A part of a section on a page of its own (coursebook/own_pages.py): its name (the last
    part of its address, ``/units/<slug>/<number>/<name>/``), its title and its HTML."""

    name: str
    title: str
    html: str


@dataclass(frozen=True)
class CompiledSection:
    """One section. `html` is the body fragment: the section title is NOT in it (the page
    renders `title` as its <h1>); headings inside start at <h2>. Unwritten sections have
    written=False and empty html. published_widgets / published_checks / planned_problems are
    the plan of the finished section (unit.toml); what it holds today is widgets / checks /
    problems (see UnitContents).

    scripts / styles: the static files the page must load (ES modules) and link (stylesheets),
    each once, in first-use order: what the section's widgets and directives declared, nothing
    more.

    draft: a section being written in the open (unit.toml ``draft = true``), compiled like any
    other. It is never in CompiledUnit.sections as written: there it stands as an unwritten
    placeholder, and the compiled draft is in CompiledUnit.drafts, which only staff are served
    (CompiledUnit.with_drafts)."""

    number: int
    slug: str
    title: str
    free: bool
    written: bool
    html: str
    checks: tuple[CheckDef, ...]
    widgets: tuple[WidgetUse, ...]
    summary_html: str
    published_widgets: int
    published_checks: int
    source: str = ""
    scripts: tuple[str, ...] = ()
    styles: tuple[str, ...] = ()
    problems: tuple[CheckDef, ...] = ()  # the practice problems (checks holds the predictions)
    planned_problems: int = 0  # the problems it will hold when finished (unit.toml `problems`)
    draft: bool = False
    # The file name of the section's own Devanagari font (CompiledUnit.fonts), "" when the
    # section prints no Devanagari (coursebook/fonts.py).
    devanagari_font: str = ""
    # The file name of the section's own cut of the math fences font (CompiledUnit.fonts) and
    # the characters it holds as a CSS unicode-range; "" when the section prints no math.
    math_font: str = ""
    math_font_range: str = ""
    # Parts of the section on pages of their own (a widget's long fallback), cut out of html.
    own_pages: tuple[OwnPage, ...] = ()

    @property
    def widget_scripts(self) -> tuple[tuple[str, str], ...]:
        """The widgets' modules, (element id, script) pairs: the page loads each when its
        widget comes near the screen (static/site/widget-loader.js)."""
        return tuple((w.id, script) for w in self.widgets for script in w.scripts)

    @property
    def eager_scripts(self) -> tuple[str, ...]:
        """The scripts the page loads at once: those no widget declared (the directives')."""
        of_widgets = {script for w in self.widgets for script in w.scripts}
        return tuple(s for s in self.scripts if s not in of_widgets)

    @property
    def published(self) -> bool:
        """Written and not a draft: what learners may be served and every count counts."""
        return self.written and not self.draft

    @property
    def gradables(self) -> tuple[CheckDef, ...]:
        """Every check and problem of the section, in page order."""
        return self.checks + self.problems


def number_ranges(numbers: tuple[int, ...]) -> str:
    """Section numbers as a reader says them: (1, 2, 3, 4, 15) -> "1–4 and 15" (the dash held
    to its numbers by word joiners)."""
    runs: list[list[int]] = []
    for n in sorted(numbers):
        if runs and n == runs[-1][-1] + 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    # A word joiner on each side of the dash: "5–14" never wraps after "5–" on a phone.
    parts = [f"{r[0]}\u2060–\u2060{r[-1]}" if len(r) > 2 else ", ".join(map(str, r)) for r in runs]
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


@dataclass(frozen=True)
class UnitContents:
    """What a unit holds as compiled (what a buyer gets today), beside the plan of the finished
    unit (unit.toml's published counts). Every promise of the offer, the receipts and progress
    is read from here, so a section that lands changes them all.

    written / unwritten / partial: section numbers (written, still being written, and written
    but holding fewer problems than planned: the arena). widgets, checks, problems: in the
    written sections. planned_*: the finished unit's.
    """

    sections: int
    written: tuple[int, ...]
    unwritten: tuple[int, ...]
    free: tuple[int, ...]
    partial: tuple[int, ...]
    widgets: int
    checks: int
    problems: int
    planned_widgets: int
    planned_checks: int
    planned_problems: int

    @property
    def complete(self) -> bool:
        return not self.unwritten and not self.partial

    @property
    def paid_written(self) -> tuple[int, ...]:
        """Written sections a purchase opens (the free ones are open to all)."""
        return tuple(n for n in self.written if n not in self.free)

    @property
    def written_ranges(self) -> str:
        return number_ranges(self.written)

    @property
    def paid_written_ranges(self) -> str:
        return number_ranges(self.paid_written) if self.paid_written else ""

    @property
    def unwritten_ranges(self) -> str:
        return number_ranges(self.unwritten) if self.unwritten else ""


@dataclass(frozen=True)
class CompiledUnit:
    number: int
    slug: str
    title: str
    subtitle: str
    sections: tuple[CompiledSection, ...]
    source_hash: str
    offer: str = ""
    course: str = ""
    known_units: dict[int, str] = field(default_factory=dict)  # for {unit} links in variants
    # The draft sections as compiled (unit.toml `draft = true`), for staff only: `sections`
    # holds an unwritten placeholder in each one's place, so nothing that reads `sections`
    # (pages, the offer, receipts, progress, Continue) can show or count a draft.
    drafts: tuple[CompiledSection, ...] = ()
    # The sections' Devanagari fonts (WOFF2) by file name, drafts' too (coursebook/fonts.py).
    fonts: dict[str, bytes] = field(default_factory=dict)
    # The widgets' large initial states (JSON) by file name, and the section each is of, drafts'
    # too (coursebook/state_files.py).
    state_files: dict[str, bytes] = field(default_factory=dict)
    state_file_sections: dict[str, int] = field(default_factory=dict)

    def with_drafts(self) -> CompiledUnit:
        """The unit as staff read it: each draft in its place among the sections (written, with
        ``draft`` set). Its source_hash differs from the unit's, so nothing rendered from it is
        kept under the learners' keys; its ``contents`` still count published sections only.
        Tests that hold every section to the rules take their sections from here."""
        if not self.drafts:
            return self
        by_number = {d.number: d for d in self.drafts}
        return replace(
            self,
            sections=tuple(by_number.get(s.number, s) for s in self.sections),
            drafts=(),
            source_hash=f"{self.source_hash}+drafts",
        )

    @property
    def price_note(self) -> str:
        """The unit's copy of the offer (unit.toml `offer`)."""
        return self.offer

    def section(self, number: int) -> CompiledSection:
        for s in self.sections:
            if s.number == number:
                return s
        raise KeyError(f"unit {self.number} has no section {number}")

    @property
    def problems_per_section(self) -> dict[int, int]:
        """Section number -> how many practice problems it has (as compiled; a draft has none)."""
        return {s.number: len(s.problems) if not s.draft else 0 for s in self.sections}

    @cached_property
    def contents(self) -> UnitContents:
        """What is written today and what the finished unit plans (UnitContents). A draft
        counts as unwritten, even in the unit as staff read it (with_drafts). Worked out once per
        compiled unit (it is immutable; every section page asks: issue 18)."""
        written = [s for s in self.sections if s.published]
        problems = self.problems_per_section
        return UnitContents(
            sections=len(self.sections),
            written=tuple(s.number for s in written),
            unwritten=tuple(s.number for s in self.sections if not s.published),
            free=tuple(s.number for s in self.sections if s.free),
            partial=tuple(s.number for s in written if len(s.problems) < s.planned_problems),
            widgets=sum(len(s.widgets) for s in written),
            checks=sum(len(s.checks) for s in written),
            problems=sum(problems.values()),
            planned_widgets=sum(s.published_widgets for s in self.sections),
            planned_checks=sum(s.published_checks for s in self.sections),
            planned_problems=sum(
                max(s.planned_problems, problems[s.number]) for s in self.sections
            ),
        )

    def check(self, check_id: str) -> CheckDef:
        for s in self.sections:
            for c in s.gradables:
                if c.id == check_id:
                    return c
        raise KeyError(f"unit {self.number} has no check {check_id!r}")


@dataclass(frozen=True)
class UnitInfo:
    """A catalog entry, read from unit.toml alone (no compiling)."""

    number: int
    slug: str
    title: str
    subtitle: str
    path: str
