"""Central finite differences in float64: the one gradient check every engine backward is held to.

Usage (the same for every op; see tests/engine/test_layers.py):

    x = rng.standard_normal((2, 3, 4))
    probe = rng.standard_normal(out_shape)           # L = sum(out * probe), so dL/dout = probe

    def loss() -> float:
        return float(np.sum(op(x) * probe))

    _, cache = op_forward(x)
    dx = op_backward(probe, cache)
    assert_gradients(loss, {"x": x}, {"x": dx})

``assert_gradients`` perturbs every entry of each named array IN PLACE (the very arrays the loss
reads), takes (L(a + h) - L(a - h)) / 2h, restores the entry, and compares with the analytic
gradient: it passes when max|num - ana| <= tol * max(max|num|, max|ana|) + atol. float64 central
differences with h = 1e-6 are accurate to about 1e-9 relative on smooth ops, so the default
tol = 1e-6 fails any real mistake in a backward while leaving room for rounding; atol (default
1e-8 * max(1, |L|)) only covers gradients that are exactly 0 in theory, where the finite
difference is rounding noise of size about 1e-16 |L| / h (e.g. the key bias b_k, which shifts a
whole row of scores and so changes no softmax weight).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np
from numpy.typing import NDArray

__all__ = ["assert_gradients", "numeric_gradient", "relative_error"]


def numeric_gradient(
    loss: Callable[[], float],
    a: NDArray[np.float64],
    *,
    h: float = 1e-6,
    indices: list[tuple[int, ...]] | None = None,
) -> NDArray[np.float64]:
    """dL/da by central differences; only ``indices`` (others left 0) when given."""
    if a.dtype != np.float64:
        raise TypeError(f"gradient checks run in float64, got {a.dtype}")
    grad = np.zeros_like(a)
    todo = indices if indices is not None else list(np.ndindex(a.shape))
    for idx in todo:
        old = a[idx]
        a[idx] = old + h
        up = loss()
        a[idx] = old - h
        down = loss()
        a[idx] = old
        grad[idx] = (up - down) / (2 * h)
    return grad


def relative_error(
    num: NDArray[np.float64], ana: NDArray[np.float64], floor: float = 1e-10
) -> float:
    top = max(float(np.max(np.abs(num), initial=0)), float(np.max(np.abs(ana), initial=0)))
    scale = max(top, floor)
    return float(np.max(np.abs(num - ana), initial=0) / scale)


def assert_gradients(
    loss: Callable[[], float],
    arrays: Mapping[str, NDArray[np.float64]],
    grads: Mapping[str, NDArray[np.float64] | None],
    *,
    h: float = 1e-6,
    tol: float = 1e-6,
    atol: float | None = None,
    max_entries: int | None = 400,
    seed: int = 0,
) -> None:
    """Check each analytic gradient ``grads[name]`` against finite differences of ``loss``.

    ``max_entries`` caps how many entries of a large array are checked (a seeded random sample,
    always including the first and last entry); ``None`` checks all of them.
    """
    missing = set(arrays) - {k for k, g in grads.items() if g is not None}
    if missing:
        raise AssertionError(f"no analytic gradient for {sorted(missing)}")
    rng = np.random.default_rng(seed)
    if atol is None:
        atol = 1e-8 * max(1.0, abs(float(loss())))
    for name, a in arrays.items():
        ana = np.asarray(grads[name], dtype=np.float64)
        if ana.shape != a.shape:
            raise AssertionError(f"gradient for {name} has shape {ana.shape}, expected {a.shape}")
        indices = None
        if max_entries is not None and a.size > max_entries:
            flat = rng.choice(a.size, size=max_entries - 2, replace=False)
            flat = np.unique(np.concatenate([flat, [0, a.size - 1]]))
            indices = [tuple(int(i) for i in np.unravel_index(f, a.shape)) for f in flat]
        num = numeric_gradient(loss, a, h=h, indices=indices)
        if indices is not None:
            mask = np.zeros(a.shape, dtype=bool)
            for idx in indices:
                mask[idx] = True
            num, ana = num[mask], ana[mask]
        err = relative_error(num, ana)
        top = max(float(np.max(np.abs(num), initial=0)), float(np.max(np.abs(ana), initial=0)))
        if not float(np.max(np.abs(num - ana), initial=0)) <= tol * top + atol:
            raise AssertionError(
                f"gradient for {name!r} is off: relative error {err:.3g} > {tol:.1g}\n"
                f"numeric {num.ravel()[:6]}\nanalytic {ana.ravel()[:6]}"
            )
