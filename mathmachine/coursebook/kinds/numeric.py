"""What the numeric kinds share: a key with a shape and a printed precision, the messages for
boxes that cannot be read, and marking to that precision ("give three decimals").

The tolerance of each entry is half a unit of the key's last printed digit ("0.936" -> 0.0005;
for a list or matrix, of its most precise entry), unless the check gives :tolerance:. An entry
typed with fewer decimals than the key prints, but rounded right (0.94 for 0.936), is not marked
wrong: the learner is asked for the missing decimals and nothing is stored.

Worked by hand: a check may also give, with :by-hand:, what its worked solution reaches when
each step is carried with the numbers as printed (rounded). An entry is then right anywhere from
the exact key to the by-hand value, widened by the tolerance on each side: a learner who keeps
every digit is right, and so is one who rounds as the solution does (or anything in between).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from mathmachine.printing import dec

from .base import FieldSpec, KeyFormatError, Kind, Mark, Refusal, avoid, spelled
from .reader import MAX_ANSWER_CHARS, Num, Numbers, Unreadable, read_numbers

SLACK = 1e-9  # float noise, relative to the size of the numbers compared


@dataclass(frozen=True)
class NumericKey:
    """text: as the source printed it. shape: () a number, (n,) a vector, (r, c) a matrix.
    values, places, tolerances: per entry, row by row. hand: per entry, the value the worked
    solution reaches by hand with its printed numbers (() when the check gives no :by-hand:);
    hand_text: as the source printed it."""

    text: str
    shape: tuple[int, ...]
    values: tuple[float, ...]
    places: tuple[int, ...]
    tolerances: tuple[float, ...]
    hand: tuple[float, ...] = ()
    hand_text: str = ""

    @property
    def size(self) -> int:
        return len(self.values)

    def bounds(self, i: int) -> tuple[float, float]:
        """The right answers of entry i: from the exact key to the by-hand value, widened by
        the tolerance on each side."""
        k, t = self.values[i], self.tolerances[i]
        h = self.hand[i] if self.hand else k
        return min(k, h) - t, max(k, h) + t

    def permuted(self, order: Sequence[int], shape: tuple[int, ...] | None = None) -> NumericKey:
        """The key with its entries taken in ``order`` (a sorted or transposed key)."""

        def take(xs: tuple[Any, ...]) -> tuple[Any, ...]:
            return tuple(xs[i] for i in order) if xs else xs

        return NumericKey(
            self.text,
            self.shape if shape is None else shape,
            take(self.values),
            take(self.places),
            take(self.tolerances),
            take(self.hand),
            self.hand_text,
        )


def numeric_key(text: str, spec: FieldSpec, *, what: str) -> NumericKey:
    """Read a key (or a mistake's answer) from the source text; shape checked by the caller."""
    numbers = read_numbers(text)
    if isinstance(numbers, Unreadable):
        raise KeyFormatError(f"{what} {text!r} cannot be read as numbers ({numbers.reason})")
    # The key's precision is its most precise entry's: in "[[0.5, 0.25], [1, 2]]" every entry
    # is meant to two decimals (1 is exactly 1, not anything from 0.5 to 1.5).
    precision = max(9 if n.places is None else n.places for n in numbers.flat)
    places = tuple(precision for _ in numbers.flat)
    if spec.tolerance is not None:
        tolerances = tuple(spec.tolerance for _ in places)
    else:
        tolerances = tuple(0.5 * 10.0**-p for p in places)
    return NumericKey(text.strip(), numbers.shape, numbers.values, places, tolerances)


def with_hand(key: NumericKey, text: str, spec: FieldSpec) -> NumericKey:
    """The key with its :by-hand: value (read like the key, shaped like it)."""
    hand = numeric_key(text, spec, what="the by-hand answer")
    if hand.shape != key.shape:
        raise KeyFormatError(
            f"the by-hand answer {text!r} has {shape_words(hand.shape)}; the answer has "
            f"{shape_words(key.shape)}"
        )
    return NumericKey(
        key.text, key.shape, key.values, key.places, key.tolerances, hand.values, hand.text
    )


def close(value: float, target: float, tolerance: float) -> bool:
    return abs(value - target) <= tolerance + SLACK * max(1.0, abs(target))


def within(value: float, bounds: tuple[float, float]) -> bool:
    low, high = bounds
    slack = SLACK * max(1.0, abs(low), abs(high))
    return low - slack <= value <= high + slack


def rounded_right(n: Num, target: float, key_places: int) -> bool:
    """n has fewer decimals than the key (but some), and is the key rounded to them."""
    if n.places is None or not 1 <= n.places < key_places:
        return False
    return close(n.value, target, 0.5 * 10.0**-n.places)


def _rounded_key(n: Num, key: NumericKey, i: int) -> bool:
    """n is the key (or its by-hand value) rounded to fewer, but some, decimals."""
    targets = (key.values[i], key.hand[i]) if key.hand else (key.values[i],)
    return any(rounded_right(n, t, key.places[i]) for t in targets)


def mark_entries(nums: Sequence[Num], key: NumericKey) -> Mark | Refusal:
    """Correct when every entry is within its bounds (the tolerance around the key, or from the
    key to its by-hand value); "give N decimals" when every entry is either within them or the
    key rounded to fewer (but some) decimals; else wrong."""
    right = [within(n.value, key.bounds(i)) for i, n in enumerate(nums)]
    if all(right):
        return Mark(True)
    short = [
        not w and _rounded_key(n, key, i) for i, (w, n) in enumerate(zip(right, nums, strict=True))
    ]
    if any(short) and all(w or s for w, s in zip(right, short, strict=True)):
        places = max(key.places)
        which = "each number" if key.size > 1 else "your answer"
        return Refusal(f"Nearly there: give {which} to {spelled(places)} decimal places.")
    return Mark(False)


def same_entries(nums: Sequence[Num], target: NumericKey) -> bool:
    """Is the answer this (mistake's, or reordered key's) answer, within its bounds or rounded
    to fewer decimals?"""
    if len(nums) != target.size:
        return False
    return all(within(n.value, target.bounds(i)) or _rounded_key(n, target, i)
               for i, n in enumerate(nums))  # fmt: skip


def _values_text(values: Sequence[float], places: int) -> str:
    return ", ".join(dec(v, places) for v in values)


def example_list(key: NumericKey, n: int) -> str:
    """A list of n numbers for a message, never the key itself."""
    candidates = []
    for base in (0.1, 0.2, 0.3):
        vals = [round(base * (i + 1), 1) for i in range(n)]
        candidates.append("(" + _values_text(vals, 1) + ")")
    taken = ["(" + _values_text(key.values, 1) + ")"]
    return avoid(candidates, taken)


def example_number(key: NumericKey, candidates: Sequence[str] = ("0.5", "0.25", "2.5")) -> str:
    taken = [dec(v, 1) for v in key.values] + [dec(v, 2) for v in key.values]
    taken += [dec(v, 3) for v in key.values]
    return avoid(candidates, taken)


def unreadable_message(u: Unreadable, help_text: str) -> str:
    """The learner-facing message for a box the reader could not read; help_text says what
    this kind expects ("Type a number, like 0.5.")."""
    if u.reason == "too-long":
        return f"That answer is too long: keep it under {MAX_ANSWER_CHARS} characters."
    if u.reason == "zero-denominator":
        return "A fraction cannot have 0 below the line."
    if u.reason == "decimal-comma":
        return f"Use a point for decimals, as in {u.detail}: here a comma separates numbers."
    if u.reason == "not-a-number" and u.detail:
        token = u.detail if len(u.detail) <= 20 else u.detail[:20] + "…"
        return f"“{token}” is not a number. {help_text}"
    if u.reason == "ragged":
        return f"Every row needs the same number of entries. {help_text}"
    return help_text


def count_message(numbers: Numbers, want: int, help_text: str) -> str:
    """The box holds the wrong count of numbers: say so (or spot the decimal comma)."""
    if numbers.comma_decimal is not None:
        again = read_numbers(numbers.comma_decimal)
        if isinstance(again, Numbers) and len(again.flat) == want:
            return (
                f"Use a point for decimals, as in {numbers.comma_decimal}: "
                "here a comma separates numbers."
            )
    got = len(numbers.flat)
    if want == 1:
        return f"This answer is one number; you gave {got}. {help_text}"
    return f"This answer is a list of {want} numbers; you gave {got}. {help_text}"


class NumericKind(Kind):
    """Base of number, vector and matrix: a key with a shape, read and marked entry by entry."""

    takes_tolerance = True

    def help_text(self, key: NumericKey) -> str:
        raise NotImplementedError

    def check_shape(self, key: NumericKey, text: str) -> None:
        raise NotImplementedError

    def key(self, text: str, spec: FieldSpec) -> NumericKey:
        key = numeric_key(text, spec, what="answer")
        self.check_shape(key, text)
        return with_hand(key, spec.by_hand, spec) if spec.by_hand is not None else key

    def mistake(self, text: str, key: Any, spec: FieldSpec) -> NumericKey:
        got = numeric_key(text, spec, what="mistake")
        if got.shape != key.shape:
            raise KeyFormatError(
                f"the mistake {text!r} has {shape_words(got.shape)}; the answer has "
                f"{shape_words(key.shape)}"
            )
        # A mistake is recognised to the key's precision, whatever precision it was printed at.
        return NumericKey(got.text, got.shape, got.values, key.places, key.tolerances)

    def read(self, raw: str, key: NumericKey) -> Numbers | Refusal:
        numbers = read_numbers(raw)
        if isinstance(numbers, Unreadable):
            return Refusal(unreadable_message(numbers, self.help_text(key)))
        return self.fit(numbers, key)

    def fit(self, numbers: Numbers, key: NumericKey) -> Numbers | Refusal:
        if len(numbers.flat) != key.size or numbers.nested:
            return Refusal(count_message(numbers, key.size, self.help_text(key)))
        return numbers

    def mark(self, value: Numbers, key: NumericKey) -> Mark | Refusal:
        return mark_entries(value.flat, key)

    def matches(self, value: Numbers, mistake: NumericKey) -> bool:
        return same_entries(value.flat, mistake)

    def printed(self, key: NumericKey) -> tuple[str, ...]:
        """The key's figures, then those of its by-hand value that differ (a hint may print
        neither)."""
        out = [dec(v, p) for v, p in zip(key.values, key.places, strict=True)]
        hand = [dec(v, p) for v, p in zip(key.hand, key.places, strict=False)]
        return (*out, *(h for h in dict.fromkeys(hand) if h not in out))

    def describe(self, key: NumericKey) -> str:
        return key.text


def shape_words(shape: tuple[int, ...]) -> str:
    if shape == ():
        return "one number"
    if len(shape) == 1:
        return f"{shape[0]} numbers"
    return f"{shape[0]} rows of {shape[1]}"
