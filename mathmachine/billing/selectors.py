"""Reads: what is for sale, who may read which unit, a learner's orders, refunds, the operator's
sales.

The gate (``learning.selectors.section_access``) asks :func:`has_unit_access`; nothing else in
the site decides access to paid content. Billing reads the published units from
``mathmachine.units`` and never imports the learning app (learning imports billing).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from functools import cached_property
from typing import Any, TypeAlias, cast

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.core.exceptions import ValidationError
from django.db.models import Count, Exists, Q, QuerySet, Sum
from django.db.models.functions import TruncDate
from django.http import Http404
from django.utils import timezone

from mathmachine import printing, units
from mathmachine.coursebook.model import CompiledUnit
from mathmachine.prepared import Prepared

from .models import PAID_UNITS_PROMISED, Entitlement, Order, Product, Refund

User: TypeAlias = AbstractBaseUser | AnonymousUser

#: "Full refund within 7 days": allowed iff now <= paid_at + REFUND_WINDOW (to the second).
REFUND_WINDOW = timedelta(days=7)


# The products, as every page quotes them ----------------------------------------------------
#
# The unlock offer (prices; which paid units the bundle covers today) is on the unit page, every
# locked page and the end of the free preview. It is computed from the products' rows and kept
# in the process until the rows change: a page pays one small query for the rows (its SQL
# compiled once per process: mathmachine/prepared.py) and compares them with the kept ones. So a
# price changed in the admin, by another process or by a plain UPDATE shows on the next page, and
# nothing is recomputed while nothing changed.


_ROW_FIELDS = ("id", "kind", "unit_number", "price_paise", "for_sale", "code")
ProductRow: TypeAlias = tuple[int, str, int | None, int, bool, str]
_PRODUCT_ROWS = Prepared(Product, lambda: Product.objects.order_by("id").values_list(*_ROW_FIELDS))


def _product_rows() -> tuple[ProductRow, ...]:
    """Every product's (id, kind, unit_number, price_paise, for_sale, code), by id."""
    return tuple((i, k, u, p, bool(f), c) for i, k, u, p, f, c in _PRODUCT_ROWS.rows())


@dataclass(frozen=True)
class Products:
    """What the products say to every page: the paid units, the prices on sale, and which
    products open a unit."""

    rows: tuple[ProductRow, ...]

    @cached_property
    def paid_units(self) -> frozenset[int]:
        """Every paid unit: the unit numbers of the unit products (for sale or withdrawn)."""
        return frozenset(u for _, k, u, _, _, _ in self.rows if k == Product.Kind.UNIT and u)

    def offer_prices(self, unit_number: int) -> dict[str, str]:
        prices: dict[str, str] = {}
        for _, kind, unit, paise, for_sale, _ in self.rows:
            if not for_sale:
                continue
            if kind == Product.Kind.UNIT and unit == unit_number:
                prices["unit"] = printing.paise(paise)
            elif kind == Product.Kind.BUNDLE:
                prices["bundle"] = printing.paise(paise)
        return prices

    def offer_codes(self, unit_number: int) -> dict[str, str]:
        """The codes of the products on sale that open ``unit_number``: {"unit": …, "bundle": …}
        (what the offer's buy buttons post to)."""
        codes: dict[str, str] = {}
        for _, kind, unit, _, for_sale, code in self.rows:
            if for_sale and kind == Product.Kind.UNIT and unit == unit_number:
                codes["unit"] = code
            elif for_sale and kind == Product.Kind.BUNDLE:
                codes["bundle"] = code
        return codes


class _Kept:
    """The last value made from a key, kept until the key changes (thread-safe: a value is
    made outside the lock; two threads may make it at once, either result is right)."""

    def __init__(self) -> None:
        self._item: tuple[Any, Any] | None = None
        self._lock = threading.Lock()

    def get(self, key: Any, make: Any) -> Any:
        item = self._item
        if item is not None and item[0] == key:
            return item[1]
        value = make()
        with self._lock:
            self._item = (key, value)
        return value

    def clear(self) -> None:
        with self._lock:
            self._item = None


_PRODUCTS = _Kept()
_BUNDLE = _Kept()


def products() -> Products:
    """The products as they are now (one query), with what is derived from them kept."""
    rows = _product_rows()
    return cast(Products, _PRODUCTS.get(rows, lambda: Products(rows)))


def forget_kept() -> None:
    """Forget what is kept (tests; it follows the rows and the units by itself)."""
    for kept in (_PRODUCTS, _BUNDLE):
        kept.clear()


def paid_unit_numbers() -> frozenset[int]:
    """Every paid unit: the unit numbers of the unit products (for sale or withdrawn)."""
    return products().paid_units


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


# The user's active entitlements: (product kind, product unit, is unit N a paid unit), one row
# each. The gate's one query, compiled once (user id and unit number are its parameters).
_USER_STAND_IN, _UNIT_STAND_IN = 2_147_480_009, 32_717  # in range of their fields
_ENTITLEMENTS = Prepared(
    Entitlement,
    lambda user_id, unit_number: (
        Entitlement.objects.filter(user_id=user_id, revoked_at__isnull=True)
        .annotate(
            unit_is_paid=Exists(
                Product.objects.filter(kind=Product.Kind.UNIT, unit_number=unit_number)
            )
        )
        .values_list("product__kind", "product__unit_number", "unit_is_paid")
        .order_by()
    ),
    _USER_STAND_IN,
    _UNIT_STAND_IN,
)


