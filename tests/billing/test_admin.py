"""The operator's admin: every billing page opens, money shows in rupees (never "paise"), money
records and learners' answers are read-only, the refund action asks for confirmation and then
calls the same service, and the daily sales figures add up, live and test mode apart."""

from __future__ import annotations

import datetime as dt
import html
import re

import pytest
import time_machine
from billing_support import FakeRazorpay, post_webhook, rzp_id
from django.contrib.auth import get_user_model

from mathmachine.billing import selectors
from mathmachine.billing.models import Order, Payment, Product, ProviderEvent, Refund
from mathmachine.learning.models import CheckAnswer, SectionVisit
from mathmachine.printing import paise

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


def _product_form(product: Product, price: str) -> dict[str, object]:
    return {
        "name": product.name,
        "code": product.code,
        "kind": "unit",
        "unit_number": 18,
        "price": price,
        "currency": "INR",
        "description": "",
        "for_sale": "on",
    }


def test_prices_are_editable_in_rupees_records_are_not(client, operator, user, unit18, paid_order):
    order = paid_order(user, unit18)
    url = f"/admin/billing/product/{unit18.pk}/change/"
    form = client.get(url).text
    assert 'name="price"' in form and 'value="299.00"' in form and "Price (₹)" in form
    assert "price_paise" not in form
    response = client.post(url, _product_form(unit18, "349.50"))
    assert response.status_code == 302
    unit18.refresh_from_db()
    assert unit18.price_paise == 34950
    assert order.amount_paise == 29900  # orders keep the price they were made at
    for bad in ("0.99", "-5", "abc", "12.345", ""):
        refused = client.post(url, _product_form(unit18, bad))
        assert refused.status_code == 200, bad  # the form again, with its error
        unit18.refresh_from_db()
        assert unit18.price_paise == 34950, bad
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


def _refund_action(client, order, **extra):
    return client.post(
        "/admin/billing/order/",
        {"action": "refund_in_full", "_selected_action": [order.pk], **extra},
        follow=True,
    )


def test_admin_refund_action_asks_first_then_uses_the_refund_service(
    client, operator, rzp_order, pay, razorpay
):
    order, _ = pay(rzp_order)
    # First the confirmation: what locks, the amount, the window; nothing refunded yet.
    page = _refund_action(client, order)
    assert page.status_code == 200
    text = html.unescape(page.text)
    assert "Refund these orders in full?" in text
    assert order.receipt in text and "asha@example.com" in text and "₹299.00" in text
    assert "Unit 18 (Attention and Transformers), sections 2 to 15" in text
    assert "Inside the learner's 7-day window" in text
    assert 'name="confirm" value="yes"' in page.text
    order.refresh_from_db()
    assert order.state == "paid" and razorpay.refund_calls == []

    # Confirmed: the service refunds it.
    response = _refund_action(client, order, confirm="yes")
    assert response.status_code == 200
    order.refresh_from_db()
    assert order.state == "refund_requested"
    assert len(razorpay.refund_calls) == 1
    assert Refund.objects.get().by_operator
    # Confirmed again (a double click): refused with a message, no second provider call.
    again = _refund_action(client, order, confirm="yes")
    assert "already on its way" in again.text
    assert len(razorpay.refund_calls) == 1
    # Asked again: the confirmation says it is skipped and offers no button.
    page = _refund_action(client, order)
    assert "Skipped: A refund for this order is already on its way." in html.unescape(page.text)
    assert 'name="confirm"' not in page.text


def test_admin_refund_outside_the_window_says_so(client, operator, rzp_order, pay, razorpay):
    with time_machine.travel(dt.datetime(2026, 3, 1, 10, 30, tzinfo=dt.UTC), tick=False):
        order, _ = pay(rzp_order)
    with time_machine.travel(dt.datetime(2026, 3, 20, 10, 30, tzinfo=dt.UTC), tick=False):
        text = html.unescape(_refund_action(client, order).text)
        assert "Outside the learner's 7-day window (it closed 8 Mar 2026, 16:00)" in text
        _refund_action(client, order, confirm="yes")
    order.refresh_from_db()
    assert order.state == "refund_requested" and len(razorpay.refund_calls) == 1


def _visible_text(page_html: str) -> str:
    """The page as the operator reads it: no tags, scripts, styles or attribute values."""
    body = re.sub(r"(?s)<(script|style)\b.*?</\1>", " ", page_html)
    return html.unescape(re.sub(r"(?s)<[^>]+>", " ", body))


