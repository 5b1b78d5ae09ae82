"""Refunds: the 7-day boundary, one provider call per request, failures, and what a processed
refund does (revoke access, keep progress, email)."""

from __future__ import annotations

import datetime as dt
import html
import re

import pytest
import time_machine
from billing_support import FakeRazorpay, post_webhook
from django.conf import settings
from django.utils import timezone

from mathmachine.billing import services
from mathmachine.billing.errors import RefundRefused
from mathmachine.billing.models import Entitlement, Order, Refund
from mathmachine.billing.selectors import entitled_unit_numbers, has_unit_access
from mathmachine.coursebook import load_unit
from mathmachine.learning.models import CheckAnswer, SectionVisit

pytestmark = pytest.mark.django_db

PAID_AT = dt.datetime(2026, 3, 1, 10, 30, 0, tzinfo=dt.UTC)
SEVEN_DAYS = dt.timedelta(days=7)
SECOND = dt.timedelta(seconds=1)


@pytest.fixture
def paid(rzp_order, pay):
    with time_machine.travel(PAID_AT, tick=False):
        order, payment_id = pay(rzp_order)
    assert order.paid_at == PAID_AT
    return order, payment_id


def _refund_via(client, order):
    return client.post(f"/billing/orders/{order.public_id}/refund/", {"confirm": "yes"})


@pytest.mark.parametrize(
    ("delta", "allowed"),
    [
        (SEVEN_DAYS - SECOND, True),
        (SEVEN_DAYS, True),  # the boundary itself: now <= paid_at + 7 days
        (SEVEN_DAYS + SECOND, False),
    ],
)
def test_refund_window_boundary(client, paid, user, razorpay, delta, allowed):
    order, _ = paid
    client.force_login(user)
    with time_machine.travel(PAID_AT + delta, tick=False):
        response = _refund_via(client, order)
    assert response.status_code == 302
    order.refresh_from_db()
    if allowed:
        assert order.state == "refund_requested"
        assert len(razorpay.refund_calls) == 1
    else:
        assert order.state == "paid"
        assert razorpay.refund_calls == []
        page = client.get(response["Location"])
        assert "refund window for this order closed on 08 March 2026 at 16:00" in page.text


def test_refund_request_calls_razorpay_once_with_an_idempotency_key(paid, user, razorpay):
    order, payment_id = paid
    with time_machine.travel(PAID_AT + dt.timedelta(days=1), tick=False):
        refund = services.refund_request(order=order, requested_by=user)
    (call,) = razorpay.refund_calls
    assert call["payment_id"] == payment_id
    assert call["body"]["amount"] == 29900
    assert call["idempotency_key"] == refund.idempotency_key and len(refund.idempotency_key) >= 10
    assert refund.status == "requested" and refund.provider_refund_id.startswith("rfnd_")
    order.refresh_from_db()
    assert order.state == "refund_requested"
    assert has_unit_access(user=user, unit_number=18)  # until the refund is processed


def test_double_clicked_refund_makes_one_provider_call(client, paid, user, razorpay):
    order, _ = paid
    client.force_login(user)
    with time_machine.travel(PAID_AT + dt.timedelta(hours=1), tick=False):
        first = _refund_via(client, order)
        second = _refund_via(client, order)
    assert (first.status_code, second.status_code) == (302, 302)
    assert len(razorpay.refund_calls) == 1
    assert Refund.objects.count() == 1
    page = client.get(second["Location"])
    assert "already on its way" in page.text


def test_provider_error_means_refund_failed_access_intact_and_retry_works(paid, user, razorpay):
    order, _ = paid
    razorpay.refund_status = 400
    razorpay.refund_error = {"code": "BAD_REQUEST_ERROR", "description": "Gateway hiccup"}
    with time_machine.travel(PAID_AT + dt.timedelta(days=2), tick=False):
        failed = services.refund_request(order=order, requested_by=user)
    order.refresh_from_db()
    assert failed.status == "failed" and "Gateway hiccup" in failed.error
    assert order.state == "refund_failed"
    assert has_unit_access(user=user, unit_number=18)

    razorpay.refund_error = None
    with time_machine.travel(PAID_AT + dt.timedelta(days=2, hours=1), tick=False):
        retried = services.refund_request(order=order, requested_by=user)
    order.refresh_from_db()
    assert retried.status == "requested" and order.state == "refund_requested"
    assert len(razorpay.refund_calls) == 2
    keys = {c["idempotency_key"] for c in razorpay.refund_calls}
    assert len(keys) == 2  # a new attempt after a definite failure


