"""Real parallel requests against PostgreSQL: duplicate deliveries, racing events and callback,
a double-clicked refund. Each thread has its own database connection and its own client.

Skipped unless DATABASE_URL is a PostgreSQL URL (SQLite serialises writers, so it cannot show
these races); .ci/run runs them.
"""

from __future__ import annotations

import importlib
import os
import threading
from collections.abc import Callable
from typing import Any

import pytest
from billing_support import FakeRazorpay, post_webhook, rzp_id
from django.db import connection
from django.test import Client

from mathmachine.billing.models import Entitlement, Order, Payment, ProviderEvent, Refund

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.skipif(
        not os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://")),
        reason="needs DATABASE_URL pointing at PostgreSQL (real row locks and parallel writers)",
    ),
    pytest.mark.django_db(transaction=True),
]

THREADS = 8


@pytest.fixture(autouse=True)
def _products(transactional_db: None) -> None:
    """The offer's products, as the data migration makes them: a transactional test starts
    from whatever the previous one's flush left (pytest-django runs these tests last)."""
    from django.apps import apps

    migration = importlib.import_module("mathmachine.billing.migrations.0002_products")
    migration.create_products(apps, None)


def _in_parallel(jobs: list[Callable[[Client], Any]], login: Any = None) -> list[Any]:
    """Run each job in its own thread, all released at once; return their results in order."""
    barrier = threading.Barrier(len(jobs))
    results: list[Any] = [None] * len(jobs)
    errors: list[BaseException] = []

    def run(i: int, job: Callable[[Client], Any]) -> None:
        client = Client()
        if login is not None:
            client.force_login(login)
        try:
            barrier.wait(timeout=30)
            results[i] = job(client)
        except BaseException as exc:  # surfaced below, in the test's thread
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i, job)) for i, job in enumerate(jobs)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not errors, errors
    return results


def test_concurrent_duplicate_deliveries_grant_once(rzp_order):
    body = FakeRazorpay.event("payment_captured", rzp_order)
    responses = _in_parallel(
        [lambda c: post_webhook(c, body, event_id="evt_SameEvent0001")] * THREADS
    )
    assert [r.status_code for r in responses] == [200] * THREADS
    assert sum("duplicate" in r.json()["message"] for r in responses) == THREADS - 1
    rzp_order.refresh_from_db()
    assert rzp_order.state == "paid"
    assert Entitlement.objects.filter(order=rzp_order).count() == 1
    assert ProviderEvent.objects.count() == 1
    assert Payment.objects.count() == 1


def test_racing_order_paid_payment_captured_and_callback_grant_once(rzp_order, user):
    payment_id = rzp_id("pay")
    order_paid = FakeRazorpay.event("order_paid", rzp_order, payment_id=payment_id)
    captured = FakeRazorpay.event("payment_captured", rzp_order, payment_id=payment_id)
    signature = FakeRazorpay.callback_signature(rzp_order.provider_order_id, payment_id)

    def callback(c: Client) -> int:
        c.force_login(user)
        return c.post(
            f"/billing/orders/{rzp_order.public_id}/callback/",
            {
                "razorpay_order_id": rzp_order.provider_order_id,
                "razorpay_payment_id": payment_id,
                "razorpay_signature": signature,
            },
        ).status_code

    jobs: list[Callable[[Client], Any]] = []
    for _ in range(THREADS // 4):
        jobs += [
            lambda c: post_webhook(c, order_paid).status_code,  # each with a new event id
            lambda c: post_webhook(c, captured).status_code,
            callback,
            callback,
        ]
    statuses = _in_parallel(jobs)
    assert set(statuses) <= {200, 302}
    rzp_order.refresh_from_db()
    assert rzp_order.state == "paid"
    assert Entitlement.objects.filter(order=rzp_order).count() == 1
    assert Payment.objects.filter(order=rzp_order).count() == 1


def test_parallel_refund_clicks_make_one_provider_call(rzp_order, user, razorpay, pay):
    order, _ = pay(rzp_order)
    url = f"/billing/orders/{order.public_id}/refund/"
    statuses = _in_parallel(
        [lambda c: c.post(url, {"confirm": "yes"}).status_code] * THREADS, login=user
    )
    assert statuses == [302] * THREADS
    assert len(razorpay.refund_calls) == 1
    assert Refund.objects.filter(order=order).count() == 1
    order.refresh_from_db()
    assert order.state == "refund_requested"


def test_parallel_purchases_of_one_product_make_one_order(razorpay, user, unit18):
    def buy(c: Client) -> int:
        return c.post(f"/billing/buy/{unit18.code}/").status_code

    assert _in_parallel([buy] * 4, login=user) == [302] * 4
    assert Order.objects.filter(user=user, product=unit18).count() == 1
    assert len(razorpay.mock.calls) == 1


def test_parallel_test_mode_payments_take_one_payment(user):
    """Issue 10, failure 7: 5 parallel "succeed" posts to one order's test-pay gave 5 captured
    payments and 1 entitlement (and the refund repaid one). Test mode now takes one."""
    from mathmachine.billing.models import Product

    order = services_order_create(user, Product.objects.get(code="unit-18"))

    def succeed(c: Client) -> int:
        c.force_login(user)
        url = f"/billing/orders/{order.public_id}/test-pay/"
        return c.post(url, {"outcome": "succeed"}).status_code

    statuses = _in_parallel([succeed] * 5)
    assert sorted(statuses) == [200, 302, 302, 302, 302]
    assert Payment.objects.filter(order=order, status="captured").count() == 1
    assert Entitlement.objects.filter(order=order).count() == 1


def services_order_create(user: Any, product: Any) -> Order:
    from mathmachine.billing import services

    return services.order_create(user=user, product=product)
