"""Shared billing fixtures: learners, the offer's products, a mocked Razorpay, signed webhooks.

Everything is offline: Razorpay's HTTP API is mocked at the HTTP layer with ``responses`` (the
real SDK runs), and every signature is computed here with HMAC-SHA256 and test secrets, the way
Razorpay computes it, never by asking the code under test to sign for us.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import responses
from django.contrib.auth import get_user_model

from mathmachine.billing import services
from mathmachine.billing.models import Order, Product

_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

from billing_support import (  # noqa: E402
    KEY_ID,
    KEY_SECRET,
    WEBHOOK_SECRET,
    FakeRazorpay,
    post_webhook,
    rzp_id,
)
from support import paid_order_create  # noqa: E402
from unit_states import complete_content, unit_state  # noqa: E402, F401 (fixtures)


@pytest.fixture
def make_user(db) -> Callable[..., Any]:
    def make(email: str = "learner@example.com", **extra: object) -> Any:
        return get_user_model().objects.create_user(
            username=email, email=email, password=None, **extra
        )

    return make


@pytest.fixture
def user(make_user):
    return make_user("asha@example.com")


@pytest.fixture
def other_user(make_user):
    return make_user("ravi@example.com")


@pytest.fixture
def unit18(db) -> Product:
    return Product.objects.get(code="unit-18")


@pytest.fixture
def bundle(db) -> Product:
    return Product.objects.get(code="all-paid-units")


@pytest.fixture
def paid_order(db) -> Callable[..., Order]:
    """A paid order with its entitlement, written directly (for tests of reads, not of buying)."""

    def make(user: object, product: Product) -> Order:
        return paid_order_create(user, product)

    return make


@pytest.fixture
def razorpay(settings) -> Iterator[FakeRazorpay]:
    """Configure the Razorpay provider with test keys and mock its HTTP API."""
    settings.RAZORPAY_KEY_ID = KEY_ID
    settings.RAZORPAY_KEY_SECRET = KEY_SECRET
    settings.RAZORPAY_WEBHOOK_SECRET = WEBHOOK_SECRET
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        fake = FakeRazorpay(mock=mock)
        mock.add_callback(
            responses.POST, "https://api.razorpay.com/v1/orders", callback=fake.order_created
        )
        mock.add_callback(
            responses.POST,
            re.compile(r"https://api\.razorpay\.com/v1/payments/[^/]+/refund"),
            callback=fake.refund_created,
        )
        yield fake


@pytest.fixture
def rzp_order(razorpay, user, unit18) -> Order:
    """A Razorpay order for Unit 18, created through the service (and the mocked API)."""
    return services.order_create(user=user, product=unit18)


@pytest.fixture
def pay(client) -> Callable[..., tuple[Order, str]]:
    """Pay an order the way Razorpay reports it: a signed payment.captured webhook."""

    def do(order: Order) -> tuple[Order, str]:
        payment_id = rzp_id("pay")
        body = FakeRazorpay.event("payment_captured", order, payment_id=payment_id)
        response = post_webhook(client, body)
        assert response.status_code == 200, response.content
        order.refresh_from_db()
        assert order.state == Order.State.PAID
        return order, payment_id

    return do
