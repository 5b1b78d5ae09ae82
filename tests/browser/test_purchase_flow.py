"""The whole learner journey in real Chromium against the live site (issue 3's browser test).

Sign up, answer a check in §1, fail a test-mode payment, buy Unit 18 in test mode, open §2,
refund, find §2 locked again, and find the §1 answer still there. Chromium (Debian's, headless,
via Playwright's executable_path) and the billing products come from conftest.py's fixtures.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from .conftest import sign_up_and_confirm

playwright_api = pytest.importorskip("playwright.sync_api")

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SLUG = "attention-and-transformers"
EMAIL = "asha@example.com"
PASSWORD = "a long test password 42"
LOCKED = "This section is part of the paid unit"


@pytest.fixture
def page(migration_data_kept, billing_products, live_server, chromium) -> Iterator[object]:
    """A fresh browser context on the live site (the shared Chromium of conftest.py), with the
    billing products in the database; fails the test on any script error or CSP violation."""
    from django.core.cache import cache

    cache.clear()
    context = chromium.new_context(base_url=live_server.url)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on(
        "console",
        lambda msg: errors.append(msg.text) if "Content Security Policy" in msg.text else None,
    )
    yield page
    context.close()
    assert errors == [], errors  # no script errors, no CSP violations on any page


def _section(page, number: int) -> None:
    page.goto(f"/units/{SLUG}/{number}/")


def test_sign_up_answer_buy_read_refund_and_keep_the_answer(page) -> None:
    from django.contrib.auth import get_user_model

    from mathmachine.billing.models import Order
    from mathmachine.learning.models import CheckAnswer

    expect = playwright_api.expect

    # Sign up (email and password only) from the home page, and back on it.
    page.goto("/")
    # Email verification is mandatory: the link in the email, opened here, signs the learner in.
    sign_up_and_confirm(page, EMAIL, PASSWORD)
    expect(page.get_by_role("link", name="Your learning")).to_be_visible()

    # Answer the second check of §1 (the page's script sends it in the background).
    _section(page, 1)
    check = page.locator("#check-s1-count")
    check.get_by_label("Context vectors").fill("35")
    check.get_by_label("Numbers in the map").fill("1,050")
    check.get_by_role("button", name="Check my answer").click()
    expect(page.locator("#check-s1-count .verdict-right")).to_be_visible()

    # §2 is locked before buying.
    _section(page, 2)
    expect(page.get_by_text(LOCKED)).to_be_visible()

    # Buy Unit 18 in test mode: first a failed payment, then a successful one.
    page.goto("/pricing/")
    page.get_by_role("button", name=re.compile(r"^Buy Unit 18 for")).click()
    expect(page.get_by_text("Test mode — no real money")).to_be_visible()
    page.get_by_role("button", name="Fail payment").click()
    expect(page.get_by_text("The test payment failed, on purpose")).to_be_visible()
    _section(page, 2)
    expect(page.get_by_text(LOCKED)).to_be_visible()  # a failed payment unlocks nothing
    page.go_back()
    page.get_by_role("button", name=re.compile(r"\(succeeds\)")).click()
    expect(page.get_by_role("heading", name=re.compile(r"^Receipt "))).to_be_visible()
    # While the unit is being written, the receipt says so; once it is complete, that every
    # section is open (test_honest_offer.py walks both).
    from mathmachine.learning.selectors import unit_get

    contents = unit_get(SLUG).contents
    opens = "Every section" if contents.complete else "Everything written"
    expect(page.get_by_text(f"{opens} of Unit 18 is open to you")).to_be_visible()

    # §2 opens.
    _section(page, 2)
    expect(page.get_by_text(LOCKED)).to_have_count(0)
    expect(page.locator("article.section-body")).to_be_visible()
    expect(
        page.get_by_role("heading", name=re.compile("Attention is a soft lookup"))
    ).to_be_visible()

    # Refund from the learner's orders.
    page.goto("/your-learning/")
    page.get_by_role("link", name="Orders, receipts and refunds").click()
    order = Order.objects.get(user__email=EMAIL, state__in=["paid", "refund_requested"])
    page.goto(f"/billing/orders/{order.public_id}/")
    page.get_by_role("link", name="Request a full refund…").click()
    expect(page.get_by_text("sections 2 to 15 lock again")).to_be_visible()
    page.get_by_role("button", name=re.compile(r"^Yes, refund ₹299")).click()
    expect(page.get_by_text("Refunded in full").first).to_be_visible()
    order.refresh_from_db()
    assert order.state == Order.State.REFUNDED

    # §2 is locked again; the §1 answer is still there.
    _section(page, 2)
    expect(page.get_by_text(LOCKED)).to_be_visible()
    expect(page.locator("article.section-body")).to_have_count(0)
    _section(page, 1)
    expect(page.locator("#check-s1-count .verdict-right")).to_be_visible()
    expect(page.locator("#check-s1-count").get_by_label("Context vectors")).to_have_value("35")
    page.goto("/your-learning/")
    checks = contents.checks  # the checks that exist, not the plan's 31
    so_far = " written so far" if contents.unwritten else ""
    expect(page.get_by_text(f"Checks answered: 1 of {checks}{so_far} (1 right)")).to_be_visible()

    user = get_user_model().objects.get(email=EMAIL)
    assert user.password.startswith("argon2")
    row = CheckAnswer.objects.get(user=user, check_id="s1-count")
    assert (row.correct, row.attempts) == (True, 1)
