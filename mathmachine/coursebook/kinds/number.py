"""``:kind: number`` — one number: 0.936, .936, 93.6%, 1/3, ≈ 0.94."""

from __future__ import annotations

from typing import Any

from .base import KeyFormatError, register
from .numeric import NumericKey, NumericKind, example_number


@register
class NumberKind(NumericKind):
    name = "number"
    template = "learning/kinds/number.html"
    example = "0.936"

    def check_shape(self, key: NumericKey, text: str) -> None:
        if key.shape != ():
            raise KeyFormatError(
                f"a number check's answer is one number, not {text!r} (use :kind: vector or matrix)"
            )

    def help_text(self, key: NumericKey) -> str:
        return f"Type a number, like {example_number(key)}."

    def input_attrs(self, key: Any) -> dict[str, Any]:
        return {"inputmode": "decimal"}
