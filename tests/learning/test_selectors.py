"""Reads of the learning app: units and sections from the coursebook, the gate's decision for
anonymous and non-entitled learners, a learner's answers and progress; and learner_from_request.
"""

from __future__ import annotations

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


def test_unit_totals_are_the_published_counts(unit18: CompiledUnit) -> None:
    assert selectors.unit_totals(unit18) == {"widgets": 18, "checks": 31, "sections": 15}


@pytest.mark.django_db
def test_answers_for_and_progress(unit18: CompiledUnit, check1: CheckDef, check2: CheckDef) -> None:
    me = Learner(user_id=None, anon_token=uuid.uuid4())
    someone = Learner(user_id=None, anon_token=uuid.uuid4())
    nobody = Learner(user_id=None, anon_token=None)
    empty = selectors.unit_progress(learner=me, unit=unit18)
    assert (empty.checks_total, empty.checks_answered, empty.resume_section) == (31, 0, None)

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
    assert progress.resume_section == 1  # the latest visit
    assert selectors.unit_progress(learner=nobody, unit=unit18).checks_answered == 0


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
