"""Repeated failed sign-ins pause signing in, and the page says so (allauth's login_failed)."""

from __future__ import annotations

import datetime as dt

import pytest
import time_machine
from django.test import Client

from mathmachine.accounts.adapter import LOCKOUT_MESSAGE

pytestmark = pytest.mark.django_db

PASSWORD = "a long test password 42"  # the signup fixture's default


def _attempt(client: Client, email: str, password: str):
    return client.post("/accounts/login/", {"login": email, "password": password})


def _is_signed_in(client: Client) -> bool:
    return "_auth_user_id" in client.session


def test_five_failures_lock_the_email_out_and_the_page_says_so(signup) -> None:
    signup(Client(), "asha@example.com")
    attacker = Client()
    for _ in range(5):
        page = _attempt(attacker, "asha@example.com", "guess").content.decode()
        assert "not correct" in page
        assert "Too many failed sign-in attempts" not in page
    # The sixth try is refused even with the right password, and says why.
    learner = Client()
    response = _attempt(learner, "asha@example.com", PASSWORD)
    assert response.status_code == 200
    page = response.content.decode()
    assert "Too many failed sign-in attempts" in page
    assert "paused for 5 minutes" in page
    assert 'role="alert"' in page
    assert not _is_signed_in(learner)


def test_lockout_is_per_email_address(signup) -> None:
    signup(Client(), "asha@example.com")
    signup(Client(), "ravi@example.com")
    client = Client()
    for _ in range(5):
        _attempt(client, "asha@example.com", "guess")
    assert _attempt(client, "ravi@example.com", PASSWORD).status_code == 302


def test_lockout_ends_after_five_minutes(signup) -> None:
    signup(Client(), "asha@example.com")
    start = dt.datetime(2026, 1, 5, 10, 0, tzinfo=dt.UTC)
    with time_machine.travel(start, tick=False) as traveller:
        for _ in range(5):
            _attempt(Client(), "asha@example.com", "guess")
        assert LOCKOUT_MESSAGE in _attempt(Client(), "asha@example.com", PASSWORD).content.decode()
        traveller.shift(dt.timedelta(minutes=4))
        assert _attempt(Client(), "asha@example.com", PASSWORD).status_code == 200  # still paused
        traveller.shift(dt.timedelta(minutes=1, seconds=1))
        learner = Client()
        assert _attempt(learner, "asha@example.com", PASSWORD).status_code == 302
        assert _is_signed_in(learner)


def test_a_successful_sign_in_does_not_count_as_a_failure(signup) -> None:
    signup(Client(), "asha@example.com")
    for _ in range(10):
        client = Client()
        assert _attempt(client, "asha@example.com", PASSWORD).status_code == 302


def test_too_many_sign_in_requests_from_one_address_get_a_429_page(settings) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # counting only
    client = Client()
    for n in range(120):  # 120 a minute per IP address: a classroom at once
        assert _attempt(client, f"nobody{n}@example.com", "guess").status_code == 200
    response = _attempt(client, "nobody@example.com", "guess")
    assert response.status_code == 429
    page = response.content.decode()
    assert "Too many requests" in page
    assert "Wait a minute" in page
