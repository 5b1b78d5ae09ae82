"""Writes: creating orders, recording payments, granting and revoking access, refunds.

Every function is keyword-only and runs its database work in a transaction holding the order's
row lock (``select_for_update``; on SQLite the whole database is locked by the IMMEDIATE
transaction mode), so the callback and any number of webhook deliveries can race and access is
still granted once: the state machine moves once, and ``Entitlement.order`` is unique.

Provider calls that move money (refunds) are made *outside* the transaction, after the order has
been moved to ``refund_requested`` and committed: a double click finds it there and is refused,
so the provider is called once.
"""

from __future__ import annotations

import logging
import secrets
import uuid
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from mathmachine.web.siteurl import site_root

from . import emails, selectors
from .errors import AlreadyOwned, NotForSale, PaymentRejected, ProviderError, RefundRefused
from .models import Entitlement, Order, Payment, Product, Refund
from .providers import get_provider, payments_enabled

log = logging.getLogger(__name__)

_RECEIPT_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I: read aloud on the phone


@dataclass(frozen=True)
class PaymentOutcome:
    granted: bool  # did *this* call grant access?
    message: str


def _new_receipt() -> str:
    """``MM-20261130-7KQ4XW``: the date and 6 random characters (unique in the database)."""
    day = timezone.localdate().strftime("%Y%m%d")
    return f"MM-{day}-" + "".join(secrets.choice(_RECEIPT_ALPHABET) for _ in range(6))


# Buying -------------------------------------------------------------------------------------


@transaction.atomic
def order_create(*, user: AbstractBaseUser, product: Product) -> Order:
    """An order for ``product`` at today's price, with the provider's order already created.

    Refuses (typed errors) what the learner already owns and what is not for sale. An unpaid
    order for the same product and price is reused, so two tabs pay the same provider order
    (which the provider accepts one payment for) rather than two.
    """
    if not payments_enabled():
        raise NotForSale("Payments are not switched on for this site yet.")
    # One purchase decision per learner at a time (serialises two tabs' clicks).
    get_user_model().objects.select_for_update().filter(pk=user.pk).exists()
    product = Product.objects.get(pk=product.pk)
    if not product.for_sale:
        raise NotForSale(f"{product.name} is not for sale at the moment.")
    blocker = selectors.purchase_blocker(user=user, product=product)
    if blocker:
        raise AlreadyOwned(blocker)
    provider = get_provider()
    existing = (
        Order.objects.filter(
            user=user,
            product=product,
            state__in=Order.UNPAID,
            provider=provider.name,
            amount_paise=product.price_paise,
            currency=product.currency,
            provider_order_id__isnull=False,
        )
        .order_by("-created_at")
        .first()
    )
    if existing:
        return existing
    order = Order(
        user=user,
        product=product,
        amount_paise=product.price_paise,
        currency=product.currency,
        provider=provider.name,
    )
    for _ in range(5):
        order.receipt = _new_receipt()
        if not Order.objects.filter(receipt=order.receipt).exists():
            break
    provider_order = provider.create_order(
        receipt=order.receipt,
        amount_paise=order.amount_paise,
        currency=order.currency,
        notes={"order": str(order.public_id), "product": product.code},
    )
    order.provider_order_id = provider_order.id
    order.save()
    return order


def _lock_order(order_id: int) -> Order:
    return Order.objects.select_for_update().select_related("product", "user").get(pk=order_id)


@transaction.atomic
def payment_record_captured(
    *,
    order: Order,
    payment_id: str,
    amount_paise: int,
    currency: str,
    method: str = "",
    source: str,
) -> PaymentOutcome:
    """A verified, captured payment for ``order``: grant access if this is the first word of it.

    The only place access is granted. Idempotent: a second callback or event for the same order
    changes nothing. A payment whose amount or currency differs from the order's grants nothing
    (it is recorded, with the reason, for the operator).
    """
    order = _lock_order(order.pk)
    payment, created = Payment.objects.get_or_create(
        provider_payment_id=payment_id,
        defaults={
            "order": order,
            "status": Payment.Status.CAPTURED,
            "amount_paise": amount_paise,
            "currency": currency,
            "method": method[:30],
            "source": source[:30],
        },
    )
    if payment.order_id != order.pk:
        return PaymentOutcome(False, f"payment {payment_id} belongs to another order")
    if not created and payment.status != Payment.Status.CAPTURED:
        payment.status = Payment.Status.CAPTURED
        payment.save(update_fields=["status"])
    if (amount_paise, currency) != (order.amount_paise, order.currency):
        payment.error = (
            f"paid {amount_paise} {currency}, order is {order.amount_paise} {order.currency}"
        )
        payment.save(update_fields=["error"])
        log.error(
            "Order %s: wrong amount or currency (%s); no access", order.receipt, payment.error
        )
        return PaymentOutcome(False, "wrong amount or currency: no access granted")
    if order.state not in Order.UNPAID:
        paid_by_another = (
            order.payments.filter(status=Payment.Status.CAPTURED, duplicate=False)
            .exclude(pk=payment.pk)
            .exclude(error__startswith="paid ")
            .exists()
        )
        if not paid_by_another:  # this very payment paid the order: a repeated word of it
            return PaymentOutcome(False, f"already {order.state}: nothing to do")
        if not payment.duplicate:
            payment.duplicate = True
            payment.refund_status = "requested"
            payment.error = "a second payment for an order already paid: refunded automatically"
            payment.save(update_fields=["duplicate", "refund_status", "error"])
            log.error(
                "Order %s: second payment %s captured for an order already %s; refunding it",
                order.receipt,
                payment_id,
                order.state,
            )
            payment_pk = payment.pk
            transaction.on_commit(lambda: payment_refund_duplicate(payment_id=payment_pk))
        return PaymentOutcome(False, "a second payment for this order: refunded automatically")
    now = timezone.now()
    order.transition(Order.State.PAID)
    order.paid_at = now
    order.save(update_fields=["state", "paid_at", "updated_at"])
    Entitlement.objects.create(user=order.user, product=order.product, order=order, granted_at=now)
    selectors.access_answers_forget()
    order_pk = order.pk
    site = site_root()  # now, while the request that paid is answered: the links' address
    transaction.on_commit(lambda: emails.receipt_send(order_id=order_pk, site=site))
    log.info("Order %s paid (%s via %s): access granted", order.receipt, payment_id, source)
    return PaymentOutcome(True, "paid: access granted")


