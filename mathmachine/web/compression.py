"""Gzip for HTML responses at a cheaper level than Django's fixed 6.

Django's GZipMiddleware always compresses at level 6. On section 1 (~51 KB of HTML) that costs
~0.8 ms of CPU per request for 11.5 KB; level 4 gives 12.1 KB (+5 %) in ~0.45 ms (figures from
this machine). Both sizes fit in one TCP initial window, so
a learner waits no longer; the server does less per page.

Everything else is Django's behaviour, kept: only responses of 200 bytes or more, never twice,
``Vary: Accept-Encoding``, only when the client accepts gzip, only when it is smaller, strong
ETags weakened, and the "Heal The Breach" mitigation (a random-length file name in the gzip
header, so the compressed length does not leak secrets in the page, BREACH). Streaming
responses are left to Django's own code (level 6).
"""

from __future__ import annotations

import gzip
import secrets

from django.http import HttpRequest, HttpResponseBase
from django.middleware.gzip import GZipMiddleware as DjangoGZipMiddleware
from django.middleware.gzip import re_accepts_gzip
from django.utils.cache import patch_vary_headers

COMPRESSLEVEL = 4


def compress_string(data: bytes, *, level: int, max_random_bytes: int = 0) -> bytes:
    """``data`` gzipped at ``level`` (mtime 0), with a random-length file name in the header
    (0 to max_random_bytes - 1 bytes, as django.utils.text.compress_string) when asked."""
    compressed = gzip.compress(data, compresslevel=level, mtime=0)
    if not max_random_bytes:
        return compressed
    header = bytearray(compressed[:10])
    header[3] = gzip.FNAME
    filename = b"a" * secrets.randbelow(max_random_bytes) + b"\x00"
    return bytes(header) + filename + compressed[10:]


class GZipMiddleware(DjangoGZipMiddleware):
    """Django's GZipMiddleware with ``compresslevel`` for whole (non-streaming) responses."""

    compresslevel = COMPRESSLEVEL

    def process_response(
        self, request: HttpRequest, response: HttpResponseBase
    ) -> HttpResponseBase:
        if response.streaming:
            return super().process_response(request, response)
        content = response.content
        if len(content) < 200 or response.has_header("Content-Encoding"):
            return response
        patch_vary_headers(response, ("Accept-Encoding",))
        if not re_accepts_gzip.search(request.META.get("HTTP_ACCEPT_ENCODING", "")):
            return response
        compressed = compress_string(
            content, level=self.compresslevel, max_random_bytes=self.max_random_bytes
        )
        if len(compressed) >= len(content):
            return response
        response.content = compressed
        response.headers["Content-Length"] = str(len(compressed))
        etag = response.get("ETag")
        if etag and etag.startswith('"'):
            response.headers["ETag"] = "W/" + etag
        response.headers["Content-Encoding"] = "gzip"
        return response
