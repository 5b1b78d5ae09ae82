"""Forms are read in UTF-8 only: a form POST declaring another charset is a clear 400.

Browsers send our forms in the page's encoding, UTF-8, and name no charset. A client that
declares another one (``application/x-www-form-urlencoded; charset=utf-16``, latin-1, cp037,
utf-7, …) gets a 400 that says so, and one log line. Without this middleware Django refuses such
a body by raising ``BadRequest`` wherever the form is first read, which for a browser-like post
is the CSRF middleware; the error handling then reads the form again, raises again, and the
server answers 500 with a chain of tracebacks. ASCII is UTF-8 and is read as UTF-8.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest

log = logging.getLogger(__name__)

FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")
UTF8_NAMES = {"utf-8", "utf8", "us-ascii", "ascii"}


class FormCharsetMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.content_type in FORM_TYPES:
            charset = request.content_params.get("charset")
            if charset is not None:
                name = charset.strip().strip('"').lower()
                if name not in UTF8_NAMES:
                    return self._refuse(request, charset)
                if name != "utf-8":
                    request.encoding = "utf-8"  # ASCII is UTF-8; Django reads only "utf-8"
        return self.get_response(request)

    @staticmethod
    def _refuse(request: HttpRequest, charset: str) -> HttpResponse:
        shown = charset[:40]
        log.warning(
            "Refused a %s to %s: form charset %r (forms are read in UTF-8 only)",
            request.method,
            request.path[:200],
            shown,
        )
        response = HttpResponseBadRequest(
            f"This form was sent in the character set {shown!r}. This site reads forms in "
            "UTF-8 only: nothing was changed. Send the form again from the page itself (browsers "
            "use UTF-8), or encode it as UTF-8.\n",
            content_type="text/plain; charset=utf-8",
        )
        response._has_been_logged = True  # type: ignore[attr-defined]  # our line is the one
        return response
