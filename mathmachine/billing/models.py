"""Billing: what is for sale, who bought what, and who may read which unit.

Money is always an integer number of paise (₹1 = 100 paise) with an ISO currency code; nothing
here uses floats, and amounts are printed by the project's one printer
(``mathmachine.printing.paise``: "₹299", "₹299.50", Indian grouping; ``exact=True`` "₹299.00", as
the admin shows them). Prices live in :class:`Product` (admin-editable); an :class:`Order` copies
the price when it is created, so a later price change never alters what a learner was asked to
pay.

The paid units are the database rows ``Product(kind=UNIT)``: a unit becomes a paid unit when its
product is created (a data migration when the unit ships, or the admin), in the same place and
transaction as its price. The bundle (``Product(kind=BUNDLE)``, at most one) grants every paid unit,
present and future, because the access check asks "is N a paid unit?" at read time rather than
copying unit numbers into the entitlement.

Access comes only from :class:`Entitlement` rows (one per paid order, revoked by a processed
refund), never from a provider's view of an order.
"""

from __future__ import annotations

import uuid
from typing import ClassVar, Final

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.utils import timezone

from mathmachine import printing

from .errors import IllegalTransition

#: The published offer: "all seven paid units". The admin refuses an eighth unit product.
PAID_UNITS_PROMISED = 7
CURRENCY = "INR"


class Product(models.Model):
    class Kind(models.TextChoices):
        UNIT = "unit", "One paid unit"
        BUNDLE = "bundle", "Bundle: every paid unit"

    code = models.SlugField(max_length=40, unique=True, help_text="stable id, e.g. unit-18")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    unit_number = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="for a unit product: the unit it unlocks (a paid unit)"
    )
    name = models.CharField(max_length=120)
    description = models.TextField(blank=True)
    price_paise = models.PositiveIntegerField(help_text="price in paise: ₹299 is 29900")
    currency = models.CharField(max_length=3, default=CURRENCY, choices=[(CURRENCY, CURRENCY)])
    for_sale = models.BooleanField(
        default=True,
        help_text="withdrawn products stay paid units; their buyers keep access",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ("kind", "unit_number")
        constraints: ClassVar = [
            models.CheckConstraint(
                condition=(Q(kind="unit") & Q(unit_number__isnull=False))
                | (Q(kind="bundle") & Q(unit_number__isnull=True)),
                name="product_unit_number_iff_unit",
            ),
            models.UniqueConstraint(
                fields=("unit_number",),
                condition=Q(unit_number__isnull=False),
                name="product_one_per_unit",
            ),
            models.UniqueConstraint(
                fields=("kind",), condition=Q(kind="bundle"), name="product_one_bundle"
            ),
            # Razorpay's smallest charge is ₹1.
            models.CheckConstraint(condition=Q(price_paise__gte=100), name="product_price_min"),
            models.CheckConstraint(condition=Q(currency=CURRENCY), name="product_currency_inr"),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.price_display})"

    @property
    def price_display(self) -> str:
        return printing.paise(self.price_paise)

    def clean(self) -> None:
        if self.kind == self.Kind.UNIT:
            others = Product.objects.filter(kind=self.Kind.UNIT).exclude(pk=self.pk)
            if others.count() >= PAID_UNITS_PROMISED:
                raise ValidationError(
                    f"The bundle promises {PAID_UNITS_PROMISED} paid units; "
                    "there are already that many unit products."
                )


class OrderState:
    """An order's states: plain strings, the values stored in ``Order.state``."""

    CREATED: Final = "created"
    FAILED: Final = "failed"
    PAID: Final = "paid"
    REFUND_REQUESTED: Final = "refund_requested"
    REFUND_FAILED: Final = "refund_failed"
    REFUNDED: Final = "refunded"
    LABELS: Final[dict[str, str]] = {
        CREATED: "Created (awaiting payment)",
        FAILED: "Payment failed",
        PAID: "Paid",
        REFUND_REQUESTED: "Refund requested",
        REFUND_FAILED: "Refund failed",
        REFUNDED: "Refunded",
    }
    ALL: Final[tuple[str, ...]] = tuple(LABELS)


