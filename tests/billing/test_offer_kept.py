"""What every page shows of the offer (prices, which paid units the bundle covers) is computed
once and kept until a product or a published unit changes; a change shows on the next page."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from django.db import connection
from django.test import Client

from mathmachine import units
from mathmachine.billing import selectors
from mathmachine.billing.models import Product

pytestmark = pytest.mark.django_db

UNIT_PAGE = "/units/attention-and-transformers/"
LOCKED = "/units/attention-and-transformers/2/"


def offer_lines(client: Client, path: str) -> str:
    html = client.get(path).content.decode()
    start = html.index('class="offer"')
    return html[start : html.index("</aside>", start)]


def test_nothing_is_recomputed_while_nothing_changes(client: Client) -> None:
    client.get(UNIT_PAGE)
    assert selectors.products() is selectors.products()
    assert selectors.bundle_units_published() is selectors.bundle_units_published()


def test_a_price_saved_in_the_admin_shows_on_the_next_page(client: Client) -> None:
    for path in (UNIT_PAGE, LOCKED):
        assert "Unlock this unit for ₹299" in offer_lines(client, path)  # now kept
    kept = selectors.products()
    unit18 = Product.objects.get(code="unit-18")
    unit18.price_paise = 34900
    unit18.save()  # what the admin's change form does
    for path in (UNIT_PAGE, LOCKED):
        offer = offer_lines(client, path)
        assert "Unlock this unit for ₹349" in offer and "₹299" not in offer
    assert selectors.products() is not kept


def test_a_change_made_elsewhere_shows_too(client: Client) -> None:
    """Another server process, or SQL typed by hand: no signal reaches this process."""
    assert "for ₹999" in offer_lines(client, UNIT_PAGE)
    with connection.cursor() as cursor:
        cursor.execute("UPDATE billing_product SET price_paise = 89900 WHERE kind = 'bundle'")
    assert "for ₹899" in offer_lines(client, UNIT_PAGE)
    with connection.cursor() as cursor:
        cursor.execute("UPDATE billing_product SET for_sale = false WHERE kind = 'bundle'")
    assert "all seven paid units" not in offer_lines(client, UNIT_PAGE)


def test_a_new_compiled_unit_changes_what_the_bundle_covers(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert "Unit 18, Attention and Transformers, is the only one" in offer_lines(client, LOCKED)
    published = units.published()
    rebuilt = [
        dataclasses.replace(u, title="Attention, Rewritten", source_hash="f" * 64)
        for u in published
    ]

    def new_units(*args: Any, **kwargs: Any) -> list[Any]:
        return rebuilt

    monkeypatch.setattr(units, "published", new_units)
    assert "Unit 18, Attention, Rewritten, is the only one" in offer_lines(client, LOCKED)
