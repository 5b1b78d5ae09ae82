from django.contrib import admin

from .models import OutboxMessage


@admin.register(OutboxMessage)
class OutboxMessageAdmin(admin.ModelAdmin):
    """What could not be sent at once: read-only, sent again by manage.py mail_outbox."""

    list_display = ("created_at", "subject", "recipients", "status", "attempts", "last_error")
    list_filter = ("status",)
    search_fields = ("subject", "recipients")
    fields = (
        "created_at", "subject", "from_email", "recipients", "status", "attempts",
        "last_error", "next_attempt_at", "sent_at",
    )  # fmt: skip
    readonly_fields = fields

    def has_add_permission(self, request, obj=None) -> bool:  # type: ignore[no-untyped-def]
        return False

    def has_change_permission(self, request, obj=None) -> bool:  # type: ignore[no-untyped-def]
        return False
