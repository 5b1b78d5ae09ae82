"""Input validation shared by the engine: clear ValueErrors instead of silent wrong answers."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray


def as_finite(x: ArrayLike, name: str, *, min_ndim: int = 0) -> NDArray[np.float64]:
    """Return ``x`` as a float64 array; raise ValueError naming ``name`` if it is unusable."""
    try:
        arr = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be numeric, got {x!r}") from exc
    if arr.ndim < min_ndim:
        raise ValueError(
            f"{name} must have at least {min_ndim} dimension(s), got shape {arr.shape}"
        )
    if arr.size == 0:
        raise ValueError(f"{name} is empty (shape {arr.shape})")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinity")
    return arr


def same_last_dim(a: NDArray[np.float64], b: NDArray[np.float64], an: str, bn: str) -> None:
    if a.shape[-1] != b.shape[-1]:
        raise ValueError(
            f"{an} has length {a.shape[-1]} but {bn} has length {b.shape[-1]}; they must match"
        )
