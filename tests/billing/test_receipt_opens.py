"""Issue 7: the receipt (page and email) says what the purchase opens today, from the compiled
unit: everything written, which sections are still being written, the plan as the plan; and
for the bundle, which paid units exist. Never "Every section of Unit 18 is open to you" while
sections are unwritten."""

from __future__ import annotations

import re

import pytest

from mathmachine.billing.models import Order
from mathmachine.coursebook.model import number_ranges
from mathmachine.learning.selectors import unit_get

pytestmark = pytest.mark.django_db


def _words(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", html))


def _pay(client, capture, code: str) -> tuple[Order, str]:
    client.post(f"/billing/buy/{code}/")
    order = Order.objects.latest("created_at")
    with capture(execute=True):
        client.post(f"/billing/orders/{order.public_id}/test-pay/", {"outcome": "succeed"})
    page = client.get(f"/billing/orders/{order.public_id}/")
    assert page.status_code == 200
    return order, _words(page.content.decode())


@pytest.mark.parametrize("code", ["unit-18", "all-paid-units"])
def test_the_receipt_says_what_is_open_and_what_is_still_being_written(
    client, user, code, mailoutbox, django_capture_on_commit_callbacks
):
    unit = unit_get("attention-and-transformers")
    contents = unit.contents
    assert contents.unwritten  # while the unit is being written
    client.force_login(user)
    _, page = _pay(client, django_capture_on_commit_callbacks, code)
    (email,) = mailoutbox
    body = re.sub(r"\s+", " ", email.body)
    written = f"{len(contents.written)} of 15 sections ({number_ranges(contents.written)})"
    unwritten = f"Still being written: sections {number_ranges(contents.unwritten)}."
    for said in (page, body):
        assert "Every section of Unit 18 is open to you" not in said
        assert "You can now read every section" not in said
        assert f"Written so far: {written}, with {contents.widgets} interactive widgets" in said
        assert f"{contents.checks} checks and {contents.problems} of the 16 practice" in said
        assert unwritten in said
        assert "The plan for the finished unit: 15 sections, 18 widgets, 31 checks" in said
    assert "Everything written of Unit 18 is open to you" in page
    assert "Unit 18, Attention and Transformers: everything written is open to you." in body
    if code == "all-paid-units":
        bundle = (
            "Unit 18, Attention and Transformers, is the only one published so far; the other "
            "six are still being written"
        )
        assert bundle in page and bundle in body


def test_the_payment_message_is_grammatical(client, make_user, django_capture_on_commit_callbacks):
    for email, code, said in (
        ("a@example.com", "all-paid-units", "Payment received. All seven paid units are yours."),
        (
            "b@example.com",
            "unit-18",
            "Payment received. Unit 18 · Attention and Transformers is yours.",
        ),
    ):
        client.force_login(make_user(email))
        client.post(f"/billing/buy/{code}/")
        order = Order.objects.latest("created_at")
        with django_capture_on_commit_callbacks(execute=True):
            page = client.post(
                f"/billing/orders/{order.public_id}/test-pay/", {"outcome": "succeed"}
            )
        form = page.context["result"]
        response = client.post(
            f"/billing/orders/{order.public_id}/callback/",
            {
                "razorpay_order_id": form.order_id,
                "razorpay_payment_id": form.payment_id,
                "razorpay_signature": form.signature,
            },
            follow=True,
        )
        assert said in response.content.decode()
        assert "units is yours" not in response.content.decode()
