"""Callouts: the named boxes of a section ("Imagine this", "The question", ... "In one sentence").

Each renders as <section class="callout callout-NAME" aria-labelledby=ID> whose first child is a
visible heading (the label), one level below the heading it stands under, so the page's outline
stays well formed. An argument after the name becomes part of the label: ":::{try} The map".
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from markdown_it.token import Token

from ..errors import DirectiveStructureError
from ..parse import parse_inline
from ..passes.context import SectionContext
from .base import DirectiveCall, DirectiveSpec, register

LABELS: dict[str, str] = {
    "imagine": "Imagine this",
    "question": "The question",
    "byhand": "By hand",
    "try": "Try",
    "why": "Why does this work?",
    "rule": "Rule of thumb",
    "trap": "Trap",
    "realization": "The realization",
    "road": "The road ahead",
    "summary": "In one sentence",
    "note": "Note",
}


def has_display_math(tokens: list[Token]) -> bool:
    from ..passes.context import walk

    return any(t.type in ("math_block", "math_inline_double") for t, _ in walk(tokens))


@dataclass
class Callout:
    kind: str
    line: int
    title: list[Token]
    body: list[Token]

    def token_lists(self) -> Iterator[list[Token]]:
        yield self.title
        yield self.body

    def render(self, r: Any) -> str:
        # The summary speaks for the whole section: its label sits right under the title.
        level = r.base + 1 if self.kind == "summary" else r.label_level()
        cid = r.new_id(self.kind)
        label = LABELS[self.kind]
        title = r.inline(self.title) if self.title else ""
        if title:
            label = f'{label}: <span class="callout-title">{title}</span>'
        with r.flag(boxed=self.kind == "realization"):
            body = r.blocks(self.body, level)
        if self.kind == "summary":
            r.ctx.summary_html = body
        return (
            f'<section class="callout callout-{self.kind}" aria-labelledby="{cid}">\n'
            f'<h{level} class="callout-label" id="{cid}">{label}</h{level}>\n'
            f"{body}</section>\n"
        )


def _build(call: DirectiveCall, body: list[Token], ctx: SectionContext) -> Callout | None:
    if call.name == "realization" and not has_display_math(body):
        ctx.error(
            DirectiveStructureError,
            call.line,
            "{realization} holds the boxed formula: put it in display math ($$ ... $$)",
        )
        return None
    title = parse_inline(call.argument, line=call.line) if call.argument else []
    return Callout(call.name, call.line, title, body)


for _name in LABELS:
    register(
        DirectiveSpec(
            name=_name,
            build=_build,
            argument="optional",
            body="required",
            allowed_in=frozenset({None}),
        )
    )
