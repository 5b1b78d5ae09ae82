"""``:::{check} ID`` (a "Pause & predict") and ``:::{problem} ID`` (a practice problem), graded on
the server by their kinds (mathmachine.coursebook.kinds).

    ::::{check} s1-sharpen
    :kind: vector                  number, integer, vector, matrix, fraction, choice, words;
                                   one for every box, or one per box: "integer | integer"
    :fields: the three weights     box labels, "|"-separated (default: one box "answer")
    :answer: {{ check1_answer }}   the key of each box, "|"-separated
    :tolerance: 0.0005             optional: absolute, one for all boxes or one per box
                                   (default: half a unit of the key's last printed digit)
    :by-hand: {{ weights_by_hand }}  optional: per box ("*": none), what the worked solution
                                   reaches with its printed, rounded numbers; every answer from
                                   the key to it (widened by the tolerance) is right
    :variant: soft_weights         optional: fresh numbers, see "Variants" in writing-content.md
    (kind options: :select: one|several (choice), :places: N (fraction), :order: any (words))

    The prompt, in Markdown.

    :::{option} dot                (choice only: one block per option, its label as body)
    The dot product
    :::
    :::{feedback} correct          required: why it is right
    :::
    :::{feedback} wrong            optional: general words for a wrong answer (never the key)
    :::
    :::{mistake} unchanged         a named mistake: its wrong answer and why it is tempting
    :answer: {{ check1_unchanged }}     per box, "|"-separated; * = any answer in that box;
    ...                                 none for a mistake the kind names itself ("transposed")
    :::
    :::{hint}                      up to two, shown one per wrong answer
    :::
    :::{solution}                  required: the worked answer (may print the key)
    :::
    ::::

A {problem} is written the same way (with :title:), stands at the top of a section, and shows
its solution once answered right. In the section HTML either becomes its marker
``<!--check:ID-->``; everything else goes to a CheckDef and stays on the server until graded.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterator
from dataclasses import MISSING, dataclass, field, is_dataclass
from dataclasses import fields as fields_of
from fractions import Fraction
from typing import Any

from markdown_it.token import Token

from ..errors import DirectiveOptionError, DirectiveStructureError, DuplicateIdError
from ..kinds import KINDS, FieldSpec, KeyFormatError, Mark, Option, Refusal
from ..model import CheckDef, Field, Mistake, Variant
from ..passes.context import SectionContext, line_of
from .base import ID, Block, DirectiveCall, DirectiveSpec, directive_node, register

FEEDBACK_KINDS = ("correct", "wrong")
MAX_HINTS = 2
BASE_OPTIONS = frozenset({"kind", "fields", "answer", "tolerance", "by-hand", "variant"})
SUBS = ("option", "feedback", "mistake", "hint", "solution")


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


def split_bar(value: str) -> list[str]:
    return [part.strip() for part in value.split("|")]


def _canonical(value: Any) -> Any:
    """A value as plain JSON-able data, the same in every process (sets sorted). A dataclass
    field left at its default is left out, so a field added later (a key's by-hand value)
    changes the version only of the checks that use it."""
    if is_dataclass(value) and not isinstance(value, type):
        return {
            f.name: _canonical(getattr(value, f.name))
            for f in fields_of(value)
            if f.default is MISSING or getattr(value, f.name) != f.default
        }
    if isinstance(value, frozenset | set):
        return sorted(_canonical(v) for v in value)
    if isinstance(value, tuple | list):
        return [_canonical(v) for v in value]
    if isinstance(value, Fraction):
        return str(value)
    return value


def check_version(check_id: str, fields: tuple[Field, ...], mistakes: tuple[Mistake, ...]) -> str:
    """A digest of what grading reads: kinds, keys (with tolerances), mistakes."""
    data = [check_id, [(f.kind, _canonical(f.key)) for f in fields]]
    data.append([(m.name, _canonical(m.answer)) for m in mistakes])
    text = json.dumps(data, sort_keys=True, ensure_ascii=True)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


@dataclass
class CheckNode:
    id: str
    line: int
    problem: bool
    title: str
    fields: tuple[Field, ...]
    prompt: list[Token]
    correct: list[Token]
    wrong: list[Token]
    mistakes: list[tuple[str, tuple[Any, ...], list[Token]]]
    hints: list[list[Token]]
    solution: list[Token]
    options: list[tuple[str, list[Token]]] = field(default_factory=list)
    variant: Variant | None = None

    def token_lists(self) -> Iterator[list[Token]]:
        yield self.prompt
        yield self.correct
        yield self.wrong
        for _, _, body in self.mistakes:
            yield body
        yield from self.hints
        yield self.solution
        for _, body in self.options:
            yield body

    def render(self, r: Any) -> str:
        level = r.label_level()
        mistakes = tuple(Mistake(n, a, r.blocks(b, level)) for n, a, b in self.mistakes)
        defined = {m.name for m in mistakes}
        for f in self.fields:  # the kinds' own named mistakes, unless the check words them
            for name, html in KINDS[f.kind].builtins.items():
                if name not in defined:
                    mistakes += (Mistake(name, (), html),)
                    defined.add(name)
        check = CheckDef(
            id=self.id,
            section=r.ctx.number,
            prompt_html=r.blocks(self.prompt, level),
            fields=self.fields,
            feedback_correct_html=r.blocks(self.correct, level),
            feedback_wrong_html=r.blocks(self.wrong, level) if self.wrong else "",
            mistakes=mistakes,
            hints_html=tuple(r.blocks(h, level) for h in self.hints),
            solution_html=r.blocks(self.solution, level),
            options=tuple(Option(i, _inline(r.blocks(b, level))) for i, b in self.options),
            title=self.title,
            problem=self.problem,
            variant=self.variant,
            version=check_version(self.id, self.fields, mistakes),
            heading_level=level,
            source=r.ctx.where(self.line),
        )
        (r.ctx.problems if self.problem else r.ctx.checks).append(check)
        return f"<!--check:{self.id}-->\n"


def _inline(html: str) -> str:
    """An option's label sits inside a <label>: one paragraph loses its <p>."""
    text = html.strip()
    if text.startswith("<p>") and text.endswith("</p>") and text.count("<p>") == 1:
        return text[3:-4]
    return text


def _kinds(call: DirectiveCall, n: int, ctx: SectionContext) -> list[str] | None:
    given = split_bar(call.options.get("kind", ""))
    if len(given) == 1:
        given = given * n
    line = call.option_line("kind")
    if len(given) != n:
        ctx.error(DirectiveOptionError, line, f":kind: gives {len(given)} kinds for {n} boxes")
        return None
    for k in given:
        if k not in KINDS:
            known = ", ".join(sorted(KINDS))
            ctx.error(
                DirectiveOptionError, line, f":kind: {k!r} is not a check kind (known: {known})"
            )
            return None
    return given


def _tolerances(call: DirectiveCall, n: int, ctx: SectionContext) -> list[float | None] | None:
    if "tolerance" not in call.options:
        return [None] * n
    parts = split_bar(call.options["tolerance"])
    line = call.option_line("tolerance")
    if len(parts) not in (1, n):
        ctx.error(
            DirectiveOptionError, line, f":tolerance: gives {len(parts)} values for {n} boxes"
        )
        return None
    try:
        given = [float(p) for p in parts]
    except ValueError:
        given = [math.nan]
    if not all(math.isfinite(t) and t > 0 for t in given):
        ctx.error(
            DirectiveOptionError,
            line,
            f":tolerance: must be a positive number (got {call.options['tolerance']!r})",
        )
        return None
    return [*given] * n if len(given) == 1 else [*given]


def _by_hand(call: DirectiveCall, kinds: list[str], ctx: SectionContext) -> list[str | None] | None:
    """The :by-hand: answer of each box (None: not given, or "*")."""
    n = len(kinds)
    if "by-hand" not in call.options:
        return [None] * n
    parts = split_bar(call.options["by-hand"])
    line = call.option_line("by-hand")
    if len(parts) != n:
        ctx.error(
            DirectiveOptionError,
            line,
            f":by-hand: gives {len(parts)} value(s) for {n} box(es); separate them with |, "
            "and give * for a box that has none",
        )
        return None
    exact = sorted({k for k, p in zip(kinds, parts, strict=True) if p != "*"
                    and not KINDS[k].takes_tolerance})  # fmt: skip
    if exact:
        ctx.error(
            DirectiveOptionError,
            line,
            f":by-hand: is for number, vector and matrix answers; {', '.join(exact)} answers "
            "are exact (give * for that box)",
        )
        return None
    return [None if p == "*" else p for p in parts]


def _fields(
    call: DirectiveCall, choices: list[Option], ctx: SectionContext
) -> tuple[Field, ...] | None:
    labels = split_bar(call.options["fields"]) if "fields" in call.options else ["answer"]
    if any(not label for label in labels):
        ctx.error(DirectiveOptionError, call.option_line("fields"), "a box label is empty")
        return None
    n = len(labels)
    answers = split_bar(call.options["answer"])
    if len(answers) != n:
        ctx.error(
            DirectiveOptionError,
            call.option_line("answer"),
            f":answer: gives {len(answers)} value(s) for {n} box(es) "
            f"({' | '.join(labels)}); separate them with |",
        )
        return None
    kinds = _kinds(call, n, ctx)
    tolerances = _tolerances(call, n, ctx)
    if kinds is None or tolerances is None:
        return None
    by_hand = _by_hand(call, kinds, ctx)
    if by_hand is None:
        return None
    own = {"title"} if call.name == "problem" else set()
    allowed = BASE_OPTIONS | own | frozenset().union(*(KINDS[k].options for k in kinds))
    for key in call.options:
        if key not in allowed:
            known = ", ".join(f":{k}:" for k in sorted(allowed))
            ctx.error(
                DirectiveOptionError,
                call.option_line(key),
                f"unknown option :{key}: for {{{call.name}}} of kind {' | '.join(kinds)} "
                f"(known: {known})",
            )
            return None
    if "tolerance" in call.options:
        exact = sorted({k for k in kinds if not KINDS[k].takes_tolerance})
        if exact:
            ctx.error(
                DirectiveOptionError,
                call.option_line("tolerance"),
                f":tolerance: is for number, vector and matrix answers; {', '.join(exact)} "
                "answers are exact",
            )
            return None
    if any(KINDS[k].uses_choices for k in kinds) and n != 1:
        ctx.error(DirectiveOptionError, call.option_line("kind"), "a choice check has one box")
        return None
    out: list[Field] = []
    for label, kind, text, tol, hand in zip(
        labels, kinds, answers, tolerances, by_hand, strict=True
    ):
        spec = FieldSpec(call.options, tuple(choices), tol, hand)
        try:
            key = KINDS[kind].key(text, spec)
        except KeyFormatError as exc:
            where = "by-hand" if hand is not None and "by-hand" in str(exc) else "answer"
            ctx.error(DirectiveOptionError, call.option_line(where), str(exc))
            return None
        out.append(Field(label=label, kind=kind, key=key, answer_text=text))
    return tuple(out)


class _NotOffered:
    """A variant's mistake whose answer, at this seed, cannot be told from the key."""


NOT_OFFERED = _NotOffered()


def _mistake(
    s: Block,
    fields: tuple[Field, ...],
    call: DirectiveCall,
    ctx: SectionContext,
    *,
    variant: bool,
) -> tuple[Any, ...] | _NotOffered | None:
    """A mistake's answer per box (None for "*"); () for a kind's own named mistake, and for a
    mistake of a variant that is not offered at this seed (it collides with the key)."""
    line = s.option_lines.get("answer", s.line)
    if "answer" not in s.options:
        if any(s.argument in KINDS[f.kind].builtins for f in fields):
            return ()
        own = sorted({n for f in fields for n in KINDS[f.kind].builtins})
        extra = f" or be one the kind names itself ({', '.join(own)})" if own else ""
        ctx.error(DirectiveOptionError, s.line, f"{{mistake}} {s.argument} needs :answer:{extra}")
        return None
    parts = split_bar(s.options["answer"])
    if len(parts) != len(fields):
        ctx.error(
            DirectiveOptionError,
            line,
            f"the mistake's :answer: gives {len(parts)} value(s) for {len(fields)} box(es)",
        )
        return None
    if all(p == "*" for p in parts):
        ctx.error(DirectiveOptionError, line, "a mistake needs at least one box that is not *")
        return None
    answer: list[Any] = []
    for f, text in zip(fields, parts, strict=True):
        if text == "*":
            answer.append(None)
            continue
        spec = FieldSpec(call.options, (), None)
        try:
            answer.append(KINDS[f.kind].mistake(text, f.key, spec))
        except KeyFormatError as exc:
            ctx.error(DirectiveOptionError, line, str(exc))
            return None
    collision = collides(fields, tuple(answer))
    if collision and variant:
        return NOT_OFFERED  # fresh numbers that make this slip give the key: not offered
    if collision:
        ctx.error(DirectiveOptionError, line, f"this mistake's answer is {collision}")
        return None
    return tuple(answer)


def collides(fields: tuple[Field, ...], answer: tuple[Any, ...]) -> str:
    """Why a mistake's answer cannot be told from the key ("" when it can): every box it gives
    is right (within the key's tolerance or by-hand range), or right but for an order the kind
    names by itself (a vector reordered, a matrix transposed)."""
    marks = [_mark_as_typed(f, t) for f, t in zip(fields, answer, strict=True) if t is not None]
    if not marks or not all(m is not None and (m.correct or m.builtin) for m in marks):
        return ""
    named = sorted({m.builtin for m in marks if m is not None and m.builtin})
    if not named:
        return "the right answer"
    return f"the right answer in another order, which the kind names by itself ({', '.join(named)})"


def _mark_as_typed(f: Field, target: Any) -> Mark | None:
    """How the box would mark this mistake's answer typed by a learner (None: not markable)."""
    kind = KINDS[f.kind]
    value = kind.read(target.text, f.key)
    if isinstance(value, Refusal):
        return None
    mark = kind.mark(value, f.key)
    return mark if isinstance(mark, Mark) else None


def _build(call: DirectiveCall, body: list[Token], ctx: SectionContext) -> CheckNode | None:
    """Validate everything (reporting every problem), then build; None when anything failed."""
    ident = call.argument.strip()
    problem = call.name == "problem"
    ok = claim_id(ctx, ident, call.line, call.name)
    variant = ctx.variant_at(call.line) if "variant" in call.options else None
    if "variant" in call.options and variant is None:
        return None  # the variant pass has reported why; its figures are missing
    prompt: list[Token] = []
    subs: list[Block] = []
    sub_failed = stray = False
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
                    f"inside {{{call.name}}} the prompt comes first: move this text above the "
                    "{option}, {feedback}, {mistake}, {hint} and {solution} blocks",
                )
                stray = True
        else:
            prompt.append(tok)
    ok = ok and not sub_failed and not stray
    if not stray and not any(t.type == "inline" and t.content.strip() for t in prompt):
        ctx.error(DirectiveStructureError, call.line, f"{{{call.name}}} has no prompt text")
        ok = False

    option_blocks = [s for s in subs if s.name == "option"]
    choices = [Option(s.argument, "") for s in option_blocks]
    seen: set[str] = set()
    for s in option_blocks:
        if not ID.match(s.argument):
            ctx.error(DirectiveOptionError, s.line, f"option id {s.argument!r} must be a slug")
            ok = False
        elif s.argument in seen:
            ctx.error(DirectiveOptionError, s.line, f"option {s.argument!r} is given twice")
            ok = False
        seen.add(s.argument)
    fields = _fields(call, choices, ctx)
    ok = ok and fields is not None
    if fields is not None and option_blocks and not any(KINDS[f.kind].uses_choices for f in fields):
        ctx.error(DirectiveStructureError, option_blocks[0].line, "{option} is for :kind: choice")
        ok = False

    found = {
        k: [s for s in subs if s.name == "feedback" and s.argument == k] for k in FEEDBACK_KINDS
    }
    solutions = [s for s in subs if s.name == "solution"]
    for what, blocks in (("{feedback} correct", found["correct"]), ("{solution}", solutions)):
        if not blocks and not sub_failed:
            ctx.error(
                DirectiveStructureError,
                call.line,
                f"{{{call.name}}} {ident} has no :::{what} block",
            )
            ok = False
    for what, blocks in (*found.items(), ("solution", solutions)):
        for extra in blocks[1:]:
            ctx.error(
                DirectiveStructureError, extra.line, f"{{{call.name}}} {ident} has a second {what}"
            )
            ok = False
    hints = [s for s in subs if s.name == "hint"]
    for extra in hints[MAX_HINTS:]:
        ctx.error(DirectiveStructureError, extra.line, f"a check has at most {MAX_HINTS} hints")
        ok = False

    mistakes: list[tuple[str, tuple[Any, ...], list[Token]]] = []
    names: set[str] = set()
    for s in subs:
        if s.name != "mistake" or fields is None:
            continue
        if not ID.match(s.argument):
            ctx.error(
                DirectiveOptionError, s.line, f"a mistake's name {s.argument!r} must be a slug"
            )
            ok = False
            continue
        if s.argument in names:
            ctx.error(DirectiveOptionError, s.line, f"mistake {s.argument!r} is named twice")
            ok = False
            continue
        names.add(s.argument)
        answer = _mistake(s, fields, call, ctx, variant=variant is not None)
        if answer is None:
            ok = False
        elif isinstance(answer, _NotOffered):
            continue  # this variant's numbers make the slip give the key (or it reordered)
        else:
            mistakes.append((s.argument, answer, s.body))
    if not ok or fields is None:
        return None
    return CheckNode(
        id=ident,
        line=call.line,
        problem=problem,
        title=call.options.get("title", "").strip(),
        fields=fields,
        prompt=prompt,
        correct=found["correct"][0].body,
        wrong=found["wrong"][0].body if found["wrong"] else [],
        mistakes=mistakes,
        hints=[h.body for h in hints],
        solution=solutions[0].body,
        options=[(s.argument, s.body) for s in option_blocks],
        variant=variant,
    )


