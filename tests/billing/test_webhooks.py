"""Razorpay webhooks through the real endpoint: signatures, de-duplication, any order of arrival.

Bodies are the stored payloads in fixtures/webhooks/, signed here with the test webhook secret.
"""

from __future__ import annotations

import json

import pytest
from billing_support import FakeRazorpay, post_webhook, rzp_id, sign

from mathmachine.billing.models import Entitlement, Order, Payment, ProviderEvent
from mathmachine.billing.selectors import has_unit_access

pytestmark = pytest.mark.django_db


def _state(order: Order) -> tuple[str, int, int, int]:
    order.refresh_from_db()
    return (
        order.state,
        Entitlement.objects.filter(order=order).count(),
        Payment.objects.filter(order=order).count(),
        ProviderEvent.objects.count(),
    )


def test_valid_webhook_grants_once(
    client, rzp_order, user, mailoutbox, django_capture_on_commit_callbacks
):
    body = FakeRazorpay.event("payment_captured", rzp_order)
    with django_capture_on_commit_callbacks(execute=True):
        response = post_webhook(client, body)
    assert response.status_code == 200
    assert _state(rzp_order) == ("paid", 1, 1, 1)
    assert has_unit_access(user=user, unit_number=18)
    event = ProviderEvent.objects.get()
    assert event.raw_body.encode() == body  # the raw body is kept, byte for byte
    assert event.order == rzp_order
    assert len(mailoutbox) == 1 and rzp_order.receipt in mailoutbox[0].subject


@pytest.mark.parametrize("position", [0, 100, -3])
def test_one_changed_byte_is_400_and_changes_nothing(client, rzp_order, user, position):
    body = FakeRazorpay.event("payment_captured", rzp_order)
    signature = sign("test-webhook-secret-not-real-abcdef", body)
    tampered = bytearray(body)
    tampered[position] = ord("x") if tampered[position] != ord("x") else ord("y")
    response = post_webhook(client, bytes(tampered), signature=signature)
    assert response.status_code == 400
    assert _state(rzp_order) == ("created", 0, 0, 0)
    assert not has_unit_access(user=user, unit_number=18)


@pytest.mark.parametrize(
    "signature",
    [
        None,  # header missing
        "",
        "garbage",
        "0" * 64,
        "zz" * 32,  # right length, not hex
        "é" * 64,  # not ASCII: hmac.compare_digest would raise TypeError on str
        "\x00" * 64,
    ],
)
def test_missing_or_garbage_signature_is_400_not_500(client, rzp_order, signature):
    body = FakeRazorpay.event("payment_captured", rzp_order)
    response = post_webhook(client, body, signature=signature)
    assert response.status_code == 400
    assert _state(rzp_order) == ("created", 0, 0, 0)


def test_signature_with_the_api_key_secret_is_refused(client, rzp_order):
    """The webhook secret and the key secret are different secrets; only the first counts."""
    body = FakeRazorpay.event("payment_captured", rzp_order)
    response = post_webhook(
        client, body, signature=sign("test-key-secret-not-real-0123456789", body)
    )
    assert response.status_code == 400


def test_signed_non_json_body_is_400(client, rzp_order):
    for body in (b"not json", b"[1, 2]", b'{"no": "event"}', b"\xff\xfe"):
        assert post_webhook(client, body).status_code == 400
    assert ProviderEvent.objects.count() == 0


def test_a_signed_event_with_a_nul_character_is_400_and_stores_nothing(client, rzp_order):
    """PostgreSQL's text columns refuse NUL: found by the fuzz on PostgreSQL as a 500."""
    good = FakeRazorpay.event("payment_captured", rzp_order).decode()
    payment_id = json.loads(good)["payload"]["payment"]["entity"]["id"]
    for body in (
        b'{"event": "\\u0000"}',
        good.replace(payment_id, payment_id + "\\u0000").encode(),
        b'{"event": "order.paid", "payload": {"\\u0000": 1}}',
    ):
        response = post_webhook(client, body)
        assert response.status_code == 400, body
        assert "NUL" in response.json()["message"]
    assert ProviderEvent.objects.count() == 0
    assert _state(rzp_order)[0] != "paid"


def test_get_is_not_allowed(client, razorpay):
    assert client.get("/billing/webhooks/razorpay/").status_code == 405


def test_replayed_event_id_is_200_and_no_second_grant(client, rzp_order):
    body = FakeRazorpay.event("payment_captured", rzp_order)
    first = post_webhook(client, body, event_id="evt_replayed0001")
    again = post_webhook(client, body, event_id="evt_replayed0001")
    assert (first.status_code, again.status_code) == (200, 200)
    assert "duplicate" in again.json()["message"]
    assert _state(rzp_order) == ("paid", 1, 1, 1)


def test_order_paid_and_payment_captured_for_one_payment_grant_once(
    client, rzp_order, mailoutbox, django_capture_on_commit_callbacks
):
    payment_id = rzp_id("pay")
    for name in ("order_paid", "payment_captured"):
        body = FakeRazorpay.event(name, rzp_order, payment_id=payment_id)
        with django_capture_on_commit_callbacks(execute=True):
            assert post_webhook(client, body).status_code == 200
    assert _state(rzp_order) == ("paid", 1, 1, 2)
    assert len(mailoutbox) == 1  # one receipt


