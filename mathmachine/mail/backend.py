"""``EMAIL_BACKEND``: send through ``MAIL_DELIVERY_BACKEND`` (SMTP in production, the console
locally); what cannot be sent is kept in the outbox and sent again by ``manage.py mail_outbox``.

So a mail outage never fails the request that sends mail (sign-up, password reset, a receipt):
the message counts as accepted, the failure is logged in one line, and the caller may tell the
learner that the email will follow (``message.queued_in_outbox``).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import timedelta

from django.conf import settings
from django.core.mail import get_connection
from django.core.mail.backends.base import BaseEmailBackend
from django.core.mail.message import EmailMessage
from django.utils import timezone

from .models import OutboxMessage

log = logging.getLogger(__name__)

#: Failures of the mail server itself (smtplib's errors are OSErrors too).
DELIVERY_ERRORS = (OSError,)


def delivery_connection() -> BaseEmailBackend:
    return get_connection(settings.MAIL_DELIVERY_BACKEND, fail_silently=False)


def first_retry_delay() -> timedelta:
    return timedelta(seconds=60)


class OutboxBackend(BaseEmailBackend):
    def send_messages(self, email_messages: Sequence[EmailMessage]) -> int:
        accepted = 0
        failure: BaseException | None = None
        for message in email_messages:
            if not message.recipients():
                continue
            if failure is None:  # once the server has failed, keep the rest without trying
                try:
                    delivery_connection().send_messages([message])
                    accepted += 1
                    continue
                except DELIVERY_ERRORS as exc:
                    failure = exc
            OutboxMessage.objects.create(
                subject=str(message.subject)[:300],
                from_email=message.from_email or settings.DEFAULT_FROM_EMAIL,
                recipients=list(message.recipients()),
                message=message.message().as_bytes(),
                last_error=f"{type(failure).__name__}: {failure}"[:300],
                next_attempt_at=timezone.now() + first_retry_delay(),
            )
            message.queued_in_outbox = True  # type: ignore[attr-defined]
            accepted += 1
        if failure is not None:
            log.warning(
                "Mail server unavailable (%s: %s): %d message(s) kept in the outbox, to be sent "
                "again by manage.py mail_outbox",
                type(failure).__name__,
                failure,
                sum(1 for m in email_messages if getattr(m, "queued_in_outbox", False)),
            )
        return accepted
