"""Reads: what is for sale, who may read which unit, a learner's orders, the operator's sales.

The gate (``learning.selectors.section_access``) asks :func:`has_unit_access`; nothing else in
the site decides access to paid content.
"""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import Exists, Q, QuerySet

from .models import Entitlement, Product

User = AbstractBaseUser | AnonymousUser


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
