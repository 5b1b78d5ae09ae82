"""A widget's large initial state, served as the file of its own the compiler made of it
(coursebook/state_files.py): ``GET /units/<slug>/data/<hash>.json``; and a figure's picture,
``<hash>.svg``, the same way (an SVG image).

Nothing is computed here but the file's compression, once per process: brotli at its best
quality (what WhiteNoise gives static files) to a browser that accepts it, else gzip. Its name is
the hash of its bytes, so it is cached for a year, immutable: a repeat visit fetches only the
page. Gated like its section: a locked section's state is for those who may read the section
(403 for anyone else; ``private``, so no shared cache keeps it); a name the unit does not have,
404.
"""

from __future__ import annotations

import gzip
import re
import threading

import brotli
from django.http import Http404, HttpRequest, HttpResponse
from django.utils.cache import patch_vary_headers
from django.views.decorators.http import require_GET

from . import selectors

_ACCEPTS_BR = re.compile(r"\bbr\b")
_ACCEPTS_GZIP = re.compile(r"\bgzip\b")
# (unit source hash, name, encoding) -> bytes; a unit has a handful of these files.
_ENCODED: dict[tuple[str, str, str], bytes] = {}
_LOCK = threading.Lock()


def encoded(key: str, name: str, data: bytes, encoding: str) -> bytes:
    found = _ENCODED.get((key, name, encoding))
    if found is None:
        if encoding == "br":
            found = brotli.compress(data, quality=11, mode=brotli.MODE_TEXT)
        else:
            found = gzip.compress(data, compresslevel=9, mtime=0)
        with _LOCK:
            if len(_ENCODED) > 256:
                _ENCODED.clear()
            _ENCODED[(key, name, encoding)] = found
    return found


@require_GET
def state_file(request: HttpRequest, unit_slug: str, name: str) -> HttpResponse:
    unit = selectors.unit_get(unit_slug)
    data = unit.state_files.get(name)
    if data is None:
        raise Http404("No such file")
    section = unit.with_drafts().section(unit.state_file_sections[name])
    if not selectors.section_access(user=request.user, unit=unit, section=section):
        response = HttpResponse(
            "This file belongs to a section you cannot open.",
            status=403,
            content_type="text/plain; charset=utf-8",
        )
        response["Cache-Control"] = "private, no-store"
        return response
    accepts = request.headers.get("Accept-Encoding", "")
    encoding = (
        "br" if _ACCEPTS_BR.search(accepts) else "gzip" if _ACCEPTS_GZIP.search(accepts) else ""
    )
    body = encoded(unit.source_hash, name, data, encoding) if encoding else data
    kind = "image/svg+xml" if name.endswith(".svg") else "application/json"
    response = HttpResponse(body, content_type=kind)
    if encoding:
        response["Content-Encoding"] = encoding
    patch_vary_headers(response, ("Accept-Encoding",))
    scope = "public" if section.free else "private"
    response["Cache-Control"] = f"{scope}, max-age=31536000, immutable"
    return response
