"""Grading a check: each box read and marked by its kind, then the check's named mistakes.

    grade(check, raw) -> Grade     raw: one string per box; never raises

A box its kind cannot read (or the right numbers at too few decimals) gives Grade(ok=False)
with a message that fits the kind: nothing is stored. Otherwise the grade says whether every box
is right, which boxes are, and which named mistakes the answer matches (the check's own, written
with :answer:, and those the kinds recognise by themselves, e.g. a transposed matrix).
What the learner is then shown is feedback.py's business.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .kinds import KINDS, Refusal
from .kinds.reader import MAX_ANSWER_CHARS
from .model import CheckDef, Mistake

__all__ = ["MAX_ANSWER_CHARS", "FieldGrade", "Grade", "grade"]


@dataclass(frozen=True)
class FieldGrade:
    """How one answer box fared. readable: its kind could read (and mark) it; message: why not.
    note: the kind's remark about a wrong box that gives nothing away."""

    label: str
    raw: str
    readable: bool
    correct: bool
    message: str = ""
    note: str = ""


@dataclass(frozen=True)
class Grade:
    """ok: every box was read and marked (the answer is stored). correct: every box is right.
    mistakes: names of the named mistakes the answer matches. message: why ok is False."""

    ok: bool
    correct: bool
    fields: tuple[FieldGrade, ...]
    mistakes: tuple[str, ...] = ()
    message: str = ""

    @property
    def fields_right(self) -> tuple[bool, ...]:
        return tuple(f.correct for f in self.fields)


def _labelled(check: CheckDef, label: str, message: str) -> str:
    if len(check.fields) == 1:
        return message
    return f"{label[:1].upper()}{label[1:]}: {message}"


def _matches(check: CheckDef, mistake: Mistake, values: list[Any]) -> bool:
    return all(
        target is None or KINDS[f.kind].matches(value, target)
        for f, target, value in zip(check.fields, mistake.answer, values, strict=True)
    )


def grade(check: CheckDef, raw: list[str]) -> Grade:
    """Grade a learner's answer: raw holds one string per box of the check. Never raises."""
    n = len(check.fields)
    raw = [r if isinstance(r, str) else "" for r in raw] if isinstance(raw, list | tuple) else []
    if len(raw) != n:
        boxes = "one answer" if n == 1 else f"{n} answers"
        return Grade(False, False, (), (), f"This check takes {boxes}; got {len(raw)}.")
    values: list[Any] = []
    refused: list[FieldGrade] = []
    for f, text in zip(check.fields, raw, strict=True):
        value = KINDS[f.kind].read(text, f.key)
        if isinstance(value, Refusal):
            refused.append(FieldGrade(f.label, text, False, False, value.message))
            values.append(None)
        else:
            values.append(value)
    if not refused:
        fields: list[FieldGrade] = []
        builtins: list[str] = []
        for f, text, value in zip(check.fields, raw, values, strict=True):
            mark = KINDS[f.kind].mark(value, f.key)
            if isinstance(mark, Refusal):
                refused.append(FieldGrade(f.label, text, False, False, mark.message))
                fields.append(refused[-1])
                continue
            fields.append(FieldGrade(f.label, text, True, mark.correct, note=mark.note))
            if mark.builtin:
                builtins.append(mark.builtin)
    if refused:
        first = refused[0]
        by_label = {r.label: r for r in refused}
        shown = tuple(
            by_label.get(f.label) or FieldGrade(f.label, t, True, False)
            for f, t in zip(check.fields, raw, strict=True)
        )
        return Grade(False, False, shown, (), _labelled(check, first.label, first.message))
    correct = all(fg.correct for fg in fields)
    mistakes: tuple[str, ...] = ()
    if not correct:
        mistakes = tuple(
            m.name
            for m in check.mistakes
            if (m.builtin and m.name in builtins) or (not m.builtin and _matches(check, m, values))
        )
    return Grade(True, correct, tuple(fields), mistakes)
