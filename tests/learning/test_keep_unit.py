""" "Keep this unit on this phone" (issue 19): the owner's list of what to store
(``GET /units/<slug>/keep/``, learning/keeping.py). Every address it gives answers the owner;
nobody else gets a list; the list is derived from the compiled unit and the static files."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from support import bought_order_create as _buy

from mathmachine.billing import services as billing
from mathmachine.billing.models import Order
from mathmachine.coursebook.model import CompiledUnit
from mathmachine.learning import keeping

UNIT = "attention-and-transformers"
KEEP = f"/units/{UNIT}/keep/"
WHOLE_DEVANAGARI = "/static/site/fonts/noto-sans-devanagari-subset.woff2"


def _user(email: str) -> Any:
    return get_user_model().objects.create_user(
        username=email, email=email, password="a long test password 42"
    )


def _client(user: Any | None) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def _owner(db: None) -> tuple[Any, Client]:
    """A learner who bought Unit 18 through billing's services, signed in."""
    user = _user("owner@example.com")
    _buy(user)
    return user, _client(user)


@pytest.fixture
def kept(db: None) -> tuple[Client, dict[str, Any]]:
    _, client = _owner(db)
    response = client.get(KEEP)
    assert response.status_code == 200, response.content
    return client, response.json()


def test_every_address_answers_the_owner(kept: tuple[Client, dict[str, Any]]) -> None:
    client, body = kept
    assert body["unit"] == UNIT
    assert body["files"] == len(body["urls"]) == len(set(body["urls"]))
    for url in body["urls"]:
        response = client.get(url)
        assert response.status_code == 200, url


def test_it_lists_every_page_and_what_each_loads(
    kept: tuple[Client, dict[str, Any]], unit18: CompiledUnit
) -> None:
    """The unit page, every published section (the arena among them), and every file those
    pages load as the owner is served them: nothing a page asks for is missing offline."""
    client, body = kept
    urls = set(body["urls"])
    pages = [f"/units/{UNIT}/"] + [
        f"/units/{UNIT}/{s.number}/" for s in unit18.sections if s.published
    ]
    assert body["urls"][: len(pages)] == pages
    assert f"/units/{UNIT}/15/" in pages
    for path in pages:
        html = client.get(path).content.decode()
        for ref in keeping.page_references(html):
            if ref.startswith("/") and not ref.startswith("//"):
                assert ref in urls, (path, ref)


def test_static_files_weigh_what_travels(kept: tuple[Client, dict[str, Any]]) -> None:
    """The size said before keeping is the compressed size: less than the files' own bytes,
    and the pages' share is what the site sends a browser that accepts brotli, page by page
    (the long ones as brotli, the others gzipped: web/compression.py), within what a CSRF
    token, a nonce and the random padding against BREACH change."""
    client, body = kept
    by_kind = body["by_kind"]
    assert set(by_kind) >= {"html", "scripts", "styles", "fonts", "data"}
    assert sum(k["bytes"] for k in by_kind.values()) == body["bytes"]
    assert sum(k["files"] for k in by_kind.values()) == body["files"]
    pages = [u for u in body["urls"] if not u.startswith("/static/") and "/fonts/" not in u]
    pages = [u for u in pages if u.endswith("/")]
    assert by_kind["html"]["files"] == len(pages)
    sent = {}
    for url in pages:
        response = client.get(url, HTTP_ACCEPT_ENCODING="br, gzip")
        assert response["Content-Encoding"] in ("br", "gzip"), url
        sent[url] = len(response.content)
    assert "br" in {
        client.get(u, HTTP_ACCEPT_ENCODING="br, gzip")["Content-Encoding"] for u in pages
    }
    estimate = dict(zip(body["urls"], body["sizes"], strict=True))
    for url, size in sent.items():
        assert abs(estimate[url] - size) < 120, (url, estimate[url], size)
    # a state file weighs what the server sends (brotli)
    for url in body["urls"]:
        if "/data/" in url:
            response = client.get(url, HTTP_ACCEPT_ENCODING="br, gzip")
            assert response["Content-Encoding"] == "br"
            assert estimate[url] == len(response.content), url
    raw = 0
    for url in body["urls"]:
        if url.startswith("/static/"):
            response = client.get(url)
            raw += len(b"".join(response.streaming_content))
    static_wire = sum(by_kind[k]["bytes"] for k in ("scripts", "styles"))
    assert 0 < static_wire < raw