def has_unit_access(*, user: User, unit_number: int) -> bool:
    """May ``user`` read the paid sections of unit ``unit_number``? (One query, fails closed.)

    True iff the user has an active entitlement to that unit's product, or an active bundle
    entitlement and ``unit_number`` is a paid unit. A unit with no unit product is not for sale
    and not covered: its paid sections stay locked for everyone.
    """
    if not getattr(user, "is_authenticated", False) or user.pk is None:
        return False
    allowed = any(
        (kind == Product.Kind.UNIT and unit == unit_number)
        or (kind == Product.Kind.BUNDLE and bool(paid))
        for kind, unit, paid in _ENTITLEMENTS.rows(user.pk, unit_number)
    )
    answered = _ANSWERED.get()
    if answered is not None:
        answered[(user.pk, unit_number)] = allowed
    return allowed


# What has_unit_access answered during one request, for the offline standing every page sends
# after its view (learning/offline.py: the units this learner may keep), which would otherwise ask
# the database the gate's question a second time. Only access_answered reads it: the gate always
# asks the database. Granting or revoking (services) forgets it.
_ANSWERED: ContextVar[dict[tuple[Any, int], bool] | None] = ContextVar(
    "billing_access_answered", default=None
)


@contextmanager
def access_answers_kept() -> Iterator[None]:
    """Keep has_unit_access's answers while the block runs (one request)."""
    token = _ANSWERED.set({})
    try:
        yield
    finally:
        _ANSWERED.reset(token)


def access_answered(*, user: User, unit_number: int) -> bool | None:
    """What has_unit_access answered for ``user`` and ``unit_number`` in this block, or None."""
    answered = _ANSWERED.get()
    return None if answered is None else answered.get((user.pk, unit_number))


def access_answers_forget() -> None:
    """Access changed (an entitlement granted or revoked): nothing answered before holds."""
    answered = _ANSWERED.get()
    if answered is not None:
        answered.clear()


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


def bundle_units_published() -> BundleUnits:
    """What the bundle covers today, for the published units: kept until a product or a
    published unit changes (a new compiled unit has a new ``source_hash``)."""
    compiled = units.published()
    rows = products().rows
    key = (rows, tuple((u.number, u.title, u.source_hash) for u in compiled))
    return cast(
        BundleUnits,
        _BUNDLE.get(key, lambda: bundle_units(unit_titles={u.number: u.title for u in compiled})),
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
    published = {u.number: u for u in units.published()}
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


# Refunds: whether one may be asked, and what it would lock ----------------------------------


def refund_deadline(order: Order) -> datetime | None:
    """The end of the order's refund window (None: never paid)."""
    return order.paid_at + REFUND_WINDOW if order.paid_at else None


def refund_window_open(order: Order, *, now: datetime | None = None) -> bool:
    deadline = refund_deadline(order)
    return deadline is not None and (now or timezone.now()) <= deadline


def refund_refusal(
    *,
    order: Order,
    requested_by: AbstractBaseUser,
    by_operator: bool = False,
    now: datetime | None = None,
) -> str | None:
    """Why ``order`` may not be refunded now at this request (the learner's own paid order
    within 7 days of payment; an operator's any paid order), or None if it may.

    ``services.refund_request`` asks it under the order's lock; the confirmation pages ask it first.
    """
    if not by_operator and order.user_id != requested_by.pk:
        return "This is not your order."
    if order.state == Order.State.REFUND_REQUESTED:
        return "A refund for this order is already on its way."
    if order.state == Order.State.REFUNDED:
        return "This order has already been refunded."
    if order.state not in (Order.State.PAID, Order.State.REFUND_FAILED):
        return "Only a paid order can be refunded."
    if not by_operator and not refund_window_open(order, now=now):
        deadline = timezone.localtime(refund_deadline(order))
        return (
            "The 7-day refund window for this order closed on "
            f"{deadline:%d %B %Y at %H:%M} (IST), so it can no longer be refunded."
        )
    return None


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
    *, order: Order, requested_by: AbstractBaseUser, by_operator: bool = False
) -> RefundPreview:
    """What a full refund of ``order`` would lock (per unit, which sections), what stays open
    through the learner's other purchases, and whether the 7-day window applies.

    Titles and sections are the published units'. Nothing is written.
    """
    compiled = {u.number: u for u in units.published()}
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


def unit_offer_codes(*, unit_number: int) -> dict[str, str]:
    """The product codes the unlock offer's buttons buy (Products.offer_codes)."""
    return products().offer_codes(unit_number)


def unit_offer_prices(*, unit_number: int) -> dict[str, str]:
    """The prices the unlock offer quotes, as shown (e.g. {"unit": "₹299", "bundle": "₹999"}).

    Read from the products on sale, so the offer on every page follows the admin's prices.
    A missing product is simply absent from the result.
    """
    return products().offer_prices(unit_number)
