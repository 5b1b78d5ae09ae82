"""``:kind: fraction`` — an exact fraction: 1/3 is 1/3 (so is 2/6), and a decimal is accepted to
the printed precision (:places:, default 3): 0.333 and 33.3% are right, 0.33 is asked for a
third decimal, 0.334 and 0 are wrong. The key is written as a fraction, e.g. :answer: 1/3.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from mathmachine.printing import dec

from .base import FieldSpec, KeyFormatError, Kind, Mark, Refusal, avoid, register, spelled
from .numeric import SLACK, count_message, unreadable_message
from .reader import Num, Numbers, Unreadable, normalize, read_number, read_numbers


@dataclass(frozen=True)
class FractionKey:
    text: str
    exact: Fraction
    places: int


def _close_enough(n: Num, exact: Fraction, places: int) -> bool:
    if n.places is None:
        return n.exact == exact
    if n.places < places:
        return False
    return abs(n.exact - exact) <= Fraction(1, 2 * 10**n.places) + Fraction(SLACK)


@register
class FractionKind(Kind):
    name = "fraction"
    template = "learning/kinds/fraction.html"
    example = "1/3"
    options = frozenset({"places"})

    def key(self, text: str, spec: FieldSpec) -> FractionKey:
        n = read_number(normalize(text))
        if isinstance(n, Unreadable):
            raise KeyFormatError(f"a fraction check's answer is written like 1/3, not {text!r}")
        raw_places = spec.options.get("places", "3").strip()
        if not raw_places.isdigit() or not 1 <= int(raw_places) <= 9:
            raise KeyFormatError(f":places: is a whole number from 1 to 9 (got {raw_places!r})")
        return FractionKey(text.strip(), n.exact, int(raw_places))

    def mistake(self, text: str, key: Any, spec: FieldSpec) -> FractionKey:
        got = self.key(text, spec)
        return FractionKey(got.text, got.exact, key.places)

    def help_text(self, key: FractionKey) -> str:
        example = avoid(("2/5", "3/7", "5/9"), [key.text])
        return f"Type a fraction, like {example}, or a decimal to {spelled(key.places)} places."

    def read(self, raw: str, key: FractionKey) -> Num | Refusal:
        numbers = read_numbers(raw)
        if isinstance(numbers, Unreadable):
            return Refusal(unreadable_message(numbers, self.help_text(key)))
        if isinstance(numbers, Numbers) and len(numbers.flat) != 1:
            return Refusal(count_message(numbers, 1, self.help_text(key)))
        return numbers.flat[0]

    def mark(self, value: Num, key: FractionKey) -> Mark | Refusal:
        if _close_enough(value, key.exact, key.places):
            return Mark(True)
        places = value.places
        short = places is not None and 1 <= places < key.places
        if short and places and abs(value.exact - key.exact) <= Fraction(1, 2 * 10**places):
            return Refusal(
                f"Nearly there: give your answer as a fraction, or to "
                f"{spelled(key.places)} decimal places."
            )
        return Mark(False)

    def matches(self, value: Num, mistake: FractionKey) -> bool:
        if value.places is not None and value.places < mistake.places:
            return value.places >= 1 and abs(value.exact - mistake.exact) <= Fraction(
                1, 2 * 10**value.places
            )
        return _close_enough(value, mistake.exact, mistake.places)

    def printed(self, key: FractionKey) -> tuple[str, ...]:
        decimal = dec(float(key.exact), key.places)
        return (key.text, decimal)

    def input_attrs(self, key: Any) -> dict[str, Any]:
        return {"inputmode": "text"}
