"""The content compiler's speed: compiling Unit 18 against loading it from the caches.

    python bench/coursebook_compile.py

- cold compile: the first compile in the process (imports done, MathML memo empty);
- compile: later compiles (median), with the MathML memo cleared each time, i.e. every formula
  converted again;
- disk cache: load_unit after clearing the in-process memo (a pickle read + the content hash);
- memo: load_unit when nothing changed (stat calls only), what a page request pays.
Figures are printed, never asserted.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mathmachine.coursebook import cache, compile_unit, load_unit
from mathmachine.coursebook.passes import math as math_pass

REPO = Path(__file__).resolve().parent.parent
UNIT = REPO / "content" / "units" / "18-attention-and-transformers"
SLUG = "attention-and-transformers"


def timed(fn: Callable[[], object], runs: int) -> float:
    """Median wall time of fn in milliseconds."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def fresh_compile() -> None:
    math_pass.to_mathml.cache_clear()
    compile_unit(UNIT)


def main() -> None:
    if not (UNIT / "unit.toml").exists():
        print(f"no unit at {UNIT}")
        return
    start = time.perf_counter()
    unit = compile_unit(UNIT)
    cold = (time.perf_counter() - start) * 1000
    warm = timed(fresh_compile, 7)
    s1 = unit.sections[0]
    print(f"unit 18, {sum(s.written for s in unit.sections)} section(s) written")
    kib = len(s1.html.encode()) / 1024
    print(f"  section 1 html: {kib:.1f} KiB, {s1.html.count('<math')} formulas")
    print(f"  cold compile (first in process) {cold:8.1f} ms")
    print(f"  compile (median of 7)           {warm:8.1f} ms")
    with tempfile.TemporaryDirectory() as tmp:
        cache.clear_memo()
        load_unit(SLUG, cache_dir=tmp)  # writes the pickle

        def from_disk() -> None:
            cache.clear_memo()
            load_unit(SLUG, cache_dir=tmp)

        disk = timed(from_disk, 20)
        memo = timed(lambda: load_unit(SLUG, cache_dir=tmp), 200)
        size = sum(p.stat().st_size for p in Path(tmp).glob("*.pickle"))
    print(f"  load from disk cache (median)   {disk:8.2f} ms   (pickle {size / 1024:.1f} KiB)")
    print(f"  load from memo (median)         {memo:8.3f} ms")
    print(f"  compile / memo load             {warm / memo:8.0f} x")


if __name__ == "__main__":
    main()
