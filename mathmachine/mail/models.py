"""An email that could not be sent when it was written, kept until it can be."""

from __future__ import annotations

from typing import ClassVar

from django.db import models
from django.db.models import Q


class OutboxMessage(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending", "Waiting to be sent again"
        SENT = "sent", "Sent"
        GAVE_UP = "gave_up", "Given up"

    created_at = models.DateTimeField(auto_now_add=True)
    subject = models.CharField(max_length=300)
    from_email = models.CharField(max_length=320)
    recipients = models.JSONField(help_text="the envelope's recipients (to, cc and bcc)")
    message = models.BinaryField(help_text="the whole message (MIME), exactly as first written")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveIntegerField(default=1, help_text="the first try counts")
    last_error = models.CharField(max_length=300, blank=True)
    next_attempt_at = models.DateTimeField()
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ("-created_at",)
        indexes: ClassVar = [
            models.Index(
                fields=("next_attempt_at",),
                condition=Q(status="pending"),
                name="outbox_pending_due",
            )
        ]

    def __str__(self) -> str:
        return f"{self.subject} → {', '.join(self.recipients)} ({self.get_status_display()})"
