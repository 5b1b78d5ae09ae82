"""Our allauth adapter: the same behaviour, with messages that say plainly what happened, sign-in
limits per email address *and* per network, and the client address from our trusted proxies.

Failed sign-ins are limited twice (``ACCOUNT_RATE_LIMITS`` in settings, docs/accounts.md):
``login_failed`` per email address (5 in 5 minutes: guessing one learner's password), and
``login_failed_network`` per client address (generous: a whole college may sit behind one
address, and its learners mostly type the right password). Each pause has its own message, so a
learner is never told their address is paused when it is their network that is. A successful
sign-in takes back what it counted, so only failures count.
"""

from __future__ import annotations

from typing import Any, ClassVar

from allauth.account.adapter import DefaultAccountAdapter
from allauth.core.internal import ratelimit
from django.http import HttpRequest

from mathmachine.web.clientip import client_ip

LOCKOUT_MESSAGE = (
    "Too many failed sign-in attempts. For your safety, signing in with this email address is "
    "paused for 5 minutes. Wait a few minutes and try again, or reset your password."
)
NETWORK_PAUSE_MESSAGE = (
    "Too many failed sign-in attempts have come from your network in the last few minutes (at a "
    "school or college, many people share one internet address). To keep accounts safe, "
    "sign-ins from this network are paused for up to 10 minutes. Wait a little and try again; "
    "other networks, such as mobile data, are not affected."
)


class AccountAdapter(DefaultAccountAdapter):
    error_messages: ClassVar[dict[str, Any]] = {
        **DefaultAccountAdapter.error_messages,
        "too_many_login_attempts": LOCKOUT_MESSAGE,
        "too_many_login_attempts_from_network": NETWORK_PAUSE_MESSAGE,
        "rate_limited": "You are sending too many requests. Wait a minute, then try again.",
    }

    def get_client_ip(self, request: HttpRequest) -> str:
        return client_ip(request)

    def pre_authenticate(self, request: HttpRequest, **credentials: Any) -> None:
        super().pre_authenticate(request, **credentials)  # per address: login_failed
        self._network_rl_usage = ratelimit.consume(
            request, app="allauth.account", action="login_failed_network"
        )
        if not self._network_rl_usage:
            super()._rollback_login_failed_rl_usage()
            raise self.validation_error("too_many_login_attempts_from_network")

    def _rollback_login_failed_rl_usage(self) -> None:
        """allauth calls this after a successful sign-in: it was not a failure."""
        super()._rollback_login_failed_rl_usage()
        usage = getattr(self, "_network_rl_usage", None)
        if usage:
            usage.rollback()
