"""A plain read by an anonymous visitor writes nothing (issue 10, failure 8).

Before, every cookie-less GET of a section made a session row and a section-visit row (kept 90
days), so a crawler grew the database without bound. Now the learner's token is made when they
first answer a check; from then on their sections reached are recorded as before.
"""

from __future__ import annotations

import uuid

import pytest
from django.contrib.sessions.models import Session
from django.test import Client

from mathmachine.learning.learners import OFFER_COOKIE, SESSION_KEY
from mathmachine.learning.models import CheckAnswer, SectionVisit

from .conftest import C1, HOME, JSON, PRICING, SECTION_1, UNIT_PAGE, check_url, section_url

pytestmark = pytest.mark.django_db


def _rows() -> tuple[int, int, int]:
    return Session.objects.count(), SectionVisit.objects.count(), CheckAnswer.objects.count()


def test_cookie_less_reads_write_nothing() -> None:
    before = _rows()
    for _ in range(25):
        for path in (SECTION_1, UNIT_PAGE, HOME, PRICING, section_url(2)):
            response = Client().get(path)  # a crawler: no cookies, every time
            assert response.status_code == 200
            assert "sessionid" not in response.cookies
    assert _rows() == before


def test_a_reader_who_keeps_cookies_writes_nothing_either(client: Client) -> None:
    for _ in range(3):
        client.get(SECTION_1)
    assert _rows() == (0, 0, 0)
    assert SESSION_KEY not in client.session


def test_the_token_is_made_at_the_first_answer_and_visits_count_from_then(client: Client) -> None:
    client.get(SECTION_1)
    client.post(check_url(C1), {"answer": ["0.017 0.047 0.936"]})
    token = uuid.UUID(client.session[SESSION_KEY])
    assert CheckAnswer.objects.get().anon_token == token
    assert Session.objects.count() == 1
    # The read that led to the answer counts as reaching the section, and so do later ones.
    assert SectionVisit.objects.get().visits == 1
    client.get(SECTION_1)
    client.get(SECTION_1)
    visit = SectionVisit.objects.get()
    assert (visit.anon_token, visit.section_number, visit.visits) == (token, 1, 3)


def test_two_first_answers_sent_at_once_make_one_learner(client: Client) -> None:
    """A double click on the first answer: both requests leave with no session yet. They adopt
    the token the read offered (a signed cookie, no database row), so the answers and the
    attempts count land on one learner whichever session cookie the browser keeps."""
    client.get(SECTION_1)
    assert _rows() == (0, 0, 0)
    cookies = {name: morsel.value for name, morsel in client.cookies.items()}
    assert OFFER_COOKIE in cookies and "sessionid" not in cookies
    replies = []
    for _ in range(2):
        twin = Client()  # the same browser cookies, neither reply seen yet
        for name, value in cookies.items():
            twin.cookies[name] = value
        replies.append(twin.post(check_url(C1), {"answer": ["0.017 0.047 0.936"]}, **JSON))
    assert [r.json()["attempts"] for r in replies] == [1, 2]
    assert CheckAnswer.objects.count() == 1
    assert CheckAnswer.objects.get().attempts == 2
    # Adopted: the offer is dropped, and the next read offers none (the session has the token).
    assert all(r.cookies[OFFER_COOKIE].value == "" for r in replies)


def test_a_forged_offer_is_ignored(client: Client) -> None:
    client.cookies[OFFER_COOKIE] = str(uuid.uuid4())  # unsigned: not ours
    client.post(check_url(C1), {"answer": ["0.017 0.047 0.936"]})
    stored = CheckAnswer.objects.get().anon_token
    assert str(stored) != client.cookies.get(OFFER_COOKIE, "x")
    assert stored == uuid.UUID(client.session[SESSION_KEY])
