"""The admin's sign-in is limited like the learners' (issue 10, failure 1).

Before, /admin/login/ was Django's own form: 15 wrong passwords in a row, then the right one was
accepted, and allauth's lockout never saw the failures. Now the admin signs in through the
site's sign-in page (allauth's ``secure_admin_login``), with the same limits and messages.
"""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from mathmachine.accounts.adapter import LOCKOUT_MESSAGE

pytestmark = pytest.mark.django_db

PASSWORD = "the operator's long password 9"


@pytest.fixture
def operator():
    """The operator as `manage.py createsuperuser` makes them."""
    return get_user_model().objects.create_superuser("operator", "op@example.com", PASSWORD)


def _signed_in(client: Client) -> bool:
    return "_auth_user_id" in client.session


def test_fifteen_wrong_admin_passwords_then_the_right_one_does_not_sign_in(operator) -> None:
    client = Client()
    for _ in range(15):
        client.post("/admin/login/", {"username": "operator", "password": "guess"})
    client.post("/admin/login/?next=/admin/", {"username": "operator", "password": PASSWORD})
    assert not _signed_in(client)


def test_the_admin_sends_the_operator_to_the_sites_sign_in_which_says_why(operator) -> None:
    client = Client()
    response = client.get("/admin/", follow=True)
    assert response.redirect_chain[-1][0] == "/accounts/login/?next=%2Fadmin%2F"
    page = response.content.decode()
    assert "The admin signs in here" in page
    assert "paused for 5 minutes" in page  # the rule, before any failure
    response = client.post(
        "/accounts/login/?next=%2Fadmin%2F",
        {"login": "op@example.com", "password": PASSWORD, "next": "/admin/"},
    )
    assert response.status_code == 302 and response["Location"] == "/admin/"
    assert client.get("/admin/").status_code == 200


def test_five_wrong_passwords_lock_the_operator_out_with_the_reason(operator) -> None:
    attacker = Client()
    for _ in range(5):
        attacker.post("/accounts/login/", {"login": "op@example.com", "password": "guess"})
    client = Client()
    response = client.post(
        "/accounts/login/?next=%2Fadmin%2F", {"login": "op@example.com", "password": PASSWORD}
    )
    assert LOCKOUT_MESSAGE in response.content.decode()
    assert not _signed_in(client)
    assert client.get("/admin/").status_code == 302  # still outside


def test_a_learner_is_not_let_into_the_admin(signup) -> None:
    client = Client()
    signup(client, "asha@example.com")
    assert client.get("/admin/", follow=True).status_code == 403
