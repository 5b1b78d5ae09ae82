"""Shared lab links (issue 16): a buyer's lab makes a signed link to one map; anyone opens it
(signed out, not a buyer) and sees that map drawn on the server with the offer under it and a
preview picture; the map is computed once and kept (the public page never runs the model); a
hand-made or altered link opens nothing; the public page has its own rate limit."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.test import Client
from support import paid_order_create

from mathmachine.billing.models import Product
from mathmachine.engine import shares_rounded
from mathmachine.engine.pretrained import load_minilm
from mathmachine.learning import lab, shared
from mathmachine.learning.models import SharedMap

from .conftest import UNIT

pytestmark = pytest.mark.django_db
SHARE = f"/units/{UNIT}/lab/share/"
TEXT = "The animal didn't cross the street because it was too tired."


@pytest.fixture
def buyer() -> Client:
    user = get_user_model().objects.create_user("asha@example.com", "asha@example.com", "pw")
    paid_order_create(user, Product.objects.get(code="unit-18"))
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture(autouse=True)
def _fresh_cache() -> Any:
    cache.clear()
    yield
    cache.clear()


def _share(client: Client, **extra: str) -> Any:
    return client.post(SHARE, {"text": TEXT, "layer": "4", "head": "2", **extra})


def test_a_buyer_shares_and_anyone_opens_the_map(buyer: Client, monkeypatch: Any) -> None:
    made = _share(buyer)
    assert made.status_code == 200
    url = made.json()["url"]
    path = urlsplit(url).path
    assert path.startswith(f"/units/{UNIT}/lab/shared/") and TEXT not in url
    # the same map shared again is the same row and the same link
    assert _share(buyer).json()["url"] == url and SharedMap.objects.count() == 1
    # the public page never runs the model: it reads the kept row
    monkeypatch.setattr(lab, "lab_run", lambda *a: pytest.fail("ran the model"))
    page = Client().get(path)
    html = page.content.decode()
    assert page.status_code == 200 and "Who looks at whom" in html
    assert "The animal didn&#x27;t cross the street" in html or "didn't cross" in html
    run = load_minilm().run(TEXT)
    units = shares_rounded(run.attention[3, 1], 3)
    it, animal = run.tokens.index("it"), run.tokens.index("animal")
    assert units[it, animal] == 677  # the pronoun's row, as §6 prints it
    assert '<td class="wk-h' in html and html.count("<rect x=") == len(run.tokens) ** 2
    assert "Unlock Unit 18" in html and "Layer 4, head 2" in html
    for tag in ("og:title", "og:description", "og:image", "twitter:card"):
        assert f'property="{tag}"' in html or f'name="{tag}"' in html, tag
    image = re.search(r'property="og:image" content="([^"]+)"', html).group(1)
    png = Client().get(urlsplit(image).path)
    assert png.status_code == 200 and png["Content-Type"] == "image/png"
    assert png.content.startswith(b"\x89PNG\r\n\x1a\n") and b"IHDR" in png.content[:16]
    assert "public" in png["Cache-Control"]


def test_what_is_not_a_buyers_link_opens_nothing(buyer: Client) -> None:
    path = urlsplit(_share(buyer).json()["url"]).path
    token = path.rstrip("/").rsplit("/", 1)[1]
    public_id, signature = token.split(":")
    for bad in (public_id, f"{public_id}:{signature[:-1]}x", f"x{public_id}:{signature}",
                shared.signing.Signer(salt="other").sign(public_id), "a" * 200):  # fmt: skip
        got = Client().get(f"/units/{UNIT}/lab/shared/{bad}/")
        assert got.status_code == 404, bad
    # a signed id with no row (never shared): nothing either
    assert Client().get(f"/units/{UNIT}/lab/shared/{shared.sign('nothere')}/").status_code == 404


def test_only_a_learner_who_may_use_the_lab_can_share() -> None:
    assert _share(Client()).status_code == 403
    someone = Client()
    someone.force_login(get_user_model().objects.create_user("r@example.com", "r@example.com", "x"))
    assert _share(someone).status_code == 403 and SharedMap.objects.count() == 0
    assert Client().get(SHARE).status_code == 405


def test_bad_input_is_refused_in_words_and_keeps_nothing(buyer: Client) -> None:
    bad = _share(buyer, text="tea \U0001f375")
    assert bad.status_code == 400 and "emoji" in bad.json()["error"]
    assert _share(buyer, layer="9").json()["field"] == "layer"
    assert SharedMap.objects.count() == 0
    other_site = buyer.post(SHARE, {"text": TEXT, "layer": "1", "head": "1"},
                            HTTP_SEC_FETCH_SITE="cross-site")  # fmt: skip
    assert other_site.status_code == 403


def test_the_public_page_has_its_own_rate_limit(buyer: Client, monkeypatch: Any) -> None:
    path = urlsplit(_share(buyer).json()["url"]).path
    monkeypatch.setattr(shared, "PUBLIC_LIMIT", 3)
    friend = Client()
    assert [friend.get(path).status_code for _ in range(4)] == [200, 200, 200, 429]
