"""Typed compile errors. Every error knows the file and line it came from.

`str(error)` is ``path:line: message`` (the form editors and CI logs link to). A compile that
finds several problems raises `CompileErrors`, itself a `CompileError`, holding all of them in
source order, so ``except CompileError`` catches both.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Iterable
from pathlib import Path


def suggest(name: str, known: Iterable[str]) -> str | None:
    """The known name `name` was most likely meant to be (a typo or a longer spelling)."""
    names = list(known)
    close = difflib.get_close_matches(name, names, n=1)
    if close:
        return close[0]
    prefixed = [k for k in names if name.startswith(k) or k.startswith(name)]
    return min(prefixed, key=len) if prefixed and len(name) > 1 else None


def display_path(path: str | os.PathLike[str]) -> str:
    """`path` relative to the working directory when it lies below it, else as given."""
    p = Path(path)
    try:
        return str(p.resolve().relative_to(Path.cwd().resolve()))
    except (ValueError, OSError):
        return str(p)


class CompileError(Exception):
    """A problem in a unit's sources, at ``path:line`` (line is 1-based; 0 = the whole file)."""

    def __init__(self, path: str | os.PathLike[str], line: int, message: str) -> None:
        self.path = Path(path)
        self.line = line
        self.message = message
        super().__init__(self.format())

    def format(self) -> str:
        return f"{display_path(self.path)}:{self.line}: {self.message}"

    def __str__(self) -> str:
        return self.format()

    def __reduce__(self) -> tuple[type[CompileError], tuple[Path, int, str]]:
        return (type(self), (self.path, self.line, self.message))


class CompileErrors(CompileError):
    """Several compile errors at once (sorted by file and line)."""

    def __init__(self, errors: Iterable[CompileError]) -> None:
        flat: list[CompileError] = []
        for e in errors:
            flat.extend(e.errors if isinstance(e, CompileErrors) else (e,))
        if not flat:
            raise ValueError("CompileErrors needs at least one error")
        self.errors: tuple[CompileError, ...] = tuple(
            sorted(flat, key=lambda e: (str(e.path), e.line))
        )
        first = self.errors[0]
        super().__init__(first.path, first.line, first.message)

    def format(self) -> str:
        return "\n".join(e.format() for e in self.errors)

    def __reduce__(self) -> tuple[type[CompileErrors], tuple[tuple[CompileError, ...]]]:  # type: ignore[override]
        return (type(self), (self.errors,))


# --- the unit folder -------------------------------------------------------------------------
class UnitFileError(CompileError):
    """unit.toml is unreadable, has an unknown or missing key, or a bad value."""


class SectionFileError(CompileError):
    """A section's file is missing, or a Markdown file exists that no section lists."""


class FiguresError(CompileError):
    """figures.py fails to import or run, or figures() returns something unusable."""


class UnknownFigureError(CompileError):
    """``{{ name }}`` names no entry of figures()."""


class HandTypedFigureError(CompileError):
    """A decimal typed straight into the Markdown instead of coming from figures()."""


# --- the Markdown ----------------------------------------------------------------------------
class StructureError(CompileError):
    """The section's shape: its title line, headings, the closing summary."""


class UnknownDirectiveError(CompileError):
    """``:::{name}`` with a name the compiler does not know."""


class DirectiveOptionError(CompileError):
    """An unknown, missing, repeated or malformed directive option or argument."""


class DirectiveStructureError(CompileError):
    """A directive in the wrong place, or with the wrong blocks inside it."""


class AnswerShownError(CompileError):
    """The page shows a check's answer where it must not: before a "Pause & predict", or in a
    hint, a named mistake or the general wrong feedback (only the {solution} may print it)."""


class DuplicateIdError(CompileError):
    """Two checks or widgets of one unit share an id."""


class UnknownRoleError(CompileError):
    """``{name}`text``` with a role the compiler does not know."""


class RoleError(CompileError):
    """A known role with bad content (e.g. {sec}`99` in a 15-section unit)."""


class MathError(CompileError):
    """LaTeX that cannot be turned into MathML (unknown command, unbalanced braces...)."""


class UnknownWidgetError(CompileError):
    """``:::{widget} NAME`` where no widget NAME is registered."""


class WidgetError(CompileError):
    """A widget rejected its options or failed while rendering."""