def _build_feedback(call: DirectiveCall, body: list[Token], ctx: SectionContext) -> Block | None:
    kind = call.argument.strip()
    if kind == "mistake":
        ctx.error(
            DirectiveOptionError,
            call.line,
            "a named mistake is written :::{mistake} NAME with :answer: (not {feedback} mistake)",
        )
        return None
    if kind not in FEEDBACK_KINDS:
        ctx.error(
            DirectiveOptionError,
            call.line,
            f"{{feedback}} is one of {', '.join(FEEDBACK_KINDS)} (got {kind!r})",
        )
        return None
    return Block("feedback", call.line, kind, body)


def _block(name: str) -> Any:
    def build(call: DirectiveCall, body: list[Token], ctx: SectionContext) -> Block:
        return Block(name, call.line, call.argument.strip(), body, call.options, call.option_lines)

    return build


PARENTS = frozenset({"check", "problem"})
register(
    DirectiveSpec(
        name="check",
        build=_build,
        argument="required",
        describe="an id, e.g. :::{check} sharper-weights",
        options=None,  # the kinds' options: checked by the builder
        required_options=frozenset({"answer", "kind"}),
        body="required",
        allowed_in=frozenset({None, "try", "byhand", "question", "note"}),
    )
)
register(
    DirectiveSpec(
        name="problem",
        build=_build,
        argument="required",
        describe="an id, e.g. :::{problem} p15-soft-weights",
        options=None,
        required_options=frozenset({"answer", "kind", "title"}),
        body="required",
        allowed_in=frozenset({None}),
    )
)
register(
    DirectiveSpec(
        name="feedback",
        build=_build_feedback,
        argument="required",
        describe="its kind: correct or wrong",
        body="required",
        allowed_in=PARENTS,
    )
)
register(
    DirectiveSpec(
        name="mistake",
        build=_block("mistake"),
        argument="required",
        describe="a name, e.g. :::{mistake} doubled-the-weights",
        options=frozenset({"answer"}),
        body="required",
        allowed_in=PARENTS,
    )
)
register(
    DirectiveSpec(
        name="option",
        build=_block("option"),
        argument="required",
        describe="an id, e.g. :::{option} dot",
        body="required",
        allowed_in=PARENTS,
    )
)
register(DirectiveSpec(name="hint", build=_block("hint"), body="required", allowed_in=PARENTS))
register(
    DirectiveSpec(name="solution", build=_block("solution"), body="required", allowed_in=PARENTS)
)
