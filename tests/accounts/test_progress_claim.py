"""Anonymous progress joins the account at sign-up and sign-in (learner_progress_claim)."""

from __future__ import annotations

import datetime as dt
import uuid
from unittest import mock

import pytest
from django.contrib.auth import get_user_model
from django.db.models.query import QuerySet
from django.test import Client

from mathmachine.learning.learners import SESSION_KEY
from mathmachine.learning.models import CheckAnswer, SectionVisit
from mathmachine.learning.services import learner_progress_claim

pytestmark = pytest.mark.django_db

UNIT = "attention-and-transformers"
PASSWORD = "a long test password 42"
T0 = dt.datetime(2026, 1, 5, 10, 0, tzinfo=dt.UTC)


def _answer(owner: dict, check_id: str, *, minutes: int, **fields: object) -> CheckAnswer:
    """A CheckAnswer row with chosen timestamps (update() bypasses auto_now)."""
    row = CheckAnswer.objects.create(unit_slug=UNIT, check_id=check_id, **owner, **fields)
    at = T0 + dt.timedelta(minutes=minutes)
    CheckAnswer.objects.filter(pk=row.pk).update(first_answered_at=at, updated_at=at)
    row.refresh_from_db()
    return row


def _visit(owner: dict, number: int, *, minutes: int, visits: int = 1) -> SectionVisit:
    row = SectionVisit.objects.create(unit_slug=UNIT, section_number=number, visits=visits, **owner)
    at = T0 + dt.timedelta(minutes=minutes)
    SectionVisit.objects.filter(pk=row.pk).update(first_visited_at=at, last_visited_at=at)
    row.refresh_from_db()
    return row


@pytest.fixture
def user():
    return get_user_model().objects.create_user(
        username="asha", email="asha@example.com", password=PASSWORD
    )


@pytest.fixture
def token() -> uuid.UUID:
    return uuid.uuid4()


def test_rows_the_user_lacks_are_moved_with_their_history(user, token) -> None:
    anon = {"anon_token": token}
    _answer(
        anon,
        "s1-sharpen",
        minutes=1,
        attempts=3,
        correct=True,
        solved_at=T0,
        last_answer=["(0.1, 0.2, 0.7)"],
    )
    _visit(anon, 1, minutes=2, visits=4)

    outcome = learner_progress_claim(user=user, anon_token=token)

    assert (outcome.answers_moved, outcome.answers_merged) == (1, 0)
    assert (outcome.visits_moved, outcome.visits_merged) == (1, 0)
    row = CheckAnswer.objects.get(user=user)
    assert row.anon_token is None
    assert (row.attempts, row.correct, row.solved_at) == (3, True, T0)
    assert row.last_answer == ["(0.1, 0.2, 0.7)"]
    assert row.updated_at == T0 + dt.timedelta(minutes=1)  # history kept, not "now"
    visit = SectionVisit.objects.get(user=user)
    assert (visit.visits, visit.last_visited_at) == (4, T0 + dt.timedelta(minutes=2))
    assert not CheckAnswer.objects.filter(anon_token=token).exists()
    assert not SectionVisit.objects.filter(anon_token=token).exists()


def test_merge_never_loses_a_correct_answer_and_sums_attempts(user, token) -> None:
    # Anonymous: right at the first try, early. The account (another device): wrong twice, later.
    _answer(
        {"anon_token": token},
        "s1-sharpen",
        minutes=1,
        attempts=1,
        correct=True,
        first_try_correct=True,
        solved_at=T0 + dt.timedelta(minutes=1),
        last_answer=["right"],
    )
    _answer(
        {"user": user},
        "s1-sharpen",
        minutes=30,
        attempts=2,
        correct=False,
        first_try_correct=False,
        last_answer=["wrong"],
    )

    outcome = learner_progress_claim(user=user, anon_token=token)

    assert (outcome.answers_moved, outcome.answers_merged) == (0, 1)
    row = CheckAnswer.objects.get(user=user, check_id="s1-sharpen")
    assert row.attempts == 3
    assert row.correct is True
    assert row.last_answer == ["right"]
    assert row.first_try_correct is True  # the earlier record holds the first try
    assert row.solved_at == T0 + dt.timedelta(minutes=1)
    assert row.first_answered_at == T0 + dt.timedelta(minutes=1)
    assert row.updated_at == T0 + dt.timedelta(minutes=30)
    assert CheckAnswer.objects.count() == 1


def test_merge_keeps_the_latest_when_it_is_correct(user, token) -> None:
    _answer(
        {"user": user},
        "s1-count",
        minutes=1,
        attempts=2,
        correct=True,
        solved_at=T0 + dt.timedelta(minutes=1),
        last_answer=["4", "12"],
    )
    _answer(
        {"anon_token": token},
        "s1-count",
        minutes=9,
        attempts=1,
        correct=False,
        last_answer=["1", "12"],
    )

    learner_progress_claim(user=user, anon_token=token)

    row = CheckAnswer.objects.get(user=user)
    assert (row.attempts, row.correct, row.last_answer) == (3, True, ["4", "12"])
    assert row.solved_at == T0 + dt.timedelta(minutes=1)


def test_merge_of_two_wrong_records_keeps_the_latest_answer(user, token) -> None:
    _answer({"user": user}, "s1-count", minutes=1, attempts=1, last_answer=["1", "12"])
    _answer({"anon_token": token}, "s1-count", minutes=5, attempts=2, last_answer=["3", "9"])

    learner_progress_claim(user=user, anon_token=token)

    row = CheckAnswer.objects.get(user=user)
    assert (row.attempts, row.correct, row.solved_at) == (3, False, None)
    assert row.last_answer == ["3", "9"]


