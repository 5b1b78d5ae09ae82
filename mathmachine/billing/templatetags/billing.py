"""``{% load billing %}``: ``{% billing_orders_summary %}`` (the learner's purchases, for a
dashboard), ``{% unit_offer_prices unit.number as prices %}`` (the unlock offer's prices) and
``{% bundle_units as bundle %}`` (the paid units the bundle covers today, and those to come)."""

from __future__ import annotations

from typing import Any

from django import template

from .. import selectors
from ..models import Order

register = template.Library()


@register.inclusion_tag("billing/_orders_summary.html", takes_context=True)
def billing_orders_summary(context: dict[str, Any], limit: int = 5) -> dict[str, Any]:
    request = context.get("request")
    user = getattr(request, "user", None)
    orders = (
        selectors.orders_for(user=user).exclude(state=Order.State.CREATED)[:limit] if user else []
    )
    return {"orders": list(orders), "request": request}


@register.simple_tag
def unit_offer_codes(unit_number: int) -> dict[str, str]:
    return selectors.unit_offer_codes(unit_number=unit_number)


@register.simple_tag
def unit_offer_prices(unit_number: int) -> dict[str, str]:
    return selectors.unit_offer_prices(unit_number=unit_number)


@register.simple_tag
def bundle_units() -> selectors.BundleUnits:
    return selectors.bundle_units_published()
