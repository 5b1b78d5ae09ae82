"""Writes: answering a check, reaching a section. Keyword-only, typed, atomic."""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, TypeVar

from django.contrib.auth.base_user import AbstractBaseUser
from django.db import IntegrityError, connections, router, transaction
from django.db.backends.base.base import BaseDatabaseWrapper
from django.utils import timezone

from mathmachine import prepared
from mathmachine.coursebook.grading import Grade, grade
from mathmachine.coursebook.model import CheckDef
from mathmachine.coursebook.variants import numbers_of

from .learners import Learner
from .models import CheckAnswer, ReceivedAnswer, SectionVisit, VariantRecord


@dataclass(frozen=True)
class AnswerOutcome:
    """grade: this answer's grade. record: the learner's row after it (None when the answer
    could not be read: nothing was stored). kept_right: the answer was wrong and the row keeps
    the earlier right answer of the same variant."""

    grade: Grade
    record: CheckAnswer | None
    kept_right: bool = False


def _variant_of(check: CheckDef) -> int | None:
    return check.variant.seed if check.variant else None


def check_answer_submit(
    *, learner: Learner, unit_slug: str, check: CheckDef, raw: list[str]
) -> AnswerOutcome:
    """Grade ``raw`` (one string per box) against ``check`` (for a check with fresh numbers:
    the variant the learner answered) and record the attempt with its verdict.

    Unreadable input (empty, not readable by the box's kind, the right numbers at too few
    decimals, too long: see grading.grade) is answered with a message and changes nothing.
    The verdict is stored with the answer and the check's version. A wrong answer never
    replaces a right one of the same variant. Concurrent submits of the same learner serialise
    on the row.
    """
    if not learner.known:
        raise ValueError("an answer needs a learner (a user or an anonymous token)")
    result = grade(check, raw)
    if not result.ok:
        return AnswerOutcome(grade=result, record=None)
    seed = _variant_of(check)
    for attempt in range(2):
        try:
            with transaction.atomic():
                row = _locked_row(learner=learner, unit_slug=unit_slug, check_id=check.id)
                record = _locked_record(learner, unit_slug, check, seed)
                if record is not None:
                    row.show_variant(record)
                now = timezone.now()
                row.attempts += 1
                row.variant_attempts += 1
                if row.attempts == 1:
                    # After the worked answer was shown, a right answer is not a first try.
                    row.first_try_correct = result.correct and row.revealed_at is None
                kept_right = not result.correct and row.correct
                if result.correct:
                    if row.variant_attempts == 1 and row.revealed_at is None:
                        # Solved at the first try on these numbers (no wrong try, no reveal on
                        # this seed, ever: its record keeps them).
                        tried = list(row.first_try_variants)
                        if (seed or 0) not in tried:
                            row.first_try_variants = [*tried, seed or 0]
                        numbers = numbers_of(check)
                        if numbers not in row.first_try_numbers:
                            row.first_try_numbers = [*row.first_try_numbers, numbers]
                        if record is not None:
                            record.first_try_correct = True
                    if row.solved_at is None:
                        row.solved_at = now
                    if record is not None and record.solved_at is None:
                        record.solved_at = now
                else:
                    row.wrong_attempts += 1
                if not kept_right:
                    row.correct = result.correct
                    row.last_answer = [r.strip() for r in raw]
                    row.mistakes = list(result.mistakes)
                    row.fields_right = list(result.fields_right)
                    row.check_version = check.version
                row.save()
                if record is not None:
                    row.keep_variant(record)
                    record.save()
                return AnswerOutcome(grade=result, record=row, kept_right=kept_right)
        except IntegrityError:
            # Two first answers raced to create the row; the loser retries and updates it.
            if attempt == 1:
                raise
    raise AssertionError("unreachable")


#: An id the page's script makes for one answer (crypto.randomUUID, or random hex).
CLIENT_ANSWER_ID = re.compile(r"[A-Za-z0-9_-]{8,64}")
CLIENT_ANSWER_ID_MESSAGE = (
    "The answer's id (client_answer_id) must be 8 to 64 letters, digits, dashes or underscores."
)
#: How long a received answer's id is kept (answers_received_prune).
RECEIVED_ANSWER_DAYS = 90


class AnswerIdReused(Exception):
    """The id was already used by this learner for another check."""

    MESSAGE = "This answer's id was already used for another check: make a new id for each answer."


@dataclass(frozen=True)
class Received:
    """What an answer sent with an id was answered: ``status`` and ``payload`` (the JSON),
    ``again``: this id had been received before, and this is the first answer, unchanged."""

    status: int
    payload: dict[str, Any]
    again: bool