def test_network_error_is_refund_failed_too(paid, user, razorpay):
    import requests

    order, _ = paid
    razorpay.mock.replace(
        "POST",
        razorpay.mock.registered()[1].url,
        body=requests.ConnectionError("connection reset"),
    )
    with time_machine.travel(PAID_AT + dt.timedelta(days=1), tick=False):
        refund = services.refund_request(order=order, requested_by=user)
    order.refresh_from_db()
    assert (refund.status, order.state) == ("failed", "refund_failed")
    assert has_unit_access(user=user, unit_number=18)


def test_refund_processed_revokes_access_keeps_progress_and_emails(
    client, paid, user, razorpay, mailoutbox, django_capture_on_commit_callbacks
):
    order, payment_id = paid
    CheckAnswer.objects.create(
        user=user, unit_slug="attention-and-transformers", check_id="c1", attempts=2, correct=True
    )
    SectionVisit.objects.create(user=user, unit_slug="attention-and-transformers", section_number=2)
    with time_machine.travel(PAID_AT + dt.timedelta(days=3), tick=False):
        refund = services.refund_request(order=order, requested_by=user)
    body = FakeRazorpay.event(
        "refund_processed", order, payment_id=payment_id, refund_id=refund.provider_refund_id
    )
    with django_capture_on_commit_callbacks(execute=True):
        assert post_webhook(client, body).status_code == 200
    order.refresh_from_db()
    refund.refresh_from_db()
    assert (order.state, refund.status) == ("refunded", "processed")
    assert not has_unit_access(user=user, unit_number=18)
    assert CheckAnswer.objects.filter(user=user).count() == 1  # progress kept
    assert SectionVisit.objects.filter(user=user).count() == 1
    (email,) = mailoutbox
    assert email.to == ["asha@example.com"] and "Refund processed" in email.subject
    assert "answers and the sections you reached are still in your account" in email.body
    # The same event again, or a late refund.failed, changes nothing.
    assert post_webhook(client, body).status_code == 200
    failed = FakeRazorpay.event(
        "refund_failed", order, payment_id=payment_id, refund_id=refund.provider_refund_id
    )
    assert post_webhook(client, failed).status_code == 200
    order.refresh_from_db()
    assert order.state == "refunded"


def test_refund_processed_arriving_before_our_call_returns(client, paid, user, razorpay):
    """The webhook can beat the API response: matched to the in-flight refund by payment id."""
    order, payment_id = paid
    with time_machine.travel(PAID_AT + dt.timedelta(days=1), tick=False):
        refund = services.refund_request(order=order, requested_by=user)
    Refund.objects.filter(pk=refund.pk).update(provider_refund_id=None)  # not stored yet
    body = FakeRazorpay.event("refund_processed", order, payment_id=payment_id)
    assert post_webhook(client, body).status_code == 200
    refund.refresh_from_db()
    assert refund.status == "processed" and refund.provider_refund_id
    order.refresh_from_db()
    assert order.state == "refunded"


def test_refund_failed_webhook_then_retry(client, paid, user, razorpay):
    order, payment_id = paid
    with time_machine.travel(PAID_AT + dt.timedelta(days=1), tick=False):
        refund = services.refund_request(order=order, requested_by=user)
    body = FakeRazorpay.event(
        "refund_failed", order, payment_id=payment_id, refund_id=refund.provider_refund_id
    )
    assert post_webhook(client, body).status_code == 200
    order.refresh_from_db()
    assert order.state == "refund_failed"
    assert has_unit_access(user=user, unit_number=18)
    with time_machine.travel(PAID_AT + dt.timedelta(days=1, hours=2), tick=False):
        services.refund_request(order=order, requested_by=user)
    order.refresh_from_db()
    assert order.state == "refund_requested" and len(razorpay.refund_calls) == 2


def test_bundle_refund_revokes_every_paid_unit(client, razorpay, user, bundle, pay):
    from mathmachine.billing.models import Product

    Product.objects.create(
        code="unit-19", kind="unit", unit_number=19, name="Unit 19", price_paise=29900
    )
    order = services.order_create(user=user, product=bundle)
    order, payment_id = pay(order)
    assert entitled_unit_numbers(user=user) == frozenset({18, 19})
    refund = services.refund_request(order=order, requested_by=user)
    body = FakeRazorpay.event(
        "refund_processed", order, payment_id=payment_id, refund_id=refund.provider_refund_id
    )
    assert post_webhook(client, body).status_code == 200
    assert entitled_unit_numbers(user=user) == frozenset()


def test_refunding_the_unit_keeps_what_the_bundle_gives(
    client, razorpay, user, unit18, bundle, pay
):
    unit_order, unit_payment = pay(services.order_create(user=user, product=unit18))
    pay(services.order_create(user=user, product=bundle))
    refund = services.refund_request(order=unit_order, requested_by=user)
    body = FakeRazorpay.event(
        "refund_processed", unit_order, payment_id=unit_payment, refund_id=refund.provider_refund_id
    )
    assert post_webhook(client, body).status_code == 200
    assert has_unit_access(user=user, unit_number=18)  # through the bundle
    assert Entitlement.objects.filter(order=unit_order, revoked_at__isnull=False).exists()


