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
from allauth.core import context
from allauth.core.internal import ratelimit
from django.conf import settings
from django.contrib import messages
from django.contrib.sites.shortcuts import get_current_site
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


MAIL_DELAYED_MESSAGE = (
    "Our mail server is slow to answer just now, so your email will follow in a few minutes. "
    "There is nothing more to do: once it arrives, open its link."
)
#: Emails whose delay the learner is told about (sign-up's; a password reset shows its usual
#: page, and says the same whether or not the address has an account).
DELAY_NOTICE_FOR = (
    "account/email/email_confirmation",
    "account/email/account_already_exists",
)


def user_display(user: Any) -> str:
    """How allauth names a learner ("Signed in as …"): their email address, the one name they
    chose; never the username made up from it."""
    return str(getattr(user, "email", "") or "your account")


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

    def send_mail(self, template_prefix: str, email: str, context_: dict[str, Any]) -> None:
        """allauth's, and if the mail server was down (the message waits in the outbox,
        mathmachine/mail), a sign-up is told that the email will follow."""
        request = context.request
        ctx = {
            "request": request,
            "email": email,
            "current_site": get_current_site(request),
            "course_name": settings.COURSE_NAME,  # our own templates speak in the site's name
        }
        ctx.update(context_)
        message = self.render_mail(template_prefix, email, ctx)
        message.send()
        if getattr(message, "queued_in_outbox", False) and template_prefix.startswith(
            DELAY_NOTICE_FOR
        ):
            messages.info(request, MAIL_DELAYED_MESSAGE)
