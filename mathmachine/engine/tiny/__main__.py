"""Train the tiny translator from its seed and write weights.npz and history.json.

python -m mathmachine.engine.tiny            # the committed run (seed 0, 600 steps)
python -m mathmachine.engine.tiny --check    # train again, compare with the committed files
python -m mathmachine.engine.tiny --seed 3 --out /tmp/tiny   # another seed, elsewhere
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from .corpus import split
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
        help="write nothing; exit 1 unless the committed files match",
    )
    args = ap.parse_args(argv)
    if args.steps < 1:
        ap.error("--steps must be at least 1")
    # the usual checkpoints that fit, and always the last step
    checkpoints = tuple(
        sorted({c for c in TrainSettings.checkpoints if c <= args.steps} | {args.steps})
    )
    settings = TrainSettings(seed=args.seed, steps=args.steps, checkpoints=checkpoints)

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
        ok = True
        for path, data in ((WEIGHTS_PATH, w), (HISTORY_PATH, h)):
            same = path.exists() and path.read_bytes() == data
            print(f"{path.name}: {'identical' if same else 'DIFFERENT'} to the fresh run")
            ok &= same
        return 0 if ok else 1

    out_dir = args.out or WEIGHTS_PATH.parent
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / WEIGHTS_PATH.name).write_bytes(w)
    (out_dir / HISTORY_PATH.name).write_bytes(h)
    print(f"wrote {out_dir / WEIGHTS_PATH.name} and {out_dir / HISTORY_PATH.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
