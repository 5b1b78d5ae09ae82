"""The compiled form of a unit: frozen, picklable dataclasses the web layer reads.

A request never parses Markdown: it reads these (from the in-process memo or the pickle cache).
Answers and feedback of checks live here, server-side; only `CheckDef.prompt_html` is meant for
the page before the learner answers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple


@dataclass(frozen=True)
class Field:
    """One answer box of a check.

    answer: the expected numbers (one for a scalar, n for a vector "(a, b, c)").
    tolerance: absolute, per number.
    answer_text: the answer as the source printed it, e.g. "(0.017, 0.047, 0.936)".
    """

    label: str
    answer: tuple[float, ...]
    tolerance: float
    answer_text: str = ""


class Mistake(NamedTuple):
    """A specific wrong answer (one tuple of numbers per field) and its explanation."""

    answer: tuple[tuple[float, ...], ...]
    html: str


@dataclass(frozen=True)
class CheckDef:
    """A "Pause & predict" check. Its marker in the section HTML is ``<!--check:ID-->``.

    heading_level: the level (2..6) a heading for the check should take where it stands.
    source: "path:line" of the ``:::{check}`` line.
    """

    id: str
    section: int
    prompt_html: str
    fields: tuple[Field, ...]
    feedback_correct_html: str
    feedback_wrong_html: str
    mistakes: tuple[Mistake, ...] = ()
    hints_html: tuple[str, ...] = ()
    kind: str = "numeric"
    heading_level: int = 2
    source: str = ""

    @property
    def marker(self) -> str:
        return f"<!--check:{self.id}-->"


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
class CompiledSection:
    """One section. `html` is the body fragment: the section title is NOT in it (the page
    renders `title` as its <h1>); headings inside start at <h2>. Unwritten sections have
    written=False and empty html.

    scripts / styles: the static files the page must load (ES modules) and link (stylesheets),
    each once, in first-use order: what the section's widgets and directives declared, nothing
    more."""

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

    @property
    def price_note(self) -> str:
        """The unit's copy of the offer (unit.toml `offer`)."""
        return self.offer

    def section(self, number: int) -> CompiledSection:
        for s in self.sections:
            if s.number == number:
                return s
        raise KeyError(f"unit {self.number} has no section {number}")

    def check(self, check_id: str) -> CheckDef:
        for s in self.sections:
            for c in s.checks:
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
