"""Every check and problem of every written section (drafts too), taken from the compiled units,
for the tests that must cover each one without a list (tests/content/test_every_check.py and
others).

    every_gradable() -> [(unit slug, check id)]        collected when the tests are
    gradable(slug, check_id) -> CheckDef               as the unit compiles it
    at_seed(slug, check_id, seed) -> CheckDef          a variant at a seed (kept for the session)
    seeds_of(check) -> range                           SEEDS for a variant, (its own seed) else
    answer_in(check, fragment) -> list[str] | None     an answer the fragment states, per box,
                                                       graded right (None: it states none)
"""

from __future__ import annotations

import re
from functools import cache

from worked_steps import page_text

from mathmachine.coursebook import CheckDef, CompiledUnit, catalog, load_unit
from mathmachine.coursebook.grading import grade
from mathmachine.coursebook.kinds import KINDS, Mark, Refusal
from mathmachine.coursebook.variants import variant_check

#: seeds every variant is tried over (issue 13: 300)
SEEDS = range(1, 301)


@cache
def unit(slug: str) -> CompiledUnit:
    """The unit as staff read it: drafts in their places (they are held to every rule too)."""
    return load_unit(slug).with_drafts()


def every_gradable() -> list[tuple[str, str]]:
    """(unit slug, check id) of every check and problem of every written section."""
    return [
        (info.slug, c.id)
        for info in catalog()
        for s in unit(info.slug).sections
        if s.written
        for c in s.gradables
    ]


def every_variant() -> list[tuple[str, str]]:
    return [(slug, cid) for slug, cid in every_gradable() if gradable(slug, cid).variant]


def gradable(slug: str, check_id: str) -> CheckDef:
    return unit(slug).check(check_id)


@cache
def at_seed(slug: str, check_id: str, seed: int) -> CheckDef:
    """The check with the numbers of ``seed`` (the compiled one at its own seed)."""
    return variant_check(unit(slug), gradable(slug, check_id), seed)


def seeds_of(check: CheckDef) -> range:
    return SEEDS if check.variant is not None else range(1, 2)


def checks_of(slug: str, check_id: str) -> list[tuple[int, CheckDef]]:
    """(seed, check) for every seed the check is tried at."""
    check = gradable(slug, check_id)
    if check.variant is None:
        return [(0, check)]
    return [(seed, at_seed(slug, check_id, seed)) for seed in SEEDS]


def ident(item: tuple[str, str]) -> str:
    return f"{item[0]}:{item[1]}"


_NUMBER = re.compile(r"[−-]?(?:\d{1,3}(?:,\d{3})+(?![\d])|\d+(?:\.\d+)?|\.\d+)")


def _box_text(kind: str, numbers: list[str], key: object) -> str:
    shape = getattr(key, "shape", ())
    if kind == "matrix" and len(shape) == 2:
        rows, cols = shape
        return "; ".join(" ".join(numbers[r * cols : (r + 1) * cols]) for r in range(rows))
    if len(numbers) == 1:
        return numbers[0]
    return "(" + ", ".join(numbers) + ")"


def _right(check: CheckDef, box: int, text: str) -> bool:
    f = check.fields[box]
    value = KINDS[f.kind].read(text, f.key)
    if isinstance(value, Refusal):
        return False
    mark = KINDS[f.kind].mark(value, f.key)
    return isinstance(mark, Mark) and mark.correct


def answer_in(check: CheckDef, fragment: str) -> list[str] | None:
    """The first answer the fragment states, box after box in order (each box's numbers side by
    side), that is graded right; None when it states none. Numeric boxes only: a choice or a
    word has no figure to find (None)."""
    numbers = _NUMBER.findall(page_text(fragment))
    found: list[str] = []
    at = 0
    for box, f in enumerate(check.fields):
        size = getattr(f.key, "size", None) if f.kind != "fraction" else 1
        if size is None:
            return None
        for start in range(at, len(numbers) - size + 1):
            text = _box_text(f.kind, numbers[start : start + size], f.key)
            if _right(check, box, text):
                found.append(text)
                at = start + size
                break
        else:
            return None
    g = grade(check, found)
    return found if g.ok and g.correct else None


def final_paragraph(html: str) -> str:
    """The last paragraph of a fragment (a solution's final sentence)."""
    return html.rsplit("<p>", 1)[-1]


def by_hand_texts(check: CheckDef) -> list[str] | None:
    """The answer its worked solution reaches by hand, per box (None when it gives none)."""
    texts = [getattr(f.key, "hand_text", "") or f.answer_text for f in check.fields]
    return texts if texts != [f.answer_text for f in check.fields] else None


__all__ = [
    "SEEDS",
    "answer_in",
    "at_seed",
    "by_hand_texts",
    "checks_of",
    "every_gradable",
    "every_variant",
    "final_paragraph",
    "gradable",
    "ident",
    "seeds_of",
    "unit",
]