@pytest.mark.parametrize("who", ["anonymous", "another learner", "refunded buyer"])
def test_nobody_but_an_owner_gets_a_list(db: None, who: str) -> None:
    if who == "anonymous":
        client = _client(None)
    elif who == "another learner":
        _owner(db)
        client = _client(_user("other@example.com"))
    else:
        user = _user("refunded@example.com")
        order = _buy(user)
        billing.refund_request(order=order, requested_by=user)
        order.refresh_from_db()
        assert order.state == Order.State.REFUNDED
        client = _client(user)
    response = client.get(KEEP)
    assert response.status_code == 403
    body = response.json()
    assert set(body) == {"error"}
    assert "Unit 18" in body["error"]
    assert "Sign in" in body["error"] if who == "anonymous" else "owns" in body["error"]
    assert (
        response["Cache-Control"] == "private, no-store" or "no-store" in response["Cache-Control"]
    )


def test_a_bundle_owner_may_keep_it(db: None) -> None:
    user = _user("bundle@example.com")
    _buy(user, "all-paid-units")
    assert _client(user).get(KEEP).status_code == 200


def test_an_unknown_unit_is_a_404_in_json(db: None) -> None:
    _, client = _owner(db)
    response = client.get("/units/no-such-unit/keep/")
    assert response.status_code == 404
    assert response.json() == {"error": "There is no such unit."}
    assert client.post(KEEP).status_code == 405


