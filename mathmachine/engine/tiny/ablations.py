"""What each part of the tiny translator buys (Unit 18 §13, "watch it learn"): the same model
trained again by the engine with one part taken away, from the same seed, on the same batches.

    no-positions   no sinusoidal positions, on either side: the words come as a bag
    no-layernorm   no LayerNorm anywhere: each sublayer is x + f(x)
    one-head       one attention head of width 32 instead of four of width 8 (the same weights)
    decoder-only   GPT's shape: one causal stack of two blocks reads the English, then writes the
                   Hindi (:mod:`.decoder_only`); no cross-attention

Every run uses the committed model's recipe (:class:`.training.TrainSettings`: seed 0, 600
steps, Adam, the same batches in the same order). Its history is kept in
``ablations/<name>.json`` beside this file: the history format of ``history.json`` (loss and
gradient norm per step; checkpoints with both accuracies, the greedy outputs and the map of the
two watched sentences) plus the weight count and every pair the final model gets wrong.

``python -m mathmachine.engine.tiny.ablations`` trains the four runs and writes the files
(``--only NAME`` one of them; ``--check`` writes nothing and exits 1 unless a fresh run
reproduces the committed files within the tolerances of :mod:`.reproduce`; ``--steps N`` with
``--check`` compares the first N steps only). The runs are timed; timings are printed, not kept.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from .._types import Params
from .corpus import split, vocab
from .model import DECODER_ONLY, TinyConfig, weight_parts
from .reproduce import GRAD_NORM_ATOL, LOSS_ATOL, MAP_ATOL
from .training import (
    TrainResult,
    TrainSettings,
    decode_ids,
    exact_match,
    greedy,
    history_dict,
    train,
)

HISTORY_DIR = Path(__file__).resolve().parent / "ablations"


@dataclass(frozen=True)
class Ablation:
    """One part taken away: ``changes`` to the committed model's :class:`.model.TinyConfig`."""

    name: str
    title: str  # as the page names the run: "without positions"
    removed: str  # what is gone, in a sentence
    changes: tuple[tuple[str, Any], ...]

    def config(self) -> TinyConfig:
        v = vocab()
        return replace(TinyConfig(len(v.english), len(v.hindi)), **dict(self.changes))

    @property
    def path(self) -> Path:
        return HISTORY_DIR / f"{self.name}.json"


ABLATIONS: tuple[Ablation, ...] = (
    Ablation(
        "no-positions",
        "without positions",
        "No position is added to any word, English or Hindi.",
        (("positions", False),),
    ),
    Ablation(
        "no-layernorm",
        "without LayerNorm",
        "Every LayerNorm is taken out: each sublayer adds its output to its input, x + f(x).",
        (("layer_norm", False),),
    ),
    Ablation(
        "one-head",
        "with one head",
        "One attention head 32 numbers wide instead of four heads 8 wide: the same weights.",
        (("n_heads", 1),),
    ),
    Ablation(
        "decoder-only",
        "decoder-only",
        "No encoder and no cross-attention: one causal stack of two blocks reads the English "
        "words and then writes the Hindi ones.",
        (("arch", DECODER_ONLY), ("enc_layers", 0), ("dec_layers", 2)),
    ),
)
BY_NAME = {a.name: a for a in ABLATIONS}


def ablation(name: str) -> Ablation:
    if name not in BY_NAME:
        raise ValueError(f"unknown ablation {name!r}: one of {', '.join(BY_NAME)}")
    return BY_NAME[name]


def train_ablation(name: str, settings: TrainSettings | None = None) -> TrainResult:
    """A fresh run of one ablation (the committed recipe unless ``settings`` says otherwise)."""
    return train(settings or TrainSettings(), ablation(name).config())


def _mistakes(result: TrainResult, pairs: Sequence[Any]) -> list[dict[str, str]]:
    _, outputs = exact_match(result.params, result.config, pairs)
    return [
        {"english": p.english_text, "expected": p.hindi_text, "written": " ".join(out)}
        for p, out in zip(pairs, outputs, strict=True)
        if out != list(p.hindi)
    ]


