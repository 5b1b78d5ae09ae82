"""``:kind: vector`` — an ordered list of numbers, its length checked: (0.017, 0.047, 0.936),
0.017 0.047 0.936, [0.017; 0.047; 0.936]. The right numbers in another order are named."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from mathmachine.printing import dec

from .base import KeyFormatError, Mark, Refusal, register
from .numeric import NumericKey, NumericKind, example_list, mark_entries, same_entries
from .reader import Numbers

REORDERED = (
    "<p>These are the right numbers, but not in the right order. Each place in the list "
    "belongs to one item: check which number goes with which.</p>"
)


@register
class VectorKind(NumericKind):
    name = "vector"
    template = "learning/kinds/vector.html"
    example = "(0.017, 0.047, 0.936)"
    builtins: ClassVar[Mapping[str, str]] = {"reordered": REORDERED}

    def check_shape(self, key: NumericKey, text: str) -> None:
        if len(key.shape) != 1:
            raise KeyFormatError(
                f"a vector check's answer is a list of numbers like (0.1, 0.2, 0.7), not {text!r}"
            )

    def help_text(self, key: NumericKey) -> str:
        n = key.size
        return f"Type {n} numbers in order, like {example_list(key, n)}."

    def fit(self, numbers: Numbers, key: NumericKey) -> Numbers | Refusal:
        if numbers.nested and all(len(row) == 1 for row in numbers.rows):
            numbers = Numbers((numbers.flat,), False, numbers.comma_decimal)  # one per line
        return super().fit(numbers, key)

    def mark(self, value: Numbers, key: NumericKey) -> Mark | Refusal:
        mark = mark_entries(value.flat, key)
        if isinstance(mark, Mark) and not mark.correct and len(set(key.values)) > 1:
            # The same numbers, both lists sorted by size: a right answer in the wrong order.
            order = sorted(range(key.size), key=key.values.__getitem__)
            by_size = key.permuted(order)
            if same_entries(sorted(value.flat, key=lambda n: n.value), by_size):
                return Mark(False, builtin="reordered")
        return mark

    def input_attrs(self, key: Any) -> dict[str, Any]:
        return {"inputmode": "decimal", "count": key.size}

    def builtin_examples(self, key: NumericKey) -> dict[str, str]:
        printed = [dec(v, p) for v, p in zip(key.values, key.places, strict=True)]
        for shift in range(1, key.size):  # the entries moved round by one place, or more
            moved = printed[shift:] + printed[:shift]
            if moved != printed:
                return {"reordered": "(" + ", ".join(moved) + ")"}
        return {}
