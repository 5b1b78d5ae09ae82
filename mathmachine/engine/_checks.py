"""Input validation shared by the engine: clear ValueErrors instead of silent wrong answers.

The public modules check what a caller hands them with these, once, and then run the math of
:mod:`.ops`, which trusts its arrays."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ._types import Array, Params


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


def float_array(x: ArrayLike, name: str, *, min_ndim: int = 0) -> Array:
    """``x`` as a finite, non-empty float array: float32 stays float32, anything else float64.

    Raises ValueError naming ``name`` for non-numeric, empty, too few dimensions, NaN or inf.
    """
    if isinstance(x, np.ndarray) and x.dtype == np.float32:
        if x.ndim < min_ndim:
            raise ValueError(
                f"{name} must have at least {min_ndim} dimension(s), got shape {x.shape}"
            )
        if x.size == 0:
            raise ValueError(f"{name} is empty (shape {x.shape})")
        if not np.isfinite(x).all():
            raise ValueError(f"{name} contains NaN or infinity")
        return x
    if isinstance(x, np.ndarray) and x.dtype.kind not in "biuf":
        raise ValueError(f"{name} must be numeric, got an array of dtype {x.dtype}")
    return as_finite(x, name, min_ndim=min_ndim)


def param_array(params: Params, key: str, shape: tuple[int, ...], where: str) -> Array:
    """params[key] as a float array of exactly ``shape``; finiteness is checked on the output.

    Scanning every weight on every call would cost more than the small matrix products it guards;
    a NaN or inf in a weight always reaches the output, where :func:`check_output` names it.
    """
    if key not in params:
        raise ValueError(f"{where} params lack {key!r}")
    arr = np.asarray(params[key])
    if arr.dtype != np.float32 and arr.dtype != np.float64:
        if arr.dtype.kind not in "biuf":
            raise ValueError(f"{where} param {key!r} must be numeric, got dtype {arr.dtype}")
        arr = arr.astype(np.float64)
    if arr.shape != shape:
        raise ValueError(f"{where} param {key!r} must have shape {shape}, got {arr.shape}")
    return arr


def optional_param(params: Params, key: str, shape: tuple[int, ...], where: str) -> Array | None:
    """Like :func:`param_array`, but an absent key means "no such parameter" (e.g. no bias)."""
    if key not in params or params[key] is None:
        return None
    return param_array(params, key, shape, where)


def name_bad_input(inputs: Mapping[str, Any]) -> None:
    """Raise ValueError naming the first array in ``inputs`` that holds NaN or inf, if any."""
    for name, arr in inputs.items():
        if arr is not None and not np.isfinite(np.asarray(arr, dtype=np.float64)).all():
            raise ValueError(f"{name} contains NaN or infinity")


def check_output(out: NDArray[Any], what: str, inputs: Mapping[str, Any]) -> None:
    """Raise ValueError if ``out`` is not finite, naming the input that carried NaN/inf."""
    if np.isfinite(out).all():
        return
    name_bad_input(inputs)
    raise ValueError(f"{what} overflowed: the result is not finite (inputs too large)")


def run_checked(
    what: str,
    inputs: Mapping[str, Any] | Callable[[], Mapping[str, Any]],
    fn: Any,
    *args: Any,
) -> Any:
    """``fn(*args)`` -> (out, cache), with a NaN/inf weight named rather than half-reported.

    A NaN in a weight can stop a softmax half-way ("softmax input contains NaN"); the message
    the caller needs is which parameter was bad, so that is looked for first. ``inputs`` may be
    a function returning the name -> array mapping: it is then only built if something failed.
    """
    with np.errstate(invalid="ignore", over="ignore"):
        try:
            result = fn(*args)
        except ValueError:
            name_bad_input(inputs() if callable(inputs) else inputs)
            raise
    out = result[0]
    if not np.isfinite(out).all():
        check_output(out, what, inputs() if callable(inputs) else inputs)
    return result


def check_grad(dout: ArrayLike, shape: tuple[int, ...], what: str) -> Array:
    """The incoming gradient of a backward: finite and the shape of the forward's output."""
    arr = float_array(dout, f"gradient for {what}")
    if arr.shape != shape:
        raise ValueError(
            f"gradient for {what} must have the output's shape {shape}, got {arr.shape}"
        )
    return arr


def check_ids(ids: ArrayLike, size: int, name: str = "ids") -> NDArray[np.intp]:
    arr = np.asarray(ids)
    if arr.size == 0:
        raise ValueError(f"{name} is empty (shape {arr.shape})")
    if arr.dtype.kind not in "iu":
        if arr.dtype.kind == "b" or arr.dtype.kind not in "f":
            raise ValueError(f"{name} must be integers, got dtype {arr.dtype}")
        if not (np.isfinite(arr).all() and np.all(arr == np.round(arr))):
            raise ValueError(f"{name} must be whole numbers")
    arr = arr.astype(np.intp)
    if arr.min() < 0 or arr.max() >= size:
        raise ValueError(
            f"{name} must lie in 0..{size - 1}, got values from {arr.min()} to {arr.max()}"
        )
    return arr


def check_eps(eps: float) -> float:
    if not (isinstance(eps, int | float) and math.isfinite(eps) and eps >= 0):
        raise ValueError(f"eps must be a finite number >= 0, got {eps!r}")
    return float(eps)
