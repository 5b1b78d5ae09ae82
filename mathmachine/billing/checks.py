"""System checks: a Razorpay configuration that would take money without granting access."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.checks import CheckMessage, Error, register


@register()
def razorpay_configuration(app_configs: Any = None, **kwargs: Any) -> list[CheckMessage]:
    key_id, key_secret = settings.RAZORPAY_KEY_ID, settings.RAZORPAY_KEY_SECRET
    errors: list[CheckMessage] = []
    if bool(key_id) != bool(key_secret):
        errors.append(
            Error(
                "Set both RAZORPAY_KEY_ID and RAZORPAY_KEY_SECRET, or neither (test mode).",
                id="billing.E001",
            )
        )
    if key_id and key_secret and not settings.RAZORPAY_WEBHOOK_SECRET:
        errors.append(
            Error(
                "RAZORPAY_WEBHOOK_SECRET is not set: webhooks (payments whose browser never came "
                "back, refunds) could not be verified.",
                hint="Create the webhook in Razorpay's dashboard (docs/payments.md).",
                id="billing.E002",
            )
        )
    return errors
