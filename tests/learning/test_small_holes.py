"""The smaller holes of issue 17, item 8, each failing before.

- The lab API (CSRF-exempt) answered a POST another site's page sent with the learner's cookie:
  now a browser's Origin or Sec-Fetch-Site naming another site is refused with a 403.
- Two blank characters (U+3164 Hangul filler, U+2800 blank Braille pattern) passed the lab's
  invisible-character filter.
- "Your learning" listed the arena's problem titles to non-buyers and refunded learners: the
  titles are part of the section, behind its gate; they are told how many problems there are.
- The anonymous learner's offer cookie was a bearer value: a copy of it kept writing into the
  same learner after the owner signed in. Now the token is retired at sign-in.
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from django.utils.html import escape
from support import paid_order_create

from mathmachine.billing import services as billing
from mathmachine.billing.models import Order, Product
from mathmachine.coursebook.model import CompiledUnit
from mathmachine.learning import lab
from mathmachine.learning.learners import OFFER_COOKIE, SESSION_KEY
from mathmachine.learning.models import CheckAnswer, RetiredLearnerToken

from .conftest import C1, JSON, SECTION_1, UNIT, check_url

pytestmark = pytest.mark.django_db
LAB_API = f"/units/{UNIT}/lab/attention/"
PASSWORD = "a long test password 42"


def _user(email: str) -> Any:
    return get_user_model().objects.create_user(email, email, PASSWORD)


@pytest.fixture
def buyer(client: Client) -> Any:
    user = _user("meena@example.com")
    paid_order_create(user, Product.objects.get(code="unit-18"))
    client.force_login(user)
    return user


@pytest.mark.parametrize(
    "headers",
    [
        {"HTTP_ORIGIN": "https://evil.example"},
        {"HTTP_ORIGIN": "null"},
        {"HTTP_SEC_FETCH_SITE": "cross-site"},
        {"HTTP_SEC_FETCH_SITE": "same-site", "HTTP_ORIGIN": "http://testserver"},
    ],
)
def test_a_cross_origin_post_to_the_lab_is_refused(
    client: Client, buyer: Any, headers: dict[str, str]
) -> None:
    response = client.post(LAB_API, {"text": "", "view": "head"}, **headers)
    assert response.status_code == 403
    assert response.json() == {"error": "Send the request from this site's own pages."}
    # Other widgets' server routes are the same view: refused too.
    other = client.post(f"/units/{UNIT}/widgets/tiny-walk/", {}, **headers)
    assert other.status_code == 403


@pytest.mark.parametrize(
    "headers",
    [
        {"HTTP_ORIGIN": "http://testserver", "HTTP_SEC_FETCH_SITE": "same-origin"},
        {"HTTP_ORIGIN": "http://testserver"},
        {},  # no browser headers at all (a script): the gate decides, as for anyone
    ],
)
def test_the_sites_own_pages_are_answered(
    client: Client, buyer: Any, headers: dict[str, str]
) -> None:
    response = client.post(LAB_API, {"text": "", "view": "head"}, **headers)
    assert response.status_code == 400  # the lab's own message: the box is empty
    assert "empty" in response.json()["error"]


@pytest.mark.parametrize(
    "blank", ["\u3164", "\u2800", "\u115f", "\u1160", "\uffa0"], ids=lambda c: f"U+{ord(c):04X}"
)
def test_blank_characters_are_refused_as_invisible(blank: str) -> None:
    with pytest.raises(lab.LabInputError) as refused:
        lab.clean_text(f"I drink{blank}tea")
    message = str(refused.value)
    assert "invisible" in message and f"U+{ord(blank):04X}" in message and "character 8" in message


def test_hindi_with_its_joiners_still_passes() -> None:
    assert lab.clean_text("मैं चाय पीता हूँ") == "मैं चाय पीता हूँ"
    assert lab.clean_text("क्\u200dष") == "क्\u200dष"


def _dashboard(client: Client) -> str:
    return client.get(reverse("accounts:dashboard")).content.decode()


def test_your_learning_names_no_problem_to_a_learner_who_may_not_open_them(
    unit18: CompiledUnit,
) -> None:
    titles = [escape(p.title) for p in unit18.section(15).problems]
    assert titles
    reader = Client()
    user = _user("ravi@example.com")
    reader.force_login(user)
    reader.post(check_url(C1), {"answer": ["(0.3, 0.3, 0.4)"]}, **JSON)  # started: cards show
    page = _dashboard(reader)
    assert not any(t in page for t in titles)
    assert f"Practice problems: {len(titles)} with fresh numbers, open when you unlock" in page
    # Bought: every title, with its level.
    order = billing.order_create(user=user, product=Product.objects.get(code="unit-18"))
    billing.payment_record_captured(
        order=order,
        payment_id="pay_small_holes1",
        amount_paise=order.amount_paise,
        currency=order.currency,
        source="test",
    )
    page = _dashboard(reader)
    assert all(t in page for t in titles)
    # Refunded: the titles go with the section again; their progress stays (counted).
    billing.refund_request(order=order, requested_by=user)
    order.refresh_from_db()
    assert order.state == Order.State.REFUNDED
    page = _dashboard(reader)
    assert not any(t in page for t in titles)
    assert CheckAnswer.objects.filter(user=user).exists()


def test_the_anonymous_cookie_opens_nothing_once_its_owner_signed_in() -> None:
    owner = Client()
    owner.get(SECTION_1)  # a plain read: the cookie offers a token
    offer = owner.cookies[OFFER_COOKIE].value
    copy = Client()
    copy.cookies[OFFER_COOKIE] = offer  # someone with a copy of the cookie
    owner.post(check_url(C1), {"answer": ["(0.3, 0.3, 0.4)"]}, **JSON)
    token = uuid.UUID(owner.session[SESSION_KEY])
    user = _user("lata@example.com")
    assert owner.login(username=user.username, password=PASSWORD)
    assert CheckAnswer.objects.get(check_id=C1).user_id == user.pk  # claimed
    assert RetiredLearnerToken.objects.filter(token=token).exists()
    # The copy answers: a learner of its own, never the owner's token.
    copy.post(check_url(C1), {"answer": ["(0.2, 0.2, 0.6)"]}, **JSON)
    theirs = uuid.UUID(copy.session[SESSION_KEY])
    assert theirs != token
    assert CheckAnswer.objects.filter(anon_token=token).count() == 0
    assert CheckAnswer.objects.filter(anon_token=theirs).count() == 1


def test_a_cookie_never_adopted_is_retired_at_sign_in_too() -> None:
    reader = Client()
    reader.get(SECTION_1)
    offer = reader.cookies[OFFER_COOKIE].value
    user = _user("nisha@example.com")
    EmailAddress.objects.create(user=user, email=user.email, primary=True, verified=True)
    # Signed in through the sign-in form, which the browser sends with its cookies.
    signed_in = reader.post(reverse("account_login"), {"login": user.email, "password": PASSWORD})
    assert signed_in.status_code == 302 and reader.session.get("_auth_user_id") == str(user.pk)
    assert RetiredLearnerToken.objects.count() == 1
    copy = Client()
    copy.cookies[OFFER_COOKIE] = offer
    copy.post(check_url(C1), {"answer": ["(0.2, 0.2, 0.6)"]}, **JSON)
    token = uuid.UUID(copy.session[SESSION_KEY])
    assert not RetiredLearnerToken.objects.filter(token=token).exists()