@transaction.atomic
def payment_record_failed(
    *, order: Order, payment_id: str, amount_paise: int, currency: str, error: str, source: str
) -> str:
    """A failed payment attempt. Only an order still awaiting payment becomes ``failed``."""
    order = _lock_order(order.pk)
    Payment.objects.get_or_create(
        provider_payment_id=payment_id,
        defaults={
            "order": order,
            "status": Payment.Status.FAILED,
            "amount_paise": amount_paise,
            "currency": currency,
            "source": source[:30],
            "error": error[:300],
        },
    )
    if order.state == Order.State.CREATED:
        order.transition(Order.State.FAILED)
        order.save(update_fields=["state", "updated_at"])
        return "payment failed: order failed (the learner can try again)"
    return f"payment failed: order stays {order.state}"


def checkout_callback_verify(
    *, order: Order, payment_id: str, signature: str, claimed_order_id: str = ""
) -> PaymentOutcome:
    """The browser's word that ``order`` was paid, checked against the **stored** order id.

    ``order`` must already be the signed-in learner's own (the view looks it up by owner).
    The order id the browser sends is never used for the check; if it differs from ours the
    claim is refused outright.
    """
    if not order.provider_order_id:
        raise PaymentRejected("This order was never sent to the payment provider.")
    if claimed_order_id and claimed_order_id != order.provider_order_id:
        raise PaymentRejected("This payment belongs to a different order.")
    provider = get_provider(order.provider)
    if not provider.verify_payment_signature(
        order_id=order.provider_order_id, payment_id=payment_id, signature=signature
    ):
        raise PaymentRejected("We could not verify this payment. You have not been charged twice.")
    return payment_record_captured(
        order=order,
        payment_id=payment_id,
        amount_paise=order.amount_paise,
        currency=order.currency,
        source="callback",
    )


def payment_refund_duplicate(*, payment_id: int) -> str:
    """Refund a duplicate payment (captured for an order already paid) in full, once.

    Called after the commit that marked it; the provider is called outside any transaction, with
    an idempotency key of the payment's own, so a repeated call cannot refund twice. The order
    and its access are never touched: they belong to the payment that paid it.
    """
    with transaction.atomic():
        payment = Payment.objects.select_for_update().select_related("order").get(pk=payment_id)
        if not payment.duplicate or payment.refund_status != "requested":
            return f"nothing to do: refund {payment.refund_status or 'not needed'}"
        if payment.provider_refund_id:
            return "refund already asked for"
        order = payment.order
    provider = get_provider(order.provider)
    try:
        result = provider.refund(
            payment_id=payment.provider_payment_id,
            amount_paise=payment.amount_paise,
            idempotency_key=f"duplicate-{payment.provider_payment_id}",
            notes={"receipt": order.receipt, "reason": "duplicate payment"},
        )
    except ProviderError as exc:
        Payment.objects.filter(pk=payment_id).update(
            refund_status="failed", error=f"duplicate payment; automatic refund failed: {exc}"[:300]
        )
        log.error("Order %s: refund of duplicate %s failed: %s", order.receipt, payment, exc)
        return "refund failed"
    status = {"processed": "processed", "failed": "failed"}.get(result.status, "requested")
    Payment.objects.filter(pk=payment_id, refund_status="requested").update(
        provider_refund_id=result.id, refund_status=status
    )
    provider.settle()
    return f"refund {status}"


def duplicate_refund_settle(*, payment: Payment, processed: bool) -> str:
    """The provider's word on a duplicate payment's refund (a webhook): the order is untouched."""
    updated = (
        Payment.objects.filter(pk=payment.pk, duplicate=True)
        .exclude(refund_status="processed")
        .update(refund_status="processed" if processed else "failed")
    )
    if not processed:
        log.error("Refund of duplicate payment %s failed at the provider", payment)
    outcome = "processed" if processed else "failed"
    return f"duplicate payment's refund {outcome}" if updated else "duplicate payment: no change"


