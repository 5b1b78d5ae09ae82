"""The site as an installable web app: its manifest and its service worker (docs/offline.md).

- ``/manifest.webmanifest``: the course's name, its icons (192 and 512 px, and a maskable one,
  drawn by scripts/make_app_icons.py), its colours; installed, it opens at "Your learning".
- ``/sw.js``: the service worker (mathmachine/web/sw.js), at the site's root so that its scope
  is every page. ``Cache-Control: no-cache`` and an ETag: the browser asks for it again at
  every update check and gets a 304 while it is unchanged. The text is prefixed with the
  worker's CONFIG (the hashed names of what the offline page uses), made once per process.
"""

from __future__ import annotations

import hashlib
import json
from functools import cache
from pathlib import Path
from typing import cast

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseNotModified
from django.templatetags.static import static
from django.urls import reverse
from django.views.decorators.http import require_GET

WORKER_SOURCE = Path(__file__).resolve().parent / "sw.js"
# The shared static cache is "mm-static-v<N>": a new N (a change of what it holds) makes the
# worker delete the older ones when it activates. Hashed names never need it.
STATIC_CACHE_VERSION = 1
THEME_COLOR = "#0b6e69"  # site.css --accent, the mark's square
BACKGROUND_COLOR = "#fbfaf7"  # site.css --paper
SHORT_NAME = "Math Machine"  # under a home-screen icon: 12 characters at most show whole
# The offline page the worker makes: our own stylesheet, no script at all.
OFFLINE_CSP = (
    "default-src 'self'; script-src 'none'; style-src 'self'; img-src 'self' data:; "
    "font-src 'self'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'; "
    "object-src 'none'"
)


def manifest_data() -> dict[str, object]:
    start = reverse("accounts:dashboard")
    icons = [
        {"src": static("site/icons/icon-192.png"), "sizes": "192x192", "type": "image/png"},
        {"src": static("site/icons/icon-512.png"), "sizes": "512x512", "type": "image/png"},
        {
            "src": static("site/icons/icon-maskable-512.png"),
            "sizes": "512x512",
            "type": "image/png",
            "purpose": "maskable",
        },
    ]
    return {
        "id": start,
        "name": settings.COURSE_NAME,
        "short_name": SHORT_NAME,
        "description": (
            "Learn the mathematics of modern AI by seeing it work: attention and transformers, "
            "computed live. A unit you own can be kept on your phone and read offline."
        ),
        "lang": "en-IN",
        "dir": "ltr",
        "start_url": start,
        "scope": "/",
        "display": "standalone",
        "theme_color": THEME_COLOR,
        "background_color": BACKGROUND_COLOR,
        "icons": icons,
    }


def manifest_bytes() -> bytes:
    """The manifest as served (a kept unit keeps these bytes too: learning/keeping.py)."""
    return json.dumps(manifest_data(), ensure_ascii=False).encode("utf-8")


def manifest_icons() -> list[str]:
    return [str(icon["src"]) for icon in cast("list[dict[str, str]]", manifest_data()["icons"])]


@require_GET
def manifest(request: HttpRequest) -> HttpResponse:
    response = HttpResponse(manifest_bytes(), content_type="application/manifest+json")
    response["Cache-Control"] = "public, max-age=3600"
    return response


@cache
def worker_text() -> tuple[bytes, str]:
    """The worker's text with its CONFIG, and its ETag."""
    config = {
        "staticVersion": STATIC_CACHE_VERSION,
        "staticUrl": settings.STATIC_URL,
        "stylesheet": static("site/site.css"),
        "icon": static("site/favicon.svg"),
        "offlineAssets": [static("site/site.css"), static("site/favicon.svg")],
        "offlineCsp": OFFLINE_CSP,
        "courseName": settings.COURSE_NAME,
    }
    text = (
        f"const CONFIG = {json.dumps(config, ensure_ascii=False)};\n"
        + WORKER_SOURCE.read_text(encoding="utf-8")
    ).encode("utf-8")
    return text, '"' + hashlib.sha256(text).hexdigest()[:32] + '"'


@require_GET
def service_worker(request: HttpRequest) -> HttpResponse:
    text, etag = worker_text()
    response: HttpResponse
    if request.headers.get("If-None-Match") == etag:
        response = HttpResponseNotModified()
    else:
        response = HttpResponse(text, content_type="text/javascript; charset=utf-8")
    response["ETag"] = etag
    response["Cache-Control"] = "no-cache"
    return response
