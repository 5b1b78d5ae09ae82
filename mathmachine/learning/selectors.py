"""Reads: units from the compiled coursebook, access decisions, a learner's progress."""

from __future__ import annotations

import copy
import logging
import uuid
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import cast

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import QuerySet
from django.http import Http404

from mathmachine import units
from mathmachine.billing.selectors import has_unit_access
from mathmachine.coursebook import variants
from mathmachine.coursebook.model import CheckDef, CompiledSection, CompiledUnit, UnitContents
from mathmachine.prepared import Prepared

from .learners import Learner
from .models import CheckAnswer, SectionVisit, VariantRecord

logger = logging.getLogger(__name__)


def unit_get(slug: str) -> CompiledUnit:
    """The compiled unit for ``slug`` (kept in memory; a request never parses Markdown)."""
    try:
        return units.unit(slug)
    except units.UnitNotFound as exc:
        raise Http404(f"No unit {slug!r}") from exc


def units_list() -> list[CompiledUnit]:
    """The published units, by number (mathmachine.units)."""
    return units.published()


def unit_by_number(number: int | None) -> CompiledUnit | None:
    """The published unit numbered ``number`` (None: no such unit is published)."""
    return next((u for u in units_list() if u.number == number), None)


def section_get(unit: CompiledUnit, number: int) -> CompiledSection:
    for section in unit.sections:
        if section.number == number:
            return section
    raise Http404(f"Unit {unit.number} has no section {number}")


def reads_drafts(user: AbstractBaseUser | AnonymousUser) -> bool:
    """Staff (signed in, active, ``is_staff``) are served draft sections; nobody else is."""
    return bool(
        getattr(user, "is_authenticated", False)
        and getattr(user, "is_active", False)
        and getattr(user, "is_staff", False)
    )


def unit_for_reader(unit: CompiledUnit, user: AbstractBaseUser | AnonymousUser) -> CompiledUnit:
    """The unit as this user may be served it: with its draft sections in place for staff
    (CompiledUnit.with_drafts), as published for everyone else. Counts (the offer, progress,
    Continue) are always read from the published unit."""
    return unit.with_drafts() if unit.drafts and reads_drafts(user) else unit


def section_access(
    *, user: AbstractBaseUser | AnonymousUser, unit: CompiledUnit, section: CompiledSection
) -> bool:
    """May this user read this section? THE gate: every page, JSON answer and check reads it.

    A draft only staff may read (whether or not they bought the unit). Free sections are open
    to everyone; any other section only to a user entitled to the unit (billing decides
    entitlement: a unit purchase, or the bundle). Fails closed. What a section holds is behind
    it too, its practice problems' titles on "Your learning" included (problem_mastery).
    """
    if section.draft:
        return reads_drafts(user)
    if section.free:
        return True
    return has_unit_access(user=user, unit_number=unit.number)


def toc_with_access(
    *, user: AbstractBaseUser | AnonymousUser, unit: CompiledUnit
) -> list[dict[str, object]]:
    """The table of contents, each entry with "open": section_access for this user.

    Entitlement is asked once for the unit, not once per section.
    """
    paid_open: bool | None = None
    toc: list[dict[str, object]] = []
    for section in unit.sections:
        if section.draft:
            is_open = section_access(user=user, unit=unit, section=section)
        elif section.free:
            is_open = True
        else:
            if paid_open is None:
                paid_open = section_access(user=user, unit=unit, section=section)
            is_open = paid_open
        toc.append({"section": section, "open": is_open})
    return toc


def check_find(unit: CompiledUnit, check_id: str) -> tuple[CompiledSection, CheckDef]:
    """A check or problem of the unit, and its section (404 when there is none)."""
    for section in unit.sections:
        for check in section.gradables:
            if check.id == check_id:
                return section, check
    raise Http404(f"No check {check_id!r} in unit {unit.number}")


def check_variant(unit: CompiledUnit, check: CheckDef, seed: int | None) -> CheckDef:
    """The check with the numbers of variant ``seed`` (itself when it has no variants or the
    seed is None); a variant that fails to compile falls back to the unit's own."""
    try:
        return variants.variant_check(unit, check, seed)
    except variants.VariantError:
        logger.exception("variant %s of %s failed; showing the compiled one", seed, check.id)
        return check


