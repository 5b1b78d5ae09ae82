"""Error pages that say what happened.

A database that cannot be reached (restarting, failing over, out of connections) is an outage,
not a bug: the learner gets a 503 "back in a moment" page (JSON for the page's script) with
Retry-After, and the log gets one line instead of a traceback per request. Everything else is
Django's own 500 handling.
"""

from __future__ import annotations

import logging
import sys

from django.conf import settings
from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template.loader import render_to_string
from django.views.defaults import server_error as django_server_error

log = logging.getLogger("mathmachine.web")

RETRY_AFTER_S = 5
UNAVAILABLE = (
    "We cannot reach our database for a moment. Nothing you saved before is lost; "
    "try again in a few seconds."
)


def server_error(request: HttpRequest) -> HttpResponse:
    """handler500: Django calls it while handling the exception, so sys.exc_info() names it."""
    exc = sys.exc_info()[1]
    if not isinstance(exc, OperationalError | InterfaceError):
        return django_server_error(request)
    log.warning("database unavailable (%s %s): %s", request.method, request.path, exc)
    response: HttpResponse
    if "application/json" in request.headers.get("Accept", ""):
        response = JsonResponse({"error": UNAVAILABLE}, status=503)
    else:
        # No request context: its processors would ask the database for the user again.
        html = render_to_string(
            "503.html", {"COURSE_NAME": settings.COURSE_NAME, "message": UNAVAILABLE}
        )
        response = HttpResponse(html, status=503)
    response["Retry-After"] = str(RETRY_AFTER_S)
    response["Cache-Control"] = "no-store"
    response._has_been_logged = True  # type: ignore[attr-defined]  # Django: don't log it again
    return response
