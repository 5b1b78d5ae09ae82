"""Reads: what is for sale, who may read which unit, a learner's orders, the operator's sales.

The gate (``learning.selectors.section_access``) asks :func:`has_unit_access`; nothing else in
the site decides access to paid content.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from typing import Any, TypeAlias

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.core.exceptions import ValidationError
from django.db.models import Count, Exists, Q, QuerySet, Sum
from django.db.models.functions import TruncDate
from django.http import Http404
from django.utils import timezone

from mathmachine import printing
from mathmachine.coursebook.model import CompiledUnit

from .models import PAID_UNITS_PROMISED, Entitlement, Order, Product, Refund

User: TypeAlias = AbstractBaseUser | AnonymousUser


def paid_unit_numbers() -> frozenset[int]:
    """Every paid unit: the unit numbers of the unit products (for sale or withdrawn)."""
    numbers = Product.objects.filter(kind=Product.Kind.UNIT).values_list("unit_number", flat=True)
    return frozenset(n for n in numbers if n is not None)


def _active_entitlements(user: User) -> QuerySet[Entitlement]:
    return Entitlement.objects.filter(user_id=user.pk, revoked_at__isnull=True)


def entitled_unit_numbers(*, user: User) -> frozenset[int]:
    """The paid units this user may read: their unit products, or every paid unit via the bundle.

    Anonymous users are entitled to nothing. Units that are not paid units never appear here.
    """
    if not getattr(user, "is_authenticated", False) or user.pk is None:
        return frozenset()
    kinds_and_units = set(
        _active_entitlements(user).values_list("product__kind", "product__unit_number")
    )
    if any(kind == Product.Kind.BUNDLE for kind, _ in kinds_and_units):
        return paid_unit_numbers()
    return frozenset(unit for kind, unit in kinds_and_units if unit is not None)


def has_unit_access(*, user: User, unit_number: int) -> bool:
    """May ``user`` read the paid sections of unit ``unit_number``? (One query, fails closed.)

    True iff the user has an active entitlement to that unit's product, or an active bundle
    entitlement and ``unit_number`` is a paid unit. A unit with no unit product is not for sale
    and not covered: its paid sections stay locked for everyone.
    """
    if not getattr(user, "is_authenticated", False) or user.pk is None:
        return False
    is_paid_unit = Exists(Product.objects.filter(kind=Product.Kind.UNIT, unit_number=unit_number))
    return (
        _active_entitlements(user)
        .filter(
            Q(product__kind=Product.Kind.UNIT, product__unit_number=unit_number)
            | (Q(product__kind=Product.Kind.BUNDLE) & is_paid_unit)
        )
        .exists()
    )


# Buying ------------------------------------------------------------------------------------


def _owns_bundle(user: User) -> bool:
    return _active_entitlements(user).filter(product__kind=Product.Kind.BUNDLE).exists()


def purchase_blocker(*, user: User, product: Product) -> str | None:
    """Why ``user`` may not buy ``product`` (they already have it), or None if they may.

    Bundle owned: nothing more to buy. Unit owned (itself or through the bundle): not that unit
    again. A unit owner may buy the bundle, at its full price (said on the pricing page).
    """
    if not getattr(user, "is_authenticated", False):
        return None
    if _owns_bundle(user):
        return "You already own every paid unit (the bundle), present and future."
    if (
        product.kind == Product.Kind.UNIT
        and product.unit_number is not None
        and has_unit_access(user=user, unit_number=product.unit_number)
    ):
        return f"You already own Unit {product.unit_number}."
    return None


def paid_units_published(*, unit_titles: dict[int, str]) -> list[int]:
    """The paid units that exist today: those with a unit product among ``unit_titles`` (the
    published units, number → title, from the coursebook), in order."""
    return sorted(n for n in paid_unit_numbers() if n in unit_titles)


@dataclass(frozen=True)
class BundleUnits:
    """What the bundle covers today: the paid units published (number, title), and how many of
    the promised ones are still to come."""

    published: tuple[tuple[int, str], ...]
    to_come: int


def bundle_units(*, unit_titles: dict[int, str]) -> BundleUnits:
    published = paid_units_published(unit_titles=unit_titles)
    return BundleUnits(
        tuple((n, unit_titles[n]) for n in published),
        max(PAID_UNITS_PROMISED - len(published), 0),
    )


@dataclass(frozen=True)
class Offer:
    product: Product
    blocker: str | None  # why the learner can't buy it (already owned), else None
    title: str  # the unit's published title for a unit product, else ""


def pricing_offers(*, user: User, unit_titles: dict[int, str]) -> dict[str, object]:
    """What the pricing page shows: each product for sale, and what this learner owns.

    ``unit_titles``: published units (number → title) from the coursebook, so the page can say
    honestly which paid units exist today.
    """
    products = list(Product.objects.filter(for_sale=True))
    units = [p for p in products if p.kind == Product.Kind.UNIT]
    bundle = next((p for p in products if p.kind == Product.Kind.BUNDLE), None)
    owned_units = entitled_unit_numbers(user=user)
    covered = bundle_units(unit_titles=unit_titles)
    return {
        "unit_offers": [
            Offer(
                p, purchase_blocker(user=user, product=p), unit_titles.get(p.unit_number or 0, "")
            )
            for p in units
        ],
        "bundle_offer": Offer(bundle, purchase_blocker(user=user, product=bundle), "")
        if bundle
        else None,
        "bundle": covered,
        "paid_units_published": [n for n, _ in covered.published],
        "paid_units_to_come": covered.to_come,
        "owned_units": sorted(owned_units),
        "owns_a_unit_not_bundle": bool(owned_units) and not _owns_bundle(user)
        if getattr(user, "is_authenticated", False)
        else False,
        "paid_units_promised": PAID_UNITS_PROMISED,
    }


@dataclass(frozen=True)
class OrderOpens:
    """What an order opens, as the unit is compiled today (the receipt page and email say it):
    each published unit it covers (its ``contents`` say what is written), and for the
    bundle which paid units exist and how many are still to come."""

    units: tuple[CompiledUnit, ...]
    bundle: BundleUnits | None


def order_opens(*, order: Order) -> OrderOpens:
    from mathmachine.learning.selectors import units_list  # the published units, compiled

    published = {u.number: u for u in units_list()}
    if order.product.kind == Product.Kind.BUNDLE:
        covered = bundle_units(unit_titles={n: u.title for n, u in published.items()})
        numbers = [n for n, _ in covered.published]
    else:
        covered = None
        numbers = [n for n in [order.product.unit_number] if n in published]
    return OrderOpens(tuple(published[n] for n in numbers if n), covered)


# A learner's orders --------------------------------------------------------------------------


def orders_for(*, user: User) -> QuerySet[Order]:
    """The learner's orders, newest first (those never paid or failed included)."""
    if not getattr(user, "is_authenticated", False):
        return Order.objects.none()
    return (
        Order.objects.filter(user_id=user.pk)
        .select_related("product")
        .prefetch_related("refunds", "payments")
        .order_by("-created_at")
    )


