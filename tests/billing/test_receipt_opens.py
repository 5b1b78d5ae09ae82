"""Issue 7: the receipt (page and email) says what the purchase opens today, from the compiled
unit: everything written, which sections are still being written, the plan as the plan; and
for the bundle, which paid units exist. Never "Every section of Unit 18 is open to you" while
sections are unwritten. Issue 15: once the unit is complete (a complete copy of it here), the
receipt says so, with what the whole unit holds and no plan."""

from __future__ import annotations

import re

import pytest

from mathmachine.billing.models import Order
from mathmachine.coursebook.model import number_ranges

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
    client, user, code, mailoutbox, django_capture_on_commit_callbacks, unit_state
):
    """On the unit as it is today and on a complete copy (unit_state): while sections are
    being written, what is written, what is not and the plan; once complete, the whole unit."""
    contents = unit_state.contents
    client.force_login(user)
    _, page = _pay(client, django_capture_on_commit_callbacks, code)
    (email,) = mailoutbox
    body = re.sub(r"\s+", " ", email.body)
    total = contents.sections
    plan = (
        f"The plan for the finished unit: {total} sections, {contents.planned_widgets} widgets, "
        f"{contents.planned_checks} checks"
    )
    if contents.complete:
        whole = (
            f"all {total} sections, with {contents.widgets} interactive widgets, "
            f"{contents.checks} checks and {contents.problems} practice problems, each solved "
            "in full."
        )
        for said in (page, body):
            assert whole in said
            for gone in ("Written so far", "Still being written", plan, "everything written"):
                assert gone not in said
        assert f"The whole unit is written: {whole}" in page
        assert "Every section of Unit 18 is open to you" in page
        opens = "Unit 18, Attention and Transformers: every section is open to you."
        assert f"{opens} The whole unit is written: {whole}" in body
    else:
        written = f"{len(contents.written)} of {total} sections ({number_ranges(contents.written)})"
        for said in (page, body):
            assert "Every section of Unit 18 is open to you" not in said
            assert "You can now read every section" not in said
            assert plan in said
            if contents.unwritten:
                many = "s" if len(contents.unwritten) > 1 else ""
                unwritten = (
                    f"Still being written: section{many} {number_ranges(contents.unwritten)}."
                )
                assert f"Written so far: {written}, with {contents.widgets} interactive" in said
                assert unwritten in said
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
