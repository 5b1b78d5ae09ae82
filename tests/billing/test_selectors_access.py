"""The entitlement interface the gate uses: has_unit_access and entitled_unit_numbers."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import AnonymousUser
from django.db import IntegrityError, transaction
from django.utils import timezone

from mathmachine.billing.models import Entitlement, Product
from mathmachine.billing.selectors import (
    entitled_unit_numbers,
    has_unit_access,
    paid_unit_numbers,
)

pytestmark = pytest.mark.django_db


def test_the_offer_is_in_the_database(unit18, bundle):
    assert (unit18.kind, unit18.unit_number, unit18.price_paise, unit18.currency) == (
        "unit",
        18,
        29900,
        "INR",
    )
    assert (bundle.kind, bundle.unit_number, bundle.price_paise, bundle.currency) == (
        "bundle",
        None,
        99900,
        "INR",
    )
    assert paid_unit_numbers() == frozenset({18})


def test_nobody_has_access_by_default(user):
    assert has_unit_access(user=user, unit_number=18) is False
    assert entitled_unit_numbers(user=user) == frozenset()
    assert has_unit_access(user=AnonymousUser(), unit_number=18) is False
    assert entitled_unit_numbers(user=AnonymousUser()) == frozenset()


def test_unit_purchase_opens_that_unit_only(user, other_user, unit18, paid_order):
    paid_order(user, unit18)
    assert has_unit_access(user=user, unit_number=18) is True
    assert has_unit_access(user=user, unit_number=19) is False
    assert entitled_unit_numbers(user=user) == frozenset({18})
    assert has_unit_access(user=other_user, unit_number=18) is False


def test_bundle_opens_every_paid_unit_present_and_future(user, bundle, paid_order):
    paid_order(user, bundle)
    assert has_unit_access(user=user, unit_number=18) is True
    # Unit 19 is not a paid unit yet: not covered (fails closed) ...
    assert has_unit_access(user=user, unit_number=19) is False
    Product.objects.create(
        code="unit-19", kind="unit", unit_number=19, name="Unit 19", price_paise=29900
    )
    # ... and covered as soon as it becomes one, with no change to the bundle entitlement.
    assert has_unit_access(user=user, unit_number=19) is True
    assert entitled_unit_numbers(user=user) == frozenset({18, 19})


def test_revoked_entitlement_gives_no_access(user, unit18, bundle, paid_order):
    paid_order(user, unit18)
    paid_order(user, bundle)
    Entitlement.objects.filter(product=bundle).update(revoked_at=timezone.now())
    assert entitled_unit_numbers(user=user) == frozenset({18})  # the unit is still theirs
    Entitlement.objects.filter(product=unit18).update(revoked_at=timezone.now())
    assert has_unit_access(user=user, unit_number=18) is False
    assert entitled_unit_numbers(user=user) == frozenset()


def test_withdrawn_product_keeps_buyers_access(user, unit18, paid_order):
    paid_order(user, unit18)
    Product.objects.filter(pk=unit18.pk).update(for_sale=False)
    assert has_unit_access(user=user, unit_number=18) is True


def test_one_entitlement_per_order(user, unit18, paid_order):
    order = paid_order(user, unit18)
    with pytest.raises(IntegrityError), transaction.atomic():
        Entitlement.objects.create(user=user, product=unit18, order=order)


def test_has_unit_access_is_one_query(user, bundle, paid_order, django_assert_num_queries):
    paid_order(user, bundle)
    with django_assert_num_queries(1):
        assert has_unit_access(user=user, unit_number=18)


@pytest.mark.parametrize(
    "fields",
    [
        {"code": "bad-unit", "kind": "unit", "unit_number": None},  # a unit product needs a unit
        {"code": "bad-bundle", "kind": "bundle", "unit_number": 3},  # a bundle names none
        {"code": "second-bundle", "kind": "bundle", "unit_number": None},  # one bundle only
        {"code": "unit-18-again", "kind": "unit", "unit_number": 18},  # one product per unit
    ],
)
def test_product_constraints(fields):
    with pytest.raises(IntegrityError), transaction.atomic():
        Product.objects.create(name="x", price_paise=29900, **fields)