def answer_received_once(
    *,
    learner: Learner,
    client_answer_id: str,
    unit_slug: str,
    check_id: str,
    answer: Callable[[], tuple[int, dict[str, Any]]],
) -> Received:
    """Run ``answer`` (which grades and stores the answer, and says the HTTP status and the
    JSON to send) once per ``client_answer_id`` of this learner: the first time it runs, and
    what it said is kept with the id, in the same transaction; every later time the kept
    answer is returned and nothing runs. Two sends of one id at once serialise on the id's
    unique constraint: the second waits for the first and gets its answer. AnswerIdReused if
    the id was received for another check."""
    if not learner.known:
        raise ValueError("a received answer needs a learner (a user or an anonymous token)")
    if not CLIENT_ANSWER_ID.fullmatch(client_answer_id):
        raise ValueError(CLIENT_ANSWER_ID_MESSAGE)
    owner = learner.owner()
    key = {"client_answer_id": client_answer_id, **owner}
    with transaction.atomic():
        try:
            with transaction.atomic():  # savepoint: the id's unique constraint decides
                receipt = ReceivedAnswer.objects.create(
                    unit_slug=unit_slug, check_id=check_id, status=0, payload={}, **key
                )
        except IntegrityError:
            receipt = None
        if receipt is not None:
            status, payload = answer()
            receipt.status, receipt.payload = status, payload
            receipt.save(update_fields=["status", "payload"])
            return Received(status=status, payload=payload, again=False)
    kept = ReceivedAnswer.objects.get(**key)
    if (kept.unit_slug, kept.check_id) != (unit_slug, check_id):
        raise AnswerIdReused(AnswerIdReused.MESSAGE)
    return Received(status=kept.status, payload=dict(kept.payload), again=True)


def answers_received_prune(*, days: int = RECEIVED_ANSWER_DAYS) -> int:
    """Forget the ids of answers received more than ``days`` days ago; returns how many. An
    answer queued on a phone for longer than that and sent then would be graded as new."""
    if days < 1:
        raise ValueError("keep the ids for at least a day")
    cutoff = timezone.now() - timedelta(days=days)
    deleted, _ = ReceivedAnswer.objects.filter(created_at__lt=cutoff).delete()
    return deleted


def check_solution_reveal(*, learner: Learner, unit_slug: str, check: CheckDef) -> CheckAnswer:
    """The learner asked to see the worked answer ("show me"): recorded for the variant shown
    (the first time only), so it is shown from now on and a later right answer does not count
    as solved at the first try: on these numbers for good (the variant's record keeps it)."""
    if not learner.known:
        raise ValueError("a reveal needs a learner (a user or an anonymous token)")
    seed = _variant_of(check)
    for attempt in range(2):
        try:
            with transaction.atomic():
                row = _locked_row(learner=learner, unit_slug=unit_slug, check_id=check.id)
                record = _locked_record(learner, unit_slug, check, seed)
                if record is not None:
                    row.show_variant(record)
                if row.revealed_at is None:
                    row.revealed_at = timezone.now()
                    if record is not None:
                        row.keep_variant(record)
                        record.save()
                row.save()
                return row
        except IntegrityError:
            if attempt == 1:
                raise
    raise AssertionError("unreachable")


def _locked_row(*, learner: Learner, unit_slug: str, check_id: str) -> CheckAnswer:
    owner = learner.owner()
    row = (
        CheckAnswer.objects.select_for_update()
        .filter(unit_slug=unit_slug, check_id=check_id, **owner)
        .first()
    )
    if row is None:
        with transaction.atomic():  # savepoint: a unique-constraint race rolls back only this
            row = CheckAnswer.objects.create(unit_slug=unit_slug, check_id=check_id, **owner)
    return row


def _locked_record(
    learner: Learner, unit_slug: str, check: CheckDef, seed: int | None
) -> VariantRecord | None:
    """The learner's record of variant ``seed`` (locked; made if new); None without variants."""
    if seed is None:
        return None
    owner = learner.owner()
    key = {"unit_slug": unit_slug, "check_id": check.id, "seed": seed, **owner}
    record = VariantRecord.objects.select_for_update().filter(**key).first()
    if record is None:
        with transaction.atomic():  # savepoint, as in _locked_row
            record = VariantRecord.objects.create(numbers=numbers_of(check), **key)
    elif record.numbers != numbers_of(check):
        record.numbers = numbers_of(check)  # a record from before digests (or content changed)
    return record


