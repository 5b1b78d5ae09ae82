"""Does a fresh training run reproduce the committed tiny translator? What can be promised where.

Every random number comes from the seed, so on one machine (one numpy, one BLAS build, one CPU)
the same seed gives the same bytes. On another CPU, OpenBLAS may pick another kernel and round
sums in another order: the run then differs in the last bits (measured: weights by at most
~1e-11, the 6-decimal loss curve by one unit in its last digit) and the files are no longer
byte-identical. What holds everywhere, and what the tests and ``--check`` assert:

- every weight within :data:`WEIGHTS_ATOL` of the committed float32 file (after the same
  float32 rounding),
- every step of the training loss within :data:`LOSS_ATOL` of the committed curve, and the
  gradient norms within :data:`GRAD_NORM_ATOL`,
- at every checkpoint, the same exact-match accuracies and the same greedy outputs, and the
  cross-attention maps within :data:`MAP_ATOL`,
- exactly the same translation as the committed weights give, on every training and held-out pair.

The tolerances are 10^5-10^6 times the differences seen between OpenBLAS's kernels for
different CPUs, and far below what a genuinely different run moves (perturbing the initial
weights by a relative 1e-7 moves a weight by 0.2 and the loss by 0.01).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..train import flatten
from .corpus import split
from .training import (
    HISTORY_PATH,
    WEIGHTS_PATH,
    TrainResult,
    exact_match,
    history_bytes,
    history_dict,
    read_weights,
    weights_bytes,
)

#: Largest allowed |fresh - committed| for any weight, both rounded to float32. A float32 step at
#: the largest weight (~1.6) is 1.2e-7, so one rounding flip fits.
WEIGHTS_ATOL = 1e-6
#: Largest allowed difference at any step of the loss curve (stored to 6 decimals).
LOSS_ATOL = 1e-5
#: Largest allowed difference of any step's gradient norm (before clipping; stored to 6 decimals).
GRAD_NORM_ATOL = 1e-4
#: Largest allowed difference of a cross-attention weight at a checkpoint (stored to 4 decimals).
MAP_ATOL = 2e-4


@dataclass
class Comparison:
    """A fresh run against the committed files. ``ok`` is the promise; ``bit_for_bit`` a note."""

    weights_identical: bool
    history_identical: bool
    weights_max_diff: float
    loss_max_diff: float
    grad_norm_max_diff: float
    map_max_diff: float
    checkpoint_mismatches: list[str] = field(default_factory=list)
    translation_mismatches: list[tuple[str, list[str], list[str]]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    n_pairs: int = 0

    @property
    def bit_for_bit(self) -> bool:
        return self.weights_identical and self.history_identical

    @property
    def ok(self) -> bool:
        return not self.problems

    def lines(self) -> list[str]:
        """A human report, one finding a line."""
        out = [
            f"weights: largest difference {self.weights_max_diff:.2g} (allowed {WEIGHTS_ATOL:g})",
            f"loss curve: largest difference {self.loss_max_diff:.2g} (allowed {LOSS_ATOL:g}); "
            f"gradient norms {self.grad_norm_max_diff:.2g} (allowed {GRAD_NORM_ATOL:g})",
            f"checkpoint maps: largest difference {self.map_max_diff:.2g} (allowed {MAP_ATOL:g})",
            f"translations: {self.n_pairs - len(self.translation_mismatches)} of {self.n_pairs} "
            "training and held-out pairs the same as the committed weights give",
        ]
        for name, same in (
            (WEIGHTS_PATH.name, self.weights_identical),
            (HISTORY_PATH.name, self.history_identical),
        ):
            out.append(
                f"{name}: byte for byte identical (same CPU and BLAS as the committed run)"
                if same
                else f"{name}: not byte for byte identical (expected on another CPU or BLAS)"
            )
        out += [f"PROBLEM: {p}" for p in self.problems]
        return out


def _max_diff(a: list[float], b: list[float]) -> float:
    if len(a) != len(b):
        return float("inf")
    return float(np.max(np.abs(np.asarray(a) - np.asarray(b)))) if a else 0.0


def compare_with_committed(
    result: TrainResult, *, weights_path: Path = WEIGHTS_PATH, history_path: Path = HISTORY_PATH
) -> Comparison:
    """Compare a fresh run (normally ``train(TrainSettings())``) with the committed files."""
    committed_params, committed_cfg = read_weights(weights_path)
    committed_hist = json.loads(history_path.read_text(encoding="utf-8"))
    fresh_hist = history_dict(result)
    problems: list[str] = []

    if committed_cfg != result.config:
        problems.append(f"config {result.config} differs from the committed {committed_cfg}")
        w_diff = float("inf")
    else:
        cf, ff = flatten(committed_params), flatten(result.params)
        if cf.keys() != ff.keys():
            problems.append("the fresh run has other weight arrays than the committed file")
            w_diff = float("inf")
        else:
            w_diff = max(
                float(np.max(np.abs(cf[k] - ff[k].astype(np.float32).astype(np.float64))))
                for k in cf
            )

    loss_diff = _max_diff(committed_hist["loss"], fresh_hist["loss"])
    gn_diff = _max_diff(committed_hist["grad_norm"], fresh_hist["grad_norm"])
    map_diff = 0.0
    ck_mismatch: list[str] = []
    c_cps, f_cps = committed_hist["checkpoints"], fresh_hist["checkpoints"]
    if [c["step"] for c in c_cps] != [c["step"] for c in f_cps]:
        ck_mismatch.append("the checkpoints are at other steps")
    else:
        for c, f in zip(c_cps, f_cps, strict=True):
            for key in ("train_accuracy", "held_out_accuracy"):
                if c[key] != f[key]:
                    ck_mismatch.append(f"step {c['step']}: {key} {f[key]} != {c[key]}")
            if (c["loss"] is None) != (f["loss"] is None) or (
                c["loss"] is not None and not abs(c["loss"] - f["loss"]) <= LOSS_ATOL
            ):
                ck_mismatch.append(f"step {c['step']}: loss {f['loss']} != {c['loss']}")
            for cs, fs in zip(c["sentences"], f["sentences"], strict=True):
                if cs["greedy_output"] != fs["greedy_output"]:
                    ck_mismatch.append(
                        f"step {c['step']}: {' '.join(cs['english'])!r} -> "
                        f"{' '.join(fs['greedy_output'])} != {' '.join(cs['greedy_output'])}"
                    )
                a = np.asarray(cs["cross_attention_per_head"])
                b = np.asarray(fs["cross_attention_per_head"])
                map_diff = max(
                    map_diff, float(np.max(np.abs(a - b))) if a.shape == b.shape else float("inf")
                )

    train_pairs, held = split()
    pairs = [*train_pairs, *held]
    _, committed_out = exact_match(committed_params, committed_cfg, pairs)
    _, fresh_out = exact_match(result.params, result.config, pairs)
    t_mismatch = [
        (p.english_text, c, f)
        for p, c, f in zip(pairs, committed_out, fresh_out, strict=True)
        if c != f
    ]

    for name, diff, atol in (
        ("a weight", w_diff, WEIGHTS_ATOL),
        ("the loss curve", loss_diff, LOSS_ATOL),
        ("the gradient norms", gn_diff, GRAD_NORM_ATOL),
        ("a checkpoint's cross-attention", map_diff, MAP_ATOL),
    ):
        if not diff <= atol:
            problems.append(f"{name} differs by {diff:.3g}, more than {atol:g}")
    problems += ck_mismatch
    problems += [
        f"{en!r}: fresh run writes {' '.join(f)!r}, committed weights {' '.join(c)!r}"
        for en, c, f in t_mismatch
    ]
    return Comparison(
        weights_identical=weights_path.read_bytes() == weights_bytes(result.params, result.config),
        history_identical=history_path.read_bytes() == history_bytes(result),
        weights_max_diff=w_diff,
        loss_max_diff=loss_diff,
        grad_norm_max_diff=gn_diff,
        map_max_diff=map_diff,
        checkpoint_mismatches=ck_mismatch,
        translation_mismatches=t_mismatch,
        problems=problems,
        n_pairs=len(pairs),
    )
