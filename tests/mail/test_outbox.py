"""A mail outage never fails sign-up or password reset (issue 10, failure 4).

With the production mail settings and the SMTP server down (a port where nothing listens),
sign-up completes and says the email will follow, password reset shows its normal page, the
failure is logged in one line, and `manage.py mail_outbox` sends the kept messages once the
server is back. Receipts go the same way. Before, the signup's ConnectionRefusedError was a 500.
"""

from __future__ import annotations

import datetime as dt
import logging
import re
from io import StringIO

import pytest
import time_machine
from django.contrib.auth import get_user_model
from django.core import mail
from django.core.management import call_command
from django.test import Client
from support import STRONG_KEY, free_port, paid_order_create, setting_value

from mathmachine.mail.models import OutboxMessage

pytestmark = pytest.mark.django_db

PASSWORD = "a long test password 42"
LOCMEM = "django.core.mail.backends.locmem.EmailBackend"


@pytest.fixture(scope="module")
def production_mail() -> dict[str, str]:
    """EMAIL_BACKEND and the backend behind it, as the production settings have them."""
    out = setting_value(
        "settings.EMAIL_BACKEND, getattr(settings, 'MAIL_DELIVERY_BACKEND', '')",
        DJANGO_SECRET_KEY=STRONG_KEY,
    )
    backend, _, delivery = out.partition(" ")
    return {"EMAIL_BACKEND": backend, "MAIL_DELIVERY_BACKEND": delivery}


@pytest.fixture
def smtp_down(settings, production_mail):
    settings.EMAIL_BACKEND = production_mail["EMAIL_BACKEND"]
    if production_mail["MAIL_DELIVERY_BACKEND"]:
        settings.MAIL_DELIVERY_BACKEND = production_mail["MAIL_DELIVERY_BACKEND"]
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", free_port()
    settings.EMAIL_USE_TLS, settings.EMAIL_TIMEOUT = False, 5
    return settings


def _smtp_back(settings) -> None:
    settings.MAIL_DELIVERY_BACKEND = LOCMEM


def test_sign_up_completes_and_says_the_email_will_follow(smtp_down, caplog) -> None:
    client = Client(raise_request_exception=False)
    with caplog.at_level(logging.WARNING):
        response = client.post(
            "/accounts/signup/",
            {"email": "asha@example.com", "password1": PASSWORD, "password2": PASSWORD},
            follow=True,
        )
    assert response.status_code == 200
    page = response.content.decode()
    assert "Confirm your email address" in page
    assert "will follow" in page
    assert get_user_model().objects.filter(email="asha@example.com").exists()
    row = OutboxMessage.objects.get()
    assert row.recipients == ["asha@example.com"] and row.status == "pending"
    assert "ConnectionRefusedError" in row.last_error
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 1 and not warnings[0].exc_info, [r.getMessage() for r in warnings]
    assert mail.outbox == []

    # The server is back: the kept message goes out, byte for byte, and its link works.
    _smtp_back(smtp_down)
    with time_machine.travel(dt.timedelta(minutes=2)):
        out = StringIO()
        call_command("mail_outbox", stdout=out)
    assert "1 sent" in out.getvalue()
    (sent,) = mail.outbox
    assert sent.to == ["asha@example.com"]
    link = re.search(r"https?://[^/\s]+(/accounts/confirm-email/\S+)", sent.body).group(1)
    assert client.post(link).status_code == 302
    assert "_auth_user_id" in client.session
    row.refresh_from_db()
    assert row.status == "sent" and row.sent_at is not None


def test_password_reset_shows_its_normal_page(smtp_down, user) -> None:
    client = Client(raise_request_exception=False)
    response = client.post("/accounts/password/reset/", {"email": "asha@example.com"})
    assert response.status_code == 302
    assert response["Location"] == "/accounts/password/reset/done/"
    assert "will follow" not in client.get(response["Location"]).content.decode()
    assert OutboxMessage.objects.get().recipients == ["asha@example.com"]


def test_a_receipt_waits_in_the_outbox_too(smtp_down, user, product) -> None:
    from mathmachine.billing import emails

    order = paid_order_create(user, product)
    assert emails.receipt_send(order_id=order.pk)  # accepted: the payment is untouched
    assert OutboxMessage.objects.get().recipients == [user.email]
    _smtp_back(smtp_down)
    with time_machine.travel(dt.timedelta(minutes=2)):
        call_command("mail_outbox", stdout=StringIO())
    (sent,) = mail.outbox
    assert order.receipt in sent.body


def test_retries_back_off_then_give_up_after_three_days(smtp_down) -> None:
    from django.core.mail import send_mail

    from mathmachine.mail.services import outbox_send_due

    start = dt.datetime(2026, 1, 5, 10, 0, tzinfo=dt.UTC)
    with time_machine.travel(start, tick=False) as traveller:
        send_mail("Hello", "Body", None, ["ravi@example.com"])
        row = OutboxMessage.objects.get()
        assert outbox_send_due().sent == 0  # not due yet: a minute after the first try
        waits = []
        for _ in range(12):
            traveller.move_to(OutboxMessage.objects.get().next_attempt_at)
            before = OutboxMessage.objects.get().next_attempt_at
            assert outbox_send_due().failed == 1
            waits.append(OutboxMessage.objects.get().next_attempt_at - before)
        assert waits[:3] == [
            dt.timedelta(minutes=2),
            dt.timedelta(minutes=4),
            dt.timedelta(minutes=8),
        ]
        assert max(waits) == dt.timedelta(hours=1)
        traveller.move_to(start + dt.timedelta(days=3, minutes=1))
        assert outbox_send_due().given_up == 1
    row.refresh_from_db()
    assert row.status == "gave_up" and row.attempts == 14