def section_visit_record(*, learner: Learner, unit_slug: str, section_number: int) -> None:
    """Remember that the learner reached a section (the latest one is where they resume)."""
    if not learner.known:
        return
    owner = learner.owner()
    # One statement, atomic by itself (no transaction of ours around it: its bookkeeping cost
    # more than the UPDATE); the first visit creates the row.
    if _visit_count(learner, unit_slug, section_number, timezone.now()):
        return
    try:
        with transaction.atomic():
            SectionVisit.objects.create(
                unit_slug=unit_slug, section_number=section_number, visits=1, **owner
            )
    except IntegrityError:
        pass  # a concurrent first visit created it; one visit more or less is harmless


def _visit_count(learner: Learner, unit_slug: str, section_number: int, now: datetime) -> int:
    """``SectionVisit.objects.filter(unit_slug=…, section_number=…, **owner).update(visits=
    F("visits") + 1, last_visited_at=now)`` as one written UPDATE: the ORM's building of it
    cost most of a page view's visit (issue 18). The rows it changed."""
    alias = router.db_for_write(SectionVisit)
    connection = connections[alias]
    meta = SectionVisit._meta
    by_user = learner.user_id is not None
    if by_user:
        owner: object = learner.user_id
    else:
        owner = meta.get_field("anon_token").get_db_prep_value(learner.anon_token, connection)
    sql = _VISIT_SQL.get((alias, by_user))
    if sql is None:
        sql = _VISIT_SQL[(alias, by_user)] = _visit_sql(connection, by_user=by_user)
    when = meta.get_field("last_visited_at").get_db_prep_value(now, connection)
    changed = prepared.run(alias, sql, [when, unit_slug, section_number, owner], fetch=False)
    assert isinstance(changed, int)
    return changed


def _visit_sql(connection: BaseDatabaseWrapper, *, by_user: bool) -> str:
    meta = SectionVisit._meta
    quote = connection.ops.quote_name

    def column(name: str) -> str:
        return quote(meta.get_field(name).column)

    if by_user:
        who = f"{column('user')} = %s AND {column('anon_token')} IS NULL"
    else:
        who = f"{column('user')} IS NULL AND {column('anon_token')} = %s"
    return (
        f"UPDATE {quote(meta.db_table)} SET {column('visits')} = {column('visits')} + 1, "
        f"{column('last_visited_at')} = %s "
        f"WHERE {column('unit_slug')} = %s AND {column('section_number')} = %s AND {who}"
    )


# (database alias, by user) -> the visit's UPDATE, written once.
_VISIT_SQL: dict[tuple[str, bool], str] = {}


@dataclass(frozen=True)
class ClaimOutcome:
    """What learner_progress_claim did: rows moved to the user, rows merged into theirs."""

    answers_moved: int
    answers_merged: int
    visits_moved: int
    visits_merged: int


def learner_progress_claim(*, user: AbstractBaseUser, anon_token: uuid.UUID) -> ClaimOutcome:
    """Give the anonymous learner ``anon_token``'s answers and section visits to ``user``.

    Called at sign-up and sign-in. A row the user does not have yet is moved (its timestamps
    kept). Where the user already has a row for the same check, the two are merged into the
    user's row and the anonymous one is deleted: attempts are summed, a correct answer is never
    lost (the correct record wins over a wrong one; otherwise the latest), the first try and first
    solve are the earliest ones. Section visits are merged the same way (visits summed, the
    latest visit kept, so the place to resume is right).

    Atomic. The anonymous rows are locked first, then the user's; a row the user creates at the
    same moment (another tab answering) makes the move fail on the unique constraint inside a
    savepoint, and the claim merges into that row instead. Running it twice is harmless.
    """
    with transaction.atomic():
        answers_moved = answers_merged = 0
        anon_answers = CheckAnswer.objects.select_for_update().filter(
            anon_token=anon_token, user__isnull=True
        )
        for anon in anon_answers.order_by("pk"):
            mine = _claim_target(
                CheckAnswer, anon, user, unit_slug=anon.unit_slug, check_id=anon.check_id
            )
            if mine is None:
                answers_moved += 1
                continue
            CheckAnswer.objects.filter(pk=mine.pk).update(**_merged_answer(mine, anon))
            CheckAnswer.objects.filter(pk=anon.pk).delete()
            answers_merged += 1

        # Each set of numbers' own record: moved, or merged into the user's record of it.
        anon_records = VariantRecord.objects.select_for_update().filter(
            anon_token=anon_token, user__isnull=True
        )
        for record in anon_records.order_by("pk"):
            mine_record = _claim_target(
                VariantRecord,
                record,
                user,
                unit_slug=record.unit_slug,
                check_id=record.check_id,
                seed=record.seed,
            )
            if mine_record is not None:
                VariantRecord.objects.filter(pk=mine_record.pk).update(
                    **_merged_record(mine_record, record)
                )
                VariantRecord.objects.filter(pk=record.pk).delete()

        visits_moved = visits_merged = 0
        anon_visits = SectionVisit.objects.select_for_update().filter(
            anon_token=anon_token, user__isnull=True
        )
        for visit in anon_visits.order_by("pk"):
            mine_visit = _claim_target(
                SectionVisit,
                visit,
                user,
                unit_slug=visit.unit_slug,
                section_number=visit.section_number,
            )
            if mine_visit is None:
                visits_moved += 1
                continue
            SectionVisit.objects.filter(pk=mine_visit.pk).update(
                visits=mine_visit.visits + visit.visits,
                first_visited_at=min(mine_visit.first_visited_at, visit.first_visited_at),
                last_visited_at=max(mine_visit.last_visited_at, visit.last_visited_at),
            )
            SectionVisit.objects.filter(pk=visit.pk).delete()
            visits_merged += 1
    return ClaimOutcome(
        answers_moved=answers_moved,
        answers_merged=answers_merged,
        visits_moved=visits_moved,
        visits_merged=visits_merged,
    )