def history(name: str, result: TrainResult) -> dict[str, Any]:
    """The kept history of one run: :func:`.training.history_dict` plus the ablation, the
    weight count and the pairs the final model translates wrongly (training, held out)."""
    a = ablation(name)
    train_pairs, held = split()
    return {
        "ablation": {"name": a.name, "title": a.title, "removed": a.removed},
        **history_dict(result),
        "weight_count": weight_parts(result.params),
        "train_mistakes": _mistakes(result, train_pairs),
        "held_out_mistakes": _mistakes(result, held),
        "order_test": order_test(result.params, result.config),
    }


#: §8's test, on the trained model: the unit's sentence and the same words backwards.
ORDER_TEST = ("I drink tea", "tea drink I")


def order_test(params: Params, cfg: TinyConfig) -> list[dict[str, Any]]:
    """What the model writes for the unit's sentence and for its words backwards (a model
    without positions cannot tell them apart: it writes the same for both)."""
    v = vocab()
    out = []
    for text in ORDER_TEST:
        _, ids = v.english_ids(text)
        written, _ = greedy(params, cfg, np.asarray([ids]), np.asarray([len(ids)]))
        out.append({"english": text, "written": decode_ids(written[0])})
    return out


def history_bytes(hist: dict[str, Any]) -> bytes:
    return (json.dumps(hist, ensure_ascii=False, indent=1) + "\n").encode("utf-8")


@cache
def _committed(name: str) -> str:
    return ablation(name).path.read_text(encoding="utf-8")


def committed(name: str) -> dict[str, Any]:
    """The committed history of one ablation (a fresh copy each call)."""
    out: dict[str, Any] = json.loads(_committed(name))
    return out


def _maps(sentence: dict[str, Any]) -> np.ndarray:
    key = next(k for k in sentence if k.endswith("_per_head"))
    return np.asarray(sentence[key])


@dataclass
class Comparison:
    """A fresh history against the kept one: ``problems`` (empty: reproduced) and the largest
    differences seen (loss and gradient norm per step, map weights)."""

    problems: list[str] = field(default_factory=list)
    loss_max_diff: float = 0.0
    grad_norm_max_diff: float = 0.0
    map_max_diff: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.problems

    def lines(self) -> list[str]:
        return [
            f"  largest differences: loss {self.loss_max_diff:.2g} (allowed {LOSS_ATOL:g}), "
            f"gradient norm {self.grad_norm_max_diff:.2g} (allowed {GRAD_NORM_ATOL:g}), "
            f"maps {self.map_max_diff:.2g} (allowed {MAP_ATOL:g})",
            *(f"  PROBLEM: {p}" for p in self.problems),
            "  reproduced within the tolerances" if self.ok else "  NOT reproduced",
        ]


def compare(fresh: dict[str, Any], kept: dict[str, Any], steps: int | None = None) -> Comparison:
    """A fresh history against the kept one: beyond the tolerances of :mod:`.reproduce` (loss and
    gradient norm per step, maps) or at all (settings, config, accuracies, greedy outputs,
    mistakes, the order test, weight counts) is a problem. ``steps``: only the first ``steps``
    steps and the checkpoints up to there (a run cut short with ``train(stop_after=...)``)."""
    out = Comparison()
    problems = out.problems
    n = steps if steps is not None else len(kept["loss"])
    if fresh["settings"] != kept["settings"]:
        problems.append("the training settings differ")
    if fresh["config"] != kept["config"]:
        problems.append(f"config {fresh['config']} != {kept['config']}")
    for key, atol in (("loss", LOSS_ATOL), ("grad_norm", GRAD_NORM_ATOL)):
        a, b = np.asarray(fresh[key]), np.asarray(kept[key][:n])
        if a.shape != b.shape:
            problems.append(f"{key}: {a.size} steps against {b.size}")
            continue
        diff = float(np.max(np.abs(a - b))) if a.size else 0.0
        setattr(out, f"{key}_max_diff", diff)
        if not diff <= atol:
            problems.append(f"{key} differs by {diff:.3g}, more than {atol:g}")
    kept_cps = [c for c in kept["checkpoints"] if c["step"] <= n]
    if [c["step"] for c in fresh["checkpoints"]] != [c["step"] for c in kept_cps]:
        problems.append("the checkpoints are at other steps")
        return out
    for f, c in zip(fresh["checkpoints"], kept_cps, strict=True):
        for key in ("train_accuracy", "held_out_accuracy"):
            if f[key] != c[key]:
                problems.append(f"step {c['step']}: {key} {f[key]} != {c[key]}")
        for fs, cs in zip(f["sentences"], c["sentences"], strict=True):
            if fs["greedy_output"] != cs["greedy_output"]:
                problems.append(
                    f"step {c['step']}: {' '.join(cs['english'])!r} writes "
                    f"{' '.join(fs['greedy_output'])!r}, kept {' '.join(cs['greedy_output'])!r}"
                )
            a, b = _maps(fs), _maps(cs)
            diff = float(np.max(np.abs(a - b))) if a.shape == b.shape else float("inf")
            out.map_max_diff = max(out.map_max_diff, diff)
            if not diff <= MAP_ATOL:
                problems.append(f"step {c['step']}: a map differs by {diff:.3g}")
    if steps is None:
        for key in ("weight_count", "train_mistakes", "held_out_mistakes", "order_test"):
            if fresh[key] != kept[key]:
                problems.append(f"{key}: {fresh[key]} != {kept[key]}")
    return out


