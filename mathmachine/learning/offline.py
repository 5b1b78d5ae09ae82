"""What the service worker is told about who reads and what they may keep (docs/offline.md).

A bought unit may be kept on the learner's phone and read offline; the paywall still holds
because the server tells the worker, on every page, who is signed in and which units they may
keep, and the worker deletes every kept copy that no longer fits (another learner, a refund,
a sign-out):

- ``X-MM-Owner``: an opaque key of the signed-in learner (an HMAC of their id with the site's
  secret, so it names no one and cannot be guessed for another); empty when nobody is signed in.
- ``X-MM-Keep``: the slugs of the published units this learner may keep, those they own now
  (a refunded unit is not listed), separated by spaces; empty for anyone else.

Both are headers of every HTML page (OfflineHeadersMiddleware) and ``<meta name="mm-owner">``,
``<meta name="mm-keep">`` in its head (base.html, through ``offline_context``), so the page's
own script reads the same values. Each is worked out once per request.

Sign-out also sends ``Clear-Site-Data: "cache"``: the browser's HTTP cache (where section pages,
``private, no-cache``, may sit) is emptied at once; the kept copies (Cache Storage) go at the
next page, whose empty ``X-MM-Owner`` the worker reads.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.contrib.auth.signals import user_logged_out
from django.db import DatabaseError
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse
from django.utils.crypto import salted_hmac

from mathmachine.billing import selectors as billing

from . import selectors

OWNER_HEADER = "X-MM-Owner"
KEEP_HEADER = "X-MM-Keep"
_OWNER_SALT = "mathmachine.learning.offline.owner"
_OWNER_CHARS = 20  # 80 bits of the HMAC: opaque, and no two learners share one
_MEMO = "_mm_offline"
_SIGNED_OUT = "_mm_signed_out"


@dataclass(frozen=True)
class Standing:
    """Who reads (``owner``, their key or "") and what they may keep (``keep``, unit slugs)."""

    owner: str
    keep: tuple[str, ...]

    @property
    def keep_header(self) -> str:
        return " ".join(self.keep)


ANONYMOUS = Standing(owner="", keep=())


def owner_key(user_id: object) -> str:
    """The learner's opaque key: the same on every page and every process of the site (it
    depends on SECRET_KEY), different for every learner. Kept per id in the process (an HMAC
    per page, twice, cost more than the page's other headers)."""
    found = _OWNER_KEYS.get(user_id)
    if found is None or found[0] != settings.SECRET_KEY:
        key = salted_hmac(_OWNER_SALT, str(user_id), algorithm="sha256").hexdigest()
        found = (settings.SECRET_KEY, key[:_OWNER_CHARS])
        if len(_OWNER_KEYS) >= _OWNER_KEYS_KEPT:
            _OWNER_KEYS.clear()
        _OWNER_KEYS[user_id] = found
    return found[1]


# user id -> (the SECRET_KEY it was made with, the owner key); emptied when it holds this many.
_OWNER_KEYS: dict[object, tuple[str, str]] = {}
_OWNER_KEYS_KEPT = 50_000


def keepable_slugs(user: Any) -> tuple[str, ...]:
    """The published units ``user`` owns now (a unit bought, or every paid unit with the
    bundle), in course order: the gate's own answer (billing.has_unit_access), the one the page
    already had when its view asked it (billing.access_answered), else asked here."""
    kept = []
    for unit in selectors.units_list():
        owned = billing.access_answered(user=user, unit_number=unit.number)
        if owned is None:
            owned = billing.has_unit_access(user=user, unit_number=unit.number)
        if owned:
            kept.append(unit.slug)
    return tuple(kept)


def standing(request: HttpRequest) -> Standing:
    """This request's Standing, worked out once (the header and the page's meta agree)."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return ANONYMOUS
    memo: Standing | None = getattr(request, _MEMO, None)
    key = owner_key(user.pk)
    if memo is None or memo.owner != key:  # a view that signed someone in since
        memo = Standing(owner=key, keep=keepable_slugs(user))
        setattr(request, _MEMO, memo)
    return memo


class _LazyStanding:
    """For templates: asks for the standing only if the page prints it."""

    def __init__(self, request: HttpRequest) -> None:
        self._request = request

    @property
    def owner(self) -> str:
        return standing(self._request).owner

    @property
    def keep(self) -> str:
        return standing(self._request).keep_header


def offline_context(request: HttpRequest) -> dict[str, object]:
    """``OFFLINE.owner`` and ``OFFLINE.keep`` for base.html's meta tags."""
    return {"OFFLINE": _LazyStanding(request)}


@receiver(user_logged_out, dispatch_uid="mathmachine.learning.offline.signed_out")
def _note_sign_out(sender: Any, request: HttpRequest | None, **kwargs: Any) -> None:
    if request is not None:
        setattr(request, _SIGNED_OUT, True)


class OfflineHeadersMiddleware:
    """X-MM-Owner and X-MM-Keep on every HTML page (2xx and 4xx: not on redirects, which the
    worker cannot read, nor on server errors), and Clear-Site-Data: "cache" on the response
    that signed the learner out. has_unit_access's answers are kept while the view runs, so
    the page's standing costs no second entitlement query."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        with billing.access_answers_kept():
            response = self.get_response(request)
            return self._tell(request, response)

    def _tell(self, request: HttpRequest, response: HttpResponse) -> HttpResponse:
        if getattr(request, _SIGNED_OUT, False):
            response["Clear-Site-Data"] = '"cache"'
        # Redirects the worker cannot read; a server error (a database outage) tells it
        # nothing, so it deletes nothing on its account.
        if not 200 <= response.status_code < 300 and not 400 <= response.status_code < 500:
            return response
        if not response.get("Content-Type", "").startswith("text/html"):
            return response
        try:
            found = standing(request)
        except DatabaseError:  # the page was made without the database: say nothing
            return response
        response[OWNER_HEADER] = found.owner
        response[KEEP_HEADER] = found.keep_header
        return response