@pytest.mark.parametrize("state", ["created", "failed", "refund_requested", "refunded"])
def test_refund_refused_in_other_states(razorpay, user, unit18, state):
    order = services.order_create(user=user, product=unit18)
    now = timezone.now()
    Order.objects.filter(pk=order.pk).update(
        state=state, paid_at=now if state not in ("created", "failed") else None
    )
    with pytest.raises(RefundRefused):
        services.refund_request(order=order, requested_by=user)
    assert razorpay.refund_calls == []


def test_someone_elses_order_cannot_be_refunded(client, paid, other_user, razorpay):
    order, _ = paid
    with pytest.raises(RefundRefused):
        services.refund_request(order=order, requested_by=other_user)
    client.force_login(other_user)
    assert _refund_via(client, order).status_code == 404
    assert razorpay.refund_calls == []


def test_operator_refund_ignores_the_window(paid, make_user, razorpay):
    order, _ = paid
    operator = make_user("operator@example.com", is_staff=True)
    with time_machine.travel(PAID_AT + dt.timedelta(days=30), tick=False):
        refund = services.refund_request(order=order, requested_by=operator, by_operator=True)
    assert refund.status == "requested" and refund.by_operator


# The confirmation first ----------------------------------------------------------------------


def _confirm_page(client, order):
    page = client.get(f"/billing/orders/{order.public_id}/refund/")
    assert page.status_code == 200
    assert "no-store" in page["Cache-Control"]
    # The page as read: tags gone, spaces collapsed; the form's fields kept as written.
    text = re.sub(r"\s+", " ", re.sub(r"<(?!input)[^>]+>", "", page.text))
    return html.unescape(text)


def test_refund_asks_first_and_says_what_locks(client, paid, user, razorpay):
    order, _ = paid
    client.force_login(user)
    with time_machine.travel(PAID_AT + dt.timedelta(days=2), tick=False):
        text = _confirm_page(client, order)
        assert "Refund ₹299?" in text
        assert "Unit 18 · Attention and Transformers: sections 2 to 15 lock again" in text
        assert "section 1 stays free" in text
        # The list of what locks names each section, and says which are still being written.
        unit = load_unit("attention-and-transformers", root=settings.CONTENT_DIR)
        for section in unit.sections[1:]:
            marked = f"{section.title} (still being written)"
            assert (marked in text) is not section.written, section.number
            assert section.title in text
        assert "until 8 March 2026, 16:00 (India time)" in text and "inside it" in text
        assert "answers and progress are kept" in text
        assert 'name="confirm" value="yes"' in text
        assert "Yes, refund ₹299 and lock Unit 18" in text
        # Nothing happened: reading the page (or a POST without the confirmation) refunds nothing.
        bare = client.post(f"/billing/orders/{order.public_id}/refund/")
        assert bare.status_code == 302
        assert bare["Location"] == f"/billing/orders/{order.public_id}/refund/"
        order.refresh_from_db()
        assert order.state == "paid" and razorpay.refund_calls == []
        # Confirmed, then confirmed again (a double click): one provider call.
        first = _refund_via(client, order)
        second = _refund_via(client, order)
    assert (first.status_code, second.status_code) == (302, 302)
    assert len(razorpay.refund_calls) == 1
    order.refresh_from_db()
    assert order.state == "refund_requested"


def test_the_confirmation_offers_nothing_once_the_window_closed(client, paid, user, razorpay):
    order, _ = paid
    client.force_login(user)
    with time_machine.travel(PAID_AT + SEVEN_DAYS + SECOND, tick=False):
        text = _confirm_page(client, order)
    assert "This order cannot be refunded" in text
    assert "refund window for this order closed on 08 March 2026 at 16:00" in text
    assert 'name="confirm"' not in text


def test_the_bundle_confirmation_names_every_unit_and_what_stays_open(
    client, razorpay, user, bundle, unit18, pay, paid_order
):
    order, _ = pay(services.order_create(user=user, product=bundle))
    client.force_login(user)
    text = _confirm_page(client, order)
    assert "Refund ₹999?" in text
    assert "Unit 18 · Attention and Transformers: sections 2 to 15 lock again" in text
    assert "The paid units published later, which this bundle would have opened." in text
    # With Unit 18 also bought on its own, refunding the bundle locks nothing of Unit 18.
    paid_order(user, unit18)
    text = _confirm_page(client, order)
    assert (
        "Nothing locks" in text and "Unit 18 stays open to you through your other purchase" in text
    )


def test_someone_elses_refund_confirmation_is_404(client, paid, other_user):
    order, _ = paid
    client.force_login(other_user)
    assert client.get(f"/billing/orders/{order.public_id}/refund/").status_code == 404
