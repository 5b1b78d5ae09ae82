"""The installable app's files (mathmachine/web/pwa.py): the manifest, its icons, the service
worker's own headers, and the tags every page carries for them."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest
from django.contrib.staticfiles import finders
from django.test import Client

from mathmachine.web import pwa

pytestmark = pytest.mark.django_db

SECTION_1 = "/units/attention-and-transformers/1/"


def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", path
    return struct.unpack(">II", data[16:24])


def test_the_manifest_names_the_course_and_starts_at_your_learning(client: Client) -> None:
    response = client.get("/manifest.webmanifest")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/manifest+json"
    data = json.loads(response.content)
    assert data["name"] == "The Math Behind the Machine"
    assert 0 < len(data["short_name"]) <= 12
    assert data["start_url"] == data["id"] == "/your-learning/"
    assert data["scope"] == "/" and data["display"] == "standalone"
    assert data["theme_color"] == "#0b6e69" and data["background_color"] == "#fbfaf7"


def test_every_icon_is_a_png_of_the_size_it_says(client: Client) -> None:
    icons = json.loads(client.get("/manifest.webmanifest").content)["icons"]
    sizes = {(icon["sizes"], icon.get("purpose", "any")) for icon in icons}
    assert {("192x192", "any"), ("512x512", "any"), ("512x512", "maskable")} <= sizes
    for icon in icons:
        assert icon["type"] == "image/png"
        found = finders.find(icon["src"].removeprefix("/static/"))
        assert found, icon["src"]
        width, height = (int(n) for n in icon["sizes"].split("x"))
        assert _png_size(Path(found)) == (width, height)
        assert client.get(icon["src"]).status_code == 200


def test_the_worker_is_served_at_the_root_revalidated_every_time(client: Client) -> None:
    response = client.get("/sw.js")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/javascript")
    assert response["Cache-Control"] == "no-cache"
    text = response.content.decode("utf-8")
    config = json.loads(text.split("\n", 1)[0].removeprefix("const CONFIG = ").rstrip(";"))
    assert config["staticUrl"] == "/static/" and config["staticVersion"] >= 1
    assert "mm-kept:" in text and "X-MM-Owner" in text
    # Its own policy too: the worker may fetch only from this site.
    assert "connect-src 'self'" in response["Content-Security-Policy"]
    again = client.get("/sw.js", HTTP_IF_NONE_MATCH=response["ETag"])
    assert again.status_code == 304 and again["ETag"] == response["ETag"]
    assert client.post("/sw.js").status_code == 405


def test_the_worker_text_is_the_committed_source(client: Client) -> None:
    text = client.get("/sw.js").content.decode("utf-8")
    assert text.endswith(pwa.WORKER_SOURCE.read_text(encoding="utf-8"))


def test_every_page_links_the_manifest_the_worker_script_and_the_theme_colour(
    client: Client,
) -> None:
    for path in ("/", "/pricing/", SECTION_1, "/accounts/login/"):
        html = client.get(path).content.decode("utf-8")
        assert '<link rel="manifest" href="/manifest.webmanifest">' in html, path
        assert '<meta name="theme-color" content="#0b6e69">' in html, path
        assert 'src="/static/site/app.js"' in html and 'type="module"' in html, path
