"""Sign-up does not reveal registered addresses (issue 10, failure 6).

Before, signing up with a registered address said "A user is already registered with this email
address". With mandatory email verification, allauth answers every sign-up the same way (the
"confirm your email" page) and emails the address's owner instead; the learner's path stays
clear: one email, one link, and they are signed in with the answers they gave in this browser.
"""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.core.cache import cache
from django.test import Client

from mathmachine.learning.models import CheckAnswer

pytestmark = pytest.mark.django_db

PASSWORD = "a long test password 42"


def _sign_up(client: Client, email: str):
    return client.post(
        "/accounts/signup/", {"email": email, "password1": PASSWORD, "password2": PASSWORD}
    )


def test_signing_up_with_a_registered_address_looks_like_any_sign_up(signup) -> None:
    signup(Client(), "asha@example.com")
    mail.outbox.clear()
    cache.clear()  # allauth mails one address at most every 3 minutes: as if they had passed
    fresh = _sign_up(Client(), "ravi@example.com")
    taken = _sign_up(Client(), "asha@example.com")
    assert taken.status_code == fresh.status_code == 302
    assert taken["Location"] == fresh["Location"]
    follow = Client().get(taken["Location"]).content.decode()
    assert "already registered" not in follow
    assert get_user_model().objects.filter(email="asha@example.com").count() == 1
    # The owner of the address is told, by email, and shown the way in.
    to_asha = [m for m in mail.outbox if m.to == ["asha@example.com"]]
    assert len(to_asha) == 1
    assert "/accounts/login/" in to_asha[0].body or "/accounts/password/reset/" in to_asha[0].body


def test_the_form_itself_never_says_an_address_is_taken(signup) -> None:
    signup(Client(), "asha@example.com")
    response = Client().post(
        "/accounts/signup/", {"email": "asha@example.com", "password1": "x", "password2": "y"}
    )
    page = response.content.decode()
    assert "already registered" not in page


def test_a_new_learner_confirms_by_link_and_is_signed_in_with_their_answers() -> None:
    client = Client()
    client.post(
        "/units/attention-and-transformers/checks/s1-sharpen/",
        {"answer": ["0.017 0.047 0.936"]},
    )
    response = _sign_up(client, "meera@example.com")
    assert response.status_code == 302
    page = client.get(response["Location"]).content.decode()
    assert "Confirm your email address" in page
    assert "_auth_user_id" not in client.session  # not yet: the address is not confirmed
    (message,) = mail.outbox
    link = re.search(r"https?://[^/\s]+(/accounts/confirm-email/\S+)", message.body).group(1)
    confirm_page = client.get(link)
    assert confirm_page.status_code == 200
    response = client.post(link)
    assert response.status_code == 302
    assert "_auth_user_id" in client.session
    user = get_user_model().objects.get(email="meera@example.com")
    assert CheckAnswer.objects.get().user_id == user.pk  # the answer joined the account
