"""Gate fixtures: the site served from the sentinel copy of Unit 18 (sentinel.py), learners,
and entitlements granted and revoked."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from sentinel import build_sentinel_content
from support import bought_order_create

from mathmachine import coursebook
from mathmachine.billing import services as billing
from mathmachine.billing.models import Order


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


@pytest.fixture
def make_user(db) -> Callable[..., object]:
    def make(email: str) -> object:
        return get_user_model().objects.create_user(
            username=email, email=email, password="a long test password 42"
        )

    return make


@pytest.fixture
def grant(db) -> Callable[..., Order]:
    """Buy a product ("unit-18" or "all-paid-units") through billing's own services: an order
    with the (offline test-mode) provider, then a captured payment, which grants access."""

    def do(user: object, code: str = "unit-18") -> Order:
        return bought_order_create(user, code)

    return do


@pytest.fixture
def revoke(db) -> Callable[[Order], None]:
    """Refund a paid order through billing's services (the test-mode provider processes it),
    which revokes its access."""

    def do(order: Order) -> None:
        billing.refund_request(order=order, requested_by=order.user)
        order.refresh_from_db()
        assert order.state == Order.State.REFUNDED

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
