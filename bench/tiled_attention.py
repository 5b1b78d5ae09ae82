"""Tiled exact attention against the full one (Unit 18 §12): peak memory and time at n = 4096.

    python bench/tiled_attention.py [n] [tile]

One head, d_k = 64, float64 (the engine's working type), self-attention of n random tokens:
the full attention (mathmachine.engine.attention: every n × n score and weight held at once)
and the tiled one (mathmachine.engine.tiled_attention: a tile of queries × a tile of keys at a
time, with the online softmax). Peak memory is what tracemalloc sees numpy allocate during one
call (numpy reports its buffers to tracemalloc), beyond the inputs; time is the median of a few
calls. The two outputs are compared too (largest difference). The score matrix alone is
n² × 8 bytes: 128 MiB at n = 4096. Figures are printed, never asserted.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mathmachine.engine import MIB, attention, tiled_attention

D_K = 64


def peak_mib(call: Callable[[], object]) -> float:
    tracemalloc.start()
    call()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / MIB


def median_ms(call: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        call()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e3


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 4096
    tile = int(sys.argv[2]) if len(sys.argv) > 2 else 128
    load = os.getloadavg()[0]
    print(f"load average {load:.1f} on {os.cpu_count()} cores (times are noisy when it is high)")
    rng = np.random.default_rng(0)
    q, k, v = (rng.standard_normal((n, D_K)) for _ in range(3))
    print(f"one head, n = {n:,}, d_k = {D_K}, float64; tiles of {tile} queries × {tile} keys\n")

    def full() -> object:
        return attention(q, k, v)[0]

    def tiled() -> object:
        return tiled_attention(q, k, v, tile=tile, query_tile=tile).output

    diff = float(np.abs(np.asarray(full()) - np.asarray(tiled())).max())
    score_mib = n * n * 8 / MIB
    rows = []
    for name, call in (("full", full), ("tiled", tiled)):
        call()  # warm-up
        rows.append((name, peak_mib(call), median_ms(call, 2)))
    print(f"{'':>6}  {'peak MiB':>9}  {'time ms':>8}  scores held at once")
    print(f"{'full':>6}  {rows[0][1]:>9.1f}  {rows[0][2]:>8.0f}  {n * n:,} ({score_mib:.0f} MiB)")
    tile_held = tile * min(tile, n)
    print(
        f"{'tiled':>6}  {rows[1][1]:>9.1f}  {rows[1][2]:>8.0f}  {tile_held:,} "
        f"({tile_held * 8 / MIB:.3f} MiB)"
    )
    print(f"\nfull / tiled peak memory: {rows[0][1] / rows[1][1]:.0f}×")
    print(f"largest difference between the two outputs: {diff:.1e}")


if __name__ == "__main__":
    main()