_Owned = TypeVar("_Owned", CheckAnswer, SectionVisit, VariantRecord)


def _claim_target(
    model: type[_Owned], anon: _Owned, user: AbstractBaseUser, **key: Any
) -> _Owned | None:
    """The user's row to merge ``anon`` into (locked), or None once ``anon`` has been moved."""
    mine = model.objects.select_for_update().filter(user_id=user.pk, **key).first()
    if mine is not None:
        return mine
    try:
        with transaction.atomic():  # savepoint: a concurrent create by the user rolls back this
            # update() keeps the row's timestamps (auto_now applies to save() only).
            model.objects.filter(pk=anon.pk).update(user_id=user.pk, anon_token=None)
        return None
    except IntegrityError:
        return model.objects.select_for_update().get(user_id=user.pk, **key)


def _merged_answer(mine: CheckAnswer, other: CheckAnswer) -> dict[str, Any]:
    """Field values of two records of one check merged into one (see learner_progress_claim)."""
    pair = (mine, other)
    earlier = min(pair, key=lambda r: r.first_answered_at)
    latest = max(pair, key=lambda r: r.updated_at)
    correct_ones = [r for r in pair if r.correct]
    best = latest if latest.correct or not correct_ones else correct_ones[0]
    solved = [r.solved_at for r in pair if r.solved_at is not None]
    first_tries = list(dict.fromkeys([*mine.first_try_variants, *other.first_try_variants]))
    first_numbers = list(dict.fromkeys([*mine.first_try_numbers, *other.first_try_numbers]))
    return {
        "attempts": mine.attempts + other.attempts,
        "first_try_numbers": first_numbers,
        "first_try_correct": earlier.first_try_correct,
        "first_try_variants": first_tries,
        # The stored answer with its verdict, version and variant state, all from one record.
        "correct": best.correct,
        "last_answer": best.last_answer,
        "mistakes": best.mistakes,
        "fields_right": best.fields_right,
        "check_version": best.check_version,
        "variant": best.variant,
        "variant_attempts": best.variant_attempts,
        "wrong_attempts": best.wrong_attempts,
        "revealed_at": best.revealed_at,
        "solved_at": min(solved) if solved else None,
        "first_answered_at": earlier.first_answered_at,
        "updated_at": latest.updated_at,
    }


def _merged_record(mine: VariantRecord, other: VariantRecord) -> dict[str, Any]:
    """Two records of one seed merged: tries summed, the earliest reveal and solve kept (a reveal
    or a wrong try on either is never forgotten), a right stored answer never lost."""
    pair = (mine, other)
    earlier = min(pair, key=lambda r: r.first_answered_at)
    latest = max(pair, key=lambda r: r.updated_at)
    correct_ones = [r for r in pair if r.correct]
    best = latest if latest.correct or not correct_ones else correct_ones[0]
    revealed = [r.revealed_at for r in pair if r.revealed_at is not None]
    solved = [r.solved_at for r in pair if r.solved_at is not None]
    return {
        "attempts": mine.attempts + other.attempts,
        "wrong_attempts": mine.wrong_attempts + other.wrong_attempts,
        "revealed_at": min(revealed) if revealed else None,
        "first_try_correct": earlier.first_try_correct,
        "solved_at": min(solved) if solved else None,
        "numbers": best.numbers,
        "correct": best.correct,
        "last_answer": best.last_answer,
        "mistakes": best.mistakes,
        "fields_right": best.fields_right,
        "check_version": best.check_version,
        "first_answered_at": earlier.first_answered_at,
        "updated_at": latest.updated_at,
    }
