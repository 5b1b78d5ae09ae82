"""At sign-up and sign-in, the anonymous learner's progress in this browser joins the account.

allauth signs a new user in right after sign-up, and every sign-in (allauth's or the admin's)
goes through django.contrib.auth.login, which sends ``user_logged_in``. The anonymous token
survives the session-key rotation of login(); after the claim it is removed from the session so
later answers are recorded for the user only, and it is retired with the token the browser's
offer cookie holds (learning.learners.learner_tokens_retire): neither is adopted again.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.signals import user_logged_in
from django.db.models.signals import post_save
from django.dispatch import receiver
from django.http import HttpRequest

from mathmachine.learning.learners import learner_tokens_retire
from mathmachine.learning.services import learner_progress_claim


@receiver(user_logged_in, dispatch_uid="mathmachine.accounts.claim_progress")
def claim_anonymous_progress(
    sender: Any, request: HttpRequest | None, user: Any, **kwargs: Any
) -> None:
    if getattr(request, "session", None) is None or request is None:
        return
    # The browser's anonymous tokens are retired (a copy of the offer cookie opens nothing
    # from now on); the session's progress joins the account.
    for token in learner_tokens_retire(request):
        learner_progress_claim(user=user, anon_token=token)


@receiver(post_save, sender=settings.AUTH_USER_MODEL, dispatch_uid="mathmachine.accounts.operator")
def operator_address_verified(sender: Any, instance: Any, created: bool, **kwargs: Any) -> None:
    """`manage.py createsuperuser` makes the operator, who typed their own address at the
    terminal: it is their verified sign-in address (email verification is mandatory)."""
    if not (created and instance.is_superuser and instance.email):
        return
    from allauth.account.models import EmailAddress

    EmailAddress.objects.get_or_create(
        user=instance,
        email=instance.email.lower(),
        defaults={"primary": True, "verified": True},
    )