def test_callback_then_webhooks_grant_once(client, rzp_order, user):
    payment_id = rzp_id("pay")
    client.force_login(user)
    response = client.post(
        f"/billing/orders/{rzp_order.public_id}/callback/",
        {
            "razorpay_order_id": rzp_order.provider_order_id,
            "razorpay_payment_id": payment_id,
            "razorpay_signature": FakeRazorpay.callback_signature(
                rzp_order.provider_order_id, payment_id
            ),
        },
    )
    assert response.status_code == 302
    for name in ("payment_captured", "order_paid"):
        body = FakeRazorpay.event(name, rzp_order, payment_id=payment_id)
        assert post_webhook(client, body).status_code == 200
    assert _state(rzp_order) == ("paid", 1, 1, 2)


def test_unknown_events_are_200_and_ignored(client, rzp_order):
    body = FakeRazorpay.event("unknown_event", rzp_order)
    response = post_webhook(client, body)
    assert response.status_code == 200
    assert "ignored" in response.json()["message"]
    assert _state(rzp_order) == ("created", 0, 0, 1)  # kept, for the record


def test_event_for_an_order_that_is_not_ours_is_200_and_ignored(client, rzp_order):
    body = FakeRazorpay.event("payment_captured", rzp_order, order_id="order_SomeoneElses1")
    response = post_webhook(client, body)
    assert response.status_code == 200
    assert _state(rzp_order) == ("created", 0, 0, 1)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (b'"amount": 29900', b'"amount": 100'),  # paid ₹1 for a ₹299 order
        (b'"amount": 29900', b'"amount": 29899'),
        (b'"currency": "INR"', b'"currency": "USD"'),
        (b'"amount": 29900', b'"amount": "29900"'),  # not even a number
    ],
)
def test_wrong_amount_or_currency_grants_no_access(client, rzp_order, user, old, new):
    body = FakeRazorpay.event("payment_captured", rzp_order).replace(old, new)
    assert post_webhook(client, body).status_code == 200  # handled: no retry wanted
    rzp_order.refresh_from_db()
    assert rzp_order.state == "created"
    assert not Entitlement.objects.exists()
    assert not has_unit_access(user=user, unit_number=18)


def test_payment_failed_then_a_successful_retry(client, rzp_order):
    assert post_webhook(client, FakeRazorpay.event("payment_failed", rzp_order)).status_code == 200
    assert _state(rzp_order)[:2] == ("failed", 0)
    assert post_webhook(client, FakeRazorpay.event("order_paid", rzp_order)).status_code == 200
    assert _state(rzp_order)[:2] == ("paid", 1)


def test_payment_failed_after_paid_changes_nothing(client, rzp_order):
    post_webhook(client, FakeRazorpay.event("order_paid", rzp_order))
    post_webhook(client, FakeRazorpay.event("payment_failed", rzp_order))
    assert _state(rzp_order)[:2] == ("paid", 1)


def test_refund_processed_before_the_payment_events_ends_refunded(client, rzp_order, user):
    """Any order of arrival: the refund overtakes order.paid; the late order.paid grants nothing."""
    payment_id = rzp_id("pay")
    refund = FakeRazorpay.event("refund_processed", rzp_order, payment_id=payment_id)
    assert post_webhook(client, refund).status_code == 200
    for name in ("order_paid", "payment_captured"):
        body = FakeRazorpay.event(name, rzp_order, payment_id=payment_id)
        assert post_webhook(client, body).status_code == 200
    rzp_order.refresh_from_db()
    assert rzp_order.state == "refunded"
    assert Entitlement.objects.get(order=rzp_order).revoked_at is not None
    assert not has_unit_access(user=user, unit_number=18)


def test_refund_started_at_the_provider_dashboard_is_recorded(client, rzp_order, user, pay):
    order, payment_id = pay(rzp_order)
    body = FakeRazorpay.event("refund_processed", order, payment_id=payment_id)
    assert post_webhook(client, body).status_code == 200
    order.refresh_from_db()
    assert order.state == "refunded"
    refund = order.refunds.get()
    assert (refund.status, refund.by_operator, refund.requested_by) == ("processed", True, None)
    assert not has_unit_access(user=user, unit_number=18)


def test_partial_refund_at_the_provider_keeps_access(client, rzp_order, user, pay):
    order, payment_id = pay(rzp_order)
    body = FakeRazorpay.event("refund_processed", order, payment_id=payment_id).replace(
        b'"amount": 29900,\n        "currency": "INR",\n        "payment_id"',
        b'"amount": 10000,\n        "currency": "INR",\n        "payment_id"',
    )
    assert b'"amount": 10000' in body
    assert post_webhook(client, body).status_code == 200
    order.refresh_from_db()
    assert order.state == "paid"
    assert has_unit_access(user=user, unit_number=18)
    assert "partial" in order.refunds.get().error
