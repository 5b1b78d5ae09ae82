"""Shared billing fixtures: learners, the offer's products, a mocked Razorpay, signed webhooks.

Everything is offline: Razorpay's HTTP API is mocked at the HTTP layer with ``responses`` (the
real SDK runs), and every signature is computed here with HMAC-SHA256 and test secrets, the way
Razorpay computes it, never by asking the code under test to sign for us.
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
import json
import re
import secrets
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import responses
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone

from mathmachine.billing import services
from mathmachine.billing.models import Entitlement, Order, Product

FIXTURES = Path(__file__).parent / "fixtures" / "webhooks"
WEBHOOK_URL = "/billing/webhooks/razorpay/"

KEY_ID = "rzp_test_1DP5mmOlF5G5ag"
KEY_SECRET = "test-key-secret-not-real-0123456789"
WEBHOOK_SECRET = "test-webhook-secret-not-real-abcdef"

_receipts = itertools.count(1)


def sign(secret: str, message: bytes) -> str:
    return hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()


def rzp_id(prefix: str) -> str:
    return f"{prefix}_" + secrets.token_hex(7)


def payload(name: str, **values: object) -> bytes:
    """A stored webhook body with its ``__PLACEHOLDERS__`` filled, as raw bytes."""
    text = (FIXTURES / f"{name}.json").read_text(encoding="utf-8")
    for key, value in values.items():
        text = text.replace(f"__{key.upper()}__", str(value))
    assert "__" not in re.sub(r'"[a-z_]+"\s*:', "", text), f"unfilled placeholder in {name}"
    return text.encode()


def post_webhook(
    client: Client,
    body: bytes,
    *,
    signature: str | None = "sign",
    event_id: str | None = "new",
    secret: str = WEBHOOK_SECRET,
) -> Any:
    headers: dict[str, str] = {}
    if signature == "sign":
        signature = sign(secret, body)
    if signature is not None:
        headers["X-Razorpay-Signature"] = signature
    if event_id == "new":
        event_id = rzp_id("evt")
    if event_id is not None:
        headers["X-Razorpay-Event-Id"] = event_id
    return client.post(WEBHOOK_URL, data=body, content_type="application/json", headers=headers)


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
        now = timezone.now()
        order = Order.objects.create(
            receipt=f"TEST-{next(_receipts):06d}",
            user=user,
            product=product,
            amount_paise=product.price_paise,
            currency=product.currency,
            state=Order.State.PAID,
            provider="testmode",
            paid_at=now,
        )
        Entitlement.objects.create(user=user, product=product, order=order, granted_at=now)
        return order

    return make


@dataclass
class FakeRazorpay:
    """Razorpay's API as ``responses`` serves it, plus helpers that act as Razorpay would."""

    mock: responses.RequestsMock
    refund_calls: list[dict[str, Any]] = field(default_factory=list)
    refund_status: int = 200
    refund_error: dict[str, Any] | None = None

    def order_created(self, request: Any) -> tuple[int, dict[str, str], str]:
        body = json.loads(request.body)
        return (
            200,
            {},
            json.dumps(
                {
                    "id": rzp_id("order"),
                    "entity": "order",
                    "amount": body["amount"],
                    "amount_paid": 0,
                    "amount_due": body["amount"],
                    "currency": body["currency"],
                    "receipt": body["receipt"],
                    "status": "created",
                    "attempts": 0,
                    "notes": body.get("notes", {}),
                    "created_at": 1764479950,
                }
            ),
        )

    def refund_created(self, request: Any) -> tuple[int, dict[str, str], str]:
        body = json.loads(request.body)
        payment_id = request.url.split("/payments/")[1].split("/")[0]
        self.refund_calls.append(
            {
                "payment_id": payment_id,
                "body": body,
                "idempotency_key": request.headers.get("X-Refund-Idempotency"),
                "auth": request.headers.get("Authorization"),
            }
        )
        if self.refund_error is not None:
            return self.refund_status, {}, json.dumps({"error": self.refund_error})
        return (
            200,
            {},
            json.dumps(
                {
                    "id": rzp_id("rfnd"),
                    "entity": "refund",
                    "amount": body["amount"],
                    "currency": "INR",
                    "payment_id": payment_id,
                    "notes": body.get("notes", {}),
                    "receipt": None,
                    "status": "pending",
                    "speed_requested": "normal",
                    "created_at": 1764566400,
                }
            ),
        )

    # Acting as Razorpay -------------------------------------------------------------------

    @staticmethod
    def callback_signature(order_id: str, payment_id: str) -> str:
        return sign(KEY_SECRET, f"{order_id}|{payment_id}".encode())

    @staticmethod
    def event(name: str, order: Order, **values: object) -> bytes:
        values.setdefault("order_id", order.provider_order_id)
        values.setdefault("receipt", order.receipt)
        values.setdefault("payment_id", rzp_id("pay"))
        values.setdefault("refund_id", rzp_id("rfnd"))
        body = payload(name, **values)
        if order.amount_paise != 29900:  # the fixtures are Unit 18's; the bundle costs more
            body = body.replace(b'"amount": 29900', f'"amount": {order.amount_paise}'.encode())
            body = body.replace(
                b'"amount_paid": 29900', f'"amount_paid": {order.amount_paise}'.encode()
            )
        return body


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
