"""``:::{table} CAPTION`` — a GFM table with a <caption> (MyST's table directive).

    :::{table} Three ways to score a note
    :row-headers: true
    | score | formula | ... |
    |---|---|---|
    | dot | $\\mathbf q\\cdot\\mathbf h$ | ... |
    :::

Every table gets <th scope="col"> in its head; with :row-headers: the first cell of each body
row becomes <th scope="row">. A bare Markdown table (no directive) renders without caption.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from markdown_it.token import Token

from ..errors import DirectiveOptionError, DirectiveStructureError
from ..parse import parse_inline
from ..passes.context import SectionContext, line_of
from .base import DirectiveCall, DirectiveSpec, register

FLAGS = {"": True, "true": True, "yes": True, "false": False, "no": False}


@dataclass
class TableNode:
    line: int
    body: list[Token]
    caption: list[Token]

    def token_lists(self) -> Iterator[list[Token]]:
        yield self.caption
        yield self.body

    def render(self, r: Any) -> str:
        return r.blocks(self.body, r.current_level())


def _build(call: DirectiveCall, body: list[Token], ctx: SectionContext) -> TableNode | None:
    flag = call.options.get("row-headers", "false").strip().lower()
    if flag not in FLAGS:
        ctx.error(
            DirectiveOptionError,
            call.option_line("row-headers"),
            f":row-headers: is true or false (got {flag!r})",
        )
        return None
    tables = [t for t in body if t.type == "table_open"]
    others = [t for t in body if t.map and t.level == 0 and t.type not in ("table_open",)]
    if len(tables) != 1 or others:
        where = line_of(others[0]) if others else call.line
        ctx.error(DirectiveStructureError, where, "{table} holds exactly one Markdown table")
        return None
    caption = parse_inline(call.argument, line=call.line)
    tables[0].meta = dict(tables[0].meta or {}, caption=caption)
    if FLAGS[flag]:
        in_body = False
        first = False
        for tok in body:
            if tok.type == "tbody_open":
                in_body = True
            elif tok.type == "tbody_close":
                in_body = False
            elif tok.type == "tr_open":
                first = in_body
            elif tok.type in ("td_open", "td_close") and first:
                tok.tag = "th"
                if tok.type == "td_open":
                    tok.attrSet("scope", "row")
                else:
                    first = False
    return TableNode(call.line, body, caption)


register(
    DirectiveSpec(
        name="table",
        build=_build,
        argument="required",
        describe="a caption, e.g. :::{table} Three ways to score a note",
        options=frozenset({"row-headers"}),
        body="required",
        allowed_in=frozenset(
            {
                None,
                "byhand",
                "why",
                "rule",
                "note",
                "try",
                "trap",
                "realization",
                "step",
                "claim",
                "feedback",
                "hint",
                "imagine",
                "question",
                "road",
            }
        ),
    )
)
