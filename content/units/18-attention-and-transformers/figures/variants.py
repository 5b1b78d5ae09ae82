"""Fresh numbers: the helpers every section's VARIANTS draw with (a seed always gives the same
problem)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import numpy as np

#: how many draws a variant may reject before its seed is declared unusable
MAX_DRAWS = 1000

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
