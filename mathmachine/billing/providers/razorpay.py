"""Razorpay through its official SDK (``razorpay``): orders, signatures, refunds.

Standard Checkout: the server creates the order (amount in paise, INR, our receipt), the browser
runs checkout.js, and the callback's ``razorpay_signature`` is HMAC-SHA256 of
``order_id|payment_id`` keyed with the API key secret. Webhooks carry ``X-Razorpay-Signature``,
HMAC-SHA256 of the raw body keyed with the webhook secret (a different secret), and
``X-Razorpay-Event-Id``. Refunds are made idempotent with the ``X-Refund-Idempotency`` header.
"""

from __future__ import annotations

import logging
from typing import Any, ClassVar

import razorpay
import requests
from razorpay.errors import BadRequestError, GatewayError, ServerError, SignatureVerificationError

from ..errors import ProviderError
from .base import PaymentProvider, ProviderOrder, ProviderRefund

log = logging.getLogger(__name__)

#: CSP sources Standard Checkout needs, added to the checkout page's response only.
CHECKOUT_CSP: dict[str, list[str]] = {
    "script-src": ["https://checkout.razorpay.com"],
    "frame-src": ["https://api.razorpay.com", "https://checkout.razorpay.com"],
    "connect-src": ["https://api.razorpay.com", "https://lumberjack.razorpay.com"],
    "img-src": ["https://cdn.razorpay.com"],
}
CHECKOUT_JS = "https://checkout.razorpay.com/v1/checkout.js"

_SDK_ERRORS = (BadRequestError, GatewayError, ServerError, requests.RequestException, ValueError)


class RazorpayProvider(PaymentProvider):
    name: ClassVar[str] = "razorpay"
    label: ClassVar[str] = "Razorpay"

    def __init__(self, *, key_id: str, key_secret: str, webhook_secret: str) -> None:
        self.key_id = key_id
        self.webhook_secret = webhook_secret
        self.client = razorpay.Client(auth=(key_id, key_secret))
        self.client.set_app_details({"title": "mathmachine", "version": "1"})

    def create_order(
        self, *, receipt: str, amount_paise: int, currency: str, notes: dict[str, str]
    ) -> ProviderOrder:
        try:
            data: dict[str, Any] = self.client.order.create(
                {"amount": amount_paise, "currency": currency, "receipt": receipt, "notes": notes}
            )
        except _SDK_ERRORS as exc:
            log.warning("Razorpay order create failed for %s: %s", receipt, exc)
            raise ProviderError("The payment provider could not start this payment.") from exc
        try:
            order = ProviderOrder(
                id=str(data["id"]), amount_paise=int(data["amount"]), currency=str(data["currency"])
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ProviderError("The payment provider answered something unexpected.") from exc
        if (order.amount_paise, order.currency) != (amount_paise, currency):
            raise ProviderError("The payment provider created an order for a different amount.")
        return order

    def verify_payment_signature(self, *, order_id: str, payment_id: str, signature: str) -> bool:
        if not (order_id and payment_id and signature) or not signature.isascii():
            return False
        try:
            return bool(
                self.client.utility.verify_payment_signature(
                    {
                        "razorpay_order_id": order_id,
                        "razorpay_payment_id": payment_id,
                        "razorpay_signature": signature,
                    }
                )
            )
        except (SignatureVerificationError, TypeError, ValueError):
            return False

    def verify_webhook_signature(self, *, body: bytes, signature: str | None) -> bool:
        if not self.webhook_secret or not signature or not signature.isascii():
            return False
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError:
            return False
        try:
            return bool(
                self.client.utility.verify_webhook_signature(text, signature, self.webhook_secret)
            )
        except (SignatureVerificationError, TypeError, ValueError):
            return False

    def refund(
        self, *, payment_id: str, amount_paise: int, idempotency_key: str, notes: dict[str, str]
    ) -> ProviderRefund:
        try:
            data: dict[str, Any] = self.client.payment.refund(
                payment_id,
                {"amount": amount_paise, "speed": "normal", "notes": notes},
                headers={"X-Refund-Idempotency": idempotency_key},
            )
        except _SDK_ERRORS as exc:
            log.warning("Razorpay refund failed for %s: %s", payment_id, exc)
            raise ProviderError(f"The payment provider refused the refund: {exc}") from exc
        try:
            return ProviderRefund(
                id=str(data["id"]),
                status=str(data.get("status", "pending")),
                amount_paise=int(data["amount"]),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ProviderError("The payment provider answered something unexpected.") from exc
