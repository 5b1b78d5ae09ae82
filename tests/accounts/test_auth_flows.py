"""Sign up, sign in, sign out and reset a forgotten password, by email (django-allauth)."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.test import Client

pytestmark = pytest.mark.django_db

PASSWORD = "a long test password 42"  # the signup fixture's default


def _signed_in(client: Client) -> bool:
    return "_auth_user_id" in client.session


def test_sign_up_by_email_hashes_with_argon2_and_signs_in_by_the_link(
    client: Client, signup
) -> None:
    user = signup(client, "Asha@Example.com".lower())
    assert user.email == "asha@example.com"
    assert user.password.startswith("argon2")
    assert user.check_password(PASSWORD)
    # Signed in by the confirmation link (the one email, through Django's email backend).
    assert _signed_in(client)
    assert len(mail.outbox) == 1
    assert "asha@example.com" in mail.outbox[0].to
    # in the site's voice, like the receipt (not allauth's "Hello from 127.0.0.1 … user …")
    message = mail.outbox[0]
    assert message.subject == "[The Math Behind the Machine] Confirm your email address"
    assert message.body.startswith("Welcome to The Math Behind the Machine.")
    assert "brings you back to the page you were on" in message.body
    for stock in ("Hello from", "has given your email address", "Thank you for using", "user "):
        assert stock not in message.body, stock


def test_sign_up_form_asks_for_email_not_username(client: Client) -> None:
    page = client.get("/accounts/signup/").content.decode()
    assert 'name="email"' in page
    assert 'name="username"' not in page
    assert 'name="password1"' in page


def test_sign_up_twice_with_one_email_makes_one_account(client: Client, signup) -> None:
    """The second sign-up is answered like any other (tests/accounts/test_no_enumeration.py)."""
    signup(client, "asha@example.com")
    other = Client()
    response = other.post(
        "/accounts/signup/",
        {"email": "asha@example.com", "password1": PASSWORD, "password2": PASSWORD},
    )
    assert response.status_code == 302
    assert response["Location"] == "/accounts/confirm-email/"
    assert "_auth_user_id" not in other.session
    assert get_user_model().objects.filter(email__iexact="asha@example.com").count() == 1


def test_weak_password_is_refused_with_a_reason(client: Client) -> None:
    response = client.post(
        "/accounts/signup/",
        {"email": "ravi@example.com", "password1": "12345678", "password2": "12345678"},
    )
    assert response.status_code == 200
    assert "too common" in response.content.decode()
    assert not get_user_model().objects.filter(email="ravi@example.com").exists()


def test_sign_in_with_email_and_password(signup) -> None:
    signup(Client(), "asha@example.com")
    client = Client()
    response = client.post("/accounts/login/", {"login": "asha@example.com", "password": PASSWORD})
    assert response.status_code == 302
    assert response["Location"] == "/your-learning/"
    assert _signed_in(client)


def test_signed_in_message_names_the_email_never_a_made_up_username(signup) -> None:
    """Issue 7: "Successfully signed in as asha.learner" named a username the learner never
    chose (allauth makes one from the address)."""
    user = signup(Client(), "asha.learner@example.com")
    assert user.username and user.username != user.email  # allauth's own, never shown
    client = Client()
    response = client.post(
        "/accounts/login/",
        {"login": "asha.learner@example.com", "password": PASSWORD},
        follow=True,
    )
    page = response.content.decode()
    assert "signed in as asha.learner@example.com." in page
    assert f"as {user.username}." not in page


def test_wrong_password_says_so_and_does_not_sign_in(signup) -> None:
    signup(Client(), "asha@example.com")
    client = Client()
    response = client.post(
        "/accounts/login/", {"login": "asha@example.com", "password": "not my password"}
    )
    assert response.status_code == 200
    assert "not correct" in response.content.decode()
    assert not _signed_in(client)


def test_sign_out_is_a_post_with_csrf(signup) -> None:
    client = Client(enforce_csrf_checks=True)
    signup(Client(), "asha@example.com")
    client.login(email="asha@example.com", password=PASSWORD)
    # A GET only shows the question; a POST without the token is refused; with it, signs out.
    assert client.get("/accounts/logout/").status_code == 200
    assert _signed_in(client)
    assert client.post("/accounts/logout/").status_code == 403
    assert _signed_in(client)
    page = client.get("/accounts/password/change/").content.decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    response = client.post("/accounts/logout/", {"csrfmiddlewaretoken": token})
    assert response.status_code == 302
    assert not _signed_in(client)


def test_nav_offers_sign_in_or_your_learning(client: Client, signup) -> None:
    page = client.get("/accounts/login/").content.decode()
    assert 'href="/accounts/signup/"' in page
    signup(client, "asha@example.com")
    page = client.get("/accounts/password/change/").content.decode()
    assert 'href="/your-learning/"' in page
    assert 'action="/accounts/logout/"' in page
    assert 'name="csrfmiddlewaretoken"' in page


def test_forgotten_password_reset_by_email_link(signup) -> None:
    signup(Client(), "asha@example.com")
    mail.outbox.clear()
    client = Client()
    response = client.post("/accounts/password/reset/", {"email": "asha@example.com"})
    assert response.status_code == 302
    assert len(mail.outbox) == 1
    link = re.search(r"https?://[^/\s]+(/accounts/password/reset/key/\S+)", mail.outbox[0].body)
    assert link, mail.outbox[0].body
    response = client.get(link.group(1), follow=True)
    form_url = response.redirect_chain[-1][0] if response.redirect_chain else link.group(1)
    assert "Choose a new password" in response.content.decode()
    new = "another long password 77"
    response = client.post(form_url, {"password1": new, "password2": new})
    assert response.status_code == 302
    user = get_user_model().objects.get(email="asha@example.com")
    assert user.check_password(new)
    assert user.password.startswith("argon2")
    # The link works once.
    assert "no longer works" in Client().get(link.group(1), follow=True).content.decode()


def test_password_reset_for_unknown_email_reveals_nothing(client: Client) -> None:
    response = client.post("/accounts/password/reset/", {"email": "nobody@example.com"})
    assert response.status_code == 302  # the same answer as for a real account
    assert response["Location"] == "/accounts/password/reset/done/"


def test_pbkdf2_hash_is_upgraded_to_argon2_at_sign_in(db) -> None:
    from django.contrib.auth.hashers import make_password

    user = get_user_model().objects.create(
        username="old",
        email="old@example.com",
        password=make_password(PASSWORD, hasher="pbkdf2_sha256"),
    )
    from allauth.account.models import EmailAddress

    EmailAddress.objects.create(user=user, email="old@example.com", primary=True, verified=True)
    client = Client()
    response = client.post("/accounts/login/", {"login": "old@example.com", "password": PASSWORD})
    assert response.status_code == 302
    user.refresh_from_db()
    assert user.password.startswith("argon2")
