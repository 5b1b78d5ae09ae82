"""Command line: check and build units without Django.

    python -m mathmachine.coursebook check [DIR ...]        compile, print path:line: message,
                                                          and report a check whose key changed
                                                          (DIR: a unit, or a folder of units)
    python -m mathmachine.coursebook keys [UNIT_DIR ...]    record the checks' keys (keys.toml)
    python -m mathmachine.coursebook build                   compile every unit into the cache
    python -m mathmachine.coursebook golden [--check]        (re)write the widgets' golden vectors

Exit status 1 when any unit has errors.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from . import cache
from .errors import CompileError, CompileErrors
from .golden import write as write_golden
from .keys import key_changes, write_keys
from .passes.assemble import compile_unit


def _errors(exc: CompileError) -> tuple[CompileError, ...]:
    return exc.errors if isinstance(exc, CompileErrors) else (exc,)


def _unit_dirs(arg: str) -> list[Path]:
    """A unit folder (or a file in one), or a folder of units such as content/units. A folder
    that is neither is returned as it is, so that compiling it says what is missing."""
    p = Path(arg)
    if p.is_file():
        p = p.parent
    if not (p / cache.UNIT_FILE).is_file():
        return cache.unit_folders(p) or [p]
    return [p]


def check(paths: list[str], root: str | None) -> int:
    folders = [f for p in paths for f in _unit_dirs(p)] or cache.unit_folders(
        cache.content_root(root)
    )
    if not folders:
        print("no units found", file=sys.stderr)
        return 1
    status = 0
    for folder in folders:
        start = time.perf_counter()
        try:
            unit = compile_unit(folder)
        except CompileError as exc:
            for e in _errors(exc):
                print(e.format())
            print(f"{folder}: {len(_errors(exc))} error(s)", file=sys.stderr)
            status = 1
            continue
        ms = (time.perf_counter() - start) * 1000
        changes = key_changes(folder, unit)
        for change in changes:
            print(change.format())
        if changes:
            print(f"{folder}: {len(changes)} key change(s) not recorded", file=sys.stderr)
            status = 1
        written = [s for s in unit.sections if s.written]
        checks = sum(len(s.checks) for s in written)
        widgets = sum(len(s.widgets) for s in written)
        drafts = "".join(
            f", draft §{d.number} ({len(d.widgets)} of {d.published_widgets} widget(s), "
            f"{len(d.checks)} of {d.published_checks} check(s))"
            for d in unit.drafts
        )
        print(
            f"ok: unit {unit.number} {unit.slug}: {len(written)} of {len(unit.sections)} "
            f"sections written, {widgets} widget(s), {checks} check(s){drafts}, "
            f"compiled in {ms:.0f} ms"
        )
    return status


def keys(paths: list[str], root: str | None) -> int:
    folders = [f for p in paths for f in _unit_dirs(p)] or cache.unit_folders(
        cache.content_root(root)
    )
    status = 0
    for folder in folders:
        try:
            unit = compile_unit(folder)
        except CompileError as exc:
            for e in _errors(exc):
                print(e.format())
            status = 1
            continue
        changes = key_changes(folder, unit)
        path = write_keys(folder, unit)
        print(f"recorded {len(changes)} change(s) of unit {unit.number}'s keys in {path}")
    return status


def build(root: str | None, cache_dir: str | None) -> int:
    base = cache.content_root(root)
    status = 0
    infos = cache.scan_units(base)
    if not infos:
        print(f"no units under {base}", file=sys.stderr)
        return 1
    for info in infos:
        start = time.perf_counter()
        try:
            unit = cache.build_unit(Path(info.path), cache_dir=cache_dir)
        except CompileError as exc:
            for e in _errors(exc):
                print(e.format())
            status = 1
            continue
        ms = (time.perf_counter() - start) * 1000
        print(
            f"built unit {unit.number} {unit.slug} -> "
            f"{cache.cache_path(cache_dir) / (unit.source_hash + '.pickle')} ({ms:.0f} ms)"
        )
    return status


def golden(root: str | None, out: str | None, check_only: bool) -> int:
    folder = Path(out) if out else cache.REPO_ROOT / "tests" / "golden"
    try:
        stale = write_golden(folder, check=check_only, root=root)
    except CompileError as exc:
        for e in _errors(exc):
            print(e.format())
        return 1
    for path in stale:
        print(f"out of date: {path} (run python -m mathmachine.coursebook golden)", file=sys.stderr)
    if not check_only:
        print(f"wrote the golden vectors into {folder}")
    return 1 if stale else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m mathmachine.coursebook")
    parser.add_argument("--root", help="content root (default: the repo's content/units)")
    sub = parser.add_subparsers(dest="command", required=True)
    p_check = sub.add_parser("check", help="compile units and report errors as path:line")
    p_check.add_argument(
        "paths", nargs="*", help="unit folders, or folders of units (default: every unit)"
    )
    p_keys = sub.add_parser("keys", help="record the keys of every check (keys.toml)")
    p_keys.add_argument("paths", nargs="*", help="unit folders (default: every unit)")
    p_build = sub.add_parser("build", help="compile every unit into the cache")
    p_build.add_argument("--cache-dir", help="default: $MATHMACHINE_CACHE_DIR or var/coursebook")
    p_golden = sub.add_parser("golden", help="write the widgets' golden vectors (tests/golden)")
    p_golden.add_argument("--check", action="store_true", help="fail if a file is out of date")
    p_golden.add_argument("--out", help="directory (default: the repo's tests/golden)")
    args = parser.parse_args(argv)
    if args.command == "check":
        return check(args.paths, args.root)
    if args.command == "keys":
        return keys(args.paths, args.root)
    if args.command == "golden":
        return golden(args.root, args.out, args.check)
    return build(args.root, args.cache_dir)


if __name__ == "__main__":
    sys.exit(main())
