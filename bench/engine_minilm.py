"""MiniLM forward pass: the engine (numpy) against PyTorch/transformers eager, same process.

    python bench/engine_minilm.py            # the engine's venv: numpy only
    /tmp/refvenv/bin/python bench/engine_minilm.py   # a venv with torch + transformers too

Times ``load_minilm().run(text)`` (tokens, every attention map and every hidden state) at 8,
32 and 128 tokens, and, when PyTorch and transformers are importable, the same forward in
PyTorch (eager attention, attentions and hidden states requested too, so both do the same work,
tokenising included on both sides).

The two are timed in alternation, one run of each per round (which one goes first alternates
too), so that both see the same machine: on a shared 2-core box another process can make either
one 2-5x slower for a while, and timing them minutes apart compares noise. Printed per size:
the median (and minimum) time of each, the median of the per-round ratios numpy / PyTorch
(goal <= 0.5), the ratio of the two minimum times (the quietest moments: under load PyTorch's
spinning OpenMP threads suffer more than numpy, which flatters the median ratio), the
matrix-product floor (the time OpenBLAS needs for the forward's 36 dense products alone, same
shapes, same weights) and that floor over PyTorch's minimum (the best ratio numpy could reach
if nothing else took time), and the largest difference between the two models' last hidden
states. Figures are printed, never asserted.

Then, without PyTorch, what each lean inference kernel buys (the rule: a lean kernel stays only
where this shows it pays): the same stack run as inference (``for_backward=False``: every lean
kernel), then with one kernel at a time replaced by the forward training uses (ops.TRAIN's),
then unfused Q/K/V, then the whole training forward (``for_backward=True``, every cache kept).
Each is printed as its minimum time and its ratio to inference (> 1: the lean kernel pays).

Run from anywhere: the repository root is put first on sys.path, so the engine imported is this
checkout's (checked below), whichever Python runs the script.
"""

from __future__ import annotations

import dataclasses
import os
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import mathmachine  # noqa: E402
from mathmachine.engine import encoder_stack_forward, ops  # noqa: E402
from mathmachine.engine.pretrained import load_minilm, model_dir  # noqa: E402

assert Path(mathmachine.__file__).resolve().parent.parent == ROOT, mathmachine.__file__

SIZES = (8, 32, 128)
ROUNDS = {8: 200, 32: 100, 128: 40}


def text_of(n_tokens: int) -> str:
    """A text that tokenises to exactly n_tokens ([CLS] + words + [SEP])."""
    words = ["the", "quick", "brown", "fox", "jumps", "over", "a", "lazy", "dog", "while"]
    words += ["birds", "sing"]
    return " ".join(words[i % len(words)] for i in range(n_tokens - 2))


def seconds(fn: Callable[[], object]) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def alternate(
    a: Callable[[], object], b: Callable[[], object] | None, rounds: int
) -> tuple[list[float], list[float]]:
    """Per-round wall times of a and b (b may be None), run in alternation after a warm-up."""
    for _ in range(3):
        a()
        if b is not None:
            b()
    ta: list[float] = []
    tb: list[float] = []
    for r in range(rounds):
        if b is None:
            ta.append(seconds(a))
        elif r % 2:
            ta.append(seconds(a))
            tb.append(seconds(b))
        else:
            tb.append(seconds(b))
            ta.append(seconds(a))
    return ta, tb


def matmul_floor_ms(model: object, n: int, rounds: int = 20) -> float:
    """Minimum time of the forward's dense products alone: per layer x W_qkv, x W_o, x W1, h W2
    with the model's own weight arrays (biases, attention and everything else left out)."""
    layers = model.layers  # type: ignore[attr-defined]
    x = np.ones((n, model.d_model), dtype=np.float32)  # type: ignore[attr-defined]
    h = np.ones((n, model.d_ff), dtype=np.float32)  # type: ignore[attr-defined]

    def products() -> None:
        for p in layers:
            x @ p.get("W_qkv", p["W_q"])
            if "W_qkv" not in p:
                x @ p["W_k"]
                x @ p["W_v"]
            x @ p["W_o"]
            x @ p["W1"]
            h @ p["W2"]

    products()
    return min(seconds(products) for _ in range(rounds)) * 1e3


@contextmanager
def inference_kernels(**swap: object) -> Iterator[None]:
    """Run inference with some of ops.INFER's kernels replaced (ops.TRAIN's, say)."""
    lean = ops.INFER
    ops.INFER = dataclasses.replace(lean, **swap)  # type: ignore[arg-type]
    try:
        yield
    finally:
        ops.INFER = lean


