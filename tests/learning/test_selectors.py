"""Reads of the learning app: units and sections from the coursebook, the gate's decision for
anonymous and non-entitled learners, a learner's answers and progress; and learner_from_request.
"""

from __future__ import annotations

import dataclasses
import uuid
from datetime import UTC, datetime

import pytest
import time_machine
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser
from django.contrib.sessions.backends.db import SessionStore
from django.http import Http404
from django.test import RequestFactory

from mathmachine.coursebook.model import CheckDef, CompiledUnit
from mathmachine.learning import selectors
from mathmachine.learning.learners import SESSION_KEY, Learner, learner_from_request
from mathmachine.learning.services import check_answer_submit, section_visit_record

from .conftest import C1, C2, UNIT


def test_unit_get_and_the_catalog() -> None:
    unit = selectors.unit_get(UNIT)
    assert (unit.number, unit.slug, unit.title) == (18, UNIT, "Attention and Transformers")
    assert [u.slug for u in selectors.units_list()] == [UNIT]
    assert len(unit.sections) == 15


@pytest.mark.parametrize("slug", ["no-such-unit", "", "../etc"])
def test_an_unknown_unit_is_404(slug: str) -> None:
    with pytest.raises(Http404):
        selectors.unit_get(slug)


def test_sections_by_number(unit18: CompiledUnit) -> None:
    first = selectors.section_get(unit18, 1)
    assert first.number == 1 and first.free and first.written
    assert [c.id for c in first.checks] == [C1, C2]
    for number in (0, 16, -1):
        with pytest.raises(Http404):
            selectors.section_get(unit18, number)


def test_check_find(unit18: CompiledUnit) -> None:
    section, check = selectors.check_find(unit18, C2)
    assert section.number == 1 and check.id == C2 and len(check.fields) == 2
    with pytest.raises(Http404):
        selectors.check_find(unit18, "s2-nothing")


@pytest.mark.django_db
def test_section_access_free_for_all_paid_for_nobody_without_entitlement(
    unit18: CompiledUnit,
) -> None:
    user = get_user_model().objects.create_user(username="ravi", email="ravi@example.com")
    for who in (AnonymousUser(), user):
        assert [
            selectors.section_access(user=who, unit=unit18, section=s) for s in unit18.sections
        ] == [True] + [False] * 14


def test_unit_contents_count_what_is_compiled_beside_the_plan(unit18: CompiledUnit) -> None:
    """Issue 7: the offer says what is written. Counted here from the sections themselves (other
    sections land while this test stands: nothing about today's numbers is typed in)."""
    contents = unit18.contents
    written = [s for s in unit18.sections if s.written]
    assert contents.written == tuple(s.number for s in written)
    assert contents.unwritten == tuple(s.number for s in unit18.sections if not s.written)
    assert contents.widgets == sum(len(s.widgets) for s in written)
    assert contents.checks == sum(len(s.checks) for s in written)
    assert contents.problems == sum(unit18.problems_per_section.values())
    # The plan of the finished unit (unit.toml, SPEC): shown only as the plan.
    assert (contents.planned_widgets, contents.planned_checks, contents.planned_problems) == (
        18,
        31,
        16,
    )
    assert contents.sections == 15 and contents.free == (1,)
    assert contents.complete == (not contents.unwritten and contents.problems == 16)
    assert 1 in contents.written and 1 not in contents.paid_written


def test_number_ranges() -> None:
    from mathmachine.coursebook.model import number_ranges

    def said(numbers: tuple[int, ...]) -> str:
        joined = number_ranges(numbers)
        assert joined.count("\u2060") == 2 * joined.count("–")  # "5–14" never wraps
        return joined.replace("\u2060", "")

    assert said((1, 2, 3, 4, 15)) == "1–4 and 15"
    assert said((5, 6, 7, 8, 9, 10, 11, 12, 13, 14)) == "5–14"
    assert said((2,)) == "2"
    assert said((2, 3)) == "2, 3"
    assert said((2, 3, 7, 9, 10, 11)) == "2, 3, 7 and 9–11"