def order_for_owner(*, user: User, public_id: object) -> Order:
    """The learner's own order; anyone else's (or none) is a 404, never a 403."""
    try:
        return orders_for(user=user).get(public_id=public_id)
    except (Order.DoesNotExist, ValueError, ValidationError) as exc:
        raise Http404("No such order") from exc


# Refunds: what one would lock ----------------------------------------------------------------


@dataclass(frozen=True)
class LockedUnit:
    """A paid unit a refund takes away: its paid sections lock again, its free ones stay open."""

    number: int
    title: str  # "" for a paid unit not published yet
    paid_sections: tuple[tuple[int, str, bool], ...]  # (number, title, written), in order
    free_sections: tuple[int, ...]

    @property
    def sections_span(self) -> str:
        """``"sections 2 to 16"`` (or ``"section 2"``, or ``"sections 2, 5 and 7"``)."""
        numbers = [n for n, _, _ in self.paid_sections]
        if not numbers:
            return ""
        if len(numbers) == 1:
            return f"section {numbers[0]}"
        if numbers == list(range(numbers[0], numbers[-1] + 1)):
            return f"sections {numbers[0]} to {numbers[-1]}"
        return "sections " + ", ".join(map(str, numbers[:-1])) + f" and {numbers[-1]}"


@dataclass(frozen=True)
class RefundPreview:
    """What refunding ``order`` would do, shown before the learner or the operator confirms."""

    order: Order
    refusal: str | None  # why it cannot be refunded by this requester now, else None
    deadline: datetime | None  # the end of the 7-day window (None: never paid)
    window_open: bool
    locks: tuple[LockedUnit, ...]  # units whose paid sections lock again
    kept: tuple[int, ...]  # units this order covers that stay open through another purchase
    later_units: bool  # the bundle: paid units published later are given up too

    @property
    def amount(self) -> str:
        return self.order.amount_display

    @property
    def amount_exact(self) -> str:
        return printing.paise(self.order.amount_paise, exact=True)


