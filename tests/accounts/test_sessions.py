"""The session store and the sign-in backends (mathmachine/web/sessions.py,
mathmachine/accounts/backends.py): Django's sessions and users, read by prepared queries, with the
same answers as Django's own, and sessions from before the backends' new names still signed in."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth import BACKEND_SESSION_KEY, SESSION_KEY, get_user_model
from django.contrib.sessions.backends.db import SessionStore as DjangoStore
from django.contrib.sessions.models import Session
from django.test import Client
from django.utils import timezone

from mathmachine.accounts.backends import AuthenticationBackend, ModelBackend
from mathmachine.web.sessions import RENAMED_BACKENDS, SessionStore

PASSWORD = "a long test password 42"

pytestmark = pytest.mark.django_db


def signed_in_client(email: str = "meera@example.com") -> tuple[Client, object]:
    user = get_user_model().objects.create_user(email, email, PASSWORD)
    client = Client()
    client.force_login(user)
    return client, user


def is_signed_in(client: Client, email: str) -> bool:
    page = client.get("/your-learning/")
    return page.status_code == 200 and email in page.content.decode()


def test_a_session_reads_as_djangos_store_reads_it() -> None:
    client, user = signed_in_client()
    key = client.cookies["sessionid"].value
    ours, django = SessionStore(key), DjangoStore(key)
    assert ours.load() == django.load()
    assert ours.load()[SESSION_KEY] == str(user.pk)
    assert ours.session_key == key


def test_an_unknown_or_expired_session_is_no_session() -> None:
    client, _ = signed_in_client()
    key = client.cookies["sessionid"].value
    unknown = SessionStore("x" * 32)
    assert unknown.load() == {} and unknown.session_key is None
    Session.objects.filter(session_key=key).update(expire_date=timezone.now() - timedelta(1))
    expired = SessionStore(key)
    assert expired.load() == {} and expired.session_key is None
    assert not is_signed_in(client, "meera@example.com")


def test_a_session_naming_the_old_backends_stays_signed_in() -> None:
    for old, new in RENAMED_BACKENDS.items():
        client, user = signed_in_client(f"{old.rsplit('.', 1)[1].lower()}@example.com")
        key = client.cookies["sessionid"].value
        store = DjangoStore(key)
        store[BACKEND_SESSION_KEY] = old  # as a session written before the rename holds it
        store.save()
        assert DjangoStore(key).load()[BACKEND_SESSION_KEY] == old
        assert SessionStore(key).load()[BACKEND_SESSION_KEY] == new
        assert is_signed_in(client, user.email)


@pytest.mark.parametrize("backend", [ModelBackend, AuthenticationBackend])
def test_the_backends_find_the_user_as_djangos_does(backend: type) -> None:
    user = get_user_model().objects.create_user("ravi@example.com", "ravi@example.com", PASSWORD)
    found = backend().get_user(str(user.pk))
    assert found == user and found.email == user.email and found.password == user.password
    assert backend().get_user(user.pk) == user
    for not_an_id in (user.pk + 1000, "abc", None, "", "1.5"):
        assert backend().get_user(not_an_id) is None
    user.is_active = False
    user.save()
    assert backend().get_user(str(user.pk)) is None


def test_a_deactivated_or_deleted_learner_is_signed_out_on_the_next_page() -> None:
    client, user = signed_in_client()
    assert is_signed_in(client, user.email)
    get_user_model().objects.filter(pk=user.pk).update(is_active=False)
    assert not is_signed_in(client, user.email)
    other, gone = signed_in_client("gone@example.com")
    get_user_model().objects.filter(pk=gone.pk).delete()
    assert not is_signed_in(other, "gone@example.com")


def test_signing_in_by_the_form_uses_the_new_backend(signup) -> None:
    signup(Client(), "asha@example.com")  # signed up and confirmed
    client = Client()
    response = client.post("/accounts/login/", {"login": "asha@example.com", "password": PASSWORD})
    assert response.status_code == 302
    saved = DjangoStore(client.cookies["sessionid"].value).load()
    assert saved[BACKEND_SESSION_KEY] == "mathmachine.accounts.backends.AuthenticationBackend"
    assert is_signed_in(client, "asha@example.com")
