"""The offline test-mode provider: Razorpay's protocol, simulated on our own site.

It makes order, payment, refund and event ids shaped like Razorpay's, signs callbacks with a
test key secret and webhook bodies with a test webhook secret (HMAC-SHA256, exactly as Razorpay
does), and delivers its webhooks to the very same receiving code as real ones. Both secrets are
derived from ``SECRET_KEY`` unless ``BILLING_TESTMODE_KEY_SECRET`` /
``BILLING_TESTMODE_WEBHOOK_SECRET`` are set, so nobody can forge a test-mode payment without the
site's secret key.

Where test mode is not allowed (production), the test-mode pages answer 404 and no order can be
created, so no fake payment can ever grant access there.
"""

from __future__ import annotations

import json
import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from django.conf import settings
from django.utils.crypto import salted_hmac

from .base import (
    PaymentProvider,
    ProviderOrder,
    ProviderRefund,
    hmac_sha256_hex,
    signature_matches,
)

log = logging.getLogger(__name__)

_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


def _id(prefix: str) -> str:
    """A Razorpay-shaped id: ``order_`` + 14 characters (``test`` marks ours)."""
    return f"{prefix}_test" + "".join(secrets.choice(_ALPHABET) for _ in range(10))


@dataclass(frozen=True)
class SignedEvent:
    """A webhook delivery as Razorpay would send it: raw body bytes plus headers."""

    event_id: str
    event_type: str
    body: bytes
    signature: str


@dataclass(frozen=True)
class CheckoutResult:
    """What Razorpay's checkout hands the browser after a successful payment."""

    order_id: str
    payment_id: str
    signature: str


