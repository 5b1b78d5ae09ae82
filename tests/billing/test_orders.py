"""Creating orders: amounts from the database, unique receipts, no buying what you own."""

from __future__ import annotations

import base64
import json

import pytest
from django.db import IntegrityError, transaction

from mathmachine.billing import services
from mathmachine.billing.errors import AlreadyOwned, NotForSale, ProviderError
from mathmachine.billing.models import Order, Product

pytestmark = pytest.mark.django_db


def test_razorpay_order_uses_the_database_price_in_paise(razorpay, user, unit18):
    Product.objects.filter(pk=unit18.pk).update(price_paise=24900)  # the operator's new price
    order = services.order_create(user=user, product=unit18)
    assert (order.amount_paise, order.currency, order.state) == (24900, "INR", "created")
    assert order.provider == "razorpay" and order.provider_order_id.startswith("order_")
    (call,) = razorpay.mock.calls
    sent = json.loads(call.request.body)
    assert (sent["amount"], sent["currency"], sent["receipt"]) == (24900, "INR", order.receipt)
    auth = base64.b64decode(call.request.headers["Authorization"].split()[1]).decode()
    assert auth == "rzp_test_1DP5mmOlF5G5ag:test-key-secret-not-real-0123456789"


def test_receipts_are_unique(razorpay, make_user, unit18):
    receipts = {
        services.order_create(user=make_user(f"l{i}@example.com"), product=unit18).receipt
        for i in range(20)
    }
    assert len(receipts) == 20
    order = Order.objects.first()
    with pytest.raises(IntegrityError), transaction.atomic():
        Order.objects.create(
            receipt=order.receipt,
            user=order.user,
            product=unit18,
            amount_paise=29900,
            provider="testmode",
        )


def test_an_unpaid_order_is_reused_not_duplicated(razorpay, user, unit18):
    first = services.order_create(user=user, product=unit18)
    again = services.order_create(user=user, product=unit18)
    assert first == again
    assert len(razorpay.mock.calls) == 1


def test_a_price_change_makes_a_new_order(razorpay, user, unit18):
    first = services.order_create(user=user, product=unit18)
    Product.objects.filter(pk=unit18.pk).update(price_paise=19900)
    second = services.order_create(user=user, product=unit18)
    assert first != second and second.amount_paise == 19900


def test_unit_owned_cannot_buy_the_unit(user, unit18, paid_order):
    paid_order(user, unit18)
    with pytest.raises(AlreadyOwned, match="already own Unit 18"):
        services.order_create(user=user, product=unit18)


def test_bundle_owned_cannot_buy_anything(user, unit18, bundle, paid_order):
    paid_order(user, bundle)
    for product in (unit18, bundle):
        with pytest.raises(AlreadyOwned, match="bundle"):
            services.order_create(user=user, product=product)


def test_unit_owned_can_buy_the_bundle_at_full_price(user, unit18, bundle, paid_order):
    paid_order(user, unit18)
    order = services.order_create(user=user, product=bundle)
    assert order.amount_paise == 99900


def test_not_for_sale(user, unit18):
    Product.objects.filter(pk=unit18.pk).update(for_sale=False)
    with pytest.raises(NotForSale):
        services.order_create(user=user, product=unit18)


def test_production_without_keys_sells_nothing(settings, user, unit18):
    settings.BILLING_TESTMODE_ALLOWED = False
    with pytest.raises(NotForSale, match="not switched on"):
        services.order_create(user=user, product=unit18)
    assert not Order.objects.exists()


def test_provider_failure_leaves_no_order(razorpay, user, unit18):
    razorpay.mock.replace(
        "POST",
        "https://api.razorpay.com/v1/orders",
        json={"error": {"code": "SERVER_ERROR", "description": "down"}},
        status=500,
    )
    with pytest.raises(ProviderError):
        services.order_create(user=user, product=unit18)
    assert not Order.objects.exists()


def test_testmode_orders_need_no_network(user, unit18):
    order = services.order_create(user=user, product=unit18)
    assert order.provider == "testmode" and order.provider_order_id.startswith("order_test")