class Order(models.Model):
    """One attempt to buy one product, from creation to (possibly) refund.

    The state machine (every other move raises :class:`IllegalTransition`)::

        created ──► paid ──► refund_requested ──► refunded
           │         ▲             │    ▲
           ▼         │             ▼    │ (retry)
         failed ─────┘         refund_failed ──► refunded (a late refund.processed)

    ``failed → paid``: Razorpay lets the learner retry on the same order, so a later successful
    payment still completes it. ``paid`` is never left except by a refund request.
    """

    State: ClassVar[type[OrderState]] = OrderState

    TRANSITIONS: ClassVar[dict[str, frozenset[str]]] = {
        OrderState.CREATED: frozenset({OrderState.PAID, OrderState.FAILED}),
        OrderState.FAILED: frozenset({OrderState.PAID}),
        OrderState.PAID: frozenset({OrderState.REFUND_REQUESTED}),
        OrderState.REFUND_REQUESTED: frozenset({OrderState.REFUNDED, OrderState.REFUND_FAILED}),
        OrderState.REFUND_FAILED: frozenset({OrderState.REFUND_REQUESTED, OrderState.REFUNDED}),
        OrderState.REFUNDED: frozenset(),
    }
    UNPAID: ClassVar[tuple[str, ...]] = (OrderState.CREATED, OrderState.FAILED)
    #: ``provider`` of the offline test-mode checkout (no money moves; providers/testmode.py).
    TEST_MODE: ClassVar[str] = "testmode"
    #: States in which the order's entitlement is active (access granted, not refunded).
    HOLDING: ClassVar[tuple[str, ...]] = (
        OrderState.PAID,
        OrderState.REFUND_REQUESTED,
        OrderState.REFUND_FAILED,
    )

    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    receipt = models.CharField(max_length=40, unique=True, help_text="our receipt number")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="billing_orders"
    )
    product = models.ForeignKey(Product, on_delete=models.PROTECT, related_name="orders")
    amount_paise = models.PositiveIntegerField(help_text="the price when the order was created")
    currency = models.CharField(max_length=3, default=CURRENCY)
    state = models.CharField(
        max_length=20, choices=list(OrderState.LABELS.items()), default=OrderState.CREATED
    )
    provider = models.CharField(max_length=20, help_text="razorpay or testmode")
    provider_order_id = models.CharField(max_length=64, null=True, blank=True, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    paid_at = models.DateTimeField(null=True, blank=True)
    refunded_at = models.DateTimeField(null=True, blank=True)
    receipt_emailed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ("-created_at",)
        constraints: ClassVar = [
            models.CheckConstraint(
                condition=Q(
                    state__in=[
                        "created",
                        "failed",
                        "paid",
                        "refund_requested",
                        "refund_failed",
                        "refunded",
                    ]
                ),
                name="order_state_known",
            ),
            models.CheckConstraint(condition=Q(amount_paise__gte=100), name="order_amount_min"),
            models.CheckConstraint(
                condition=Q(paid_at__isnull=False) | Q(state__in=["created", "failed"]),
                name="order_paid_has_paid_at",
            ),
        ]
        indexes: ClassVar = [models.Index(fields=("state", "paid_at"))]

    def __str__(self) -> str:
        return f"{self.receipt} · {self.product.name} · {self.get_state_display()}"

    @property
    def amount_display(self) -> str:
        return printing.paise(self.amount_paise)

    @property
    def test_mode(self) -> bool:
        """Paid (or to be paid) in test mode: no real money moved."""
        return self.provider == self.TEST_MODE

    def can_transition(self, target: str) -> bool:
        return target in self.TRANSITIONS.get(self.state, frozenset())

    def transition(self, target: str) -> None:
        """Move to ``target`` (in memory; the caller saves under a row lock)."""
        if not self.can_transition(target):
            raise IllegalTransition(self.receipt or self.pk, self.state, target)
        self.state = target


class Payment(models.Model):
    """A payment the provider reported for one of our orders (verified before it is stored)."""

    class Status(models.TextChoices):
        CAPTURED = "captured", "Captured"
        FAILED = "failed", "Failed"

    order = models.ForeignKey(Order, on_delete=models.PROTECT, related_name="payments")
    provider_payment_id = models.CharField(max_length=64, unique=True)
    status = models.CharField(max_length=10, choices=Status.choices)
    amount_paise = models.PositiveIntegerField()
    currency = models.CharField(max_length=3)
    method = models.CharField(max_length=30, blank=True)
    source = models.CharField(max_length=30, help_text="which message told us: callback or event")
    error = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # A second payment captured for an order already paid grants nothing and is refunded
    # automatically (services.payment_refund_duplicate); these fields follow that refund.
    duplicate = models.BooleanField(
        default=False, help_text="captured for an order that was already paid: refunded for it"
    )
    refund_status = models.CharField(
        max_length=10,
        blank=True,
        choices=[
            ("requested", "Refund requested"),
            ("processed", "Refunded"),
            ("failed", "Refund failed"),
        ],
        help_text="the automatic refund of a duplicate payment",
    )
    provider_refund_id = models.CharField(max_length=64, null=True, blank=True, unique=True)

    class Meta:
        ordering = ("-created_at",)

    def __str__(self) -> str:
        label = " · duplicate" if self.duplicate else ""
        amount = printing.paise(self.amount_paise, exact=True)
        return f"{self.provider_payment_id} · {amount} · {self.status}{label}"


class Refund(models.Model):
    """One refund attempt for one order; a retry after a failure is a new row."""

    class Status(models.TextChoices):
        REQUESTED = "requested", "Requested"
        PROCESSED = "processed", "Processed"
        FAILED = "failed", "Failed"

    order = models.ForeignKey(Order, on_delete=models.PROTECT, related_name="refunds")
    idempotency_key = models.CharField(max_length=64, unique=True)
    provider_refund_id = models.CharField(max_length=64, null=True, blank=True, unique=True)
    amount_paise = models.PositiveIntegerField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.REQUESTED)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        help_text="empty when the refund was started at the provider (e.g. its dashboard)",
    )
    by_operator = models.BooleanField(default=False)
    error = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    processed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ("-created_at",)
        constraints: ClassVar = [
            # One refund in flight (requested) per order at a time.
            models.UniqueConstraint(
                fields=("order",), condition=Q(status="requested"), name="refund_one_in_flight"
            ),
            models.UniqueConstraint(
                fields=("order",), condition=Q(status="processed"), name="refund_one_processed"
            ),
        ]

    def __str__(self) -> str:
        return f"Refund of {self.order.receipt} · {self.get_status_display()}"


