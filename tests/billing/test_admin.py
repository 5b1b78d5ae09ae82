"""The operator's admin: every billing page opens, money records are read-only, the refund
action calls the same service, and the daily sales figures add up."""

from __future__ import annotations

import datetime as dt

import pytest
import time_machine
from django.contrib.auth import get_user_model

from mathmachine.billing import selectors
from mathmachine.billing.models import Order, Product, ProviderEvent, Refund

pytestmark = pytest.mark.django_db


@pytest.fixture
def operator(client):
    admin = get_user_model().objects.create_superuser(
        username="operator", email="operator@example.com", password=None
    )
    client.force_login(admin)
    return admin


def test_every_billing_admin_page_opens(client, operator, user, unit18, paid_order):
    order = paid_order(user, unit18)
    ProviderEvent.objects.create(
        provider="razorpay", event_id="evt_1", event_type="order.paid", raw_body='{"a": 1}'
    )
    for url in (
        "/admin/",
        "/admin/billing/product/",
        f"/admin/billing/product/{unit18.pk}/change/",
        "/admin/billing/order/",
        f"/admin/billing/order/{order.pk}/change/",
        "/admin/billing/order/?state__exact=paid&q=asha",
        "/admin/billing/payment/",
        "/admin/billing/refund/",
        "/admin/billing/entitlement/",
        "/admin/billing/providerevent/",
        f"/admin/billing/providerevent/{ProviderEvent.objects.get().pk}/change/",
        "/admin/billing/dailysales/",
    ):
        assert client.get(url).status_code == 200, url
    assert "Daily sales" in client.get("/admin/").text


def test_prices_are_editable_records_are_not(client, operator, user, unit18, paid_order):
    order = paid_order(user, unit18)
    response = client.post(
        f"/admin/billing/product/{unit18.pk}/change/",
        {
            "name": unit18.name,
            "code": unit18.code,
            "kind": "unit",
            "unit_number": 18,
            "price_paise": 34900,
            "currency": "INR",
            "description": "",
            "for_sale": "on",
        },
    )
    assert response.status_code == 302
    unit18.refresh_from_db()
    assert unit18.price_paise == 34900
    assert order.amount_paise == 29900  # orders keep the price they were made at
    assert client.get("/admin/billing/order/add/").status_code == 403
    assert client.post(f"/admin/billing/order/{order.pk}/delete/").status_code == 403


def test_an_eighth_unit_product_is_refused(client, operator):
    for n in range(1, 7):
        Product.objects.create(
            code=f"unit-{n}", kind="unit", unit_number=n, name=f"U{n}", price_paise=29900
        )
    response = client.post(
        "/admin/billing/product/add/",
        {
            "name": "Unit 8",
            "code": "unit-8",
            "kind": "unit",
            "unit_number": 8,
            "price_paise": 29900,
            "currency": "INR",
            "for_sale": "on",
        },
    )
    assert response.status_code == 200 and "promises 7 paid units" in response.text
    assert not Product.objects.filter(code="unit-8").exists()


def test_admin_refund_action_uses_the_refund_service(client, operator, rzp_order, pay, razorpay):
    order, _ = pay(rzp_order)
    response = client.post(
        "/admin/billing/order/",
        {"action": "refund_in_full", "_selected_action": [order.pk]},
        follow=True,
    )
    assert response.status_code == 200
    order.refresh_from_db()
    assert order.state == "refund_requested"
    assert len(razorpay.refund_calls) == 1
    assert Refund.objects.get().by_operator
    # Again: refused with a message, no second provider call.
    client.post(
        "/admin/billing/order/", {"action": "refund_in_full", "_selected_action": [order.pk]}
    )
    assert len(razorpay.refund_calls) == 1


def test_daily_sales_figures(user, make_user, unit18, bundle, paid_order, client, operator):
    day1 = dt.datetime(2026, 3, 1, 20, 0, tzinfo=dt.UTC)  # 2 March, 01:30 in India
    day2 = dt.datetime(2026, 3, 2, 6, 0, tzinfo=dt.UTC)  # 2 March, 11:30 in India
    with time_machine.travel(day1, tick=False):
        first = paid_order(user, unit18)
    with time_machine.travel(day2, tick=False):
        paid_order(make_user("b@example.com"), bundle)
        Order.objects.filter(pk=first.pk).update(state="refunded")
        Refund.objects.create(
            order=first,
            idempotency_key="refund-test-1",
            amount_paise=29900,
            status="processed",
            processed_at=day2,
        )
    rows = selectors.sales_by_day(days=3, today=dt.date(2026, 3, 3))
    assert [
        (r.day.day, r.orders_paid, r.revenue_paise, r.refunds, r.refunded_paise) for r in rows
    ] == [
        (3, 0, 0, 0, 0),
        (2, 2, 129800, 1, 29900),
        (1, 0, 0, 0, 0),
    ]
    assert rows[1].revenue == "₹1,298" and rows[1].net == "₹999"
    with time_machine.travel(dt.datetime(2026, 3, 3, 6, 0, tzinfo=dt.UTC), tick=False):
        page = client.get("/admin/billing/dailysales/?days=3")
    assert "₹1,298" in page.text and "₹299" in page.text
