"""Payment providers behind one interface; :func:`get_provider` picks the configured one.

Razorpay when ``RAZORPAY_KEY_ID`` and ``RAZORPAY_KEY_SECRET`` are set, otherwise the offline
test-mode provider (allowed only where ``BILLING_TESTMODE_ALLOWED`` is true: local and tests,
never production, where a fake "Pay" button would give paid units away).
"""

from __future__ import annotations

from django.conf import settings

from .base import PaymentProvider, ProviderOrder, ProviderRefund
from .razorpay import RazorpayProvider
from .testmode import TestModeProvider

__all__ = [
    "PaymentProvider",
    "ProviderOrder",
    "ProviderRefund",
    "RazorpayProvider",
    "TestModeProvider",
    "get_provider",
    "payments_enabled",
    "provider_name",
]


def provider_name() -> str:
    """``"razorpay"`` when its keys are configured, else ``"testmode"``."""
    if settings.RAZORPAY_KEY_ID and settings.RAZORPAY_KEY_SECRET:
        return RazorpayProvider.name
    return TestModeProvider.name


def payments_enabled() -> bool:
    """Can learners buy right now? (Razorpay configured, or test mode allowed here.)"""
    return provider_name() == RazorpayProvider.name or bool(settings.BILLING_TESTMODE_ALLOWED)


def get_provider(name: str | None = None) -> PaymentProvider:
    """The provider called ``name`` (default: the configured one), built from settings."""
    name = name or provider_name()
    if name == RazorpayProvider.name:
        return RazorpayProvider(
            key_id=settings.RAZORPAY_KEY_ID,
            key_secret=settings.RAZORPAY_KEY_SECRET,
            webhook_secret=settings.RAZORPAY_WEBHOOK_SECRET,
        )
    if name == TestModeProvider.name:
        return TestModeProvider.from_settings()
    raise ValueError(f"Unknown payment provider {name!r}")
