"""``:kind: integer`` — a whole number, e.g. a count: 35, 1,050, 1,05,000, १०५०.

Exact: 1050.0 is 1050, 1050.2 is not a whole number (the learner is told so, nothing stored).
"""

from __future__ import annotations

from typing import Any

from mathmachine.printing import dec

from .base import KeyFormatError, Mark, Refusal, avoid, register
from .numeric import NumericKey, NumericKind
from .reader import Numbers


@register
class IntegerKind(NumericKind):
    name = "integer"
    template = "learning/kinds/integer.html"
    example = "1,050"
    takes_tolerance = False  # a count is exact

    def check_shape(self, key: NumericKey, text: str) -> None:
        if key.shape != () or not float(key.values[0]).is_integer():
            raise KeyFormatError(f"an integer check's answer is one whole number, not {text!r}")

    def key(self, text: str, spec: Any) -> NumericKey:
        key = super().key(text, spec)
        return NumericKey(key.text, key.shape, key.values, (0,), (0.0,))

    def help_text(self, key: NumericKey) -> str:
        example = avoid(("12", "40", "7"), [dec(v, 0) for v in key.values])
        return f"Type a whole number, like {example}."

    def fit(self, numbers: Numbers, key: NumericKey) -> Numbers | Refusal:
        fitted = super().fit(numbers, key)
        if isinstance(fitted, Numbers) and fitted.flat[0].exact.denominator != 1:
            return Refusal(f"This answer is a whole number. {self.help_text(key)}")
        return fitted

    def mark(self, value: Numbers, key: NumericKey) -> Mark | Refusal:
        return Mark(value.flat[0].exact == int(key.values[0]))

    def matches(self, value: Numbers, mistake: NumericKey) -> bool:
        return value.flat[0].exact == int(mistake.values[0])

    def mistake(self, text: str, key: Any, spec: Any) -> NumericKey:
        got = super().mistake(text, key, spec)
        if not float(got.values[0]).is_integer():
            raise KeyFormatError(f"the mistake {text!r} is not a whole number")
        return got

    def printed(self, key: NumericKey) -> tuple[str, ...]:
        return (dec(key.values[0], 0),)

    def input_attrs(self, key: Any) -> dict[str, Any]:
        return {"inputmode": "numeric"}
