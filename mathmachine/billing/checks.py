"""System checks: a Razorpay configuration that would take money without granting access, and
the address the emails link to."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.checks import CheckMessage, Error, Warning, register

from mathmachine.web.siteurl import site_url_problem


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


@register()
def site_url_format(app_configs: Any = None, **kwargs: Any) -> list[CheckMessage]:
    value = settings.SITE_URL
    problem = site_url_problem(value) if value else None
    if problem is None:
        return []
    return [Error(f"SITE_URL is {value!r}: {problem}.", id="billing.E003")]


@register(deploy=True)
def site_url_set(app_configs: Any = None, **kwargs: Any) -> list[CheckMessage]:
    if settings.SITE_URL:
        return []
    return [
        Warning(
            "SITE_URL is not set: the links in receipt and refund emails are built from the "
            "address each request arrived on, and an email sent outside a request points at "
            "the development address.",
            hint="Set SITE_URL to the site's public address, e.g. https://mathmachine.in "
            "(docs/deploy.md).",
            id="billing.W001",
        )
    ]
