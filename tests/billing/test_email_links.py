"""Issue 7: receipt and refund emails link to the site the learner used: SITE_URL when set
(production), else the address of the request being answered (development), as the
confirm-email link already does."""

from __future__ import annotations

import re

import pytest

from mathmachine.billing import emails
from mathmachine.billing.models import Order

pytestmark = pytest.mark.django_db

LINK = re.compile(r"https?://\S+")


def _buy_and_pay(client, capture, *, host: str, code: str = "unit-18") -> Order:
    client.post(f"/billing/buy/{code}/", HTTP_HOST=host)
    order = Order.objects.latest("created_at")
    with capture(execute=True):
        page = client.post(
            f"/billing/orders/{order.public_id}/test-pay/", {"outcome": "succeed"}, HTTP_HOST=host
        )
    assert page.status_code == 200
    order.refresh_from_db()
    assert order.state == "paid"
    return order


def _refund(client, capture, order: Order, *, host: str) -> None:
    with capture(execute=True):
        client.post(
            f"/billing/orders/{order.public_id}/refund/", {"confirm": "yes"}, HTTP_HOST=host
        )
    order.refresh_from_db()
    assert order.state == "refunded"


def test_without_site_url_links_follow_the_request(
    client, user, settings, mailoutbox, django_capture_on_commit_callbacks
):
    settings.SITE_URL = ""
    settings.ALLOWED_HOSTS = ["learn.example.test"]
    client.force_login(user)
    host = "learn.example.test:8123"
    order = _buy_and_pay(client, django_capture_on_commit_callbacks, host=host)
    _refund(client, django_capture_on_commit_callbacks, order, host=host)
    receipt, refund = mailoutbox
    assert "Your receipt" in receipt.subject and "Refund processed" in refund.subject
    for email in (receipt, refund):
        links = LINK.findall(email.body)
        assert links, email.body
        assert all(link.startswith(f"http://{host}/billing/orders/") for link in links), links
        assert f"http://{host}/billing/orders/{order.public_id}/" in links
    assert f"http://{host}/billing/orders/" in LINK.findall(receipt.body)
    assert "127.0.0.1:8000" not in receipt.body + refund.body


def test_site_url_wins_over_the_request(
    client, user, settings, mailoutbox, django_capture_on_commit_callbacks
):
    settings.SITE_URL = "https://mathmachine.in/"  # a trailing slash is fine
    client.force_login(user)
    order = _buy_and_pay(client, django_capture_on_commit_callbacks, host="testserver")
    _refund(client, django_capture_on_commit_callbacks, order, host="testserver")
    for email in mailoutbox:
        links = LINK.findall(email.body)
        assert links and all(link.startswith("https://mathmachine.in/billing/") for link in links)
        assert "testserver" not in email.body and "//billing" not in email.body


def test_outside_a_request_without_site_url_the_development_address(
    user, unit18, settings, mailoutbox, caplog
):
    from support import paid_order_create

    settings.SITE_URL = ""
    order = paid_order_create(user=user, product=unit18)
    Order.objects.filter(pk=order.pk).update(receipt_emailed_at=None)
    assert emails.receipt_send(order_id=order.pk)
    links = LINK.findall(mailoutbox[-1].body)
    assert links and all(link.startswith("http://127.0.0.1:8000/billing/") for link in links)
    assert "No SITE_URL and no request" in caplog.text
