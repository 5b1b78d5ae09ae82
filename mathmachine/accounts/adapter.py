"""Our allauth adapter: the same behaviour, with messages that say plainly what happened."""

from __future__ import annotations

from typing import Any, ClassVar

from allauth.account.adapter import DefaultAccountAdapter

LOCKOUT_MESSAGE = (
    "Too many failed sign-in attempts. For your safety, signing in with this email address is "
    "paused for 5 minutes. Wait a few minutes and try again, or reset your password."
)


class AccountAdapter(DefaultAccountAdapter):
    error_messages: ClassVar[dict[str, Any]] = {
        **DefaultAccountAdapter.error_messages,
        "too_many_login_attempts": LOCKOUT_MESSAGE,
        "rate_limited": "You are sending too many requests. Wait a minute, then try again.",
    }
