"""'Your learning': each unit's progress and a "continue" link to where the learner stopped."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone

from mathmachine.billing import services as billing
from mathmachine.billing.models import Order, Product
from mathmachine.learning.models import CheckAnswer, SectionVisit
from mathmachine.learning.selectors import units_list

pytestmark = pytest.mark.django_db

SLUG = "attention-and-transformers"


@pytest.fixture
def user():
    return get_user_model().objects.create_user(
        username="asha", email="asha@example.com", password="a long test password 42"
    )


@pytest.fixture
def client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _visit(user, number: int, minutes_ago: int) -> None:
    row = SectionVisit.objects.create(user=user, unit_slug=SLUG, section_number=number, visits=1)
    at = timezone.now() - dt.timedelta(minutes=minutes_ago)
    SectionVisit.objects.filter(pk=row.pk).update(last_visited_at=at)


def _entitle(user) -> Order:
    """Buy Unit 18 through billing's services (offline test-mode provider)."""
    order = billing.order_create(user=user, product=Product.objects.get(code="unit-18"))
    billing.payment_record_captured(
        order=order,
        payment_id="pay_dashboard1",
        amount_paise=order.amount_paise,
        currency=order.currency,
        source="test",
    )
    return order


def _continue_link(page: str) -> str:
    match = re.search(
        rf'<a class="button" href="/units/{SLUG}/(\d+)/">(Continue|Start|Free preview done)', page
    )
    assert match, page
    return match.group(1)


def test_needs_sign_in() -> None:
    response = Client().get("/your-learning/")
    assert response.status_code == 302
    assert response["Location"] == "/accounts/login/?next=/your-learning/"


def test_a_new_learner_is_invited_to_start_at_section_1(client: Client) -> None:
    response = client.get("/your-learning/")
    page = response.content.decode()
    assert "Attention and Transformers" in page
    assert "Not started yet" in page
    assert _continue_link(page) == "1"
    assert "free preview" in page
    cache_control = {p.strip() for p in response["Cache-Control"].split(",")}
    assert {"private", "no-store"} <= cache_control
    assert "Cookie" in response["Vary"]


def test_progress_and_continue_where_the_learner_stopped(user, client: Client, unit_state) -> None:
    """On the unit as it is today and on a complete copy (unit_state)."""
    CheckAnswer.objects.create(
        user=user, unit_slug=SLUG, check_id="s1-count", attempts=2, correct=True
    )
    CheckAnswer.objects.create(user=user, unit_slug=SLUG, check_id="s1-sharpen", attempts=1)
    _visit(user, 1, minutes_ago=30)
    _visit(user, 3, minutes_ago=5)  # reached while entitled
    order = _entitle(user)

    unit = units_list()[0]
    written = [s for s in unit.sections if s.written]
    checks = sum(len(s.checks) for s in written)  # the checks that exist, not the plan (31)
    so_far = " written so far" if unit.contents.unwritten else ""
    page = client.get("/your-learning/").content.decode()
    assert f"Checks answered: 2 of {checks}{so_far} (1 right)" in page
    if so_far:
        assert f"Sections reached: 2 of {len(written)} written so far (the unit plans 15)" in page
    else:
        assert f"Sections reached: 2 of {len(unit.sections)}" in page and "plans" not in page
    assert "unlocked" in page
    # §1 is fully answered, §3 was seen last: continue at the first written section with a
    # check unanswered (the unit page says the same).
    assert _continue_link(page) == str(written[1].number)
    unit_page = client.get(f"/units/{SLUG}/").content.decode()
    assert _continue_link(unit_page) == str(written[1].number)
    assert "Unlock Unit 18" not in unit_page and "₹299" not in unit_page  # owned: no offer

    billing.refund_request(order=order, requested_by=user)  # refunded: access revoked
    page = client.get("/your-learning/").content.decode()
    assert f"Checks answered: 2 of {checks}{so_far} (1 right)" in page  # progress kept
    assert "; 1 open to you" in page
    # §3 is locked again, and all they may read (§1) is answered: on to the next section, whose
    # page says what it holds and offers the unit (not "Continue at §1" again)
    assert _continue_link(page) == "2" and "Free preview done: on to §2" in page
    assert "Unlock Unit 18" in client.get(f"/units/{SLUG}/").content.decode()


def test_only_the_learners_own_progress_counts(user, client: Client) -> None:
    other = get_user_model().objects.create_user(username="ravi", email="ravi@example.com")
    CheckAnswer.objects.create(user=other, unit_slug=SLUG, check_id="s1-count", attempts=1)
    _visit(other, 1, minutes_ago=1)
    page = client.get("/your-learning/").content.decode()
    assert "Not started yet" in page


def test_account_links(client: Client) -> None:
    page = client.get("/your-learning/").content.decode()
    assert 'href="/accounts/email/"' in page
    assert 'href="/billing/orders/"' in page  # orders, receipts and refunds
    assert 'href="/accounts/password/change/"' in page
    assert "Signed in as asha@example.com" in page
