"""Fresh numbers: a check or problem with ``:variant:`` compiled again for another seed.

    variant_check(unit, check, seed) -> CheckDef     (the same check when seed is None or its own)
    numbers_of(check) -> str                          (a digest of the numbers a variant shows)
    fresh_seed(unit, check, seed, seen) -> int        (the "fresh numbers" link's seed)
    next_seed(check_id, seed) -> int                  (a seed after another, by hash alone)

The unit compiles each variant block at DEFAULT_SEED; any other seed runs the block's function in
the unit's figures for that seed and compiles the block's Markdown with what it returns:
statement, key, named mistakes, hints and solution all recomputed by the engine. Results are
kept per process, keyed by the unit's source_hash. A seed whose compile fails (it should not: the
tests run 200 seeds of every variant) raises VariantError; callers fall back to the compiled one.

Different seeds may draw the same numbers (a problem with few inputs has only so many). The
"fresh numbers" link therefore walks each problem's seeds in a fixed order keeping only numbers
not met before on the walk (its *distinct walk*, the same in every process), and offers the next
step whose numbers are neither those shown nor any the learner has worked on (``seen``), while
such numbers remain within reach (WALK_LOOKAHEAD seeds past the last new numbers found).
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Collection
from pathlib import Path

from .errors import CompileError
from .model import CheckDef, CompiledUnit
from .passes.assemble import compile_markdown
from .passes.context import SectionRef, UnitContext
from .passes.load import load_figures
from .passes.variants import DEFAULT_SEED, MAX_SEED, VariantFunction, parse_seed

__all__ = [
    "DEFAULT_SEED",
    "MAX_SEED",
    "VariantError",
    "fresh_seed",
    "next_seed",
    "numbers_of",
    "parse_seed",
    "variant_check",
]

_MEMO_SIZE = 512
_lock = threading.Lock()
_checks: OrderedDict[tuple[str, str, int], CheckDef] = OrderedDict()
_functions: dict[tuple[str, str], dict[str, VariantFunction]] = {}
# Seeds tried past the last new numbers before a walk counts as exhausted.
WALK_LOOKAHEAD = 64
_WALK_LIMIT = 2_000  # steps kept per problem (far more than any learner clicks)
_FIND_STEPS = 256  # steps looked through for the numbers shown, when the walk has not met them


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


def numbers_of(check: CheckDef) -> str:
    """A digest of what a variant shows and expects: its statement and its boxes' keys. Two
    seeds that draw the same numbers have the same digest (proficiency counts digests)."""
    keys = "\x1f".join(f"{f.kind}={f.key!r}" for f in check.fields)
    text = f"{check.prompt_html}\x1e{keys}"
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def seed_numbers(unit: CompiledUnit, check: CheckDef, seed: int) -> str | None:
    """numbers_of the variant ``seed`` of ``check`` (None when it does not compile)."""
    try:
        return numbers_of(variant_check(unit, check, seed))
    except VariantError:
        return None


class _Walk:
    """One problem's distinct walk: steps (seed, numbers) with numbers all different."""

    def __init__(self, check_id: str, first_seed: int) -> None:
        self.check_id = check_id
        self.steps: list[tuple[int, str]] = []
        self.position: dict[str, int] = {}  # numbers -> step
        self.tried = 0  # candidates drawn so far
        self.exhausted = False
        self.first_seed = first_seed
        self.lock = threading.Lock()

    def candidate(self, k: int) -> int:
        if k == 0:
            return self.first_seed
        digest = hashlib.sha256(f"{self.check_id}:walk:{k}".encode()).digest()
        return int.from_bytes(digest[:8], "big") % MAX_SEED + 1

    def step(self, unit: CompiledUnit, check: CheckDef, index: int) -> tuple[int, str] | None:
        """Step ``index`` of the walk, found now if need be (None past its end)."""
        with self.lock:
            while len(self.steps) <= index and not self.exhausted:
                for _ in range(WALK_LOOKAHEAD):
                    seed = self.candidate(self.tried)
                    self.tried += 1
                    numbers = seed_numbers(unit, check, seed)
                    if numbers is not None and numbers not in self.position:
                        self.position[numbers] = len(self.steps)
                        self.steps.append((seed, numbers))
                        break
                else:
                    self.exhausted = True
                if len(self.steps) >= _WALK_LIMIT:
                    self.exhausted = True
            return self.steps[index] if index < len(self.steps) else None


_walks: OrderedDict[tuple[str, str], _Walk] = OrderedDict()


def _walk(unit: CompiledUnit, check: CheckDef) -> _Walk:
    assert check.variant is not None
    key = (unit.source_hash, check.id)
    with _lock:
        walk = _walks.get(key)
        if walk is None:
            walk = _walks[key] = _Walk(check.id, check.variant.seed)
            while len(_walks) > 256:
                _walks.popitem(last=False)
        return walk


def fresh_seed(unit: CompiledUnit, check: CheckDef, seed: int, seen: Collection[str] = ()) -> int:
    """The seed the "fresh numbers" link offers on the page of variant ``seed``: the next step
    of the problem's distinct walk whose numbers are neither those of ``seed`` nor any in
    ``seen`` (numbers_of digests the learner has worked on); from the walk's start again when
    none is left ahead; numbers already seen only once none other is within reach."""
    if check.variant is None:
        return next_seed(check.id, seed)
    walk = _walk(unit, check)
    shown = seed_numbers(unit, check, seed)
    avoid = {*seen, shown}
    start = 0
    if shown is not None:
        # The walk as far as the numbers shown (a seed the link offered is on it), within reach.
        index = len(walk.steps)
        while shown not in walk.position and index < len(walk.steps) + _FIND_STEPS:
            if walk.step(unit, check, index) is None:
                break
            index += 1
        start = walk.position.get(shown, -1) + 1
    index = start
    while (found := walk.step(unit, check, index)) is not None:
        if found[1] not in avoid:
            return found[0]
        index += 1
    for index in range(start):  # none left ahead: the walk's start again
        found = walk.step(unit, check, index)
        if found is not None and found[1] not in avoid:
            return found[0]
    # Every set of numbers within reach has been seen: any other than the one shown.
    for index in range(len(walk.steps)):
        found = walk.step(unit, check, (start + index) % len(walk.steps))
        if found is not None and found[1] != shown:
            return found[0]
    return next_seed(check.id, seed)
