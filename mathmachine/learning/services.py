"""Writes: answering a check, reaching a section. Keyword-only, typed, atomic."""

from __future__ import annotations

from dataclasses import dataclass

from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from mathmachine.coursebook.grading import Grade, grade
from mathmachine.coursebook.model import CheckDef

from .learners import Learner
from .models import CheckAnswer, SectionVisit

@dataclass(frozen=True)
class AnswerOutcome:
    grade: Grade
    record: CheckAnswer | None  # None when the answer could not be read: nothing was stored


def check_answer_submit(
    *, learner: Learner, unit_slug: str, check: CheckDef, raw: list[str]
) -> AnswerOutcome:
    """Grade ``raw`` (one string per field) and record the attempt.

    Unreadable input (empty, not a number, wrong count, too long: see grading.grade) is answered with a message and
    changes nothing. Concurrent submits of the same learner serialise on the row.
    """
    if not learner.known:
        raise ValueError("an answer needs a learner (a user or an anonymous token)")
    result = grade(check, raw)
    if not result.ok:
        return AnswerOutcome(grade=result, record=None)
    for attempt in range(2):
        try:
            with transaction.atomic():
                row = _locked_row(learner=learner, unit_slug=unit_slug, check_id=check.id)
                now = timezone.now()
                row.attempts += 1
                if row.attempts == 1:
                    row.first_try_correct = result.correct
                row.correct = result.correct
                if result.correct and row.solved_at is None:
                    row.solved_at = now
                row.last_answer = [r.strip() for r in raw]
                row.save()
                return AnswerOutcome(grade=result, record=row)
        except IntegrityError:
            # Two first answers raced to create the row; the loser retries and updates it.
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


def section_visit_record(*, learner: Learner, unit_slug: str, section_number: int) -> None:
    """Remember that the learner reached a section (the latest one is where they resume)."""
    if not learner.known:
        return
    owner = learner.owner()
    with transaction.atomic():
        updated = SectionVisit.objects.filter(
            unit_slug=unit_slug, section_number=section_number, **owner
        ).update(visits=F("visits") + 1, last_visited_at=timezone.now())
        if not updated:
            try:
                with transaction.atomic():
                    SectionVisit.objects.create(
                        unit_slug=unit_slug, section_number=section_number, visits=1, **owner
                    )
            except IntegrityError:
                pass  # a concurrent first visit created it; one visit more or less is harmless

