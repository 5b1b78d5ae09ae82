"""Billing test helpers: sign as Razorpay signs, fill stored webhook bodies, post them, and a
fake of Razorpay's HTTP API for ``responses``. (A module with its own name, so that importing
it never picks up another directory's ``conftest``.)"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import responses
from django.test import Client

from mathmachine.billing.models import Order

FIXTURES = Path(__file__).parent / "fixtures" / "webhooks"
WEBHOOK_URL = "/billing/webhooks/razorpay/"

KEY_ID = "rzp_test_1DP5mmOlF5G5ag"
KEY_SECRET = "test-key-secret-not-real-0123456789"
WEBHOOK_SECRET = "test-webhook-secret-not-real-abcdef"


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
