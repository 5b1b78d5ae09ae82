"""Training tools for the engine's hand-written backprop: Adam, clipping, a learning-rate schedule,
deterministic seeds.

Parameters and gradients are plain (possibly nested) dicts of numpy arrays with the same keys,
the engine's convention for every op. Nothing here knows about the model.

- Adam: Kingma & Ba (2015), "Adam: A Method for Stochastic Optimization", Algorithm 1, with the
  bias-corrected moments m̂ = m / (1 − β₁ᵗ), v̂ = v / (1 − β₂ᵗ) and the step
  θ ← θ − lr · m̂ / (√v̂ + ε).
- Clipping by global norm: Pascanu, Mikolov & Bengio (2013). With ‖g‖ = √(Σ over every array of
  Σ g²), gradients are scaled by c / ‖g‖ when ‖g‖ > c, and left alone otherwise.
- Linear decay: lr(t) = lr₀ · (1 − (1 − f) · t / (T − 1)) for steps t = 0 … T − 1, so the first
  step uses lr₀ and the last f · lr₀.
- Seeds: every random stream is a numpy Generator made from (seed, a fixed number for the
  stream's name), so adding a stream never shifts another one.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ._types import Params


def iter_arrays(tree: Mapping[str, Any], prefix: str = "") -> Iterator[tuple[str, NDArray[Any]]]:
    """Yield ("path.to.leaf", array) for every array in a nested dict, in sorted key order."""
    for key in sorted(tree):
        value = tree[key]
        path = f"{prefix}{key}"
        if isinstance(value, Mapping):
            yield from iter_arrays(value, path + ".")
        elif isinstance(value, np.ndarray):
            yield path, value
        else:
            raise ValueError(f"parameter {path!r} is neither an array nor a dict: {type(value)}")


def flatten(tree: Mapping[str, Any]) -> dict[str, NDArray[Any]]:
    """Nested dict of arrays -> flat {"a.b": array} (the arrays are not copied)."""
    return dict(iter_arrays(tree))


def unflatten(flat: Mapping[str, NDArray[Any]]) -> dict[str, Any]:
    """Inverse of :func:`flatten`."""
    out: dict[str, Any] = {}
    for path, value in flat.items():
        node = out
        *parents, leaf = path.split(".")
        for p in parents:
            node = node.setdefault(p, {})
        node[leaf] = value
    return out


def count_weights(tree: Mapping[str, Any]) -> int:
    """Total number of scalars in every array of the tree."""
    return sum(int(a.size) for _, a in iter_arrays(tree))


def _matched(params: Mapping[str, Any], grads: Mapping[str, Any]) -> list[tuple[str, Any, Any]]:
    fp, fg = flatten(params), flatten(grads)
    if fp.keys() != fg.keys():
        missing = sorted(fp.keys() - fg.keys())
        extra = sorted(fg.keys() - fp.keys())
        raise ValueError(f"gradients do not match parameters: missing {missing}, extra {extra}")
    out = []
    for k, p in fp.items():
        g = fg[k]
        if g.shape != p.shape:
            raise ValueError(f"gradient {k!r} has shape {g.shape}, parameter has {p.shape}")
        out.append((k, p, g))
    return out


def global_norm(grads: Mapping[str, Any]) -> float:
    """‖g‖ = √(Σ over every array of Σ g²), in float64."""
    total = 0.0
    for _, g in iter_arrays(grads):
        total += float(np.vdot(g, g))
    return float(np.sqrt(total))


def clip_by_global_norm(grads: Params, max_norm: float) -> float:
    """Scale every gradient in place by max_norm / ‖g‖ if ‖g‖ > max_norm. Returns ‖g‖ before.

    NaN or infinite gradients raise ValueError (training would silently be ruined otherwise).
    """
    if not max_norm > 0:
        raise ValueError(f"max_norm must be positive, got {max_norm}")
    norm = global_norm(grads)
    if not np.isfinite(norm):
        raise ValueError("gradient contains NaN or infinity")
    if norm > max_norm:
        scale = max_norm / norm
        for _, g in iter_arrays(grads):
            g *= scale
    return norm


def linear_decay(step: int, total_steps: int, lr: float, final_fraction: float = 0.1) -> float:
    """Learning rate at ``step`` (0-based) of ``total_steps``: lr at step 0, lr·final_fraction at
    the last step, a straight line between."""
    if total_steps < 1:
        raise ValueError(f"total_steps must be at least 1, got {total_steps}")
    if not 0 <= step < total_steps:
        raise ValueError(f"step {step} is outside 0..{total_steps - 1}")
    if total_steps == 1:
        return lr
    return lr * (1.0 - (1.0 - final_fraction) * step / (total_steps - 1))


@dataclass
class Adam:
    """Adam with bias correction (Kingma & Ba 2015, Algorithm 1); updates parameters in place.

    ``m`` and ``v`` hold the first and second moments of every parameter entry, in one flat
    vector each (parameters in sorted-path order, see :func:`flatten`), and ``t`` the step count.
    Usage: ``opt = Adam(); opt.step(params, grads, lr)`` once per batch. Working on one flat
    vector instead of array by array makes a step a handful of numpy calls, whatever the
    number of parameter arrays.
    """

    beta1: float = 0.9
    beta2: float = 0.999
    eps: float = 1e-8
    t: int = 0
    m: NDArray[np.float64] = field(default_factory=lambda: np.zeros(0))
    v: NDArray[np.float64] = field(default_factory=lambda: np.zeros(0))
    keys: tuple[str, ...] = ()
    sizes: list[int] = field(default_factory=list)

    def moments(self, key: str) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """(m, v) of one parameter array (by its "a.b" path), as flat slices."""
        start = 0
        for k, n in zip(self.keys, self.sizes, strict=True):
            if k == key:
                return self.m[start : start + n], self.v[start : start + n]
            start += n
        raise KeyError(key)

    def step(self, params: Params, grads: Mapping[str, Any], lr: float) -> None:
        """θ ← θ − lr · m̂ / (√v̂ + ε) for every parameter array (in place)."""
        matched = _matched(params, grads)
        keys = tuple(k for k, _, _ in matched)
        if self.t == 0:
            self.keys = keys
            self.sizes = [p.size for _, p, _ in matched]
            total = sum(self.sizes)
            self.m, self.v = np.zeros(total), np.zeros(total)
        elif keys != self.keys:
            raise ValueError("the parameters changed between Adam steps")
        g = np.concatenate([g.ravel() for _, _, g in matched])
        self.t += 1
        b1, b2 = self.beta1, self.beta2
        c1 = 1.0 - b1**self.t  # bias corrections
        c2 = 1.0 - b2**self.t
        self.m *= b1
        self.m += (1.0 - b1) * g
        self.v *= b2
        g *= g
        self.v += (1.0 - b2) * g
        # m̂ / (√v̂ + ε) with m̂ = m / c1, v̂ = v / c2
        denom = np.sqrt(self.v / c2)
        denom += self.eps
        update = self.m / denom
        update *= lr / c1
        start = 0
        for (_, p, _), n in zip(matched, self.sizes, strict=True):
            p -= update[start : start + n].reshape(p.shape)
            start += n


def stream_rng(seed: int, stream: str) -> np.random.Generator:
    """A numpy Generator for one named random stream of a run, e.g. stream_rng(0, "init").

    The stream's name is turned into a number with CRC-32 (stable across processes, unlike
    Python's salted ``hash``), so (seed, name) always gives the same sequence.
    """
    if seed < 0:
        raise ValueError(f"seed must be non-negative, got {seed}")
    return np.random.default_rng([seed, zlib.crc32(stream.encode("utf-8"))])
