"""A check POST keeps at most what the check's boxes hold (issue 17, item 1).

Before, a form POST with ~1,000 repeated ``answer`` fields of 200 characters on §1's free checks
was kept whole in a new session row that lives 90 days: 197 KB a request. Now a request without
a session cookie makes no row unless it stores a real answer, and what a session keeps of an
answer is one bounded string per box of the check.
"""

from __future__ import annotations

import pytest
from django.contrib.sessions.models import Session
from django.test import Client

from mathmachine.coursebook.grading import MAX_ANSWER_CHARS
from mathmachine.learning.models import CheckAnswer, SectionVisit
from mathmachine.learning.views import ATTEMPT_COOKIE

from .conftest import C1, C2, JSON, SECTION_1, check_url

pytestmark = pytest.mark.django_db

HOSTILE = {"answer": ["9" * 200] * 1000}  # ~200 KB of form, one check with one or two boxes


def _stored_bytes() -> int:
    """What the database holds for learners: session rows and answer rows, in characters."""
    sessions = sum(len(s.session_data) for s in Session.objects.all())
    answers = sum(len(str(a.last_answer)) for a in CheckAnswer.objects.all())
    return sessions + answers


@pytest.mark.parametrize("check_id", [C1, C2])
@pytest.mark.parametrize("wants_json", [False, True])
def test_a_hostile_post_without_a_session_stores_nothing(check_id: str, wants_json: bool) -> None:
    client = Client()
    response = client.post(check_url(check_id), HOSTILE, **(JSON if wants_json else {}))
    assert response.status_code == (400 if wants_json else 302)
    assert Session.objects.count() == 0 and CheckAnswer.objects.count() == 0
    assert SectionVisit.objects.count() == 0
    assert "sessionid" not in response.cookies
    if wants_json:
        body = response.json()["html"]
    else:
        body = client.get(SECTION_1).content.decode()  # the page the form is sent back to
        assert Session.objects.count() == 0
    assert 'aria-invalid="true"' in body  # the learner is told what is wrong, at the check
    boxes = 1 if check_id == C1 else 2
    assert body.count("9" * 200) <= boxes  # what the boxes hold goes back in them, no more


def test_a_hostile_post_in_a_session_adds_at_most_what_the_boxes_hold(client: Client) -> None:
    """A learner with a session (a real answer stored): repeated hostile POSTs, as form and as
    JSON, on both checks, add nothing to the session beyond one bounded entry per check."""
    client.post(check_url(C1), {"answer": ["0.017 0.047 0.936"]})
    client.post(check_url(C2), {"answer": ["35", "1050"]})
    before = _stored_bytes()
    for _ in range(5):
        for check_id in (C1, C2):
            client.post(check_url(check_id), HOSTILE)
            client.post(check_url(check_id), HOSTILE, **JSON)
            client.post(check_url(check_id), {"answer-0": ["9" * 200] * 500, "answer-1": "1"})
    grown = _stored_bytes() - before
    assert grown <= 2 * 2 * (MAX_ANSWER_CHARS + 100), grown
    assert CheckAnswer.objects.count() == 2
    page = client.get(SECTION_1).content.decode()
    assert "verdict-right" in page  # the stored answers are as they were


def test_what_a_form_post_keeps_for_the_next_page_is_a_small_signed_cookie(
    client: Client,
) -> None:
    """The page a form is sent back to shows the unreadable (or kept-beside-right) answer from
    a signed cookie of two minutes, never from the database: one string per box, bounded."""
    response = client.post(check_url(C2), HOSTILE)
    cookie = response.cookies[ATTEMPT_COOKIE]
    assert len(cookie.value) <= 3500 and cookie["max-age"] == 120 and cookie["httponly"]
    assert Session.objects.count() == 0
    page = client.get(SECTION_1)
    assert 'aria-invalid="true"' in page.content.decode()
    assert page.cookies[ATTEMPT_COOKIE].value == ""  # shown once
    assert 'aria-invalid="true"' not in client.get(SECTION_1).content.decode()
    # A forged or stale cookie is ignored.
    client.cookies[ATTEMPT_COOKIE] = "forged"
    assert client.get(SECTION_1).status_code == 200
    # Devanagari in every box (three bytes a letter) still fits one cookie.
    big = client.post(check_url(C2), {"answer": ["चाय" * 70, "पीता" * 50]})
    assert len(big.cookies[ATTEMPT_COOKIE].value) <= 3500


def test_a_wrong_answer_after_a_right_one_is_shown_beside_it(client: Client) -> None:
    client.post(check_url(C2), {"answer": ["35", "1050"]})
    client.post(check_url(C2), {"answer": ["35", "1049"]})
    page = client.get(SECTION_1).content.decode()
    assert "Your earlier right answer is kept." in page and 'value="1049"' in page
    assert "check_attempts" not in client.session