def variants_shown(
    *,
    unit: CompiledUnit,
    section: CompiledSection,
    answers: dict[str, CheckAnswer],
    query: Mapping[str, str],
) -> dict[str, CheckDef]:
    """For each check with fresh numbers, the variant the page shows: the seed in the URL
    (``?seed-ID=N``), else the one the learner last answered, else the compiled one."""
    shown: dict[str, CheckDef] = {}
    for check in section.gradables:
        if check.variant is None:
            continue
        seed = variants.parse_seed(query.get(f"seed-{check.id}"))
        if seed is None and check.id in answers:
            seed = answers[check.id].variant
        shown[check.id] = check_variant(unit, check, seed)
    return shown


@dataclass(frozen=True)
class VariantsStanding:
    """A page's checks with fresh numbers as this learner stands on the numbers shown.

    answers: the learner's answers, each as it stands on the seed the page shows (a right
    answer on one seed stays on that seed's page after a wrong one on another); fresh: per
    problem with fresh numbers, the seed its "fresh numbers" link offers (never numbers the
    learner has worked on while others remain: variants.fresh_seed)."""

    answers: dict[str, CheckAnswer]
    fresh: dict[str, int]


def variants_standing(
    *,
    learner: Learner,
    unit: CompiledUnit,
    answers: dict[str, CheckAnswer],
    shown: Mapping[str, CheckDef],
) -> VariantsStanding:
    """See VariantsStanding. One read of the learner's variant records, made only when they
    have answered one of these checks (records are made with the answer row)."""
    varied = {cid: c for cid, c in shown.items() if c.variant is not None}
    records: dict[str, list[VariantRecord]] = {}
    touched = [cid for cid in varied if cid in answers]
    if touched and learner.known:
        found = VariantRecord.objects.filter(
            unit_slug=unit.slug, check_id__in=touched, **learner.owner()
        ).order_by("pk")
        for record in found:
            records.setdefault(record.check_id, []).append(record)
    out = dict(answers)
    fresh: dict[str, int] = {}
    for cid, check in varied.items():
        assert check.variant is not None
        seed = check.variant.seed
        mine = records.get(cid, [])
        row = answers.get(cid)
        if row is not None and row.variant != seed:
            on_seed = next((r for r in mine if r.seed == seed), None)
            if on_seed is not None:
                view = copy.copy(row)
                view.show_variant(on_seed)
                out[cid] = view
        if check.problem:
            compiled = unit.check(cid)
            seen = {n for r in mine if (n := _record_numbers(unit, compiled, r)) is not None}
            fresh[cid] = variants.fresh_seed(unit, compiled, seed, seen)
    return VariantsStanding(answers=out, fresh=fresh)


def _record_numbers(unit: CompiledUnit, check: CheckDef, record: VariantRecord) -> str | None:
    if record.numbers.startswith("seed:"):  # kept from before digests: work it out
        return variants.seed_numbers(unit, check, record.seed)
    return record.numbers


def answer_on_numbers(*, learner: Learner, unit_slug: str, check: CheckDef) -> CheckAnswer | None:
    """The learner's answer to ``check`` as it stands on the numbers of ``check`` (a variant):
    None when they have no record of those numbers."""
    row = answers_for(learner=learner, unit_slug=unit_slug, check_ids=[check.id]).get(check.id)
    seed = check.variant.seed if check.variant else None
    if row is None or row.variant == seed:
        return row
    record = VariantRecord.objects.filter(
        unit_slug=unit_slug, check_id=check.id, seed=seed, **learner.owner()
    ).first()
    if record is None:
        return None
    view = copy.copy(row)
    view.show_variant(record)
    return view


def answers_for(
    *, learner: Learner, unit_slug: str, check_ids: Collection[str] | None = None
) -> dict[str, CheckAnswer]:
    """The learner's answers in the unit, by check id; only those of ``check_ids`` when given
    (a section page reads its own checks' answers, not the whole unit's: a prepared read)."""
    if not learner.known:
        return {}
    if check_ids is None:
        rows = CheckAnswer.objects.filter(unit_slug=unit_slug, **learner.owner())
        return {row.check_id: row for row in rows}
    ids = list(dict.fromkeys(check_ids))
    if not ids:
        return {}
    signed_in = learner.user_id is not None
    read = _answers_of_checks(signed_in, len(ids))
    found = read.objects(unit_slug, learner.user_id if signed_in else learner.anon_token, *ids)
    return {row.check_id: row for row in found}