@pytest.mark.django_db
def test_answers_for_and_progress(unit18: CompiledUnit, check1: CheckDef, check2: CheckDef) -> None:
    me = Learner(user_id=None, anon_token=uuid.uuid4())
    someone = Learner(user_id=None, anon_token=uuid.uuid4())
    nobody = Learner(user_id=None, anon_token=None)
    empty = selectors.unit_progress(learner=me, unit=unit18)
    written_checks = sum(len(s.checks) for s in unit18.sections if s.written)
    # the checks that exist count, never the plan (they are one once the unit is complete)
    assert written_checks == unit18.contents.checks <= unit18.contents.planned_checks
    assert (written_checks < unit18.contents.planned_checks) == bool(unit18.contents.unwritten)
    assert (empty.checks_total, empty.checks_answered, empty.started) == (written_checks, 0, False)

    with time_machine.travel(datetime(2026, 3, 1, 9, 0, tzinfo=UTC), tick=False) as clock:
        section_visit_record(learner=me, unit_slug=UNIT, section_number=2)
        clock.shift(60)
        section_visit_record(learner=me, unit_slug=UNIT, section_number=1)
        check_answer_submit(learner=me, unit_slug=UNIT, check=check1, raw=["0.017 0.047 0.936"])
        check_answer_submit(learner=me, unit_slug=UNIT, check=check2, raw=["1", "1050"])
        check_answer_submit(learner=someone, unit_slug=UNIT, check=check1, raw=["1 2 3"])

    answers = selectors.answers_for(learner=me, unit_slug=UNIT)
    assert set(answers) == {C1, C2}
    assert answers[C1].correct and not answers[C2].correct
    assert selectors.answers_for(learner=me, unit_slug="another-unit") == {}
    assert selectors.answers_for(learner=nobody, unit_slug=UNIT) == {}

    progress = selectors.unit_progress(learner=me, unit=unit18)
    assert (progress.checks_answered, progress.checks_correct) == (2, 1)
    assert progress.sections_reached == frozenset({1, 2})
    assert progress.reached_latest_first == (1, 2)  # the latest visit first
    assert progress.answered == {C1, C2} and progress.started
    assert selectors.unit_progress(learner=nobody, unit=unit18).checks_answered == 0


def _progress(
    answered: frozenset[str] | set[str] = frozenset(), reached: tuple[int, ...] = ()
) -> selectors.UnitProgress:
    return selectors.UnitProgress(0, 0, 0, frozenset(reached), frozenset(answered), reached)


def test_continue_goes_to_the_first_written_section_with_something_unanswered(
    unit18: CompiledUnit,
) -> None:
    """Issue 7: never to a section still being written, even the one visited last. Once the
    unit is complete, §12 is taken back to unwritten here, to have one."""
    if all(s.written for s in unit18.sections):
        back = dataclasses.replace(unit18.section(12), written=False, html="", widgets=())
        unit18 = dataclasses.replace(
            unit18, sections=tuple(back if s.number == 12 else s for s in unit18.sections)
        )
    written = [s for s in unit18.sections if s.written]
    unwritten = [s.number for s in unit18.sections if not s.written]
    everything = {s.number for s in unit18.sections}
    assert unwritten
    go = selectors.continue_section
    # Nothing answered: section 1, whoever they are.
    assert go(unit=unit18, progress=_progress(), open_numbers=everything) == 1
    assert go(unit=unit18, progress=_progress(), open_numbers={1}) == 1
    # §1 answered, last seen in an unwritten section: the next written one with checks.
    done_1 = {c.id for c in written[0].gradables}
    visited = _progress(done_1, reached=(unwritten[0], 1))
    assert go(unit=unit18, progress=visited, open_numbers=everything) == written[1].number
    # Without the unit (only §1 open), everything open is answered: §1, where they were.
    assert go(unit=unit18, progress=visited, open_numbers={1}) == 1
    # Everything written answered: the written section reached last (never the unwritten one).
    done_all = {c.id for s in written for c in s.gradables}
    last = _progress(done_all, reached=(unwritten[0], written[1].number, 1))
    assert go(unit=unit18, progress=last, open_numbers=everything) == written[1].number


# learner_from_request -------------------------------------------------------------------------


def _request(user: object | None = None) -> object:
    request = RequestFactory().get("/")
    request.session = SessionStore()
    request.user = user or AnonymousUser()
    return request


@pytest.mark.django_db
def test_learner_from_request() -> None:
    request = _request()
    assert learner_from_request(request) == Learner(user_id=None, anon_token=None)
    assert SESSION_KEY not in request.session  # reading makes no learner

    made = learner_from_request(request, create=True)
    assert made.known and made.user_id is None
    assert request.session[SESSION_KEY] == str(made.anon_token)
    assert learner_from_request(request) == made  # the same one afterwards
    assert made.owner() == {"user_id": None, "anon_token": made.anon_token}

    request.session[SESSION_KEY] = "garbage"
    assert learner_from_request(request).anon_token is None
    assert learner_from_request(request, create=True).anon_token not in (None, made.anon_token)

    user = get_user_model().objects.create_user(username="isha", email="isha@example.com")
    signed_in = _request(user)
    signed_in.session[SESSION_KEY] = str(made.anon_token)  # before the claim at sign-in
    learner = learner_from_request(signed_in, create=True)
    assert learner == Learner(user_id=user.pk, anon_token=None)
    assert learner.owner() == {"user_id": user.pk, "anon_token": None}