def lean_kernels(model: object, texts: dict[int, str]) -> None:
    """Minimum time of MiniLM's six layers with each lean kernel taken out, one at a time."""
    layers = model.layers  # type: ignore[attr-defined]
    unfused = [{k: v for k, v in p.items() if not k.endswith("qkv")} for p in layers]
    style = {"n_heads": 12, "pre_norm": False, "eps": 1e-12}

    def stack(ls: list, for_backward: bool = False, **swap: object) -> Callable[[], object]:
        def run() -> object:
            with inference_kernels(**swap):
                return encoder_stack_forward(x, ls, **style, for_backward=for_backward)

        return run

    print("\nthe lean inference kernels: minimum ms of the six layers (and / inference)")
    variants = {
        "inference": stack(layers),
        "LN forward": stack(layers, layer_norm=ops.TRAIN.layer_norm),
        "FFN forward": stack(layers, feed_forward=ops.TRAIN.feed_forward),
        "unfused QKV": stack(unfused),
        "training": stack(layers, for_backward=True),
    }
    print(f"{'tokens':>6}  " + "  ".join(f"{name:>17}" for name in variants))
    for n, text in texts.items():
        x = model.run(text).hidden[0]  # type: ignore[attr-defined]
        times: dict[str, list[float]] = {name: [] for name in variants}
        for fn in variants.values():
            fn()
        for r in range(ROUNDS[n] // 2):
            order = list(variants.items())
            for name, fn in order if r % 2 else order[::-1]:
                times[name].append(seconds(fn))
        base = min(times["inference"])
        cells = [f"{min(t) * 1e3:.2f} ({min(t) / base:.2f})" for t in times.values()]
        print(f"{n:>6}  " + "  ".join(f"{c:>17}" for c in cells))
    print("LN / FFN forward: the training forward's LayerNorm / feed-forward (exact-series GELU)")


def main() -> None:
    load = os.getloadavg()[0]
    print(f"load average {load:.1f} on {os.cpu_count()} cores (figures are noisy when it is high)")
    t0 = time.perf_counter()
    model = load_minilm()
    print(f"engine: model loaded in {time.perf_counter() - t0:.2f} s (sha256 checked)")
    texts = {n: text_of(n) for n in SIZES}
    for n, text in texts.items():
        got = len(model.tokenize(text)[0])
        assert got == n, (n, got)

    try:
        import torch
        from transformers import AutoModel, AutoTokenizer
    except ImportError:
        torch = None
    torch_run: Callable[[str], object] | None = None
    if torch is None:
        print("PyTorch not installed: reference skipped")
    else:
        tok = AutoTokenizer.from_pretrained(model_dir())
        ref = AutoModel.from_pretrained(model_dir(), attn_implementation="eager").eval()
        print(f"PyTorch {torch.__version__}, {torch.get_num_threads()} threads, eager attention")

        def torch_run(text: str) -> object:
            with torch.no_grad():
                enc = tok(text, return_tensors="pt", padding=False, truncation=False)
                return ref(**enc, output_attentions=True, output_hidden_states=True)

    print()
    print(
        f"{'tokens':>6}  {'numpy ms':>14}  {'PyTorch ms':>14}  {'ratio':>6}  {'min/min':>7}"
        f"  {'floor ms':>8}  {'floor/min':>9}  {'max |diff|':>10}"
    )
    print(f"{'':>6}  {'median (min)':>14}  {'median (min)':>14}")
    for n in SIZES:
        text = texts[n]
        theirs = None if torch_run is None else (lambda t=text: torch_run(t))
        ours_t, theirs_t = alternate(lambda t=text: model.run(t), theirs, ROUNDS[n])
        floor = matmul_floor_ms(model, n)
        ours = f"{statistics.median(ours_t) * 1e3:.1f} ({min(ours_t) * 1e3:.1f})"
        if torch_run is None:
            print(f"{n:>6}  {ours:>14}  {'-':>14}  {'-':>6}  {'-':>7}  {floor:>8.1f}")
            continue
        them = f"{statistics.median(theirs_t) * 1e3:.1f} ({min(theirs_t) * 1e3:.1f})"
        ratio = statistics.median(a / b for a, b in zip(ours_t, theirs_t, strict=True))
        best = min(ours_t) / min(theirs_t)
        bound = floor / (min(theirs_t) * 1e3)
        last = torch_run(text).last_hidden_state[0].numpy()  # type: ignore[attr-defined]
        diff = float(np.abs(model.run(text).hidden[-1] - last).max())
        print(
            f"{n:>6}  {ours:>14}  {them:>14}  {ratio:>6.2f}  {best:>7.2f}"
            f"  {floor:>8.1f}  {bound:>9.2f}  {diff:>10.1e}"
        )
    if torch_run is not None:
        print("\nratio: median of per-round numpy / PyTorch (goal <= 0.50); min/min: quietest runs")
        print(
            "floor/min: the ratio numpy would reach if nothing but the 36 dense products took time"
        )
    print(
        "floor: OpenBLAS alone on the forward's 36 dense products (no bias, attention, GELU, norms)"
    )
    lean_kernels(model, texts)


if __name__ == "__main__":
    main()
