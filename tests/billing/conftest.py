"""Shared billing fixtures: learners, the two products of the offer, paid orders."""

from __future__ import annotations

import itertools
from collections.abc import Callable

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from mathmachine.billing.models import Entitlement, Order, Product

_receipts = itertools.count(1)


@pytest.fixture
def make_user(db) -> Callable[..., object]:
    def make(email: str = "learner@example.com", **extra: object) -> object:
        return get_user_model().objects.create_user(
            username=email, email=email, password="a long test password 42", **extra
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