def refund_preview(
    *, order: Order, requested_by: AbstractBaseUser, by_operator: bool = False, units: Any = None
) -> RefundPreview:
    """What a full refund of ``order`` would lock (per unit, which sections), what stays open
    through the learner's other purchases, and whether the 7-day window applies.

    ``units``: the compiled units (``learning.selectors.units_list()`` when None) for titles and
    sections. Nothing is written.
    """
    from mathmachine.learning.selectors import units_list  # learning imports us lazily too

    from .services import refund_deadline, refund_refusal, refund_window_open

    compiled = {u.number: u for u in (units_list() if units is None else units)}
    paid_units = paid_unit_numbers()
    product = order.product
    if product.kind == Product.Kind.BUNDLE:
        covered = set(paid_units)
    else:
        covered = {product.unit_number} if product.unit_number is not None else set()
    still_open: set[int] = set()
    holding = order.state in Order.HOLDING
    others = Entitlement.objects.filter(user_id=order.user_id, revoked_at__isnull=True).exclude(
        order_id=order.pk
    )
    for kind, unit_number in others.values_list("product__kind", "product__unit_number"):
        if kind == Product.Kind.BUNDLE:
            still_open |= paid_units
        elif unit_number is not None:
            still_open.add(unit_number)
    locks = []
    for number in sorted(covered - still_open) if holding else ():
        unit = compiled.get(number)
        sections = unit.sections if unit is not None else ()
        locks.append(
            LockedUnit(
                number=number,
                title=unit.title if unit is not None else "",
                paid_sections=tuple((s.number, s.title, s.written) for s in sections if not s.free),
                free_sections=tuple(s.number for s in sections if s.free),
            )
        )
    return RefundPreview(
        order=order,
        refusal=refund_refusal(order=order, requested_by=requested_by, by_operator=by_operator),
        deadline=refund_deadline(order),
        window_open=refund_window_open(order),
        locks=tuple(locks),
        kept=tuple(sorted(covered & still_open)) if holding else (),
        later_units=holding and product.kind == Product.Kind.BUNDLE,
    )


# The operator's sales -------------------------------------------------------------------------


@dataclass(frozen=True)
class SalesDay:
    """One day's sales (``day`` is None for the total of a period). Net = revenue − refunded."""

    day: date | None
    orders_paid: int
    revenue_paise: int
    refunds: int
    refunded_paise: int

    @property
    def net_paise(self) -> int:
        return self.revenue_paise - self.refunded_paise

    @property
    def revenue(self) -> str:
        return printing.paise(self.revenue_paise, exact=True)

    @property
    def refunded(self) -> str:
        return printing.paise(self.refunded_paise, exact=True)

    @property
    def net(self) -> str:
        return printing.paise(self.net_paise, exact=True)


def sales_by_day(*, test_mode: bool, days: int = 30, today: date | None = None) -> list[SalesDay]:
    """Per day (India time), newest first: orders paid and revenue, refunds processed; of the
    live orders (real money, Razorpay) or, with ``test_mode``, of the test-mode ones only.

    Revenue counts every order paid that day (refunded later or not); refunds count on the day
    they were processed, so net = revenue − refunded.
    """
    tz = timezone.get_current_timezone()
    today = today or timezone.localdate()
    start = today - timedelta(days=days - 1)
    start_at = timezone.make_aware(datetime.combine(start, time.min), tz)
    mode = Q(provider=Order.TEST_MODE) if test_mode else ~Q(provider=Order.TEST_MODE)
    paid = (
        Order.objects.filter(mode, paid_at__gte=start_at)
        .annotate(day=TruncDate("paid_at", tzinfo=tz))
        .values("day")
        .annotate(n=Count("id"), total=Sum("amount_paise"))
    )
    refund_mode = (
        Q(order__provider=Order.TEST_MODE) if test_mode else ~Q(order__provider=Order.TEST_MODE)
    )
    refunded = (
        Refund.objects.filter(
            refund_mode, status=Refund.Status.PROCESSED, processed_at__gte=start_at
        )
        .annotate(day=TruncDate("processed_at", tzinfo=tz))
        .values("day")
        .annotate(n=Count("id"), total=Sum("amount_paise"))
    )
    paid_by_day = {row["day"]: row for row in paid}
    refunded_by_day = {row["day"]: row for row in refunded}
    result = []
    for offset in range(days):
        day = today - timedelta(days=offset)
        p = paid_by_day.get(day, {})
        r = refunded_by_day.get(day, {})
        result.append(
            SalesDay(
                day=day,
                orders_paid=p.get("n", 0),
                revenue_paise=p.get("total") or 0,
                refunds=r.get("n", 0),
                refunded_paise=r.get("total") or 0,
            )
        )
    return result


def sales_total(rows: list[SalesDay]) -> SalesDay:
    """The period's total of ``rows``: its net is the gross revenue minus the refunds."""
    return SalesDay(
        day=None,
        orders_paid=sum(r.orders_paid for r in rows),
        revenue_paise=sum(r.revenue_paise for r in rows),
        refunds=sum(r.refunds for r in rows),
        refunded_paise=sum(r.refunded_paise for r in rows),
    )


def unit_offer_prices(*, unit_number: int) -> dict[str, str]:
    """The prices the unlock offer quotes, as shown (e.g. {"unit": "₹299", "bundle": "₹999"}).

    Read from the products on sale, so the offer on every page follows the admin's prices.
    A missing product is simply absent from the result.
    """
    prices: dict[str, str] = {}
    for p in Product.objects.filter(for_sale=True):
        if p.kind == Product.Kind.UNIT and p.unit_number == unit_number:
            prices["unit"] = p.price_display
        elif p.kind == Product.Kind.BUNDLE:
            prices["bundle"] = p.price_display
    return prices
