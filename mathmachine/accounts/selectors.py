"""Reads for "Your learning": each published unit with the learner's progress and where to go on."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.base_user import AbstractBaseUser

from mathmachine.billing.selectors import entitled_unit_numbers
from mathmachine.coursebook.model import CompiledUnit
from mathmachine.learning import selectors as learning
from mathmachine.learning.learners import Learner
from mathmachine.learning.models import SectionVisit


@dataclass(frozen=True)
class UnitCard:
    """One unit on the dashboard.

    continue_section: the section the "continue" link opens: where the learner stopped if they
      may still read it, else the latest section they reached and may read, else section 1.
    """

    unit: CompiledUnit
    progress: learning.UnitProgress
    entitled: bool
    sections_open: int
    sections_total: int
    continue_section: int
    started: bool
    problems: tuple[learning.ProblemMastery, ...] = ()

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
        progress = learning.unit_progress(learner=learner, unit=unit)
        open_numbers = [
            s.number
            for s in unit.sections
            if learning.section_access(user=user, unit=unit, section=s)
        ]
        reached_latest_first = SectionVisit.objects.filter(
            user_id=user.pk, unit_slug=unit.slug
        ).order_by("-last_visited_at", "-section_number")
        continue_section = next(
            (
                n
                for n in reached_latest_first.values_list("section_number", flat=True)
                if n in open_numbers
            ),
            open_numbers[0] if open_numbers else unit.sections[0].number,
        )
        cards.append(
            UnitCard(
                unit=unit,
                progress=progress,
                entitled=unit.number in entitled,
                sections_open=len(open_numbers),
                sections_total=len(unit.sections),
                continue_section=continue_section,
                started=bool(progress.checks_answered or progress.sections_reached),
                problems=tuple(learning.problem_mastery(learner=learner, unit=unit)),
            )
        )
    return cards
