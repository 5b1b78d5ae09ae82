"""The price of attention (Unit 18 §12): time and memory against sequence length n.

    python bench/attention_cost.py

One multi-head self-attention layer (d_model 256, 8 heads, float32) on n = 16 ... 1024 tokens.
Time is the median of several runs; memory is the peak that tracemalloc sees numpy allocate
during one call (numpy reports its buffers to tracemalloc). The score matrices hold
heads * n^2 numbers, so once they dominate, doubling n multiplies both time and memory by about
4: the n^2 term. Figures are printed, never asserted.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mathmachine.engine import init_mha_params, multi_head_attention

D_MODEL, HEADS = 256, 8
SIZES = (16, 32, 64, 128, 256, 512, 1024)


def main() -> None:
    load = os.getloadavg()[0]
    print(f"load average {load:.1f} on {os.cpu_count()} cores (figures are noisy when it is high)")
    rng = np.random.default_rng(0)
    params = {k: v.astype(np.float32) for k, v in init_mha_params(rng, D_MODEL).items()}
    print(f"multi-head self-attention, d_model {D_MODEL}, {HEADS} heads, float32\n")
    print(
        f"{'n':>5}  {'time ms':>8}  {'x prev':>6}  {'peak MiB':>8}  {'x prev':>6}  "
        f"{'scores/head':>11}  {'score MiB':>9}"
    )
    prev_t = prev_m = None
    for n in SIZES:
        x = rng.standard_normal((n, D_MODEL)).astype(np.float32)
        multi_head_attention(x, x, params, HEADS)  # warm-up
        runs = 30 if n <= 256 else 8
        times = []
        for _ in range(runs):
            t0 = time.perf_counter()
            multi_head_attention(x, x, params, HEADS)
            times.append(time.perf_counter() - t0)
        t = statistics.median(times) * 1e3
        tracemalloc.start()
        multi_head_attention(x, x, params, HEADS)
        peak = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
        score_mib = HEADS * n * n * 4 / 2**20
        rt = f"{t / prev_t:6.1f}" if prev_t else f"{'':>6}"
        rm = f"{peak / prev_m:6.1f}" if prev_m else f"{'':>6}"
        print(f"{n:>5}  {t:>8.2f}  {rt}  {peak:>8.2f}  {rm}  {n * n:>11,}  {score_mib:>9.2f}")
        prev_t, prev_m = t, peak
    print("\ndoubling n: scores x4; time and memory tend to x4 once the n^2 scores dominate")


if __name__ == "__main__":
    main()
