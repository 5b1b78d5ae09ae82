"""The unlock offer on the unit, locked and section pages quotes the prices in the database."""

import pytest

from mathmachine.billing.models import Product
from mathmachine.billing.selectors import unit_offer_prices

pytestmark = pytest.mark.django_db


def test_offer_quotes_the_seeded_prices():
    assert unit_offer_prices(unit_number=18) == {"unit": "₹299", "bundle": "₹999"}


def test_offer_follows_a_price_changed_in_the_admin(client):
    Product.objects.filter(kind=Product.Kind.UNIT, unit_number=18).update(price_paise=34900)
    for url in ("/units/attention-and-transformers/", "/units/attention-and-transformers/2/"):
        html = client.get(url).content.decode()
        assert "Unlock this unit for ₹349 — one-time payment" in html
        assert "Or all seven paid units for ₹999:" in html
        assert "₹299" not in html


def test_offer_without_a_bundle_on_sale_does_not_mention_it(client):
    Product.objects.filter(kind=Product.Kind.BUNDLE).update(for_sale=False)
    html = client.get("/units/attention-and-transformers/").content.decode()
    assert "Unlock this unit for ₹299 — one-time payment" in html
    assert "all seven paid units" not in html


def test_refund_promise_follows_the_enforced_window(client, monkeypatch):
    from datetime import timedelta

    from mathmachine.billing import selectors

    monkeypatch.setattr(selectors, "REFUND_WINDOW", timedelta(days=10))
    for url in ("/units/attention-and-transformers/", "/pricing/"):
        html = client.get(url).content.decode()
        assert "full refund within 10 days" in html
        assert "7 days" not in html
