"""Writes of the learning app: answering a check (attempts, first try, solved time, unreadable
answers, owners, concurrent first answers) and recording section visits."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

import pytest
import time_machine
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models import QuerySet
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from support import in_parallel

from mathmachine.coursebook.model import CheckDef
from mathmachine.learning import services
from mathmachine.learning.learners import Learner
from mathmachine.learning.models import CheckAnswer, SectionVisit
from mathmachine.learning.services import check_answer_submit, section_visit_record

from .conftest import UNIT

RIGHT = ["(0.017, 0.047, 0.936)"]
WRONG = ["0.2 0.3 0.5"]
T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
ON_POSTGRES = settings.DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql"


def anon() -> Learner:
    return Learner(user_id=None, anon_token=uuid.uuid4())


def submit(learner: Learner, check: CheckDef, raw: list[str]) -> Any:
    return check_answer_submit(learner=learner, unit_slug=UNIT, check=check, raw=raw)


@pytest.mark.django_db
class TestCheckAnswerSubmit:
    def test_right_first_time(self, check1: CheckDef) -> None:
        learner = anon()
        with time_machine.travel(T0, tick=False):
            outcome = submit(learner, check1, RIGHT)
        assert outcome.grade.ok and outcome.grade.correct
        row = CheckAnswer.objects.get()
        assert row.pk == outcome.record.pk
        assert (row.attempts, row.correct, row.first_try_correct) == (1, True, True)
        assert row.solved_at == T0 and row.first_answered_at == T0
        assert row.anon_token == learner.anon_token and row.user_id is None
        assert (row.unit_slug, row.check_id) == (UNIT, "s1-sharpen")

    def test_wrong_then_right_then_wrong_keeps_the_history(self, check1: CheckDef) -> None:
        learner = anon()
        with time_machine.travel(T0, tick=False) as clock:
            submit(learner, check1, WRONG)
            row = CheckAnswer.objects.get()
            assert (row.attempts, row.correct, row.first_try_correct) == (1, False, False)
            assert row.solved_at is None

            clock.shift(60)
            submit(learner, check1, RIGHT)
            row.refresh_from_db()
            assert (row.attempts, row.correct, row.first_try_correct) == (2, True, False)
            solved = row.solved_at
            assert solved == datetime(2026, 3, 1, 9, 1, tzinfo=UTC)

            clock.shift(60)
            later = submit(learner, check1, ["  0.1, 0.164, 0.736 "])
            row.refresh_from_db()
        # A wrong answer after a right one is counted and graded, but never stored over it.
        assert later.kept_right and later.grade.mistakes == ("unchanged",)
        assert (row.attempts, row.correct, row.first_try_correct) == (3, True, False)
        assert (row.variant_attempts, row.wrong_attempts) == (3, 2)
        assert row.solved_at == solved
        assert row.first_answered_at == T0
        assert row.last_answer == RIGHT  # the right answer, not the later wrong one
        assert row.check_version == check1.version and row.mistakes == []
        assert CheckAnswer.objects.count() == 1

    def test_the_verdict_is_stored_with_the_answer(self, check1: CheckDef) -> None:
        learner = anon()
        submit(learner, check1, ["0.2 0.328 1.472"])
        row = CheckAnswer.objects.get()
        assert (row.correct, row.mistakes, row.fields_right) == (
            False,
            ["doubled-the-weights"],
            [False],
        )
        assert row.check_version == check1.version and row.wrong_attempts == 1
        submit(learner, check1, ["0.3 0.3 0.4"])
        row.refresh_from_db()
        assert (row.mistakes, row.wrong_attempts, row.last_answer) == ([], 2, ["0.3 0.3 0.4"])

    @hypothesis_settings(
        max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
    )
    @given(raw=st.lists(st.text(max_size=60), min_size=0, max_size=3))
    def test_any_text_stores_an_answer_only_when_it_was_read(
        self, check2: CheckDef, raw: list[str]
    ) -> None:
        learner = anon()
        submit(learner, check2, ["35", "1050"])
        before = CheckAnswer.objects.values().get(anon_token=learner.anon_token)
        outcome = submit(learner, check2, raw)
        after = CheckAnswer.objects.values().get(anon_token=learner.anon_token)
        if not outcome.grade.ok:
            assert outcome.record is None and after == before
        else:  # read and counted; a wrong answer never replaces the right one
            assert after["attempts"] == 2 and after["correct"]
            if not outcome.grade.correct:
                assert after["last_answer"] == ["35", "1050"]

    def test_asking_for_the_worked_answer_is_recorded_once(self, check1: CheckDef) -> None:
        learner = anon()
        with time_machine.travel(T0, tick=False) as clock:
            row = services.check_solution_reveal(learner=learner, unit_slug=UNIT, check=check1)
            clock.shift(60)
            again = services.check_solution_reveal(learner=learner, unit_slug=UNIT, check=check1)
        assert row.pk == again.pk and again.revealed_at == T0 and again.attempts == 0
        submit(learner, check1, RIGHT)
        row = CheckAnswer.objects.get()
        assert row.correct and row.first_try_variants == []  # seen first: not a first try

    def test_a_second_right_answer_does_not_move_the_solve_time(self, check1: CheckDef) -> None:
        learner = anon()
        with time_machine.travel(T0, tick=False) as clock:
            submit(learner, check1, RIGHT)
            clock.shift(3600)
            submit(learner, check1, ["0.017 0.047 0.936"])
        row = CheckAnswer.objects.get()
        assert row.solved_at == T0 and row.attempts == 2 and row.first_try_correct

    @pytest.mark.parametrize("raw", [["nonsense"], [""], [], ["1", "2"], ["0.1 0.2"]])
    def test_an_unreadable_answer_changes_nothing(self, check1: CheckDef, raw: list[str]) -> None:
        learner = anon()
        outcome = submit(learner, check1, raw)
        assert outcome.record is None and not outcome.grade.ok and outcome.grade.message
        assert CheckAnswer.objects.count() == 0
        submit(learner, check1, WRONG)
        before = CheckAnswer.objects.values().get()
        assert submit(learner, check1, raw).record is None
        assert CheckAnswer.objects.values().get() == before

    def test_each_learner_has_their_own_row(self, check1: CheckDef, check2: CheckDef) -> None:
        user = get_user_model().objects.create_user(username="meera", email="meera@example.com")
        learners = [anon(), anon(), Learner(user_id=user.pk, anon_token=None)]
        for learner in learners:
            submit(learner, check1, WRONG)
        submit(learners[0], check1, RIGHT)
        submit(learners[0], check2, ["35", "1050"])
        assert CheckAnswer.objects.count() == 4
        mine = CheckAnswer.objects.get(anon_token=learners[0].anon_token, check_id="s1-sharpen")
        assert mine.attempts == 2 and mine.correct
        theirs = CheckAnswer.objects.get(user=user)
        assert theirs.attempts == 1 and not theirs.correct and theirs.anon_token is None

    def test_an_unknown_learner_is_refused(self, check1: CheckDef) -> None:
        with pytest.raises(ValueError, match="needs a learner"):
            submit(Learner(user_id=None, anon_token=None), check1, RIGHT)
        assert CheckAnswer.objects.count() == 0


@pytest.mark.postgres
@pytest.mark.skipif(not ON_POSTGRES, reason="SQLite serialises writers; needs PostgreSQL")
@pytest.mark.django_db(transaction=True)
class TestConcurrentFirstAnswers:
    def test_four_simultaneous_first_answers_make_one_row(self, check1: CheckDef) -> None:
        learner = anon()
        for _ in range(3):  # the race is on the row's creation: a few rounds
            CheckAnswer.objects.all().delete()
            answers = [RIGHT, WRONG, WRONG, RIGHT]
            errors = in_parallel(*[lambda a=a: submit(learner, check1, a) for a in answers])
            assert errors == []
            row = CheckAnswer.objects.get()
            assert row.attempts == 4

    def test_losing_the_create_race_retries_and_updates_the_winners_row(
        self, check1: CheckDef, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """Force the interleaving: between this submit's lookup (no row yet) and its create,
        another connection creates the row and commits. The create hits the unique constraint
        and the submit retries, updating that row."""
        learner = anon()
        original_first = QuerySet.first
        raced: list[bool] = []

        def first_then_race(qs: QuerySet[Any]) -> Any:
            found = original_first(qs)
            if qs.model is CheckAnswer and qs.query.select_for_update and not raced:
                raced.append(True)
                assert found is None
                errors = in_parallel(lambda: submit(learner, check1, WRONG))
                assert errors == []
            return found

        monkeypatch.setattr(QuerySet, "first", first_then_race)
        outcome = submit(learner, check1, RIGHT)
        assert raced == [True]
        row = CheckAnswer.objects.get()
        assert outcome.record.pk == row.pk
        assert (row.attempts, row.correct, row.first_try_correct) == (2, True, False)
        assert row.solved_at is not None


@pytest.mark.django_db
class TestSectionVisitRecord:
    def test_visits_are_counted_and_the_latest_time_kept(self) -> None:
        learner = anon()
        with time_machine.travel(T0, tick=False) as clock:
            section_visit_record(learner=learner, unit_slug=UNIT, section_number=1)
            clock.shift(120)
            section_visit_record(learner=learner, unit_slug=UNIT, section_number=1)
        visit = SectionVisit.objects.get()
        assert visit.visits == 2
        assert visit.first_visited_at == T0
        assert visit.last_visited_at == datetime(2026, 3, 1, 9, 2, tzinfo=UTC)

    def test_sections_and_learners_are_kept_apart(self) -> None:
        a, b = anon(), anon()
        section_visit_record(learner=a, unit_slug=UNIT, section_number=1)
        section_visit_record(learner=a, unit_slug=UNIT, section_number=2)
        section_visit_record(learner=b, unit_slug=UNIT, section_number=1)
        assert SectionVisit.objects.count() == 3
        assert SectionVisit.objects.filter(anon_token=a.anon_token).count() == 2

    def test_an_unknown_learner_records_nothing(self) -> None:
        section_visit_record(
            learner=Learner(user_id=None, anon_token=None), unit_slug=UNIT, section_number=1
        )
        assert SectionVisit.objects.count() == 0
