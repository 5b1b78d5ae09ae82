"""/robots.txt and /favicon.ico answer 200 (browsers, crawlers and Lighthouse ask for both), served
by WhiteNoise like static files: cached, with validators, and 304 when unchanged."""

from __future__ import annotations

import struct
from urllib.robotparser import RobotFileParser

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db

PUBLIC = (
    "/",
    "/pricing/",
    "/units/attention-and-transformers/",
    "/units/attention-and-transformers/1/",
)
PRIVATE = (
    "/admin/",
    "/admin/billing/order/",
    "/accounts/login/",
    "/accounts/signup/",
    "/your-learning/",
    "/billing/orders/",
    "/billing/webhooks/razorpay/",
)


def _body(response) -> bytes:
    return b"".join(response.streaming_content) if response.streaming else response.content


def test_robots_txt_allows_the_course_and_keeps_crawlers_out_of_personal_pages(client: Client):
    response = client.get("/robots.txt")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain")
    text = _body(response).decode("utf-8")
    robots = RobotFileParser()
    robots.parse(text.splitlines())
    for path in PUBLIC:
        assert robots.can_fetch("Googlebot", path), path
    for path in PRIVATE:
        assert not robots.can_fetch("Googlebot", path), path
    # The check answers' endpoints (POST only) sit under every unit: a wildcard rule, which
    # Python's parser does not read but Google's and Bing's do.
    assert "Disallow: /units/*/checks/" in text.splitlines()
    # Each path it names exists (or is a prefix of pages that do): no stale rules.
    for path in ("/admin/", "/accounts/login/", "/your-learning/", "/billing/orders/"):
        assert client.get(path).status_code in (200, 302), path


def test_favicon_ico_is_a_real_small_icon_served_with_cache_headers(client: Client):
    response = client.get("/favicon.ico")
    assert response.status_code == 200
    assert response["Content-Type"] in ("image/x-icon", "image/vnd.microsoft.icon")
    body = _body(response)
    assert len(body) < 4096  # small: two PNG images, 16 and 32 px
    reserved, kind, count = struct.unpack_from("<HHH", body)
    assert (reserved, kind) == (0, 1) and count >= 2  # an ICO directory ...
    sizes = set()
    for i in range(count):
        width, height, _, _, _, _, length, offset = struct.unpack_from(
            "<BBBBHHII", body, 6 + 16 * i
        )
        assert body[offset : offset + 8] == b"\x89PNG\r\n\x1a\n"  # ... of PNG images
        assert offset + length <= len(body)
        sizes.add((width, height))
    assert {(16, 16), (32, 32)} <= sizes
    assert "max-age=" in response["Cache-Control"]
    again = client.get("/favicon.ico", HTTP_IF_NONE_MATCH=response["ETag"])
    assert again.status_code == 304


def test_every_page_names_its_icons(client: Client):
    page = client.get("/").content.decode()
    assert '<link rel="icon" href="/favicon.ico" sizes="32x32">' in page
    assert 'type="image/svg+xml"' in page
