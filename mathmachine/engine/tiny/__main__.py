"""Train the tiny translator from its seed and write weights.npz and history.json.

python -m mathmachine.engine.tiny            # the committed run (seed 0, 600 steps)
python -m mathmachine.engine.tiny --check    # train again; exit 1 unless the committed files
                                             # are reproduced within the stated tolerances
python -m mathmachine.engine.tiny --seed 3 --out /tmp/tiny   # another seed, elsewhere
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from .corpus import split
from .reproduce import compare_with_committed
from .training import (
    HISTORY_PATH,
    WEIGHTS_PATH,
    TrainSettings,
    exact_match,
    history_bytes,
    sha256,
    train,
    weights_bytes,
)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m mathmachine.engine.tiny", description=__doc__)
    ap.add_argument("--seed", type=int, default=TrainSettings.seed)
    ap.add_argument("--steps", type=int, default=TrainSettings.steps)
    ap.add_argument("--out", type=Path, default=None, help="folder for the two files")
    ap.add_argument(
        "--check",
        action="store_true",
        help="write nothing; exit 1 unless a fresh run reproduces the committed files within "
        "the tolerances of mathmachine.engine.tiny.reproduce (bytes identical only on the same "
        "CPU and BLAS)",
    )
    args = ap.parse_args(argv)
    if args.steps < 1:
        ap.error("--steps must be at least 1")
    # the usual checkpoints that fit, and always the last step
    checkpoints = tuple(
        sorted({c for c in TrainSettings.checkpoints if c <= args.steps} | {args.steps})
    )
    settings = TrainSettings(seed=args.seed, steps=args.steps, checkpoints=checkpoints)
    if args.check and (settings != TrainSettings() or args.out is not None):
        ap.error("--check compares the committed run: no --seed, --steps or --out with it")

    t0 = time.perf_counter()
    result = train(settings)
    wall = time.perf_counter() - t0
    train_pairs, held = split()
    acc_train, _ = exact_match(result.params, result.config, train_pairs)
    acc_held, _ = exact_match(result.params, result.config, held)
    w, h = weights_bytes(result.params, result.config), history_bytes(result)
    print(
        f"seed {settings.seed}, {settings.steps} steps: final loss {result.loss[-1]:.4f}; "
        f"exact match {acc_train:.1%} on {len(train_pairs)} training pairs, "
        f"{acc_held:.1%} on {len(held)} held-out pairs"
    )
    print(
        f"time: {wall:.2f} s in all, {result.seconds:.2f} s of training steps "
        f"({1000 * result.seconds / settings.steps:.2f} ms a step)"
    )
    print(f"weights {len(w):,} bytes, sha256 {sha256(w)}")
    print(f"history {len(h):,} bytes, sha256 {sha256(h)}")

    if args.check:
        report = compare_with_committed(result)
        for line in report.lines():
            print(line)
        print(
            "reproduced within the tolerances"
            if report.ok
            else "NOT reproduced within the tolerances: if the model, its training or the corpus "
            "changed on purpose, `make train-tiny` rewrites the files"
        )
        return 0 if report.ok else 1

    out_dir = args.out or WEIGHTS_PATH.parent
    if out_dir.resolve() == WEIGHTS_PATH.parent and WEIGHTS_PATH.exists() and HISTORY_PATH.exists():
        try:
            before = compare_with_committed(result)
        except ValueError:  # the committed weights are for another vocabulary
            before = None
        if before is not None and before.ok and not before.bit_for_bit:
            print(
                "this run reproduces the previous files within the tolerances and differs only "
                "in the last bits (another CPU or BLAS): nothing changed that needs committing "
                "(`git checkout mathmachine/engine/tiny/` keeps the committed bytes)"
            )
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / WEIGHTS_PATH.name).write_bytes(w)
    (out_dir / HISTORY_PATH.name).write_bytes(h)
    print(f"wrote {out_dir / WEIGHTS_PATH.name} and {out_dir / HISTORY_PATH.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