# Refunds ------------------------------------------------------------------------------------


def refund_request(
    *, order: Order, requested_by: AbstractBaseUser, by_operator: bool = False
) -> Refund:
    """Refund ``order`` in full through its provider; returns the refund attempt.

    Learners: their own paid order, while ``now <= paid_at + 7 days``. Operators (the admin
    action): any paid order, window or not. A retry after ``refund_failed`` is a new attempt.

    The order is moved to ``refund_requested`` and committed before the provider is called, so
    a double click is refused and the provider is called once. A provider error leaves the order
    ``refund_failed`` with access intact (``refund.status == "failed"``, ``refund.error`` says
    why). Access is revoked only when the provider reports the refund processed.
    """
    with transaction.atomic():
        order = _lock_order(order.pk)
        refusal = selectors.refund_refusal(
            order=order, requested_by=requested_by, by_operator=by_operator
        )
        if refusal:
            raise RefundRefused(refusal)
        payment = (
            order.payments.filter(status=Payment.Status.CAPTURED, duplicate=False)
            .exclude(error__startswith="paid ")
            .order_by("created_at")
            .first()
        )
        if payment is None:
            raise RefundRefused("There is no captured payment on record for this order.")
        order.transition(Order.State.REFUND_REQUESTED)
        order.save(update_fields=["state", "updated_at"])
        refund = Refund.objects.create(
            order=order,
            idempotency_key=f"refund-{uuid.uuid4().hex}",
            amount_paise=order.amount_paise,
            requested_by=requested_by,
            by_operator=by_operator,
        )
    provider = get_provider(order.provider)
    try:
        result = provider.refund(
            payment_id=payment.provider_payment_id,
            amount_paise=refund.amount_paise,
            idempotency_key=refund.idempotency_key,
            notes={"receipt": order.receipt},
        )
    except ProviderError as exc:
        refund_fail(refund=refund, error=str(exc))
    else:
        with transaction.atomic():
            _lock_order(order.pk)
            locked = Refund.objects.select_for_update().get(pk=refund.pk)
            if not locked.provider_refund_id:
                locked.provider_refund_id = result.id
                locked.save(update_fields=["provider_refund_id"])
        if result.status == "processed":
            refund_complete(refund=refund, amount_paise=result.amount_paise)
        elif result.status == "failed":
            refund_fail(refund=refund, error="the provider reported the refund failed")
        provider.settle()
    refund.refresh_from_db()
    return refund


@transaction.atomic
def refund_complete(*, refund: Refund, amount_paise: int) -> str:
    """The provider processed ``refund``: the order is refunded and its access revoked.

    Progress (check answers, sections reached) is never touched. Emails the learner once.
    """
    order = _lock_order(refund.order_id)
    refund = Refund.objects.select_for_update().get(pk=refund.pk)
    if refund.status == Refund.Status.PROCESSED:
        return "refund already processed"
    if amount_paise != order.amount_paise:
        refund.error = f"partial refund of {amount_paise} paise: access kept, review by hand"
        refund.save(update_fields=["error"])
        return refund.error
    if order.state == Order.State.REFUNDED:
        refund.error = "the order was already refunded: check the provider for a double refund"
        refund.save(update_fields=["error"])
        log.error("Order %s: %s", order.receipt, refund.error)
        return refund.error
    if order.state in Order.UNPAID:
        return f"order is {order.state}, not paid: nothing to refund here"
    now = timezone.now()
    if order.state == Order.State.PAID:  # a refund started at the provider, not by us
        order.transition(Order.State.REFUND_REQUESTED)
    order.transition(Order.State.REFUNDED)
    order.refunded_at = now
    order.save(update_fields=["state", "refunded_at", "updated_at"])
    refund.status = Refund.Status.PROCESSED
    refund.processed_at = now
    refund.error = ""
    refund.save(update_fields=["status", "processed_at", "error"])
    Entitlement.objects.filter(order=order, revoked_at__isnull=True).update(revoked_at=now)
    selectors.access_answers_forget()
    order_pk = order.pk
    site = site_root()
    transaction.on_commit(lambda: emails.refund_send(order_id=order_pk, site=site))
    log.info("Order %s refunded: access revoked", order.receipt)
    return "refund processed: access revoked"


@transaction.atomic
def refund_fail(*, refund: Refund, error: str) -> str:
    """The provider could not refund: the order is ``refund_failed``, access intact."""
    order = _lock_order(refund.order_id)
    refund = Refund.objects.select_for_update().get(pk=refund.pk)
    if refund.status != Refund.Status.REQUESTED:
        return f"refund already {refund.status}: nothing to do"
    refund.status = Refund.Status.FAILED
    refund.error = error[:300]
    refund.save(update_fields=["status", "error"])
    if order.state == Order.State.REFUND_REQUESTED:
        order.transition(Order.State.REFUND_FAILED)
        order.save(update_fields=["state", "updated_at"])
    log.warning("Refund of %s failed: %s", order.receipt, error)
    return "refund failed: access kept, a retry is possible"