def test_money_is_in_rupees_on_every_billing_admin_page(
    client, operator, rzp_order, pay, razorpay, bundle, make_user, paid_order
):
    order, _ = pay(rzp_order)
    # A duplicate payment (refunded automatically) and a processed refund of a bundle order.
    post_webhook(client, FakeRazorpay.event("payment_captured", order, payment_id=rzp_id("pay")))
    refunded = paid_order(make_user("b@example.com"), bundle)
    Payment.objects.create(
        order=refunded,
        provider_payment_id="pay_bundle0000001",
        status="captured",
        amount_paise=99900,
        currency="INR",
        source="event",
    )
    refund = Refund.objects.create(
        order=refunded, idempotency_key="refund-b", amount_paise=99900, status="processed"
    )
    payment = Payment.objects.filter(duplicate=True).get()
    pages = {
        "/admin/billing/order/": ("₹299.00", "₹999.00"),
        f"/admin/billing/order/{order.pk}/change/": ("₹299.00",),
        f"/admin/billing/order/{refunded.pk}/change/": ("₹999.00",),
        "/admin/billing/payment/": ("₹299.00", "₹999.00"),
        "/admin/billing/payment/?duplicate__exact=1": ("₹299.00",),
        f"/admin/billing/payment/{payment.pk}/change/": ("₹299.00",),
        "/admin/billing/refund/": ("₹999.00",),
        f"/admin/billing/refund/{refund.pk}/change/": ("₹999.00",),
        "/admin/billing/product/": ("₹299.00", "₹999.00"),
        "/admin/billing/dailysales/": ("₹299.00", "₹999.00"),
    }
    for url, amounts in pages.items():
        page = client.get(url)
        assert page.status_code == 200, url
        text = _visible_text(page.text)
        for amount in amounts:
            assert amount in text, (url, amount)
        assert "paise" not in text.lower(), url
        assert not re.search(r"\b(29900|99900|129800)\b", text), url


def test_paise_exact_shows_paise_and_signs():
    assert paise(99900, exact=True) == "₹999.00"
    assert paise(12345678, exact=True) == "₹1,23,456.78"
    assert paise(-29900, exact=True) == "−₹299.00"
    assert paise(29900) == "₹299"  # the learner's pages keep the short form


def test_learners_answers_are_read_only_in_the_admin(client, operator, user):
    answer = CheckAnswer.objects.create(
        user=user, unit_slug="attention-and-transformers", check_id="s1-count",
        last_answer=["35"], correct=True, attempts=1,
    )  # fmt: skip
    visit = SectionVisit.objects.create(
        user=user, unit_slug="attention-and-transformers", section_number=1, visits=2
    )
    assert client.get("/admin/learning/checkanswer/").status_code == 200
    url = f"/admin/learning/checkanswer/{answer.pk}/change/"
    page = client.get(url)
    assert page.status_code == 200 and "35" in page.text
    assert 'name="last_answer"' not in page.text and 'name="correct"' not in page.text
    assert 'type="submit" value="Save' not in page.text
    refused = client.post(url, {"last_answer": '["36"]', "correct": "on", "attempts": "9"})
    assert refused.status_code == 403
    answer.refresh_from_db()
    assert answer.last_answer == ["35"] and answer.attempts == 1
    assert client.get("/admin/learning/checkanswer/add/").status_code == 403
    assert client.get(f"/admin/learning/sectionvisit/{visit.pk}/change/").status_code == 200
    assert client.post(f"/admin/learning/sectionvisit/{visit.pk}/change/", {}).status_code == 403
    assert client.get("/admin/learning/sectionvisit/add/").status_code == 403


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
        # One live order (Razorpay), paid the same day: counted apart from the test-mode ones.
        live = paid_order(make_user("c@example.com"), unit18)
        Order.objects.filter(pk=live.pk).update(provider="razorpay")
    rows = selectors.sales_by_day(test_mode=True, days=3, today=dt.date(2026, 3, 3))
    assert [
        (r.day.day, r.orders_paid, r.revenue_paise, r.refunds, r.refunded_paise) for r in rows
    ] == [
        (3, 0, 0, 0, 0),
        (2, 2, 129800, 1, 29900),
        (1, 0, 0, 0, 0),
    ]
    assert rows[1].revenue == "₹1,298.00" and rows[1].net == "₹999.00"
    total = selectors.sales_total(rows)
    assert (total.orders_paid, total.revenue, total.refunded, total.net) == (
        2,
        "₹1,298.00",
        "₹299.00",
        "₹999.00",
    )
    live_rows = selectors.sales_by_day(test_mode=False, days=3, today=dt.date(2026, 3, 3))
    assert [(r.orders_paid, r.revenue_paise, r.refunds) for r in live_rows] == [
        (0, 0, 0),
        (1, 29900, 0),
        (0, 0, 0),
    ]
    with time_machine.travel(dt.datetime(2026, 3, 3, 6, 0, tzinfo=dt.UTC), tick=False):
        page = client.get("/admin/billing/dailysales/?days=3")
    text = _visible_text(page.text)
    live_part, test_part = text.split("Test-mode orders (no money moved)")
    assert "Live orders (real money, through Razorpay)" in live_part
    # Each table's total row: orders, revenue, refunds, refunded, net (= revenue − refunded).
    assert re.search(
        r"Total \(net = revenue − refunded\)\s+1\s+₹299\.00\s+0\s+₹0\.00\s+₹299\.00", live_part
    )
    assert re.search(
        r"Total \(net = revenue − refunded\)\s+2\s+₹1,298\.00\s+1\s+₹299\.00\s+₹999\.00", test_part
    )
