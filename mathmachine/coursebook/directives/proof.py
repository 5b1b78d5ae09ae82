"""``:::{proof} TITLE`` — an expandable proof, one step at a time, no JavaScript needed.

    :::{proof} the blame reaches every note in one hop
    :::{claim}
    ...
    :::
    :::{step}
    ...
    :::
    :::{qed}
    optional closing remark
    :::
    :::

Renders as <details class="proof"><summary>Prove it · TITLE</summary> with the claim, then
<ol class="proof-steps"> with each step its own <li>, then the remark after "∎". Consecutive
proofs are grouped under a heading "If you want the algebra · N proof(s), step by step".

Steps open one at a time: the steps and the remark sit in a <proof-steps> element
(static/site/proof-steps.js, on the widget kit) whose "Next step" and "All steps" buttons are
rendered hidden (data-js) and shown when the script upgrades it; the script then shows the first
step only, reveals one more per "Next step" (focus moves to it) and the remark after the last.
Without JavaScript, or after "All steps", every step shows at once. A proof of one step gets no
buttons. The section's page loads the script (SCRIPT) when it has a proof.
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

KICKER = "Prove it"
SCRIPT = "site/proof-steps.js"
GROUP_LABEL = "If you want the algebra"
SHAPE = "inside {proof}, write one {claim}, then one or more {step} blocks, then an optional {qed}"


def _lead(html: str, lead: str) -> str:
    """Put `lead` at the start of the first paragraph of `html` (or before it)."""
    if html.startswith("<p>"):
        return f"<p>{lead} {html[3:]}"
    return f"<p>{lead}</p>\n{html}"


@dataclass
class ProofNode:
    line: int
    title: list[Token]
    claim: list[Token]
    steps: list[list[Token]]
    qed: list[Token] | None

    def token_lists(self) -> Iterator[list[Token]]:
        yield self.title
        yield self.claim
        yield from self.steps
        if self.qed is not None:
            yield self.qed

    def render(self, r: Any) -> str:
        level = r.label_level()
        title = r.inline(self.title)
        claim = _lead(r.blocks(self.claim, level), '<strong class="proof-label">Claim.</strong>')
        steps = "".join(
            f'<li data-target="step" tabindex="-1">\n{r.blocks(s, level)}</li>\n'
            for s in self.steps
        )
        end = '<span class="proof-end" role="img" aria-label="End of proof">∎</span>'
        qed = r.blocks(self.qed, level) if self.qed is not None else ""
        qed = _lead(qed, end) if qed else f"<p>{end}</p>\n"
        n = len(self.steps)
        controls = (
            '<p class="proof-controls" data-js hidden>'
            f'<button type="button" class="proof-next" data-target="next">Next step (2 of {n})'
            '</button> <button type="button" class="proof-all" data-target="all">All steps'
            "</button></p>\n"
            if n > 1
            else ""
        )
        return (
            f'<details class="proof">\n'
            f'<summary><span class="proof-kicker">{KICKER}</span> · {title}</summary>\n'
            f'<div class="proof-claim">\n{claim}</div>\n'
            f"<proof-steps data-kit>\n"
            f'<ol class="proof-steps">\n{steps}</ol>\n{controls}'
            f'<div class="proof-qed" data-target="end">\n{qed}</div>\n'
            f"</proof-steps>\n"
            f"</details>\n"
        )


def group_open(r: Any, count: int) -> str:
    """The heading over a run of consecutive proofs."""
    level = r.label_level()
    gid = r.new_id("proofs")
    noun = "proof" if count == 1 else "proofs"
    return (
        f'<section class="proofs" aria-labelledby="{gid}">\n'
        f'<h{level} class="proofs-label" id="{gid}">{GROUP_LABEL} · {count} {noun}, '
        f"step by step</h{level}>\n"
    )


def _build_proof(call: DirectiveCall, body: list[Token], ctx: SectionContext) -> ProofNode | None:
    blocks: list[Block] = []
    for tok in body:
        node = directive_node(tok)
        if isinstance(node, Block):
            blocks.append(node)
        elif node is None and tok.map:
            ctx.error(DirectiveStructureError, line_of(tok), SHAPE)
            return None
        elif node is None:
            continue
        else:
            return None  # a sub-block failed; its error is recorded
    names = [b.name for b in blocks]
    if not names or names[0] != "claim" or names.count("claim") != 1:
        ctx.error(
            DirectiveStructureError, call.line, f"{{proof}} must start with one {{claim}}: {SHAPE}"
        )
        return None
    if "step" not in names:
        ctx.error(DirectiveStructureError, call.line, f"{{proof}} has no {{step}}: {SHAPE}")
        return None
    if names.count("qed") > 1 or ("qed" in names and names[-1] != "qed"):
        qed = next(b for b in blocks if b.name == "qed")
        ctx.error(DirectiveStructureError, qed.line, f"{{qed}} closes the proof: {SHAPE}")
        return None
    ctx.use_assets(scripts=(SCRIPT,))
    return ProofNode(
        line=call.line,
        title=parse_inline(call.argument, line=call.line),
        claim=blocks[0].body,
        steps=[b.body for b in blocks if b.name == "step"],
        qed=blocks[-1].body if names[-1] == "qed" else None,
    )


def _build_part(call: DirectiveCall, body: list[Token], ctx: SectionContext) -> Block:
    return Block(call.name, call.line, "", body)


register(
    DirectiveSpec(
        name="proof",
        build=_build_proof,
        argument="required",
        describe="a title, e.g. :::{proof} Shares add up to 1",
        body="required",
        allowed_in=frozenset({None}),
    )
)
for _name in ("claim", "step", "qed"):
    register(
        DirectiveSpec(
            name=_name,
            build=_build_part,
            body="required",
            allowed_in=frozenset({"proof"}),
        )
    )
