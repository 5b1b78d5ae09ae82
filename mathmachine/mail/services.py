"""Sending the outbox again: what ``manage.py mail_outbox`` runs (from cron, a systemd timer, or
its own ``--every`` loop)."""

from __future__ import annotations

import email
import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from email import generator
from io import BytesIO
from typing import Any

from django.core.mail.message import EmailMessage
from django.utils import timezone

from .backend import DELIVERY_ERRORS, delivery_connection
from .models import OutboxMessage

log = logging.getLogger(__name__)

#: After the first retry a minute later, the wait doubles up to an hour; after 3 days (reset
#: links and confirmations have expired by then) the message is given up, with an error logged.
MAX_DELAY = timedelta(hours=1)
GIVE_UP_AFTER = timedelta(days=3)
#: How long a runner holds a message it is sending before another may take it.
LEASE = timedelta(minutes=5)


class _StoredMime(email.message.Message):
    """A parsed stored message that flattens as Django's own messages do (``linesep``)."""

    def as_bytes(self, unixfrom: bool = False, linesep: str = "\n") -> bytes:  # type: ignore[override]
        fp = BytesIO()
        generator.BytesGenerator(fp, mangle_from_=False).flatten(self, unixfrom, linesep=linesep)
        return fp.getvalue()


class StoredEmail(EmailMessage):
    """An outbox row as an EmailMessage: sent byte for byte as first written (same Message-ID)."""

    def __init__(self, row: OutboxMessage) -> None:
        super().__init__(subject=row.subject, from_email=row.from_email, to=list(row.recipients))
        self._mime = email.message_from_bytes(bytes(row.message), _class=_StoredMime)
        plain = next(
            (p for p in self._mime.walk() if p.get_content_type() == "text/plain"), self._mime
        )
        payload = plain.get_payload(decode=True)
        self.body = payload.decode(plain.get_content_charset() or "utf-8") if payload else ""

    def message(self, *args: Any, **kwargs: Any) -> Any:
        return self._mime

    def recipients(self) -> list[str]:
        return list(self.to)


@dataclass(frozen=True)
class OutboxReport:
    sent: int
    failed: int
    given_up: int


def _next_delay(attempts: int) -> timedelta:
    return min(MAX_DELAY, timedelta(minutes=2 ** max(0, attempts - 1)))


def outbox_send_due(*, now: datetime | None = None, limit: int = 100) -> OutboxReport:
    """Send every pending message whose time has come; each is taken by one runner only."""
    now = now or timezone.now()
    sent = failed = given_up = 0
    due = list(
        OutboxMessage.objects.filter(status=OutboxMessage.Status.PENDING, next_attempt_at__lte=now)
        .order_by("next_attempt_at")
        .values_list("pk", "next_attempt_at")[:limit]
    )
    for pk, due_at in due:
        # Take it (a conditional UPDATE: no lock is held while the mail server is talked to).
        if not OutboxMessage.objects.filter(
            pk=pk, status=OutboxMessage.Status.PENDING, next_attempt_at=due_at
        ).update(next_attempt_at=now + LEASE):
            continue
        row = OutboxMessage.objects.get(pk=pk)
        try:
            delivery_connection().send_messages([StoredEmail(row)])
        except DELIVERY_ERRORS as exc:
            row.attempts += 1
            row.last_error = f"{type(exc).__name__}: {exc}"[:300]
            if now - row.created_at >= GIVE_UP_AFTER:
                row.status = OutboxMessage.Status.GAVE_UP
                given_up += 1
                log.error("Outbox: gave up on %r to %s: %s", row.subject, row.recipients, exc)
            else:
                row.next_attempt_at = now + _next_delay(row.attempts)
                failed += 1
            row.save(update_fields=["attempts", "last_error", "status", "next_attempt_at"])
            continue
        row.status = OutboxMessage.Status.SENT
        row.sent_at = timezone.now()
        row.attempts += 1
        row.save(update_fields=["status", "sent_at", "attempts"])
        sent += 1
    if sent or failed or given_up:
        log.info("Outbox: %d sent, %d to try again, %d given up", sent, failed, given_up)
    return OutboxReport(sent=sent, failed=failed, given_up=given_up)