class Entitlement(models.Model):
    """Access bought by a paid order: a unit, or every paid unit for the bundle."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="billing_entitlements"
    )
    product = models.ForeignKey(Product, on_delete=models.PROTECT, related_name="entitlements")
    # One entitlement per order, ever: the database makes "grant exactly once" a constraint.
    order = models.OneToOneField(Order, on_delete=models.PROTECT, related_name="entitlement")
    granted_at = models.DateTimeField(default=timezone.now)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ("-granted_at",)
        indexes: ClassVar = [models.Index(fields=("user", "revoked_at"))]

    def __str__(self) -> str:
        state = "revoked" if self.revoked_at else "active"
        return f"{self.user} · {self.product.name} · {state}"

    @property
    def active(self) -> bool:
        return self.revoked_at is None


class ProviderEvent(models.Model):
    """A verified webhook delivery, kept with its raw body; the event id de-duplicates."""

    provider = models.CharField(max_length=20)
    event_id = models.CharField(max_length=100)
    event_type = models.CharField(max_length=60)
    raw_body = models.TextField(help_text="the exact body whose signature was verified")
    received_at = models.DateTimeField(auto_now_add=True)
    processed_at = models.DateTimeField(null=True, blank=True)
    outcome = models.CharField(max_length=300, blank=True)
    order = models.ForeignKey(
        Order, null=True, blank=True, on_delete=models.SET_NULL, related_name="events"
    )

    class Meta:
        ordering = ("-received_at",)
        constraints: ClassVar = [
            models.UniqueConstraint(fields=("provider", "event_id"), name="event_once")
        ]

    def __str__(self) -> str:
        return f"{self.provider} {self.event_type} {self.event_id}"


class DailySales(Order):
    """The admin's daily sales page, listed on the admin index (a proxy: no table of its own)."""

    class Meta:
        proxy = True
        verbose_name = verbose_name_plural = "Daily sales"
