"""The ablation runs of the tiny translator (§13): the kept histories, what they show, and that a
fresh run of the engine reproduces them.

A fresh run is started as the command line does it (``python -m
mathmachine.engine.tiny.ablations --check``), in a subprocess with one BLAS thread: at this size a
step is per-op overhead, and OpenBLAS's threads on a busy machine made a decoder-only step several
times slower. The fast test trains the first 100 of the 600 steps of every run and compares them
step for step (loss, gradient norm, checkpoints at 0, 25, 50 and 100: accuracies and greedy
outputs exactly, maps within 2e-4); the slow one trains all four runs whole and compares
everything, the final accuracies, mistakes and order test exactly.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from mathmachine.engine import tiny
from mathmachine.engine.tiny.ablations import (
    ABLATIONS,
    ORDER_TEST,
    ablation,
    committed,
    compare,
    summary,
)
from mathmachine.engine.tiny.corpus import split
from mathmachine.engine.tiny.model import TinyConfig, config_dict
from mathmachine.engine.tiny.reproduce import LOSS_ATOL
from mathmachine.engine.tiny.training import HISTORY_PATH, TrainSettings

ROOT = Path(__file__).resolve().parents[2]
NAMES = [a.name for a in ABLATIONS]


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = os.environ | {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    return subprocess.run(
        [sys.executable, "-m", "mathmachine.engine.tiny.ablations", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )


# ----------------------------------------------------------------------------------------------
# the kept files


@pytest.mark.parametrize("name", NAMES)
def test_each_history_is_small_and_complete(name: str) -> None:
    a = ablation(name)
    assert a.path.stat().st_size < 64_000
    hist = committed(name)
    assert hist["ablation"]["name"] == name
    assert hist["settings"]["steps"] == len(hist["loss"]) == len(hist["grad_norm"]) == 600
    assert [c["step"] for c in hist["checkpoints"]] == list(TrainSettings().checkpoints)
    assert TinyConfig(**hist["config"]) == a.config()
    assert hist["weight_count"]["total"] == sum(
        v for k, v in hist["weight_count"].items() if k != "total"
    )
    assert [t["english"] for t in hist["order_test"]] == list(ORDER_TEST)


def test_each_run_changes_exactly_its_part() -> None:
    full = json.loads(HISTORY_PATH.read_text(encoding="utf-8"))
    assert "positions" not in full["config"]  # the committed model's config, as before
    for a in ABLATIONS:
        cfg = committed(a.name)["config"]
        changed = {k: v for k, v in cfg.items() if full["config"].get(k, "absent") != v}
        assert changed == dict(a.changes)


def test_the_committed_models_saved_config_has_no_ablation_switches() -> None:
    v_cfg = tiny.load().config
    assert config_dict(v_cfg) == json.loads(HISTORY_PATH.read_text(encoding="utf-8"))["config"]
    for a in ABLATIONS:
        assert TinyConfig(**config_dict(a.config())) == a.config()


def test_what_the_runs_show() -> None:
    """The figures §13 prints, as the kept histories hold them (exact where they are exact)."""
    s = {a.name: summary(committed(a.name)) for a in ABLATIONS}
    _, held = split()
    for name, sm in s.items():
        assert sm["train_accuracy"] == 1.0, name
        assert sm["held_out_accuracy"] == 1 - sm["held_out_wrong"] / len(held)
    assert s["no-layernorm"]["held_out_wrong"] == 1
    assert s["no-layernorm"]["weights"] == tiny.load().weight_count()["total"] - 5 * 2 * 32
    assert s["one-head"]["weights"] == tiny.load().weight_count()["total"]
    assert s["decoder-only"]["weights"] == 22_233  # 2 encoder-style blocks, no cross-attention
    # without positions the model cannot tell the sentence from its words backwards
    no_pos = committed("no-positions")["order_test"]
    assert no_pos[0]["written"] == no_pos[1]["written"] == ["मैं", "चाय", "पीता", "हूँ"]
    for name in ("no-layernorm", "one-head", "decoder-only"):
        t = committed(name)["order_test"]
        assert t[0]["written"] == ["मैं", "चाय", "पीता", "हूँ"] != t[1]["written"]
    # the decoder-only model has no cross-attention: its maps are labelled for what they are
    last = committed("decoder-only")["checkpoints"][-1]["sentences"][0]
    assert "cross_attention" not in last and "attention_on_english" in last
    rows = np.asarray(last["attention_on_english"])
    assert np.all(rows.sum(axis=1) <= 1 + 1e-3)


def test_the_comparison_fails_outside_its_tolerances() -> None:
    kept = committed("one-head")
    assert compare(committed("one-head"), kept).ok
    nudged = committed("one-head")
    nudged["loss"][300] += 3 * LOSS_ATOL
    nudged["held_out_mistakes"] = [{"english": "x", "expected": "y", "written": "z"}]
    nudged["checkpoints"][2]["sentences"][0]["greedy_output"] = ["माँ"]
    report = compare(nudged, kept)
    assert not report.ok
    assert [p.split(" ")[0] for p in report.problems] == ["loss", "step", "held_out_mistakes:"]
    cut = committed("one-head")
    cut["loss"] = cut["loss"][:100]
    cut["grad_norm"] = cut["grad_norm"][:100]
    cut["checkpoints"] = [c for c in cut["checkpoints"] if c["step"] <= 100]
    assert compare(cut, kept, steps=100).ok
    assert not compare(cut, kept).ok  # a cut-short run is not the whole run


# ----------------------------------------------------------------------------------------------
# fresh runs


def test_the_first_100_steps_of_every_run_reproduce_the_kept_histories() -> None:
    done = _cli("--check", "--steps", "100")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count("reproduced within the tolerances") == len(NAMES)


@pytest.mark.slow  # four whole 600-step runs: ~20 s of one core on a quiet machine
def test_fresh_whole_runs_reproduce_the_kept_histories() -> None:
    done = _cli("--check")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count("reproduced within the tolerances") == len(NAMES)
    for name in NAMES:
        assert f"{name}: final loss" in done.stdout


def test_the_cli_refuses_steps_without_check() -> None:
    done = _cli("--steps", "5")
    assert done.returncode == 2 and "--steps" in done.stderr
