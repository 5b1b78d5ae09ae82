"""Receiving the provider's webhooks: verify, de-duplicate, store the raw body, act.

Razorpay signs the raw request body (HMAC-SHA256, webhook secret) in ``X-Razorpay-Signature``
and names each event in ``X-Razorpay-Event-Id``; it retries anything that is not a 2xx for 24
hours, and does not promise any order of arrival. So:

- a missing or wrong signature is a 400 and nothing is stored or changed;
- a verified event is stored (``ProviderEvent``: provider + event id unique, raw body kept) in
  the same transaction as its effect, so a replay, or a parallel duplicate delivery, finds the
  row and is answered 200 without acting again; an unexpected error rolls both back (500) so the
  provider retries;
- events we don't act on are stored and answered 200;
- every state change goes through the services (row lock, state machine, unique entitlement),
  so ``order.paid`` and ``payment.captured`` for one payment, and the checkout callback, grant
  access once between them, whichever arrives first.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from . import services
from .models import Order, Payment, ProviderEvent, Refund
from .providers import PaymentProvider

log = logging.getLogger(__name__)

SIGNATURE_HEADER = "X-Razorpay-Signature"
EVENT_ID_HEADER = "X-Razorpay-Event-Id"


@dataclass(frozen=True)
class WebhookResult:
    status: int  # the HTTP status to answer
    message: str


def _entity(event: dict[str, Any], name: str) -> dict[str, Any] | None:
    payload = event.get("payload")
    if not isinstance(payload, dict):
        return None
    wrapper = payload.get(name)
    entity = wrapper.get("entity") if isinstance(wrapper, dict) else None
    return entity if isinstance(entity, dict) else None


def _order_by_provider_id(provider: PaymentProvider, provider_order_id: object) -> Order | None:
    if not isinstance(provider_order_id, str) or not provider_order_id:
        return None
    return Order.objects.filter(provider=provider.name, provider_order_id=provider_order_id).first()


def _amount(entity: dict[str, Any], key: str = "amount") -> int | None:
    value = entity.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _payment_captured(provider: PaymentProvider, event: dict[str, Any]) -> tuple[str, Order | None]:
    payment = _entity(event, "payment")
    order_entity = _entity(event, "order")
    if payment is None:
        return "ignored: no payment in the event", None
    order = _order_by_provider_id(
        provider, (order_entity or {}).get("id") or payment.get("order_id")
    )
    if order is None:
        return "ignored: not one of our orders", None
    if payment.get("status") != "captured":
        return f"ignored: payment status is {payment.get('status')!r}", order
    amount, currency, payment_id = _amount(payment), payment.get("currency"), payment.get("id")
    if amount is None or not isinstance(currency, str) or not isinstance(payment_id, str):
        return "ignored: payment without id, amount or currency", order
    outcome = services.payment_record_captured(
        order=order,
        payment_id=payment_id,
        amount_paise=amount,
        currency=currency,
        method=str(payment.get("method") or ""),
        source=str(event.get("event")),
    )
    return outcome.message, order


def _payment_failed(provider: PaymentProvider, event: dict[str, Any]) -> tuple[str, Order | None]:
    payment = _entity(event, "payment")
    if payment is None or not isinstance(payment.get("id"), str):
        return "ignored: no payment in the event", None
    order = _order_by_provider_id(provider, payment.get("order_id"))
    if order is None:
        return "ignored: not one of our orders", None
    message = services.payment_record_failed(
        order=order,
        payment_id=payment["id"],
        amount_paise=_amount(payment) or 0,
        currency=str(payment.get("currency") or ""),
        error=str(payment.get("error_description") or payment.get("error_code") or "failed"),
        source="payment.failed",
    )
    return message, order


def _refund_and_order(
    provider: PaymentProvider, event: dict[str, Any]
) -> tuple[dict[str, Any] | None, Order | None]:
    refund = _entity(event, "refund")
    if refund is None:
        return None, None
    payment = Payment.objects.filter(
        provider_payment_id=refund.get("payment_id"), order__provider=provider.name
    ).first()
    if payment is not None:
        return refund, payment.order
    payment_entity = _entity(event, "payment") or {}
    return refund, _order_by_provider_id(provider, payment_entity.get("order_id"))


def _refund_row(order: Order, refund_entity: dict[str, Any]) -> Refund:
    """Our refund attempt that this event is about (made for it if it began at the provider)."""
    provider_refund_id = str(refund_entity.get("id") or "")
    if provider_refund_id:
        known = Refund.objects.filter(provider_refund_id=provider_refund_id).first()
        if known is not None:
            return known
    # The event can arrive before our refund call has stored the provider's id, or after a
    # call that timed out although the provider did make the refund.
    candidate = (
        order.refunds.filter(provider_refund_id__isnull=True)
        .exclude(status=Refund.Status.PROCESSED)
        .order_by("-created_at")
        .first()
    )
    if candidate is None:  # started at the provider (e.g. its dashboard)
        candidate = Refund.objects.create(
            order=order,
            idempotency_key=f"provider-{provider_refund_id or order.receipt}",
            amount_paise=_amount(refund_entity) or order.amount_paise,
            by_operator=True,
        )
    if provider_refund_id:
        candidate.provider_refund_id = provider_refund_id
        candidate.save(update_fields=["provider_refund_id"])
    return candidate


def _duplicate_payment(provider: PaymentProvider, refund_entity: dict[str, Any]) -> Payment | None:
    """The refund is of a duplicate payment (refunded automatically, not the order's refund)."""
    return Payment.objects.filter(
        provider_payment_id=refund_entity.get("payment_id"),
        order__provider=provider.name,
        duplicate=True,
    ).first()


def _refund_processed(provider: PaymentProvider, event: dict[str, Any]) -> tuple[str, Order | None]:
    refund_entity, order = _refund_and_order(provider, event)
    if refund_entity is None:
        return "ignored: no refund in the event", None
    if order is None:
        return "ignored: not one of our payments", None
    if (duplicate := _duplicate_payment(provider, refund_entity)) is not None:
        return services.duplicate_refund_settle(payment=duplicate, processed=True), order
    if order.state in Order.UNPAID:
        # The refund overtook the payment's own events: record the payment first (from the
        # payment in this event), so the order ends refunded and a late order.paid grants nothing.
        payment = _entity(event, "payment")
        amount = _amount(payment) if payment else None
        if payment is None or amount is None or not isinstance(payment.get("id"), str):
            return "ignored: refund for an unpaid order, without its payment", order
        services.payment_record_captured(
            order=order,
            payment_id=payment["id"],
            amount_paise=amount,
            currency=str(payment.get("currency") or ""),
            method=str(payment.get("method") or ""),
            source="refund.processed",
        )
        order.refresh_from_db()
        if order.state in Order.UNPAID:
            return "ignored: refund for a payment that does not match the order", order
    amount = _amount(refund_entity)
    if amount is None:
        return "ignored: refund without an amount", order
    refund = _refund_row(order, refund_entity)
    return services.refund_complete(refund=refund, amount_paise=amount), order


def _refund_failed(provider: PaymentProvider, event: dict[str, Any]) -> tuple[str, Order | None]:
    refund_entity, order = _refund_and_order(provider, event)
    if refund_entity is None or order is None:
        return "ignored: not one of our refunds", order
    if (duplicate := _duplicate_payment(provider, refund_entity)) is not None:
        return services.duplicate_refund_settle(payment=duplicate, processed=False), order
    if order.state == Order.State.REFUNDED:
        return "ignored: the order is already refunded", order
    refund = _refund_row(order, refund_entity)
    return services.refund_fail(refund=refund, error="the provider reported the refund failed"), (
        order
    )


Handler = Callable[[PaymentProvider, dict[str, Any]], tuple[str, Order | None]]
HANDLERS: dict[str, Handler] = {
    "payment.captured": _payment_captured,
    "order.paid": _payment_captured,
    "payment.failed": _payment_failed,
    "refund.processed": _refund_processed,
    "refund.failed": _refund_failed,
}


def _holds_nul(value: object) -> bool:
    """True when a NUL character is in any key or string of a decoded JSON value."""
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(_holds_nul(k) or _holds_nul(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_holds_nul(v) for v in value)
    return False


def webhook_receive(
    *, provider: PaymentProvider, body: bytes, signature: str | None, event_id: str | None
) -> WebhookResult:
    """Handle one delivery. Returns the status to answer; raises only on our own bugs."""
    if not provider.verify_webhook_signature(body=body, signature=signature):
        return WebhookResult(400, "signature missing or invalid")
    try:
        text = body.decode("utf-8")
        event = json.loads(text)
    except (UnicodeDecodeError, ValueError):
        return WebhookResult(400, "body is not JSON")
    if not isinstance(event, dict) or not isinstance(event.get("event"), str):
        return WebhookResult(400, "not an event")
    if _holds_nul(event):
        # Razorpay never sends one, and PostgreSQL's text columns cannot hold it.
        return WebhookResult(400, "the event holds a NUL character")
    event_type: str = event["event"]
    # Razorpay always sends the id; without one, identical bodies are the same event.
    event_id = (event_id or "").strip() or "body-sha256:" + hashlib.sha256(body).hexdigest()[:40]
    with transaction.atomic():
        try:
            with transaction.atomic():
                record = ProviderEvent.objects.create(
                    provider=provider.name,
                    event_id=event_id[:100],
                    event_type=event_type[:60],
                    raw_body=text,
                )
        except IntegrityError:
            return WebhookResult(200, f"duplicate event {event_id}: already handled")
        handler = HANDLERS.get(event_type)
        if handler is None:
            outcome, order = f"ignored: {event_type} is not an event we act on", None
        else:
            outcome, order = handler(provider, event)
        record.outcome = outcome[:300]
        record.order = order
        record.processed_at = timezone.now()
        record.save(update_fields=["outcome", "order", "processed_at"])
    log.info("webhook %s %s: %s", event_type, event_id, outcome)
    return WebhookResult(200, outcome)
