"""What the passes share while compiling: the unit around a section, and the section's state."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from markdown_it.token import Token

from ..errors import CompileError, display_path
from ..model import CheckDef, Variant, WidgetUse
from .scope import FigureScope


@dataclass(frozen=True)
class SectionRef:
    """A section as other sections see it (for {sec} links and the TOC)."""

    number: int
    slug: str
    title: str
    written: bool


@dataclass
class UnitContext:
    """The unit a section belongs to.

    ids: every check/widget id used so far in the unit -> "path:line" of its first use.
    known_units: number -> slug of every unit in the content root (for {unit} links).
    """

    number: int
    slug: str
    title: str
    sections: dict[int, SectionRef]
    figures: dict[str, str]
    examples: dict[str, Any]
    known_units: dict[int, str] = field(default_factory=dict)
    ids: dict[str, str] = field(default_factory=dict)
    variants: dict[str, Callable[[int], dict[str, str]]] = field(default_factory=dict)
    # number -> widgets.SectionSoFar: every section, updated as each one is compiled (a later
    # section's widget reads the earlier ones: §14's formula map)
    built: dict[int, Any] = field(default_factory=dict)


@dataclass
class SectionContext:
    """One section's compile: where it is, the errors found so far, what it defines."""

    unit: UnitContext
    path: Path
    number: int
    title: str
    errors: list[CompileError] = field(default_factory=list)
    checks: list[CheckDef] = field(default_factory=list)
    problems: list[CheckDef] = field(default_factory=list)
    widgets: list[WidgetUse] = field(default_factory=list)
    summary_html: str = ""
    scripts: list[str] = field(default_factory=list)
    styles: list[str] = field(default_factory=list)
    # The variant blocks of the section, by the line of their opening fence (passes/variants).
    variant_blocks: dict[int, Variant] = field(default_factory=dict)
    # Which figures each line takes (the unit's; a variant block's its function's for the seed).
    figure_scope: FigureScope = field(default_factory=lambda: FigureScope({}))
    # The section's text with its figures in place, line by line (for the rules on printed
    # answers, which name the line that prints a figure).
    text: str = ""
    try_boxes: list[tuple[int, bool]] = field(default_factory=list)  # (line, has a {nojs} part)

    def use_assets(self, *, scripts: tuple[str, ...] = (), styles: tuple[str, ...] = ()) -> None:
        """The page of this section must load `scripts` and link `styles` (kept once each)."""
        self.scripts.extend(s for s in scripts if s not in self.scripts)
        self.styles.extend(s for s in styles if s not in self.styles)

    def variant_at(self, line: int) -> Variant | None:
        return self.variant_blocks.get(line)

    def error(self, cls: type[CompileError], line: int, message: str) -> None:
        self.errors.append(cls(self.path, line, message))

    def where(self, line: int) -> str:
        return f"{display_path(self.path)}:{line}"


class Node(Protocol):
    """What the directive pass leaves in token.meta["node"] for the render pass."""

    line: int

    def token_lists(self) -> Iterator[list[Token]]:
        """Every list of tokens the node holds (bodies, titles), for the passes that walk."""
        ...

    def render(self, r: Any) -> str:
        """HTML for the node; r is the render pass's Renderer."""
        ...


def line_of(tok: Token, default: int = 1) -> int:
    """1-based source line of a block token (maps are shifted to file lines when parsed)."""
    return tok.map[0] + 1 if tok.map else default


def walk(tokens: list[Token]) -> Iterator[tuple[Token, Token | None]]:
    """Every token, depth first, as (token, enclosing inline token or None). Descends into
    inline children and into the token lists of directive nodes."""
    for tok in tokens:
        yield tok, None
        if tok.type == "inline" and tok.children:
            for child in tok.children:
                yield child, tok
        node = tok.meta.get("node") if tok.meta else None
        if node is not None:
            for inner in node.token_lists():
                yield from walk(inner)