def summary(hist: dict[str, Any]) -> dict[str, Any]:
    """The figures the page prints of one run: final loss, both accuracies, weights, mistakes."""
    last = hist["checkpoints"][-1]
    return {
        "final_loss": hist["loss"][-1],
        "train_accuracy": last["train_accuracy"],
        "held_out_accuracy": last["held_out_accuracy"],
        "n_held_out": hist["n_held_out"],
        "held_out_wrong": len(hist["held_out_mistakes"]),
        "weights": hist["weight_count"]["total"],
    }


def _one_blas_thread(argv: list[str]) -> None:
    """Re-run this command with one BLAS thread unless one was chosen: at this size a training
    step is per-op overhead, and OpenBLAS's threads on a busy 2-core machine made a decoder-only
    step 7 times slower (22 against 159 ms at a load average of 6)."""
    if "OPENBLAS_NUM_THREADS" not in os.environ:
        env = os.environ | {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
        os.execve(sys.executable, [sys.executable, "-m", __spec__.name, *argv], env)


def main(argv: list[str] | None = None) -> int:
    args_in = sys.argv[1:] if argv is None else argv
    ap = argparse.ArgumentParser(
        prog="python -m mathmachine.engine.tiny.ablations", description=__doc__
    )
    ap.add_argument("--only", choices=list(BY_NAME), action="append", help="one run (repeatable)")
    ap.add_argument("--check", action="store_true", help="write nothing; compare with the kept")
    ap.add_argument("--steps", type=int, default=None, help="with --check: the first N steps")
    ap.add_argument("--out", type=Path, default=None, help="folder for the histories")
    args = ap.parse_args(args_in)
    if args.steps is not None and (not args.check or args.steps < 1):
        ap.error("--steps N (N >= 1) goes with --check")
    if argv is None:
        _one_blas_thread(args_in)
    names = args.only or list(BY_NAME)
    failed = 0
    for name in names:
        t0, cpu0 = time.perf_counter(), time.process_time()
        # --steps N: the first N steps of the kept recipe (its learning rate decays over all
        # 600), so the shortened run is comparable step for step with the kept history
        result = train(TrainSettings(), ablation(name).config(), stop_after=args.steps)
        wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
        steps = len(result.loss)
        if args.steps is None:
            hist = history(name, result)
            sm = summary(hist)
            print(
                f"{name}: final loss {sm['final_loss']:.4f}; exact match "
                f"{sm['train_accuracy']:.1%} training, {sm['held_out_accuracy']:.1%} held out "
                f"({sm['held_out_wrong']} of {sm['n_held_out']} wrong); {sm['weights']:,} weights; "
                f"{result.seconds:.2f} s of training steps "
                f"({1000 * result.seconds / steps:.2f} ms a step), {wall:.2f} s in all "
                f"({cpu:.2f} s of CPU: on a busy machine the truer figure)"
            )
        else:
            hist = history_dict(result)
            print(f"{name}: the first {steps} steps, {result.seconds:.2f} s of training steps")
        if args.check:
            report = compare(hist, committed(name), args.steps)
            print("\n".join(report.lines()))
            failed += not report.ok
        else:
            out = (args.out or HISTORY_DIR) / f"{name}.json"
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_bytes(history_bytes(hist))
            print(f"  wrote {out}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
