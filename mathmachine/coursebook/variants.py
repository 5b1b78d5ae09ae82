"""Fresh numbers: a check or problem with ``:variant:`` compiled again for another seed.

    variant_check(unit, check, seed) -> CheckDef     (the same check when seed is None or its own)
    next_seed(check_id, seed) -> int                  (the "fresh numbers" link's seed)

The unit compiles each variant block at DEFAULT_SEED; any other seed runs the block's function in
the unit's figures for that seed and compiles the block's Markdown with what it returns:
statement, key, named mistakes, hints and solution all recomputed by the engine. Results are
kept per process, keyed by the unit's source_hash. A seed whose compile fails (it should not: the
tests run 200 seeds of every variant) raises VariantError; callers fall back to the compiled one.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from pathlib import Path

from .errors import CompileError
from .model import CheckDef, CompiledUnit
from .passes.assemble import compile_markdown
from .passes.context import SectionRef, UnitContext
from .passes.load import load_figures
from .passes.variants import DEFAULT_SEED, MAX_SEED, VariantFunction, parse_seed

__all__ = ["DEFAULT_SEED", "MAX_SEED", "VariantError", "next_seed", "parse_seed", "variant_check"]

_MEMO_SIZE = 512
_lock = threading.Lock()
_checks: OrderedDict[tuple[str, str, int], CheckDef] = OrderedDict()
_functions: dict[tuple[str, str], dict[str, VariantFunction]] = {}


class VariantError(Exception):
    """A variant could not be compiled for a seed (the message says why)."""


def next_seed(check_id: str, seed: int) -> int:
    """A seed for fresh numbers after ``seed``: spread over 1..MAX_SEED, never ``seed`` itself,
    the same every time (so the link can be kept with the page)."""
    digest = hashlib.sha256(f"{check_id}:{seed}".encode()).digest()
    fresh = int.from_bytes(digest[:8], "big") % MAX_SEED + 1
    return fresh if fresh != seed else fresh % MAX_SEED + 1


def _unit_functions(unit: CompiledUnit, folder: Path) -> dict[str, VariantFunction]:
    key = (str(folder), unit.source_hash)
    found = _functions.get(key)
    if found is None:
        found = load_figures(folder, unit.number).variants
        with _lock:
            _functions[key] = found
    return found


def _compile(unit: CompiledUnit, check: CheckDef, seed: int) -> CheckDef:
    assert check.variant is not None
    section = unit.section(check.section)
    path = Path(section.source)
    try:
        functions = _unit_functions(unit, path.parent)
    except CompileError as exc:
        raise VariantError(str(exc)) from exc
    ctx = UnitContext(
        number=unit.number,
        slug=unit.slug,
        title=unit.title,
        sections={
            s.number: SectionRef(s.number, s.slug, s.title, s.written) for s in unit.sections
        },
        figures={},
        examples={},
        known_units=dict(unit.known_units),
        variants=functions,
    )
    text = "\n" * (check.variant.line - 1) + check.variant.source
    result = compile_markdown(
        text,
        path=path,
        unit=ctx,
        number=section.number,
        title=section.title,
        whole_section=False,
        seed=seed,
    )
    if result.ctx.errors:
        raise VariantError("; ".join(str(e) for e in result.ctx.errors[:3]))
    found = [c for c in (*result.ctx.checks, *result.ctx.problems) if c.id == check.id]
    if len(found) != 1:
        raise VariantError(f"the variant of {check.id} compiled to {len(found)} checks")
    return found[0]


def variant_check(unit: CompiledUnit, check: CheckDef, seed: int | None) -> CheckDef:
    """``check`` with the numbers of variant ``seed`` (unchanged when it has no variants, when
    seed is None, or when seed is the one compiled into the unit)."""
    if check.variant is None or seed is None or seed == check.variant.seed:
        return check
    key = (unit.source_hash, check.id, seed)
    with _lock:
        kept = _checks.get(key)
        if kept is not None:
            _checks.move_to_end(key)
            return kept
    made = _compile(unit, check, seed)
    with _lock:
        _checks[key] = made
        while len(_checks) > _MEMO_SIZE:
            _checks.popitem(last=False)
    return made