def test_section_visits_merge_and_the_resume_point_is_the_latest(user, token) -> None:
    _visit({"user": user}, 1, minutes=1, visits=2)
    _visit({"user": user}, 2, minutes=3, visits=1)
    _visit({"anon_token": token}, 1, minutes=10, visits=5)  # the latest place of all

    outcome = learner_progress_claim(user=user, anon_token=token)

    assert (outcome.visits_moved, outcome.visits_merged) == (0, 1)
    one = SectionVisit.objects.get(user=user, section_number=1)
    assert one.visits == 7
    assert one.first_visited_at == T0 + dt.timedelta(minutes=1)
    assert one.last_visited_at == T0 + dt.timedelta(minutes=10)
    latest = SectionVisit.objects.filter(user=user).order_by("-last_visited_at").first()
    assert latest.section_number == 1


def test_other_learners_rows_are_untouched_and_a_second_claim_changes_nothing(user, token) -> None:
    other_user = get_user_model().objects.create_user(username="ravi", email="ravi@example.com")
    other_token = uuid.uuid4()
    _answer({"anon_token": token}, "s1-count", minutes=1, attempts=1)
    _answer({"anon_token": other_token}, "s1-count", minutes=1, attempts=4)
    _answer({"user": other_user}, "s1-count", minutes=1, attempts=6)

    learner_progress_claim(user=user, anon_token=token)
    again = learner_progress_claim(user=user, anon_token=token)

    assert again == type(again)(0, 0, 0, 0)
    assert CheckAnswer.objects.get(user=user).attempts == 1
    assert CheckAnswer.objects.get(anon_token=other_token).attempts == 4
    assert CheckAnswer.objects.get(user=other_user).attempts == 6


def test_a_row_the_user_creates_meanwhile_is_merged_into(user, token) -> None:
    """The race with another tab: the user's row appears after the claim looked for it.

    The claim's lookup is made to miss the user's row once; the move then hits the unique
    constraint inside its savepoint, and the claim merges into the row instead.
    """
    _answer(
        {"anon_token": token},
        "s1-count",
        minutes=1,
        attempts=1,
        correct=True,
        solved_at=T0,
        last_answer=["4", "12"],
    )
    _answer({"user": user}, "s1-count", minutes=2, attempts=1, last_answer=["1", "12"])
    real_first = QuerySet.first
    missed = []

    def first_missing_the_users_row_once(qs):
        if qs.model is CheckAnswer and not missed:  # the claim's lookup of the user's row
            missed.append(str(qs.query))
            return None
        return real_first(qs)

    with mock.patch.object(QuerySet, "first", first_missing_the_users_row_once):
        outcome = learner_progress_claim(user=user, anon_token=token)

    assert missed and "anon_token" not in missed[0].split("WHERE")[1]
    assert (outcome.answers_moved, outcome.answers_merged) == (0, 1)
    row = CheckAnswer.objects.get(user=user)
    assert (row.attempts, row.correct, row.last_answer) == (2, True, ["4", "12"])
    assert CheckAnswer.objects.count() == 1


def _anonymous_client_with_progress() -> tuple[Client, uuid.UUID]:
    client = Client()
    token = uuid.uuid4()
    session = client.session
    session[SESSION_KEY] = str(token)
    session.save()
    _answer(
        {"anon_token": token},
        "s1-sharpen",
        minutes=1,
        attempts=2,
        correct=True,
        solved_at=T0,
        last_answer=["(0.1, 0.2, 0.7)"],
    )
    _visit({"anon_token": token}, 1, minutes=1)
    return client, token


def test_sign_up_attaches_this_browsers_answers(signup) -> None:
    """Sign-up, then the confirmation link opened in the same browser, which signs in."""
    client, _ = _anonymous_client_with_progress()
    user = signup(client, "asha@example.com")
    row = CheckAnswer.objects.get(check_id="s1-sharpen")
    assert row.user_id == user.pk and row.anon_token is None
    assert (row.attempts, row.correct) == (2, True)
    assert SectionVisit.objects.get(section_number=1).user_id == user.pk
    assert SESSION_KEY not in client.session  # later answers go to the user only


def test_sign_in_attaches_this_browsers_answers(user) -> None:
    from allauth.account.models import EmailAddress

    EmailAddress.objects.create(user=user, email=user.email, primary=True, verified=True)
    client, token = _anonymous_client_with_progress()
    response = client.post("/accounts/login/", {"login": "asha@example.com", "password": PASSWORD})
    assert response.status_code == 302
    assert CheckAnswer.objects.get(check_id="s1-sharpen").user_id == user.pk
    assert not CheckAnswer.objects.filter(anon_token=token).exists()
    assert SESSION_KEY not in client.session


def test_a_failed_sign_in_attaches_nothing(user) -> None:
    client, token = _anonymous_client_with_progress()
    client.post("/accounts/login/", {"login": "asha@example.com", "password": "wrong"})
    assert CheckAnswer.objects.get(check_id="s1-sharpen").anon_token == token
    assert client.session[SESSION_KEY] == str(token)


def test_sign_in_without_anonymous_progress_is_fine(user) -> None:
    client = Client()
    client.force_login(user)
    assert "_auth_user_id" in client.session
    assert CheckAnswer.objects.count() == 0