@dataclass
class TestModeProvider(PaymentProvider):
    key_secret: str
    webhook_secret: str
    outbox: list[SignedEvent] = field(default_factory=list)

    name: ClassVar[str] = "testmode"
    label: ClassVar[str] = "Test mode"
    __test__: ClassVar[bool] = False  # not a pytest test class, despite the name
    #: Where settle() delivers the queued webhooks: the site's own receiving code, Razorpay's
    #: (``billing.webhooks.webhook_receive``, put here when the billing app is ready; the
    #: receiving side imports the providers, so the providers do not import it).
    receiver: ClassVar[Callable[..., Any] | None] = None

    @classmethod
    def from_settings(cls) -> TestModeProvider:
        key = (
            settings.BILLING_TESTMODE_KEY_SECRET
            or salted_hmac("mathmachine.billing.testmode", "key_secret").hexdigest()
        )
        hook = (
            settings.BILLING_TESTMODE_WEBHOOK_SECRET
            or salted_hmac("mathmachine.billing.testmode", "webhook_secret").hexdigest()
        )
        return cls(key_secret=key, webhook_secret=hook)

    # The interface -------------------------------------------------------------------------

    def create_order(
        self, *, receipt: str, amount_paise: int, currency: str, notes: dict[str, str]
    ) -> ProviderOrder:
        return ProviderOrder(id=_id("order"), amount_paise=amount_paise, currency=currency)

    def verify_payment_signature(self, *, order_id: str, payment_id: str, signature: str) -> bool:
        return signature_matches(self.key_secret, f"{order_id}|{payment_id}".encode(), signature)

    def verify_webhook_signature(self, *, body: bytes, signature: str | None) -> bool:
        return signature_matches(self.webhook_secret, body, signature)

    def refund(
        self, *, payment_id: str, amount_paise: int, idempotency_key: str, notes: dict[str, str]
    ) -> ProviderRefund:
        refund = ProviderRefund(id=_id("rfnd"), status="pending", amount_paise=amount_paise)
        # Razorpay processes a normal refund later and tells us by webhook; so do we (settle()).
        self.outbox.append(
            self.event(
                "refund.processed",
                refund=self.refund_entity(
                    refund_id=refund.id,
                    payment_id=payment_id,
                    amount_paise=amount_paise,
                    status="processed",
                    notes=notes,
                ),
            )
        )
        return refund

    def settle(self) -> None:
        """Deliver the queued webhooks to the same receiving code as Razorpay's."""
        receive = type(self).receiver
        if receive is None:
            raise RuntimeError("the billing app is not ready: no webhook receiver")
        while self.outbox:
            event = self.outbox.pop(0)
            result = receive(
                provider=self, body=event.body, signature=event.signature, event_id=event.event_id
            )
            log.info("test mode delivered %s %s: %s", event.event_type, event.event_id, result)

    # Simulating the provider's side ------------------------------------------------------------

    def pay(self, *, order_id: str, amount_paise: int, currency: str) -> CheckoutResult:
        """A successful payment: queue payment.captured and order.paid, sign the callback."""
        payment_id = _id("pay")
        payment = self.payment_entity(
            payment_id=payment_id,
            order_id=order_id,
            amount_paise=amount_paise,
            currency=currency,
            status="captured",
        )
        order = {
            "id": order_id,
            "entity": "order",
            "amount": amount_paise,
            "amount_paid": amount_paise,
            "amount_due": 0,
            "currency": currency,
            "status": "paid",
            "attempts": 1,
            "notes": [],
            "created_at": int(time.time()),
        }
        self.outbox.append(self.event("payment.captured", payment=payment))
        self.outbox.append(self.event("order.paid", payment=payment, order=order))
        signature = hmac_sha256_hex(self.key_secret, f"{order_id}|{payment_id}".encode())
        return CheckoutResult(order_id=order_id, payment_id=payment_id, signature=signature)

    def fail(self, *, order_id: str, amount_paise: int, currency: str) -> None:
        """A declined payment: queue payment.failed."""
        payment = self.payment_entity(
            payment_id=_id("pay"),
            order_id=order_id,
            amount_paise=amount_paise,
            currency=currency,
            status="failed",
            error="Test mode: the payment was declined on purpose.",
        )
        self.outbox.append(self.event("payment.failed", payment=payment))

    @staticmethod
    def payment_entity(
        *,
        payment_id: str,
        order_id: str,
        amount_paise: int,
        currency: str,
        status: str,
        error: str | None = None,
    ) -> dict[str, Any]:
        return {
            "id": payment_id,
            "entity": "payment",
            "amount": amount_paise,
            "currency": currency,
            "status": status,
            "order_id": order_id,
            "method": "testmode",
            "captured": status == "captured",
            "amount_refunded": 0,
            "refund_status": None,
            "error_code": "BAD_REQUEST_ERROR" if error else None,
            "error_description": error,
            "created_at": int(time.time()),
        }

    @staticmethod
    def refund_entity(
        *,
        refund_id: str,
        payment_id: str,
        amount_paise: int,
        status: str,
        notes: dict[str, str] | None = None,
    ) -> dict[str, Any]:
        return {
            "id": refund_id,
            "entity": "refund",
            "amount": amount_paise,
            "currency": "INR",
            "payment_id": payment_id,
            "notes": notes or {},
            "receipt": None,
            "status": status,
            "speed_requested": "normal",
            "speed_processed": "normal",
            "created_at": int(time.time()),
        }

    def event(self, event_type: str, **entities: dict[str, Any]) -> SignedEvent:
        """A signed event whose body has Razorpay's shape (``payload.<name>.entity``)."""
        body = json.dumps(
            {
                "entity": "event",
                "account_id": "acc_testmode",
                "event": event_type,
                "contains": list(entities),
                "payload": {name: {"entity": entity} for name, entity in entities.items()},
                "created_at": int(time.time()),
            },
            separators=(",", ":"),
        ).encode()
        return SignedEvent(
            event_id=_id("evt"),
            event_type=event_type,
            body=body,
            signature=hmac_sha256_hex(self.webhook_secret, body),
        )
