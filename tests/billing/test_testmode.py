"""The offline test-mode purchase, through the pages, as `make run` shows it: buy, pay or fail,
refund; driven through the same signature checks, webhooks and grant code as Razorpay."""

from __future__ import annotations

import hashlib
import hmac
import json

import pytest

from mathmachine.billing.models import Order, ProviderEvent
from mathmachine.billing.providers import TestModeProvider, get_provider
from mathmachine.billing.selectors import has_unit_access

pytestmark = pytest.mark.django_db


@pytest.fixture
def signed_in(client, user):
    client.force_login(user)
    return client


def _buy(client, code="unit-18") -> Order:
    response = client.post(f"/billing/buy/{code}/")
    assert response.status_code == 302
    order = Order.objects.latest("created_at")
    assert response["Location"] == f"/billing/orders/{order.public_id}/pay/"
    return order


def test_checkout_page_is_clearly_labelled_test_mode(signed_in):
    order = _buy(signed_in)
    page = signed_in.get(f"/billing/orders/{order.public_id}/pay/")
    assert page.status_code == 200
    assert "Test mode — no real money" in page.text
    assert "Pay ₹299 (succeeds)" in page.text and "Fail payment" in page.text
    assert "checkout.razorpay.com" not in page.text
    assert "checkout.razorpay.com" not in page["Content-Security-Policy"]
    assert "no-store" in page["Cache-Control"]


def test_pay_succeeds_offline_end_to_end(
    signed_in, user, django_capture_on_commit_callbacks, mailoutbox
):
    order = _buy(signed_in)
    with django_capture_on_commit_callbacks(execute=True):
        page = signed_in.post(
            f"/billing/orders/{order.public_id}/test-pay/", {"outcome": "succeed"}
        )
    assert page.status_code == 200
    # The provider's webhooks came through the signed path, and granted access once.
    events = list(ProviderEvent.objects.order_by("id").values_list("event_type", "outcome"))
    assert events == [
        ("payment.captured", "paid: access granted"),
        ("order.paid", "already paid: nothing to do"),
    ]
    assert has_unit_access(user=user, unit_number=18)
    assert len(mailoutbox) == 1
    # The page posts the signed callback back, as checkout.js would; it verifies too.
    form = page.context["result"]
    response = signed_in.post(
        f"/billing/orders/{order.public_id}/callback/",
        {
            "razorpay_order_id": form.order_id,
            "razorpay_payment_id": form.payment_id,
            "razorpay_signature": form.signature,
        },
    )
    assert response.status_code == 302
    receipt = signed_in.get(response["Location"])
    assert "is yours" in receipt.text and order.receipt in receipt.text


def test_testmode_signatures_are_real_hmacs(user, unit18, settings):
    """Test mode signs exactly as Razorpay: HMAC-SHA256, hex, over the raw body / order|payment."""
    settings.BILLING_TESTMODE_KEY_SECRET = "k-secret"
    settings.BILLING_TESTMODE_WEBHOOK_SECRET = "w-secret"
    provider = get_provider()
    assert isinstance(provider, TestModeProvider)
    result = provider.pay(order_id="order_testX", amount_paise=29900, currency="INR")
    expected = hmac.new(b"k-secret", f"order_testX|{result.payment_id}".encode(), hashlib.sha256)
    assert result.signature == expected.hexdigest()
    event = provider.outbox[0]
    assert event.signature == hmac.new(b"w-secret", event.body, hashlib.sha256).hexdigest()
    assert json.loads(event.body)["payload"]["payment"]["entity"]["amount"] == 29900
    assert provider.verify_webhook_signature(body=event.body, signature=event.signature)
    assert not provider.verify_webhook_signature(body=event.body + b" ", signature=event.signature)


def test_fail_payment_then_pay(signed_in, user):
    order = _buy(signed_in)
    response = signed_in.post(f"/billing/orders/{order.public_id}/test-pay/", {"outcome": "fail"})
    assert response.status_code == 302
    order.refresh_from_db()
    assert order.state == "failed" and not has_unit_access(user=user, unit_number=18)
    page = signed_in.get(response["Location"])
    assert "failed, on purpose" in page.text
    # Buying again reuses the failed order, and paying it now succeeds.
    assert _buy(signed_in) == order
    signed_in.post(f"/billing/orders/{order.public_id}/test-pay/", {"outcome": "succeed"})
    order.refresh_from_db()
    assert order.state == "paid" and has_unit_access(user=user, unit_number=18)


def test_refund_in_test_mode_completes_through_the_refund_webhook(
    signed_in, user, django_capture_on_commit_callbacks, mailoutbox
):
    order = _buy(signed_in, "all-paid-units")
    signed_in.post(f"/billing/orders/{order.public_id}/test-pay/", {"outcome": "succeed"})
    assert has_unit_access(user=user, unit_number=18)
    with django_capture_on_commit_callbacks(execute=True):
        response = signed_in.post(f"/billing/orders/{order.public_id}/refund/", {"confirm": "yes"})
    order.refresh_from_db()
    assert order.state == "refunded"
    assert not has_unit_access(user=user, unit_number=18)
    assert ProviderEvent.objects.filter(event_type="refund.processed").count() == 1
    assert "Refund processed" in mailoutbox[-1].subject
    page = signed_in.get(response["Location"])
    assert "Refunded in full" in page.text


def test_testmode_is_off_in_production(signed_in, settings):
    order = _buy(signed_in)
    settings.BILLING_TESTMODE_ALLOWED = False
    assert signed_in.get(f"/billing/orders/{order.public_id}/pay/").status_code == 404
    response = signed_in.post(f"/billing/orders/{order.public_id}/test-pay/", {"outcome": "x"})
    assert response.status_code == 404
    order.refresh_from_db()
    assert order.state == "created"
    # ... and its webhooks endpoint accepts nothing.
    provider = TestModeProvider.from_settings()
    provider.pay(order_id=order.provider_order_id, amount_paise=29900, currency="INR")
    event = provider.outbox[0]
    response = signed_in.post(
        "/billing/webhooks/razorpay/",
        data=event.body,
        content_type="application/json",
        headers={"X-Razorpay-Signature": event.signature, "X-Razorpay-Event-Id": event.event_id},
    )
    assert response.status_code == 404
    order.refresh_from_db()
    assert order.state == "created"


def test_another_learner_cannot_pay_or_see_my_order(client, signed_in, other_user):
    order = _buy(signed_in)
    client.force_login(other_user)
    assert client.get(f"/billing/orders/{order.public_id}/pay/").status_code == 404
    assert client.post(f"/billing/orders/{order.public_id}/test-pay/").status_code == 404
    order.refresh_from_db()
    assert order.state == "created"


def test_anonymous_buy_goes_to_sign_in(client):
    response = client.post("/billing/buy/unit-18/")
    assert response.status_code == 302
    assert "next=/pricing/" in response["Location"]
    assert not Order.objects.exists()
