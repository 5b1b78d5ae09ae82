"""MiniLM forward pass: the engine (numpy) against PyTorch/transformers eager, same process.

    python bench/engine_minilm.py

Prints the median wall time of ``load_minilm().run(text)`` (tokens, every attention map and
every hidden state) at 8, 32 and 128 tokens, and, when PyTorch and transformers are importable,
the same forward in PyTorch (eager attention, attentions and hidden states requested too, so
both do the same work) and the ratio numpy / PyTorch. Goal: ratio <= 0.5. Figures are printed,
never asserted: the machine may be shared and noisy.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mathmachine.engine.pretrained import load_minilm, model_dir

SIZES = (8, 32, 128)
RUNS = {8: 30, 32: 20, 128: 12}


def text_of(n_tokens: int) -> str:
    """A text that tokenises to exactly n_tokens ([CLS] + words + [SEP])."""
    words = [
        "the",
        "quick",
        "brown",
        "fox",
        "jumps",
        "over",
        "a",
        "lazy",
        "dog",
        "while",
        "birds",
        "sing",
    ]
    return " ".join(words[i % len(words)] for i in range(n_tokens - 2))


def median_ms(fn, runs: int) -> float:  # type: ignore[no-untyped-def]
    fn()  # warm-up
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e3


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
    ours = {n: median_ms(lambda t=texts[n]: model.run(t), RUNS[n]) for n in SIZES}

    try:
        import torch
        from transformers import AutoModel, AutoTokenizer
    except ImportError:
        torch = None
    theirs: dict[int, float] = {}
    diffs: dict[int, float] = {}
    if torch is None:
        print("PyTorch not installed: reference skipped")
    else:
        tok = AutoTokenizer.from_pretrained(model_dir())
        ref = AutoModel.from_pretrained(model_dir(), attn_implementation="eager").eval()
        print(f"PyTorch {torch.__version__}, {torch.get_num_threads()} threads, eager attention")

        def torch_run(text: str):  # type: ignore[no-untyped-def]
            with torch.no_grad():
                enc = tok(text, return_tensors="pt", padding=False, truncation=False)
                return ref(**enc, output_attentions=True, output_hidden_states=True)

        for n in SIZES:
            theirs[n] = median_ms(lambda t=texts[n]: torch_run(t), RUNS[n])
            out = torch_run(texts[n])
            diffs[n] = float(
                np.abs(model.run(texts[n]).hidden[-1] - out.last_hidden_state[0].numpy()).max()
            )

    print()
    print(f"{'tokens':>6}  {'numpy ms':>9}  {'PyTorch ms':>10}  {'ratio':>6}  {'max |diff|':>10}")
    for n in SIZES:
        if n in theirs:
            ratio = ours[n] / theirs[n]
            print(f"{n:>6}  {ours[n]:>9.1f}  {theirs[n]:>10.1f}  {ratio:>6.2f}  {diffs[n]:>10.1e}")
        else:
            print(f"{n:>6}  {ours[n]:>9.1f}  {'-':>10}  {'-':>6}  {'-':>10}")
    if theirs:
        print("\ngoal: ratio <= 0.50 (numpy at most half of PyTorch eager's time)")


if __name__ == "__main__":
    main()
