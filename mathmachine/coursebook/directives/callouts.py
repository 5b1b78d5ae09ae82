"""Callouts: the named boxes of a section ("Imagine this", "The question", ... "In one sentence").

Each renders as <section class="callout callout-NAME" aria-labelledby=ID> whose first child is a
visible heading (the label), one level below the heading it stands under, so the page's outline
stays well formed. An argument after the name becomes part of the label: ":::{try} The map".

A "Try" box speaks of controls that exist only with JavaScript, so it holds a ``:::{nojs}`` part
saying what the static figure shows instead (required in a section that has a widget; see
passes/structure.check_try_boxes). The rest of the box is rendered in <div class="try-live">,
the part in <noscript> (shown only without JavaScript, as "Without JavaScript: …"), and
site/nojs.css (linked from a <noscript> in the page's head) hides the live words, but not a
widget inside them, whose fallback is what the reader then sees.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from markdown_it.token import Token

from ..errors import DirectiveStructureError
from ..parse import parse_inline
from ..passes.context import SectionContext, line_of
from .base import Block, DirectiveCall, DirectiveSpec, directive_node, register

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


NOJS_LEAD = "<strong>Without JavaScript:</strong>"


@dataclass
class Callout:
    kind: str
    line: int
    title: list[Token]
    body: list[Token]
    nojs: list[Token] | None = None  # a try box's words for readers without JavaScript

    def token_lists(self) -> Iterator[list[Token]]:
        yield self.title
        yield self.body
        if self.nojs is not None:
            yield self.nojs

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
        if self.nojs is not None:
            static = r.blocks(self.nojs, level)
            if static.startswith("<p>"):
                static = f"<p>{NOJS_LEAD} {static[3:]}"
            else:
                static = f"<p>{NOJS_LEAD}</p>\n{static}"
            body = (
                f'<div class="try-live">\n{body}</div>\n'
                f'<noscript><div class="try-static">\n{static}</div></noscript>\n'
            )
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
    nojs: list[Token] | None = None
    rest: list[Token] = []
    for tok in body:
        node = directive_node(tok)
        if isinstance(node, Block) and node.name == "nojs":
            if nojs is not None:
                ctx.error(DirectiveStructureError, line_of(tok), "one {nojs} part per {try} box")
                return None
            nojs = node.body
        else:
            rest.append(tok)
    if call.name == "try":
        ctx.try_boxes.append((call.line, nojs is not None))
    return Callout(call.name, call.line, title, rest, nojs)


def _build_nojs(call: DirectiveCall, body: list[Token], ctx: SectionContext) -> Block:
    return Block(call.name, call.line, "", body)


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
register(
    DirectiveSpec(
        name="nojs",
        build=_build_nojs,
        body="required",
        allowed_in=frozenset({"try"}),
        describe="what the static figure shows when JavaScript is off",
    )
)
