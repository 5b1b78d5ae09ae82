"""Fixtures for accounts: a clean rate-limit cache, users created the way learners sign up."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.core.cache import cache
from django.test import Client
from unit_states import complete_content, unit_state  # noqa: F401 (fixtures)

PASSWORD = "a long test password 42"


@pytest.fixture(autouse=True)
def _clean_cache() -> Iterator[None]:
    """allauth counts failed sign-ins in the cache: every test starts from zero."""
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def signup(db) -> Callable[..., object]:
    """Sign up through allauth's form, then open the confirmation link in the same browser, as a
    learner does (email verification is mandatory, docs/accounts.md): the client ends signed in.
    Returns the new user."""

    def do(client: Client, email: str = "asha@example.com", password: str = PASSWORD) -> object:
        sent = len(mail.outbox)
        response = client.post(
            "/accounts/signup/", {"email": email, "password1": password, "password2": password}
        )
        assert response.status_code == 302, response.content.decode()[:2000]
        message = mail.outbox[sent]
        link = re.search(r"https?://[^/\s]+(/accounts/confirm-email/\S+)", message.body)
        assert link, message.body
        response = client.post(link.group(1))
        assert response.status_code == 302, response.content.decode()[:2000]
        return get_user_model().objects.get(email=email)

    return do