# A section page's answers, prepared once per (signed in or not, number of checks).
_OWNER_STAND_INS = {True: 2_147_480_011, False: uuid.UUID("5a1d0c3e-9b7f-4e2a-8c61-0f4d2b9e7a13")}
_ANSWER_READS: dict[tuple[bool, int], Prepared[CheckAnswer]] = {}


def _answers_of_checks(signed_in: bool, count: int) -> Prepared[CheckAnswer]:
    read = _ANSWER_READS.get((signed_in, count))
    if read is None:

        def make(slug: str, owner: object, *ids: str) -> QuerySet[CheckAnswer]:
            who = {"user_id": owner, "anon_token": None}
            if not signed_in:
                who = {"user_id": None, "anon_token": owner}
            return CheckAnswer.objects.filter(unit_slug=slug, check_id__in=ids, **who)

        stand_ins = ("stand-in-unit", _OWNER_STAND_INS[signed_in])
        read = Prepared(CheckAnswer, make, *stand_ins, *(f"stand-in-{i}" for i in range(count)))
        _ANSWER_READS[(signed_in, count)] = read
    return read


@dataclass(frozen=True)
class UnitProgress:
    """A learner's progress in a unit, counted against what is written (the compiled checks),
    never against the finished unit's plan.

    answered: ids of the checks and problems answered at least once. reached_latest_first: the
    sections reached, the latest visit first."""

    checks_total: int
    checks_answered: int
    checks_correct: int
    sections_reached: frozenset[int]
    answered: frozenset[str] = frozenset()
    reached_latest_first: tuple[int, ...] = ()

    @property
    def started(self) -> bool:
        return bool(self.answered or self.sections_reached)


def unit_progress(*, learner: Learner, unit: CompiledUnit) -> UnitProgress:
    answers = answers_for(learner=learner, unit_slug=unit.slug)
    visits = (
        SectionVisit.objects.filter(unit_slug=unit.slug, **learner.owner())
        .order_by("-last_visited_at", "-section_number")
        .values_list("section_number", flat=True)
        if learner.known
        else []
    )
    reached = tuple(visits)
    # The published predictions (not problems, not a draft's checks).
    checks = {c.id for s in unit.sections if not s.draft for c in s.checks}
    return UnitProgress(
        checks_total=len(checks),
        checks_answered=sum(1 for i, a in answers.items() if i in checks and a.attempts),
        checks_correct=sum(1 for i, a in answers.items() if i in checks and a.correct),
        sections_reached=frozenset(reached),
        answered=frozenset(i for i, a in answers.items() if a.attempts),
        reached_latest_first=reached,
    )


def continue_section(
    *, unit: CompiledUnit, progress: UnitProgress, open_numbers: Collection[int]
) -> int:
    """Where "Continue" (or "Start") takes this learner; the unit page, the home page and "Your
    learning" all ask this one function.

    The first written section open to them with a check or problem not yet answered; when every
    one is answered, the written open section they reached last; else the first written open
    section. Never a section still being written, even one they visited.
    """
    readable = [s for s in unit.sections if s.published and s.number in open_numbers]
    if not readable:
        return unit.sections[0].number
    for section in readable:
        if any(c.id not in progress.answered for c in section.gradables):
            return section.number
    numbers = {s.number for s in readable}
    return next((n for n in progress.reached_latest_first if n in numbers), readable[0].number)


@dataclass(frozen=True)
class LearnerUnit:
    """One unit as this learner stands in it, for the home page, the unit page and "Your
    learning" alike: what is written (contents), their progress, whether its paid sections are
    open to them (owned), which sections they may open, and where "Continue" goes."""

    unit: CompiledUnit
    contents: UnitContents
    progress: UnitProgress
    owned: bool
    open_numbers: frozenset[int]
    continue_at: int

    @property
    def open_all_answered(self) -> bool:
        """Every check and problem of every written section open to this learner is answered."""
        readable = [s for s in self.unit.sections if s.published and s.number in self.open_numbers]
        return bool(readable) and all(
            c.id in self.progress.answered for s in readable for c in s.gradables
        )

    @property
    def next_locked(self) -> int | None:
        """The first written section after ``continue_at`` this learner may not open yet (where
        a learner who has done the free preview goes next: its page says what it holds)."""
        return next(
            (
                s.number
                for s in self.unit.sections
                if s.published and s.number > self.continue_at and s.number not in self.open_numbers
            ),
            None,
        )

    @property
    def written_reached(self) -> int:
        """Written sections this learner has reached (a visit to a placeholder is not one)."""
        return len(self.progress.sections_reached & set(self.contents.written))


