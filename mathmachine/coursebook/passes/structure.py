"""Stage 5b: the section's shape.

- the file starts with ``# <title>``, equal to unit.toml's title (the page renders the title
  as its <h1>, so this heading is removed from the body);
- no other level-1 heading, and headings never skip a level (## then ####);
- exactly one ``{summary}``, and it is the last block of the section;
- in a section with a widget, every ``{try}`` box says what a reader without JavaScript sees.
"""

from __future__ import annotations

from markdown_it.token import Token

from ..directives.base import directive_node
from ..directives.callouts import Callout
from ..errors import StructureError
from .context import SectionContext, line_of


def _is_summary(tok: Token) -> bool:
    node = directive_node(tok)
    return isinstance(node, Callout) and node.kind == "summary"


def check_title(tokens: list[Token], ctx: SectionContext) -> list[Token]:
    """Validate the title line; return the tokens without it."""
    if len(tokens) >= 3 and tokens[0].type == "heading_open" and tokens[0].tag == "h1":
        got = tokens[1].content.strip()
        if got != ctx.title:
            ctx.error(
                StructureError,
                line_of(tokens[0]),
                f'the title "{got}" differs from unit.toml\'s "{ctx.title}"',
            )
        return tokens[3:]
    first = line_of(tokens[0]) if tokens else 1
    ctx.error(StructureError, first, f'a section file starts with its title: "# {ctx.title}"')
    return tokens


def check_headings(tokens: list[Token], ctx: SectionContext) -> None:
    level = 1
    for tok in tokens:
        if tok.type != "heading_open":
            continue
        n = int(tok.tag[1])
        if n == 1:
            ctx.error(
                StructureError,
                line_of(tok),
                "only the section title is a level-1 heading; use ## here",
            )
        elif n > level + 1:
            ctx.error(
                StructureError,
                line_of(tok),
                f"heading jumps from level {level} to {n}: use {'#' * (level + 1)}",
            )
        level = n


def check_summary(tokens: list[Token], ctx: SectionContext, last_line: int) -> None:
    summaries = [t for t in tokens if _is_summary(t)]
    if not summaries:
        ctx.error(
            StructureError,
            last_line,
            'the section has no {summary} ("In one sentence"); end the section with one',
        )
        return
    for extra in summaries[1:]:
        ctx.error(StructureError, line_of(extra), "a section has exactly one {summary}")
    last = [t for t in tokens if t.level == 0 and t.nesting >= 0]
    if last and last[-1] is not summaries[-1]:
        ctx.error(
            StructureError,
            line_of(summaries[0]),
            "{summary} must be the last block of the section",
        )


def check_try_boxes(ctx: SectionContext) -> None:
    """A "Try" box in a section with widgets points at controls that need JavaScript: it must
    say, in a {nojs} part, what the static figure shows instead."""
    if not ctx.widgets:
        return
    for line, has_nojs in ctx.try_boxes:
        if not has_nojs:
            ctx.error(
                StructureError,
                line,
                "this {try} box points at a widget, whose controls need JavaScript: add a "
                ":::{nojs} part saying what the static figure shows without it",
            )
