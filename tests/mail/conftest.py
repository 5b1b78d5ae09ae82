"""A learner with a confirmed address and the offer's products, for the outbox's tests."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache


@pytest.fixture(autouse=True)
def _clean_cache():
    cache.clear()  # allauth's limits (one confirmation per address every 3 minutes)
    yield
    cache.clear()


@pytest.fixture
def user(db):
    from allauth.account.models import EmailAddress

    user = get_user_model().objects.create_user("asha", "asha@example.com", "a long pw 42 x")
    EmailAddress.objects.create(user=user, email=user.email, primary=True, verified=True)
    return user


@pytest.fixture
def product(db):
    from mathmachine.billing.models import Product

    return Product.objects.get(code="unit-18")
