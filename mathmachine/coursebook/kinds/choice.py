"""``:kind: choice`` — multiple choice, one answer (radio buttons) or, with ``:select: several``,
several (check boxes). The options are ``{option} ID`` blocks in the check's body; the key names
the right one(s): ``:answer: dot`` or ``:answer: dot, general``. Feedback per option is a
``{mistake} NAME`` with ``:answer: ID`` (for several: shown whenever that option is ticked).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from .base import FieldSpec, KeyFormatError, Kind, Mark, Refusal, register

_SPLIT = re.compile(r"[,\s]+")


@dataclass(frozen=True)
class ChoiceKey:
    text: str
    chosen: frozenset[str]
    several: bool
    options: tuple[str, ...]  # every option id, in the order written


@register
class ChoiceKind(Kind):
    name = "choice"
    template = "learning/kinds/choice.html"
    example = "dot"
    example_options = ("dot", "general", "additive")
    options = frozenset({"select"})
    uses_choices = True

    def _ids(self, text: str) -> list[str]:
        return [t for t in _SPLIT.split(text.strip()) if t]

    def key(self, text: str, spec: FieldSpec) -> ChoiceKey:
        select = spec.options.get("select", "one").strip()
        if select not in ("one", "several"):
            raise KeyFormatError(f":select: is one or several (got {select!r})")
        known = tuple(o.id for o in spec.choices)
        if len(known) < 2:
            raise KeyFormatError("a choice check needs at least two {option} blocks")
        ids = self._ids(text)
        unknown = [i for i in ids if i not in known]
        if unknown or not ids:
            raise KeyFormatError(
                f"the answer {text!r} must name options of this check (known: {', '.join(known)})"
            )
        if select == "one" and len(ids) != 1:
            raise KeyFormatError("a choice with :select: one has exactly one right option")
        return ChoiceKey(text.strip(), frozenset(ids), select == "several", known)

    def mistake(self, text: str, key: Any, spec: FieldSpec) -> ChoiceKey:
        ids = self._ids(text)
        unknown = [i for i in ids if i not in key.options]
        if unknown or not ids:
            raise KeyFormatError(
                f"the mistake {text!r} must name options of this check "
                f"(known: {', '.join(key.options)})"
            )
        if set(ids) & key.chosen and not key.several:
            raise KeyFormatError(f"the mistake {text!r} names the right option")
        return ChoiceKey(text.strip(), frozenset(ids), key.several, key.options)

    def read(self, raw: str, key: ChoiceKey) -> frozenset[str] | Refusal:
        ids = self._ids(raw) if isinstance(raw, str) else []
        if not ids or any(i not in key.options for i in ids):
            return Refusal(
                "Tick every option that is right, then check."
                if key.several
                else "Choose one option."
            )
        if not key.several and len(set(ids)) > 1:
            return Refusal("Choose one option.")
        return frozenset(ids)

    def mark(self, value: frozenset[str], key: ChoiceKey) -> Mark:
        if value == key.chosen:
            return Mark(True)
        if not key.several:
            return Mark(False)
        found = len(value & key.chosen)
        total = len(key.chosen)
        extra = len(value - key.chosen)
        note = f"You ticked {found} of the {total} right options"
        note += f" and {extra} that {'is' if extra == 1 else 'are'} not right." if extra else "."
        return Mark(False, note=note)

    def matches(self, value: frozenset[str], mistake: ChoiceKey) -> bool:
        if mistake.several:
            return mistake.chosen <= value
        return value == mistake.chosen

    def describe(self, key: ChoiceKey) -> str:
        return ", ".join(i for i in key.options if i in key.chosen)

    def input_attrs(self, key: Any) -> dict[str, Any]:
        return {"several": key.several}
