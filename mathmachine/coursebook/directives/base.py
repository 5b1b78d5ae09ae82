"""The directive registry: what each ``:::{name}`` accepts, and how it is built into a node."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from markdown_it.token import Token

from ..passes.context import Node, SectionContext

ID = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")


@dataclass
class DirectiveCall:
    """One directive as written: ``:::{name} argument``, ``:key: value`` lines, then a body.

    line: 1-based line of the opening fence; body_line: line of the body's first line.
    """

    name: str
    argument: str
    options: dict[str, str]
    option_lines: dict[str, int]
    body: str
    body_line: int
    line: int

    def option_line(self, key: str) -> int:
        return self.option_lines.get(key, self.line)


Builder = Callable[[DirectiveCall, list[Token], SectionContext], "Node | None"]


@dataclass(frozen=True)
class DirectiveSpec:
    """argument / body: "none", "optional" or "required".
    options: the known option names (None: any; the builder checks them, as widgets do).
    allowed_in: the directives it may stand directly inside (None = the section itself)."""

    name: str
    build: Builder
    argument: str = "none"
    options: frozenset[str] | None = frozenset()
    required_options: frozenset[str] = frozenset()
    body: str = "optional"
    allowed_in: frozenset[str | None] = frozenset({None})
    describe: str = ""


SPECS: dict[str, DirectiveSpec] = {}


def register(spec: DirectiveSpec) -> DirectiveSpec:
    if spec.name in SPECS:
        raise ValueError(f"directive {spec.name!r} registered twice")
    SPECS[spec.name] = spec
    return spec


def directive_node(tok: Token) -> Any:
    """The node the directive pass attached to a fence token, or None."""
    return tok.meta.get("node") if tok.meta else None


@dataclass
class Empty:
    """Stands in for a directive that failed to build (its error is already recorded)."""

    line: int

    def token_lists(self) -> Iterator[list[Token]]:
        return iter(())

    def render(self, r: Any) -> str:
        return ""


@dataclass
class Block:
    """A directive that is just a titled body (used for claim/step/qed/feedback/hint)."""

    name: str
    line: int
    argument: str
    body: list[Token]
    options: dict[str, str] = field(default_factory=dict)
    option_lines: dict[str, int] = field(default_factory=dict)

    def token_lists(self) -> Iterator[list[Token]]:
        yield self.body

    def render(self, r: Any) -> str:
        # Sub-blocks are rendered by the directive that owns them (check, proof).
        return ""
