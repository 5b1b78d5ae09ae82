"""``:kind: matrix`` — a table of numbers, its shape checked: [[1, 2], [3, 4]], 1 2; 3 4, or one
row per line. A transposed answer is recognised and named; a flat list is refused with a
message (a 2×2 answer is not a 1×4 one)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from mathmachine.printing import dec

from .base import KeyFormatError, Mark, Refusal, register
from .numeric import NumericKey, NumericKind, mark_entries, same_entries, shape_words
from .reader import Numbers

TRANSPOSED = (
    "<p>Rows and columns are swapped: your rows are the columns of the answer. Check which "
    "index counts the rows and which counts the columns.</p>"
)


def transpose(key: NumericKey) -> NumericKey:
    rows, cols = key.shape
    order = [r * cols + c for c in range(cols) for r in range(rows)]
    return key.permuted(order, (cols, rows))


@register
class MatrixKind(NumericKind):
    name = "matrix"
    template = "learning/kinds/matrix.html"
    example = "[[1, 2, 3], [4, 5, 6]]"
    builtins: ClassVar[Mapping[str, str]] = {"transposed": TRANSPOSED}

    def check_shape(self, key: NumericKey, text: str) -> None:
        if len(key.shape) != 2:
            raise KeyFormatError(
                f"a matrix check's answer is written row by row, like [[1, 2], [3, 4]] or "
                f"1 2; 3 4, not {text!r}"
            )

    def help_text(self, key: NumericKey) -> str:
        rows, cols = key.shape
        example = "1 2; 3 4" if key.shape != (2, 2) or key.values != (1, 2, 3, 4) else "5 6; 7 8"
        return (
            f"Type the {rows}×{cols} matrix row by row: rows separated by ; or new lines, "
            f"like {example}."
        )

    def fit(self, numbers: Numbers, key: NumericKey) -> Numbers | Refusal:
        rows, cols = key.shape
        if numbers.nested and numbers.shape in ((rows, cols), (cols, rows)):
            return numbers
        if not numbers.nested and len(numbers.flat) == key.size:
            return Refusal(f"Write the matrix row by row. {self.help_text(key)}")
        return Refusal(
            f"This answer has {shape_words(key.shape)}; you gave "
            f"{shape_words(numbers.shape)}. {self.help_text(key)}"
        )

    def mark(self, value: Numbers, key: NumericKey) -> Mark | Refusal:
        flipped = transpose(key)
        if value.shape == key.shape:
            mark = mark_entries(value.flat, key)
            square = key.shape[0] == key.shape[1] and key.values != flipped.values
            wrong = isinstance(mark, Mark) and not mark.correct
            if wrong and square and same_entries(value.flat, flipped):
                return Mark(False, builtin="transposed")
            return mark
        if same_entries(value.flat, flipped):
            return Mark(False, builtin="transposed")
        return Refusal(
            f"This answer has {shape_words(key.shape)}; you gave {shape_words(value.shape)}. "
            f"{self.help_text(key)}"
        )

    def matches(self, value: Numbers, mistake: NumericKey) -> bool:
        return value.shape == mistake.shape and same_entries(value.flat, mistake)

    def input_attrs(self, key: Any) -> dict[str, Any]:
        return {"rows": key.shape[0], "columns": key.shape[1]}

    def builtin_examples(self, key: NumericKey) -> dict[str, str]:
        flipped = transpose(key)
        if flipped.shape == key.shape and flipped.values == key.values:
            return {}  # a symmetric matrix is its own transpose
        rows, cols = flipped.shape
        printed = [dec(v, p) for v, p in zip(flipped.values, flipped.places, strict=True)]
        return {"transposed": "; ".join(" ".join(printed[r * cols : (r + 1) * cols])
                                        for r in range(rows))}  # fmt: skip
