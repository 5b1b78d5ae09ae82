"""The checkout callback: verified against the stored order id, owner only, CSRF enforced."""

from __future__ import annotations

import pytest
from billing_support import FakeRazorpay, rzp_id
from django.test import Client

from mathmachine.billing import services
from mathmachine.billing.models import Entitlement, Order
from mathmachine.billing.selectors import has_unit_access

pytestmark = pytest.mark.django_db


def _callback(client, order, *, order_id=None, payment_id=None, signature=None):
    payment_id = payment_id or rzp_id("pay")
    signed_order = order_id or order.provider_order_id
    return client.post(
        f"/billing/orders/{order.public_id}/callback/",
        {
            "razorpay_order_id": signed_order,
            "razorpay_payment_id": payment_id,
            "razorpay_signature": signature
            or FakeRazorpay.callback_signature(signed_order, payment_id),
        },
    )


def test_verified_callback_grants(client, rzp_order, user):
    client.force_login(user)
    response = _callback(client, rzp_order)
    assert response.status_code == 302
    assert response["Location"] == f"/billing/orders/{rzp_order.public_id}/"
    rzp_order.refresh_from_db()
    assert rzp_order.state == "paid" and has_unit_access(user=user, unit_number=18)


def test_signature_over_another_order_is_refused(client, razorpay, rzp_order, user, bundle):
    """A real signature for the learner's other (cheap) order cannot pay for this one."""
    client.force_login(user)
    other = services.order_create(user=user, product=bundle)
    payment_id = rzp_id("pay")
    signature = FakeRazorpay.callback_signature(rzp_order.provider_order_id, payment_id)
    # Claiming the other order's id in the form changes nothing: we check the stored id.
    for claimed in (rzp_order.provider_order_id, other.provider_order_id, ""):
        response = client.post(
            f"/billing/orders/{other.public_id}/callback/",
            {
                "razorpay_order_id": claimed,
                "razorpay_payment_id": payment_id,
                "razorpay_signature": signature,
            },
        )
        assert response.status_code == 400
    other.refresh_from_db()
    assert other.state == "created"
    assert not Entitlement.objects.exists()


def test_garbage_callback_signature_is_refused_not_500(client, rzp_order, user):
    client.force_login(user)
    for signature in ("nonsense", "é" * 64, "0" * 64):
        assert _callback(client, rzp_order, signature=signature).status_code == 400
    response = client.post(f"/billing/orders/{rzp_order.public_id}/callback/", {})
    assert response.status_code == 302  # nothing posted: back to checkout, nothing granted
    rzp_order.refresh_from_db()
    assert rzp_order.state == "created"


def test_order_of_another_user_is_404(client, rzp_order, other_user):
    client.force_login(other_user)
    assert _callback(client, rzp_order).status_code == 404
    rzp_order.refresh_from_db()
    assert rzp_order.state == "created"
    assert not has_unit_access(user=other_user, unit_number=18)


def test_anonymous_callback_goes_to_sign_in(client, rzp_order):
    response = _callback(client, rzp_order)
    assert response.status_code == 302 and "next=" in response["Location"]
    rzp_order.refresh_from_db()
    assert rzp_order.state == "created"


def test_csrf_is_enforced_on_every_learner_post(razorpay, rzp_order, user, unit18):
    """buy, test-mode pay, callback, refund: all refused (403) without the CSRF token."""
    csrf_client = Client(enforce_csrf_checks=True)
    csrf_client.force_login(user)
    base = f"/billing/orders/{rzp_order.public_id}"
    for url in (
        f"/billing/buy/{unit18.code}/",
        f"{base}/test-pay/",
        f"{base}/callback/",
        f"{base}/refund/",
    ):
        assert csrf_client.post(url, {"outcome": "succeed"}).status_code == 403, url
    assert Order.objects.count() == 1
    rzp_order.refresh_from_db()
    assert rzp_order.state == "created"


def test_csrf_token_from_the_page_is_accepted(user, unit18):
    """The same client succeeds with the token the pricing page gives it (so 403 meant CSRF)."""
    csrf_client = Client(enforce_csrf_checks=True)
    csrf_client.force_login(user)
    page = csrf_client.get("/pricing/")
    token = page.context["csrf_token"]
    response = csrf_client.post(f"/billing/buy/{unit18.code}/", {"csrfmiddlewaretoken": token})
    assert response.status_code == 302 and "/pay/" in response["Location"]


def test_webhook_needs_no_csrf_token(razorpay, rzp_order):
    from billing_support import post_webhook

    csrf_client = Client(enforce_csrf_checks=True)
    body = FakeRazorpay.event("payment_captured", rzp_order)
    assert post_webhook(csrf_client, body).status_code == 200