def test_the_version_follows_the_content_and_every_asset(
    kept: tuple[Client, dict[str, Any]], unit18: CompiledUnit, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The version changes when the compiled unit changes (source_hash) and when any listed
    file's bytes change (a widget's script, imported by another), not otherwise."""
    client, body = kept
    assert client.get(KEEP).json()["version"] == body["version"]
    original = keeping._static_asset

    def changed(name: str) -> Any:
        asset = original(name)
        if asset is not None and name.endswith("mask-math.js"):
            asset = keeping._Asset(asset.data + b"\n// changed\n", asset.wire)
        return asset

    monkeypatch.setattr(keeping, "_static_asset", changed)
    assert client.get(KEEP).json()["version"] != body["version"]
    monkeypatch.setattr(keeping, "_static_asset", original)
    assert client.get(KEEP).json()["version"] == body["version"]
    other = keeping.keep_list(
        unit=dataclasses.replace(unit18, source_hash=unit18.source_hash + "x"), pages={}
    )
    same = keeping.keep_list(unit=unit18, pages={})
    assert other.version != same.version


def test_a_new_asset_is_kept_without_editing_a_list(unit18: CompiledUnit) -> None:
    """What a section declares, and what its files import, is listed: a section given one
    more stylesheet (one that pulls in a font by url()) is kept with both."""
    first = next(s for s in unit18.sections if s.published)
    more = dataclasses.replace(first, styles=(*first.styles, "widgets/attention-lab.css"))
    unit = dataclasses.replace(
        unit18, sections=(more, *unit18.sections[1:]), source_hash="new-asset"
    )
    # a page printing Devanagari no cut maps needs the whole font: the lab's stylesheet names it
    hindi = {f"/units/{UNIT}/": "<p lang=hi>चाय</p>".encode()}
    urls = keeping.keep_list(unit=unit, pages=hindi).urls
    assert "/static/widgets/attention-lab.css" in urls
    assert WHOLE_DEVANAGARI in urls
    before = keeping.keep_list(unit=unit18, pages=hindi).urls
    assert "/static/widgets/attention-lab.css" in before  # §6 declares it
    assert len(urls) == len(before)


def test_page_references_reads_what_pages_load() -> None:
    html = (
        '<link rel="stylesheet" href="/static/a.css"><link rel=icon href=/favicon.ico>'
        '<script type="module" src="/static/b.js?x=1&amp;y=2" nonce="n"></script>'
        '<a href="/units/x/2/">not a load</a><img alt="" src=\'/static/c.svg\'>'
        '<style nonce="n">@font-face{src:url("/units/x/fonts/f.woff2") format("woff2")}</style>'
    )
    assert keeping.page_references(html) == [
        "/static/a.css",
        "/favicon.ico",
        "/static/b.js?x=1&y=2",
        "/static/c.svg",
        "/units/x/fonts/f.woff2",
    ]


def test_the_unit_page_has_the_keep_control_for_an_owner_only(db: None) -> None:
    """The control and its script are on an owner's unit page (which the keep list itself
    lists, so the kept unit page keeps its control); a visitor or another learner gets
    neither."""
    _, owner = _owner(db)
    page = owner.get(f"/units/{UNIT}/").content.decode()
    assert 'id="keep-unit"' in page and f'data-list="{KEEP}"' in page
    assert "/static/site/keep-unit.js" in page
    assert "needs JavaScript" in page  # its <noscript>
    assert "/static/site/keep-unit.js" in owner.get(KEEP).json()["urls"]
    for client in (_client(None), _client(_user("reader@example.com"))):
        other = client.get(f"/units/{UNIT}/").content.decode()
        assert 'id="keep-unit"' not in other and "keep-unit.js" not in other


def test_a_page_fetched_to_be_kept_is_no_visit(db: None) -> None:
    """Keeping fetches every section with X-MM-Keeping: 1: no section visit is recorded (the
    sections the learner reached, and so where "Continue" goes, stay theirs); a read without it
    is one."""
    from mathmachine.learning.models import SectionVisit

    user, client = _owner(db)
    client.get(f"/units/{UNIT}/3/")
    for number in (4, 9, 15):
        response = client.get(f"/units/{UNIT}/{number}/", HTTP_X_MM_KEEPING="1")
        assert response.status_code == 200 and b'class="section-body"' in response.content
    visits = SectionVisit.objects.filter(user=user, unit_slug=UNIT)
    assert sorted(v.section_number for v in visits) == [3]


def test_the_whole_devanagari_font_is_kept_only_for_a_page_that_needs_it(
    kept: tuple[Client, dict[str, Any]], unit18: CompiledUnit
) -> None:
    """site.css and the lab's stylesheet name the whole Devanagari font, but every kept page
    that prints Devanagari has its own cut, which maps every character it prints: the whole font
    is not kept (the lab, which fetches it for typed Hindi, does not work offline). A page whose
    Devanagari no cut of its own maps (here: the unit page printing a Hindi word) brings it."""
    _, body = kept
    assert WHOLE_DEVANAGARI not in body["urls"]
    for s in unit18.sections:
        if s.published and s.devanagari_font:
            assert f"/units/{UNIT}/fonts/{s.devanagari_font}" in body["urls"]
    pages = {f"/units/{UNIT}/": "<p lang=hi>चाय</p>".encode()}
    assert WHOLE_DEVANAGARI in keeping.keep_list(unit=unit18, pages=pages).urls
    assert WHOLE_DEVANAGARI not in keeping.keep_list(unit=unit18, pages={}).urls


def test_the_widgets_state_files_are_kept(
    kept: tuple[Client, dict[str, Any]], unit18: CompiledUnit
) -> None:
    """Every state file of a published section (coursebook/state_files.py) is listed, and each
    section's cut of the math fences font."""
    _, body = kept
    published = {s.number for s in unit18.sections if s.published}
    names = [n for n, number in unit18.state_file_sections.items() if number in published]
    assert names, "no widget's state is a file of its own"
    for name in names:
        assert f"/units/{UNIT}/data/{name}" in body["urls"]
    for s in unit18.sections:
        if s.published and s.math_font:
            assert f"/units/{UNIT}/fonts/{s.math_font}" in body["urls"]
