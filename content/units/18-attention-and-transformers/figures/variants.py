"""Fresh numbers: the helpers every section's VARIANTS draw with (a seed always gives the same
problem: ``draw``), tell their slips from the key (``distinct``), and work a solution by hand
with its printed numbers (``carried``, ``kept``)."""

from __future__ import annotations

from collections.abc import Callable
from decimal import ROUND_HALF_EVEN, ROUND_HALF_UP, Decimal
from typing import Any, TypeVar

import numpy as np
from numpy.typing import ArrayLike

#: how many draws a variant may reject before its seed is declared unusable
MAX_DRAWS = 1000
#: a carried number is first taken to nine decimals (its binary noise gone), then rounded
NINE = Decimal("1e-9")

T = TypeVar("T")


def draw(seed: int, make: Callable[[np.random.Generator], T | None]) -> T:
    """The first acceptable draw of ``make`` from the seed's generator (None = draw again)."""
    rng = np.random.default_rng(seed)
    for _ in range(MAX_DRAWS):
        got = make(rng)
        if got is not None:
            return got
    raise ValueError(f"no acceptable problem in {MAX_DRAWS} draws for seed {seed}")


def distinct(*printed: str) -> bool:
    """Whether the printed key and its named mistakes all read differently (else a mistake
    would grade as the key, or two mistakes as each other)."""
    return len(set(printed)) == len(printed)


def carried(x: float | ArrayLike, places: int = 3) -> Any:
    """A number (or array) as the page prints it, read back: what a learner carries to the next
    step of a worked solution. Rounded half away from zero, as by hand (0.0615 -> 0.062), after
    float noise is dropped; ``dec(carried(x))`` prints the same digits.

    Work a solution's steps from carried numbers, so that every printed step is true of the
    numbers printed before it, and give the end of that path as the check's ``:by-hand:``."""
    unit = Decimal(1).scaleb(-places)

    def one(v: float) -> float:
        nine = Decimal(float(v)).quantize(
            NINE, rounding=ROUND_HALF_EVEN
        )  # half to even, as printing nine places does
        return float(nine.quantize(unit, rounding=ROUND_HALF_UP)) + 0.0

    if np.ndim(x) == 0:
        return one(float(x))  # type: ignore[arg-type]
    a = np.asarray(x, dtype=float)
    return np.array([one(v) for v in a.ravel()]).reshape(a.shape)


def kept(by_hand: str, exact: str, what: str = "the answer is") -> str:
    """The solution's last words when the numbers carried by hand end elsewhere than every
    digit kept: " Kept to every digit, the answer is (…): both are right." ("" when the two
    print alike)."""
    return "" if by_hand == exact else f" Kept to every digit, {what} {exact}: both are right."
