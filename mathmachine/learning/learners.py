"""Who is learning: a signed-in user, or an anonymous learner with a token in the session."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse

SESSION_KEY = "learner_token"
# A reader's future token, offered by a plain read in a signed cookie (no database write) and
# adopted by their first answer: two first answers sent at once (a double click) then make one
# learner, not two sessions of which the browser keeps one. Dropped once adopted.
OFFER_COOKIE = "learner_offer"
_OFFER_SALT = "mathmachine.learning.learner-offer"


@dataclass(frozen=True)
class Learner:
    user_id: int | None
    anon_token: uuid.UUID | None

    @property
    def known(self) -> bool:
        return self.user_id is not None or self.anon_token is not None

    def owner(self) -> dict[str, Any]:
        """Field values that identify this learner's rows (for filters and creates)."""
        if self.user_id is not None:
            return {"user_id": self.user_id, "anon_token": None}
        return {"user_id": None, "anon_token": self.anon_token}


def learner_from_request(request: HttpRequest, *, create: bool = False) -> Learner:
    """The learner behind a request. With create=True an anonymous learner gets a token."""
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        return Learner(user_id=user.pk, anon_token=None)
    raw = request.session.get(SESSION_KEY)
    token: uuid.UUID | None = None
    if raw:
        try:
            token = uuid.UUID(str(raw))
        except ValueError:
            token = None
    if token is None and create:
        offered = _offered_token(request)
        if offered is not None and _retired(offered):
            offered = None  # it joined an account at a sign-in: a copy of the cookie opens nothing
        token = offered or uuid.uuid4()
        request.session[SESSION_KEY] = str(token)
    return Learner(user_id=None, anon_token=token)


def _retired(token: uuid.UUID) -> bool:
    from .models import RetiredLearnerToken

    return RetiredLearnerToken.objects.filter(token=token).exists()


def learner_tokens_retire(request: HttpRequest) -> list[uuid.UUID]:
    """At sign-in: the anonymous tokens of this browser (the session's, and the one its cookie
    offers) are retired, never adopted again (RetiredLearnerToken). Returns the session's
    token, whose progress the caller claims for the user, if any."""
    from .models import RetiredLearnerToken

    tokens: list[uuid.UUID] = []
    raw = request.session.get(SESSION_KEY)
    try:
        if raw:
            tokens.append(uuid.UUID(str(raw)))
    except ValueError:
        pass
    offered = _offered_token(request)
    for token in (*tokens, offered):
        if token is not None:
            RetiredLearnerToken.objects.get_or_create(token=token)
    request.session.pop(SESSION_KEY, None)
    return tokens


def _offered_token(request: HttpRequest) -> uuid.UUID | None:
    raw = request.get_signed_cookie(OFFER_COOKIE, default=None, salt=_OFFER_SALT)
    try:
        return uuid.UUID(str(raw)) if raw else None
    except ValueError:
        return None


def learner_offer_set(request: HttpRequest, response: HttpResponse) -> None:
    """On a plain read by a reader with no learner yet: offer a token in a signed cookie."""
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        return
    if request.session.get(SESSION_KEY) or _offered_token(request):
        return
    response.set_signed_cookie(
        OFFER_COOKIE,
        str(uuid.uuid4()),
        salt=_OFFER_SALT,
        max_age=settings.SESSION_COOKIE_AGE,
        secure=settings.SESSION_COOKIE_SECURE,
        httponly=True,
        samesite="Lax",
    )


def learner_offer_drop(request: HttpRequest, response: HttpResponse) -> None:
    """The offer was adopted by the session (or there is a user): the cookie has done its job."""
    if OFFER_COOKIE in request.COOKIES:
        response.delete_cookie(OFFER_COOKIE, samesite="Lax")
