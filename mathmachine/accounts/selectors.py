"""Reads for "Your learning": each published unit with the learner's progress and where to go on."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.base_user import AbstractBaseUser

from mathmachine.billing.selectors import entitled_unit_numbers
from mathmachine.coursebook.model import CompiledUnit
from mathmachine.learning import selectors as learning
from mathmachine.learning.learners import Learner


@dataclass(frozen=True)
class UnitCard:
    """One unit on the dashboard.

    continue_section: the section the "continue" link opens, as the unit page's
      (learning.selectors.continue_section: the first written section open to the learner with
      something unanswered).
    """

    unit: CompiledUnit
    progress: learning.UnitProgress
    entitled: bool
    sections_open: int
    sections_total: int
    continue_section: int
    started: bool
    problems: tuple[learning.ProblemMastery, ...] = ()
    standing: learning.LearnerUnit | None = None
    problems_locked: int = 0  # in sections closed to them: counted, never named

    @property
    def problems_solved(self) -> int:
        return sum(1 for p in self.problems if p.level in ("familiar", "proficient"))

    @property
    def problems_proficient(self) -> int:
        return sum(1 for p in self.problems if p.level == "proficient")

    @property
    def checks_percent(self) -> int:
        total = self.progress.checks_total
        return round(100 * self.progress.checks_answered / total) if total else 0


def learning_overview(*, user: AbstractBaseUser) -> list[UnitCard]:
    """Every published unit, with this user's progress (answers, sections reached, resume)."""
    learner = Learner(user_id=user.pk, anon_token=None)
    entitled = entitled_unit_numbers(user=user)
    cards = []
    for unit in learning.units_list():
        standing = learning.learner_unit(user=user, learner=learner, unit=unit)
        written_open = [n for n in standing.contents.written if n in standing.open_numbers]
        cards.append(
            UnitCard(
                unit=unit,
                progress=standing.progress,
                entitled=unit.number in entitled,
                sections_open=len(written_open),
                sections_total=len(standing.contents.written),
                continue_section=standing.continue_at,
                started=standing.progress.started,
                problems=tuple(learning.problem_mastery(user=user, learner=learner, unit=unit)),
                standing=standing,
                problems_locked=learning.problems_locked(user=user, unit=unit),
            )
        )
    return cards
