"""The operator's orders list fits a 1280 px screen: every column and the filters are in view,
nothing scrolls sideways (issue 7), with a long learner address and every kind of order."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.test import Client
from support import paid_order_create

from mathmachine.billing.models import Order, Product

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

OpenPage = Callable[..., Any]


def _operator_cookie() -> str:
    operator = get_user_model().objects.create_superuser(
        "operator", "operator@example.com", "a long test password 42"
    )
    client = Client()
    client.force_login(operator)
    return client.cookies[settings.SESSION_COOKIE_NAME].value


def test_the_orders_list_fits_1280px(open_page: OpenPage) -> None:
    site = open_page(None, width=1280, height=800)
    users = get_user_model().objects
    long = users.create_user("a", "asha.learner.with.a.rather.long.address@example.co.in", None)
    short = users.create_user("b", "ravi@example.com", None)
    unit, bundle = Product.objects.get(code="unit-18"), Product.objects.get(code="all-paid-units")
    refunded = paid_order_create(short, unit)
    Order.objects.filter(pk=refunded.pk).update(state="refund_requested", provider="razorpay")
    paid_order_create(long, bundle)
    paid_order_create(long, unit)
    site.context.add_cookies(
        [{"name": settings.SESSION_COOKIE_NAME, "value": _operator_cookie(), "url": site.url("/")}]
    )
    site.goto("/admin/billing/order/")
    page = site.page
    assert site.scroll_width() <= 1280
    layout = page.evaluate(
        """() => {
          const list = document.querySelector('#result_list');
          const box = list.parentElement;  // Django's .results, which scrolls when too narrow
          const heads = [...list.querySelectorAll('thead th')]
            .map(th => th.getBoundingClientRect());
          const filter = document.querySelector('#changelist-filter').getBoundingClientRect();
          return {listWidth: list.scrollWidth, boxWidth: box.clientWidth,
                  rightmost: Math.max(...heads.map(r => r.right)), filterLeft: filter.left,
                  filterRight: filter.right, columns: heads.length};
        }"""
    )
    assert layout["columns"] == 8  # the checkbox and seven columns
    assert layout["listWidth"] <= layout["boxWidth"], layout  # no sideways scrolling
    assert layout["rightmost"] <= layout["filterLeft"], layout  # the filters beside, not over
    assert layout["filterRight"] <= 1280, layout
    for header in ("Receipt", "Learner", "Item", "Amount", "State", "Mode", "Paid"):
        assert page.get_by_role("columnheader", name=header).is_visible(), header
    assert page.get_by_text("₹999.00").first.is_visible()
