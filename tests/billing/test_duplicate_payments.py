"""One order is paid at most once (issue 10, failure 7).

A second captured payment for an order that is already paid (Razorpay can capture two payment
attempts on one order) grants nothing, is recorded as a duplicate for the operator, and is
refunded automatically, once; its refund never touches the order's access. Test mode refuses to
take a second payment (the parallel case is in test_concurrency_postgres.py).
"""

from __future__ import annotations

import re

import pytest
from billing_support import FakeRazorpay, post_webhook, rzp_id
from django.test import Client

from mathmachine.billing import services
from mathmachine.billing.models import Entitlement, Order, Payment

pytestmark = pytest.mark.django_db


@pytest.fixture
def signed_in(client, user):
    client.force_login(user)
    return client


def test_a_second_razorpay_payment_is_recorded_and_refunded_automatically(
    rzp_order, user, razorpay, pay, client, django_capture_on_commit_callbacks
):
    order, first = pay(rzp_order)
    second = rzp_id("pay")
    body = FakeRazorpay.event("payment_captured", order, payment_id=second)
    with django_capture_on_commit_callbacks(execute=True):
        response = post_webhook(client, body)
    assert response.status_code == 200
    assert "refunded automatically" in response.json()["message"]
    duplicate = Payment.objects.get(provider_payment_id=second)
    assert duplicate.duplicate and duplicate.status == "captured"
    assert duplicate.refund_status == "requested" and duplicate.provider_refund_id
    assert [c["payment_id"] for c in razorpay.refund_calls] == [second]
    assert razorpay.refund_calls[0]["body"]["amount"] == order.amount_paise
    assert razorpay.refund_calls[0]["idempotency_key"] == f"duplicate-{second}"
    order.refresh_from_db()
    assert order.state == "paid"
    assert Entitlement.objects.get(order=order).active

    # The same event again changes nothing and asks for no second refund.
    with django_capture_on_commit_callbacks(execute=True):
        post_webhook(client, body)
    assert len(razorpay.refund_calls) == 1

    # Razorpay reports the duplicate's refund processed: the duplicate is settled, access stays.
    processed = FakeRazorpay.event(
        "refund_processed",
        order,
        payment_id=second,
        refund_id=duplicate.provider_refund_id,
    )
    assert post_webhook(client, processed).status_code == 200
    duplicate.refresh_from_db()
    assert duplicate.refund_status == "processed"
    order.refresh_from_db()
    assert order.state == "paid"
    assert Entitlement.objects.get(order=order).active

    # The learner's own refund repays the payment that bought the unit, not the duplicate.
    services.refund_request(order=order, requested_by=user)
    assert razorpay.refund_calls[-1]["payment_id"] == first


def _duplicate_flags(page: str) -> dict[str, str]:
    """Payment id -> what the order page's payment table shows in its Duplicate column (the
    alt text of Django's yes/no icon), row by row."""
    flags = {}
    for row in re.findall(r"<tr[^>]*>.*?</tr>", page, re.S):
        paid = re.search(r"field-provider_payment_id[^>]*>\s*(?:<p>)?\s*(pay_\w+)", row)
        flag = re.search(r'field-duplicate[^>]*>.*?alt="(True|False)"', row, re.S)
        if paid and flag:
            flags[paid.group(1)] = flag.group(1)
    return flags


def test_the_operator_sees_the_duplicate_in_the_admin(rzp_order, razorpay, pay, client, db):
    from django.contrib.auth import get_user_model

    order, first = pay(rzp_order)
    operator = get_user_model().objects.create_superuser("op", "op@example.com", "x" * 20)
    admin = Client()
    admin.force_login(operator)
    order_page = f"/admin/billing/order/{order.pk}/change/"
    # Paid once: the one payment is not a duplicate, and the filter finds none.
    assert _duplicate_flags(admin.get(order_page).content.decode()) == {first: "False"}
    page = admin.get("/admin/billing/payment/?duplicate__exact=1").content.decode()
    assert "0 payments" in page
    # A second capture: its row says so, the first's still does not.
    second = rzp_id("pay")
    post_webhook(client, FakeRazorpay.event("payment_captured", order, payment_id=second))
    assert _duplicate_flags(admin.get(order_page).content.decode()) == {
        first: "False",
        second: "True",
    }
    page = admin.get("/admin/billing/payment/?duplicate__exact=1").content.decode()
    assert "1 payment" in page and second in page and first not in page


def test_test_mode_takes_one_payment_per_order(signed_in, user):
    from mathmachine.billing.models import Product

    signed_in.post("/billing/buy/unit-18/")
    order = Order.objects.get(user=user, product=Product.objects.get(code="unit-18"))
    url = f"/billing/orders/{order.public_id}/test-pay/"
    assert signed_in.post(url, {"outcome": "succeed"}).status_code == 200
    second = signed_in.post(url, {"outcome": "succeed"})
    assert second.status_code == 302
    assert Payment.objects.filter(order=order).count() == 1
