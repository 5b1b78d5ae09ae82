"""``:::{check} ID`` — a "Pause & predict" check, graded on the server.

    :::{check} sharper-weights
    :fields: weights              (default: one field "answer"; several: "a | b")
    :answer: {{ sharp_weights }}  (per field, "|"-separated; a number or a vector "(a, b, c)")
    :tolerance: 0.0005            (optional; one for all fields or one per field)
    The prompt, in Markdown.
    :::{feedback} correct
    ...
    :::
    :::{feedback} wrong
    ...
    :::
    :::{feedback} mistake
    :answer: (0, 0.5, 2)
    ...
    :::
    :::{hint}
    ...
    :::
    :::

In the section HTML the check becomes its marker ``<!--check:ID-->``; prompt, answers and
feedback go to a CheckDef (answers and feedback stay on the server until graded).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from markdown_it.token import Token

from ..errors import DirectiveOptionError, DirectiveStructureError, DuplicateIdError
from ..grading import NumberFormatError, default_tolerance, parse_numbers
from ..model import CheckDef, Field, Mistake
from ..passes.context import SectionContext, line_of
from .base import ID, Block, DirectiveCall, DirectiveSpec, directive_node, register

KINDS = ("numeric",)
FEEDBACK_KINDS = ("correct", "wrong", "mistake")
MAX_HINTS = 2


def claim_id(ctx: SectionContext, ident: str, line: int, what: str) -> bool:
    """Record a unit-wide id; False (and an error) when it is taken or malformed."""
    if not ID.match(ident):
        ctx.error(
            DirectiveOptionError,
            line,
            f"{what} id {ident!r} must be lowercase letters, digits and single hyphens",
        )
        return False
    first = ctx.unit.ids.get(ident)
    if first is not None:
        ctx.error(DuplicateIdError, line, f"duplicate id {ident!r} (first used at {first})")
        return False
    ctx.unit.ids[ident] = ctx.where(line)
    return True


def parse_answer(text: str) -> tuple[float, ...]:
    """An answer as the source writes it: "0.936", "1,050", "(0.017, 0.047, 0.936)"."""
    return parse_numbers(text, expected=None)


def _split(value: str) -> list[str]:
    return [part.strip() for part in value.split("|")]


@dataclass
class CheckNode:
    id: str
    line: int
    fields: tuple[Field, ...]
    prompt: list[Token]
    correct: list[Token]
    wrong: list[Token]
    mistakes: list[tuple[tuple[tuple[float, ...], ...], list[Token]]]
    hints: list[list[Token]] = field(default_factory=list)

    def token_lists(self) -> Iterator[list[Token]]:
        yield self.prompt
        yield self.correct
        yield self.wrong
        for _, body in self.mistakes:
            yield body
        yield from self.hints

    def render(self, r: Any) -> str:
        level = r.label_level()
        r.ctx.checks.append(
            CheckDef(
                id=self.id,
                section=r.ctx.number,
                prompt_html=r.blocks(self.prompt, level),
                fields=self.fields,
                feedback_correct_html=r.blocks(self.correct, level),
                feedback_wrong_html=r.blocks(self.wrong, level),
                mistakes=tuple(Mistake(a, r.blocks(b, level)) for a, b in self.mistakes),
                hints_html=tuple(r.blocks(h, level) for h in self.hints),
                kind="numeric",
                heading_level=level,
                source=r.ctx.where(self.line),
            )
        )
        return f"<!--check:{self.id}-->\n"


def _fields(call: DirectiveCall, ctx: SectionContext) -> tuple[Field, ...] | None:
    labels = _split(call.options["fields"]) if "fields" in call.options else ["answer"]
    if any(not label for label in labels):
        ctx.error(DirectiveOptionError, call.option_line("fields"), "a field label is empty")
        return None
    answers = _split(call.options["answer"])
    if len(answers) != len(labels):
        ctx.error(
            DirectiveOptionError,
            call.option_line("answer"),
            f":answer: gives {len(answers)} value(s) for {len(labels)} field(s) "
            f"({' | '.join(labels)}); separate them with |",
        )
        return None
    values: list[tuple[float, ...]] = []
    for text in answers:
        try:
            values.append(parse_answer(text))
        except NumberFormatError:
            ctx.error(
                DirectiveOptionError,
                call.option_line("answer"),
                f"answer {text!r} is not a number or a vector like (0.1, 0.2, 0.7)",
            )
            return None
    tolerances = [default_tolerance(text) for text in answers]
    if "tolerance" in call.options:
        parts = _split(call.options["tolerance"])
        if len(parts) not in (1, len(labels)):
            ctx.error(
                DirectiveOptionError,
                call.option_line("tolerance"),
                f":tolerance: gives {len(parts)} values for {len(labels)} fields",
            )
            return None
        try:
            given = [float(p) for p in parts]
        except ValueError:
            given = [math.nan]
        if not all(math.isfinite(t) and t > 0 for t in given):
            ctx.error(
                DirectiveOptionError,
                call.option_line("tolerance"),
                f":tolerance: must be a positive number (got {call.options['tolerance']!r})",
            )
            return None
        tolerances = given * len(labels) if len(given) == 1 else given
    return tuple(
        Field(label=lab, answer=val, tolerance=tol, answer_text=text)
        for lab, val, tol, text in zip(labels, values, tolerances, answers, strict=True)
    )


def _build_check(call: DirectiveCall, body: list[Token], ctx: SectionContext) -> CheckNode | None:
    """Validate everything (reporting every problem), then build; None when anything failed."""
    ident = call.argument.strip()
    ok = claim_id(ctx, ident, call.line, "check")
    kind = call.options.get("kind", "numeric")
    if kind not in KINDS:
        ctx.error(
            DirectiveOptionError,
            call.option_line("kind"),
            f":kind: {kind!r} is not supported (known: {', '.join(KINDS)})",
        )
        ok = False
    fields = _fields(call, ctx)
    ok = ok and fields is not None

    prompt: list[Token] = []
    subs: list[Block] = []
    sub_failed = False
    stray = False
    for tok in body:
        node = directive_node(tok)
        if isinstance(node, Block):
            subs.append(node)
        elif node is not None:
            sub_failed = True  # a sub-directive that failed; its error is recorded
        elif subs:
            if tok.map and not stray:
                ctx.error(
                    DirectiveStructureError,
                    line_of(tok),
                    "inside {check} the prompt comes first: move this text above the "
                    "{feedback} and {hint} blocks",
                )
                stray = True
        else:
            prompt.append(tok)
    ok = ok and not sub_failed and not stray
    if not stray and not any(t.type == "inline" and t.content.strip() for t in prompt):
        ctx.error(DirectiveStructureError, call.line, "{check} has no prompt text")
        ok = False

    found = {
        k: [s for s in subs if s.name == "feedback" and s.argument == k]
        for k in ("correct", "wrong")
    }
    for k, blocks in found.items():
        if not blocks and not sub_failed:
            ctx.error(
                DirectiveStructureError,
                call.line,
                f"{{check}} {ident} has no :::{{feedback}} {k} block",
            )
            ok = False
        for extra in blocks[1:]:
            ctx.error(
                DirectiveStructureError,
                extra.line,
                f"{{check}} {ident} has a second :::{{feedback}} {k} block",
            )
            ok = False
    hints = [s for s in subs if s.name == "hint"]
    for extra in hints[MAX_HINTS:]:
        ctx.error(DirectiveStructureError, extra.line, f"a check has at most {MAX_HINTS} hints")
        ok = False

    mistakes: list[tuple[tuple[tuple[float, ...], ...], list[Token]]] = []
    for s in subs:
        if s.name != "feedback" or s.argument != "mistake" or fields is None:
            continue
        answer = _mistake_answer(s, fields, ctx)
        if answer is None:
            ok = False
        else:
            mistakes.append((answer, s.body))
    if not ok or fields is None:
        return None
    return CheckNode(
        id=ident,
        line=call.line,
        fields=fields,
        prompt=prompt,
        correct=found["correct"][0].body,
        wrong=found["wrong"][0].body,
        mistakes=mistakes,
        hints=[h.body for h in hints],
    )


def _mistake_answer(
    s: Block, fields: tuple[Field, ...], ctx: SectionContext
) -> tuple[tuple[float, ...], ...] | None:
    line = s.option_lines.get("answer", s.line)
    parts = _split(s.options.get("answer", ""))
    if len(parts) != len(fields):
        ctx.error(
            DirectiveOptionError,
            line,
            f"the mistake's :answer: gives {len(parts)} value(s) for {len(fields)} field(s)",
        )
        return None
    try:
        answer = tuple(parse_answer(p) for p in parts)
    except NumberFormatError:
        ctx.error(
            DirectiveOptionError,
            line,
            f"mistake answer {s.options['answer']!r} is not a number or a vector",
        )
        return None
    for f, a in zip(fields, answer, strict=True):
        if len(a) != len(f.answer):
            ctx.error(
                DirectiveOptionError,
                line,
                f"the mistake gives {len(a)} number(s) for field {f.label!r}, "
                f"whose answer has {len(f.answer)}",
            )
            return None
    return answer


def _build_feedback(call: DirectiveCall, body: list[Token], ctx: SectionContext) -> Block | None:
    kind = call.argument.strip()
    if kind not in FEEDBACK_KINDS:
        ctx.error(
            DirectiveOptionError,
            call.line,
            f"{{feedback}} is one of {', '.join(FEEDBACK_KINDS)} (got {kind!r})",
        )
        return None
    if kind == "mistake" and not call.options.get("answer"):
        ctx.error(DirectiveOptionError, call.line, "{feedback} mistake needs the option :answer:")
        return None
    if kind != "mistake" and "answer" in call.options:
        ctx.error(
            DirectiveOptionError,
            call.option_line("answer"),
            f"only {{feedback}} mistake takes :answer: (this one is {kind})",
        )
        return None
    return Block("feedback", call.line, kind, body, dict(call.options), dict(call.option_lines))


def _build_hint(call: DirectiveCall, body: list[Token], ctx: SectionContext) -> Block:
    return Block("hint", call.line, "", body)


register(
    DirectiveSpec(
        name="check",
        build=_build_check,
        argument="required",
        describe="an id, e.g. :::{check} sharper-weights",
        options=frozenset({"kind", "fields", "answer", "tolerance"}),
        required_options=frozenset({"answer"}),
        body="required",
        allowed_in=frozenset({None, "try", "byhand", "question", "note"}),
    )
)
register(
    DirectiveSpec(
        name="feedback",
        build=_build_feedback,
        argument="required",
        describe="its kind: correct, wrong or mistake",
        options=frozenset({"answer"}),
        body="required",
        allowed_in=frozenset({"check"}),
    )
)
register(
    DirectiveSpec(
        name="hint",
        build=_build_hint,
        body="required",
        allowed_in=frozenset({"check"}),
    )
)
