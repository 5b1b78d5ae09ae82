"""Absolute links for emails: to the site the learner used.

``SITE_URL`` (the public address, e.g. ``https://mathmachine.in``) when it is set, as it must be
in production (``manage.py check --deploy`` warns without it, billing.W001). Unset, as in
development, the link is built from the request being answered (allauth keeps it for the
duration of every request, ``allauth.core.context``: the confirm-email link is built the same
way), so a site run on ``0.0.0.0:8123`` or behind a tunnel sends links to that address. Outside
any request (a shell) and without ``SITE_URL``, the address ``make run`` serves.
"""

from __future__ import annotations

import logging
from urllib.parse import urlsplit

from allauth.core import context
from django.conf import settings

log = logging.getLogger(__name__)

#: What ``make run`` serves; the last resort, outside a request with no SITE_URL.
DEVELOPMENT_URL = "http://127.0.0.1:8000"


def site_url_problem(value: str) -> str | None:
    """Why ``value`` is not a usable SITE_URL (None: it is): an absolute http(s) address with
    a host and no query or fragment."""
    bits = urlsplit(value)
    if bits.scheme not in ("http", "https") or not bits.netloc:
        return "it must be an absolute address such as https://mathmachine.in"
    if bits.query or bits.fragment:
        return "it must not have a query (?…) or a fragment (#…)"
    return None


def site_root() -> str:
    """The site's address without a trailing slash, e.g. ``https://mathmachine.in``: SITE_URL,
    else the request being answered, else the development address (logged).

    Read it while the request is being answered (an email sent after the commit gets it as an
    argument): a callback run later no longer knows the request."""
    configured = getattr(settings, "SITE_URL", "")
    if configured:
        return configured.rstrip("/")
    request = context.request
    if request is not None:
        return request.build_absolute_uri("/").rstrip("/")
    log.warning("No SITE_URL and no request: email links point at %s", DEVELOPMENT_URL)
    return DEVELOPMENT_URL


def absolute_url(path: str, *, root: str | None = None) -> str:
    """``path`` (a site path such as ``/billing/orders/``, from ``reverse``) as a link a learner
    can open: on ``root`` when given, else on :func:`site_root`."""
    return (root if root is not None else site_root()) + path