def learner_unit(
    *,
    user: AbstractBaseUser | AnonymousUser,
    learner: Learner,
    unit: CompiledUnit,
    toc: list[dict[str, object]] | None = None,
) -> LearnerUnit:
    """Where ``learner`` (signed in as ``user``, or not) stands in ``unit``. ``toc``: the
    page's toc_with_access, when it has one (entitlement is then not asked again)."""
    toc = toc if toc is not None else toc_with_access(user=user, unit=unit)
    open_numbers = frozenset(
        cast(CompiledSection, item["section"]).number for item in toc if item["open"]
    )
    progress = unit_progress(learner=learner, unit=unit)
    return LearnerUnit(
        unit=unit,
        contents=unit.contents,
        progress=progress,
        owned=any(not s.free and s.number in open_numbers for s in unit.sections),
        open_numbers=open_numbers,
        continue_at=continue_section(unit=unit, progress=progress, open_numbers=open_numbers),
    )


def solution_offered(check: CheckDef, stored: CheckAnswer | None) -> bool:
    """Whether "Show me the worked answer" is offered to a learner whose record of ``check``'s
    numbers shown is ``stored``: the page offers it, and the reveal view refuses what it does
    not offer. A practice problem offers it at any time; a check only after a wrong answer on
    those numbers (its first wrong answer names the mistake, and the key never comes before a
    try). Asking again once it is shown changes nothing."""
    if not check.solution_html:
        return False
    if check.problem:
        return True
    return stored is not None and (stored.wrong_attempts > 0 or stored.revealed_at is not None)


# Mastery of a practice problem. The rule is said on the arena's page (15-practice.md) and on
# the dashboard: attempted = answered at least once; familiar = solved; proficient = solved at
# the first try (no wrong try and the worked answer not opened on those numbers, ever) on two
# different sets of numbers (by their numbers: variants.numbers_of, not their seeds).
MASTERY_LEVELS = ("new", "attempted", "familiar", "proficient")
MASTERY_LABELS = {
    "new": "not tried yet",
    "attempted": "attempted",
    "familiar": "familiar (solved)",
    "proficient": "proficient (solved first try on two sets of numbers)",
}
PROFICIENT_VARIANTS = 2


def mastery_level(answer: CheckAnswer | None) -> str:
    """One of MASTERY_LEVELS for a learner's row on a problem (None: never touched)."""
    if answer is None or not answer.attempts:
        return "new"
    # Counted by the numbers, not the seeds: two seeds that draw the same numbers are one.
    if len(set(answer.first_try_numbers)) >= PROFICIENT_VARIANTS:
        return "proficient"
    return "familiar" if answer.solved_at is not None else "attempted"


@dataclass(frozen=True)
class ProblemMastery:
    problem: CheckDef
    section: int
    level: str

    @property
    def label(self) -> str:
        return MASTERY_LABELS[self.level]


def problem_mastery(
    *,
    user: AbstractBaseUser | AnonymousUser,
    learner: Learner,
    unit: CompiledUnit,
    answers: dict[str, CheckAnswer] | None = None,
) -> list[ProblemMastery]:
    """Every practice problem of the unit that ``user`` may open, in page order, with this
    learner's level. A problem's title and level are part of its section, behind the same gate
    (section_access): a learner who may not open the arena (never bought, or refunded) is told
    how many problems it holds (problems_locked), never their titles."""
    if answers is None:
        answers = answers_for(learner=learner, unit_slug=unit.slug)
    return [
        ProblemMastery(p, s.number, mastery_level(answers.get(p.id)))
        for s in unit.sections
        if not s.draft and s.problems and section_access(user=user, unit=unit, section=s)
        for p in s.problems
    ]


def problems_locked(*, user: AbstractBaseUser | AnonymousUser, unit: CompiledUnit) -> int:
    """How many published practice problems of the unit are in sections closed to ``user``
    (what the offer says: the count, never the titles; see problem_mastery)."""
    return sum(
        len(s.problems)
        for s in unit.sections
        if not s.draft and s.problems and not section_access(user=user, unit=unit, section=s)
    )
