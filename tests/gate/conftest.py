"""Gate fixtures: the site served from the sentinel copy of Unit 18 (sentinel.py), learners,
and entitlements granted and revoked."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.utils import timezone
from sentinel import build_sentinel_content

from mathmachine import coursebook
from mathmachine.billing.models import Entitlement, Order, Product


@pytest.fixture(scope="session")
def sentinel_content(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """content/units with a copy of Unit 18 whose §2 is written and full of the sentinel."""
    return build_sentinel_content(tmp_path_factory.mktemp("content"))


@pytest.fixture
def gated_site(settings, sentinel_content: Path, tmp_path: Path, monkeypatch) -> Path:
    """Point the site at the sentinel content (and a throwaway compile cache)."""
    monkeypatch.setenv("MATHMACHINE_CACHE_DIR", str(tmp_path / "coursebook-cache"))
    settings.CONTENT_DIR = sentinel_content
    coursebook.cache.clear_memo()
    cache.clear()
    yield sentinel_content
    coursebook.cache.clear_memo()


_receipts = itertools.count(1)


@pytest.fixture
def make_user(db) -> Callable[..., object]:
    def make(email: str) -> object:
        return get_user_model().objects.create_user(
            username=email, email=email, password="a long test password 42"
        )

    return make


@pytest.fixture
def grant(db) -> Callable[..., Order]:
    """Entitle ``user`` to a product ("unit-18" or "all-paid-units") as a paid order does."""

    def do(user: object, code: str = "unit-18") -> Order:
        product = Product.objects.get(code=code)
        now = timezone.now()
        order = Order.objects.create(
            receipt=f"GATE-{next(_receipts):06d}",
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

    return do


@pytest.fixture
def revoke(db) -> Callable[[Order], None]:
    """Take the access of a paid order away, as a processed refund does."""

    def do(order: Order) -> None:
        Entitlement.objects.filter(order=order).update(revoked_at=timezone.now())

    return do


@pytest.fixture
def client_of() -> Iterator[Callable[[object], object]]:
    from django.test import Client

    def make(user: object | None) -> Client:
        client = Client()
        if user is not None:
            client.force_login(user)
        return client

    yield make
