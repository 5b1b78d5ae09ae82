"""The installable app and its service worker in real Chromium (issue 19; docs/offline.md).

The manifest makes the site installable (Chromium's own installability check, over the DevTools
protocol: Lighthouse 12 no longer audits it); pages come from the network first; nothing the
server says not to store, and no account, order or admin page, is ever in a cache; and the
paywall holds on the phone: a kept locked section goes at sign-out, at the first online visit
after a refund, and when another learner signs in, and offline only the last learner's kept
copies open. A kept cache is seeded here from the page itself with the contract's names, as the
"Keep this unit on this phone" script does.

Offline is Playwright's ``context.set_offline(True)``: with Playwright 1.65 and Chromium it holds
for the worker's own fetches too (each offline page below is checked to be the worker's answer,
X-MM-Offline, or a kept copy: with the network still reachable the server would have answered).
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from django.conf import settings

from .conftest import _CHROMIUM, UNIT

playwright_api = pytest.importorskip("playwright.sync_api")

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

OpenPage = Callable[..., Any]
SECTION_2 = f"/units/{UNIT}/2/"
SECTION_3 = f"/units/{UNIT}/3/"
UNIT_PAGE = f"/units/{UNIT}/"
LOCKED = "This section is part of the paid unit"
NOT_KEPT = "is not kept on this phone"


def _buyer(email: str = "") -> tuple[Any, Any, str]:
    """A learner who bought Unit 18 through billing's own services (an order, then its captured
    test-mode payment, so that it can be refunded): (user, order, session cookie value)."""
    from django.contrib.auth import get_user_model
    from django.test import Client
    from support import bought_order_create

    from .conftest import _create_migration_data

    _create_migration_data()
    email = email or f"keeper-{uuid.uuid4().hex[:10]}@example.com"
    user = get_user_model().objects.create_user(email, email, "a long test password 42")
    order = bought_order_create(user)
    client = Client()
    client.force_login(user)
    return user, order, client.cookies[settings.SESSION_COOKIE_NAME].value


def _sign_in(site: Any, cookie: str) -> None:
    site.context.clear_cookies()
    site.context.add_cookies(
        [{"name": settings.SESSION_COOKIE_NAME, "value": cookie, "url": site.base_url}]
    )


def _controlled(site: Any, path: str) -> None:
    """Open ``path`` until the worker controls the page (the first page loads before it runs)."""
    site.goto(path)
    site.page.wait_for_function("() => navigator.serviceWorker.controller !== null")
    site.goto(path)  # now through the worker: its static files are kept as they load


def _cache_keys(site: Any) -> list[str]:
    return site.page.evaluate("() => caches.keys()")


def _every_entry(site: Any) -> list[dict[str, str]]:
    """Every entry of every cache of the origin: its cache, path, type and Cache-Control."""
    return site.page.evaluate(
        """async () => {
          const out = []
          for (const name of await caches.keys()) {
            const cache = await caches.open(name)
            for (const request of await cache.keys()) {
              const response = await cache.match(request, {ignoreVary: true})
              out.push({cache: name, path: new URL(request.url).pathname,
                        type: response.headers.get('Content-Type') || '',
                        control: response.headers.get('Cache-Control') || ''})
            }
          }
          return out
        }"""
    )


def _keep(site: Any, paths: list[str], owner: str | None = None) -> str:
    """Keep ``paths`` in the kept cache of Unit 18 (docs/offline.md's names), as the keep script
    does: fetched from the page with its cookie, then put under their paths, with the index
    entry. ``owner``: the page's own (its meta mm-owner) unless given. Returns the cache name."""
    return site.page.evaluate(
        """async ([unit, paths, owner]) => {
          owner = owner ?? document.querySelector('meta[name="mm-owner"]').content
          const name = `mm-kept:${owner}:${unit}`
          const cache = await caches.open(name)
          let bytes = 0
          for (const path of paths) {
            const response = await fetch(path, {credentials: 'same-origin'})
            if (!response.ok) throw new Error(path + ' ' + response.status)
            bytes += (await response.clone().arrayBuffer()).byteLength
            await cache.put(path, response)
          }
          const index = {version: 'test', bytes, urls: paths, kept_at: new Date().toISOString()}
          await cache.put(`/__mm__/kept/${unit}.json`, new Response(JSON.stringify(index),
            {headers: {'Content-Type': 'application/json'}}))
          return name
        }""",
        [UNIT, paths, owner],
    )


def _a_buyer_keeping_section_2(open_page: OpenPage) -> tuple[Any, Any, Any, str]:
    """A buyer signed in, the worker in control, the unit page and §2 kept:
    (user, order, site, the kept cache's name)."""
    user, order, cookie = _buyer()
    site = open_page()
    _sign_in(site, cookie)
    _controlled(site, SECTION_2)
    return user, order, site, _keep(site, [UNIT_PAGE, SECTION_2])


def _offline_goto(site: Any, path: str) -> Any:
    site.context.set_offline(True)
    try:
        response = site.page.goto(site.url(path))
    finally:
        site.context.set_offline(False)
    assert response is not None and response.status == 200, path
    return response


def _is_offline_page(site: Any, response: Any) -> bool:
    return response.headers.get("x-mm-offline") == "1" and NOT_KEPT in site.page.inner_text("main")


# Installable ----------------------------------------------------------------------------------


def test_the_site_is_an_installable_app_whose_worker_controls_every_page(
    chromium: Any, live_server: Any, tmp_path: Any
) -> None:
    """Chromium's installability check (Page.getInstallabilityErrors: what Lighthouse's
    installable-manifest audit read, before Lighthouse 12 dropped its PWA category) finds no
    error, in a persistent profile (an incognito context is refused as such), and what the
    other PWA audits of Lighthouse 11 asked holds: the theme colour in the manifest and the
    page, a 512 px icon and a maskable one for the splash screen, a worker controlling the
    page and the start URL in its scope."""
    from support import CHROMIUM, CHROMIUM_ARGS

    context = _CHROMIUM._playwright.chromium.launch_persistent_context(
        str(tmp_path / "profile"), executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
    )
    try:
        page = context.new_page()
        page.goto(live_server.url + "/")
        page.wait_for_function("() => navigator.serviceWorker.controller !== null")
        cdp = context.new_cdp_session(page)
        assert cdp.send("Page.getInstallabilityErrors") == {"installabilityErrors": []}
        found = cdp.send("Page.getAppManifest")
        assert found["errors"] == [] and found["url"].endswith("/manifest.webmanifest")
        manifest = json.loads(found["data"])
        theme = page.locator('meta[name="theme-color"]').get_attribute("content")
        assert manifest["theme_color"] == theme
        assert manifest["background_color"] and manifest["name"] and manifest["short_name"]
        assert {"512x512"} <= {i["sizes"] for i in manifest["icons"]}
        assert any(i.get("purpose") == "maskable" for i in manifest["icons"])
        scope = page.evaluate("async () => (await navigator.serviceWorker.ready).scope")
        assert scope == live_server.url + "/"
        assert (live_server.url + manifest["start_url"]).startswith(scope)
    finally:
        context.close()


# Online: the network first, nothing private stored --------------------------------------------


def test_online_every_page_is_the_servers_even_with_a_kept_copy(open_page: OpenPage) -> None:
    _, _, cookie = _buyer()
    site = open_page()
    _sign_in(site, cookie)
    _controlled(site, SECTION_2)
    name = _keep(site, [SECTION_2])
    # The kept copy is made stale by hand: online, the server's page is shown all the same.
    site.page.evaluate(
        """async ([name, path]) => (await caches.open(name)).put(path, new Response(
             '<!doctype html><title>stale</title><main>STALE COPY</main>',
             {headers: {'Content-Type': 'text/html'}}))""",
        [name, SECTION_2],
    )
    response = site.goto(SECTION_2)
    assert "STALE COPY" not in site.page.content()
    assert response.headers["x-mm-owner"] and LOCKED not in site.page.inner_text("main")
    # ... and the kept copy is the fresh page again (the worker refreshed what was kept).
    site.page.wait_for_function(
        """async ([name, path]) => !(await (await (await caches.open(name)).match(path,
             {ignoreVary: true})).text()).includes('STALE COPY')""",
        arg=[name, SECTION_2],
        polling=100,
    )


def test_no_private_or_no_store_response_is_ever_cached(open_page: OpenPage) -> None:
    """A buyer reads sections, answers a check (JSON), opens Your learning, the orders page
    and the lab's page: the only things in any cache are static files, the site's root files
    and fonts, none of them no-store, no JSON, no page."""
    _, _, cookie = _buyer()
    site = open_page()
    _sign_in(site, cookie)
    _controlled(site, f"/units/{UNIT}/1/")
    check = site.page.locator("#check-s1-count")
    check.get_by_label("Context vectors").fill("35")
    check.get_by_label("Numbers in the map").fill("1,050")
    check.get_by_role("button", name="Check my answer").click()
    site.page.locator("#check-s1-count .verdict-right").wait_for()
    for path in ("/", "/pricing/", UNIT_PAGE, SECTION_2, "/your-learning/", "/billing/orders/"):
        site.goto(path)
    site.goto(f"/units/{UNIT}/lab/", upgraded=False)
    entries = _every_entry(site)
    assert entries, "the static files were kept"
    assert {e["cache"] for e in entries} <= {"mm-static-v1", "mm-meta"}
    for entry in entries:
        assert "no-store" not in entry["control"], entry
        assert "json" not in entry["type"], entry
        assert "html" not in entry["type"], entry
        if entry["cache"] == "mm-static-v1":
            assert re.match(
                rf"^(/static/|/units/{UNIT}/fonts/|/favicon\.ico$|/manifest\.)", entry["path"]
            ), entry


# Offline: kept pages, the offline page ---------------------------------------------------------


def test_offline_a_kept_section_opens_and_a_page_not_kept_says_so(open_page: OpenPage) -> None:
    _, _, cookie = _buyer()
    site = open_page()
    _sign_in(site, cookie)
    _controlled(site, SECTION_2)
    site.goto(UNIT_PAGE)
    _keep(site, [UNIT_PAGE, SECTION_2])
    kept = _offline_goto(site, SECTION_2)
    assert kept.headers.get("x-mm-offline") is None and LOCKED not in site.page.inner_text("main")
    assert site.page.locator("h1").first.inner_text()  # the section itself, from the phone
    # A page not kept: the worker's offline page, with a link to what is kept.
    response = _offline_goto(site, "/pricing/")
    assert _is_offline_page(site, response)
    main = site.page.locator("main")
    assert main.get_by_role("link", name=re.compile("Attention")).count() >= 1
    links = main.locator("a").evaluate_all("as => as.map(a => a.getAttribute('href'))")
    assert SECTION_2 in links and UNIT_PAGE in links and SECTION_3 not in links
    site.context.set_offline(True)
    try:
        with site.page.expect_navigation():
            main.locator(f'a[href="{SECTION_2}"]').click()
        assert LOCKED not in site.page.inner_text("main")
        assert site.page.url.endswith(SECTION_2)
    finally:
        site.context.set_offline(False)


def test_offline_with_nothing_kept_the_page_says_how_to_keep_a_unit(open_page: OpenPage) -> None:
    site = open_page()
    _controlled(site, "/")
    response = _offline_goto(site, f"/units/{UNIT}/1/")
    assert _is_offline_page(site, response)
    assert "Nothing is kept on this phone yet" in site.page.inner_text("main")


# The paywall ------------------------------------------------------------------------------------


def test_signing_out_removes_every_kept_locked_page(open_page: OpenPage) -> None:
    _, _, site, _ = _a_buyer_keeping_section_2(open_page)
    # robots.txt in the browser's HTTP cache (an hour): Clear-Site-Data "cache" must empty it.
    cached = """async () => {
      try { return (await fetch('/robots.txt', {cache: 'only-if-cached', mode: 'same-origin'})).ok }
      catch (e) { return false } }"""
    site.allow(r"robots\.txt net::ERR_CACHE_MISS|Failed to load resource: net::ERR_CACHE_MISS")
    site.page.evaluate("() => fetch('/robots.txt')")
    assert site.page.evaluate(cached) is True
    assert any(k.startswith("mm-kept:") for k in _cache_keys(site))
    site.page.get_by_role("button", name="Sign out").click()
    site.page.wait_for_url(site.url("/"))
    site.page.wait_for_function(
        "async () => !(await caches.keys()).some(k => k.startsWith('mm-kept:'))", polling=100
    )
    assert site.page.evaluate(cached) is False  # Chromium honoured Clear-Site-Data: "cache"
    assert "mm-static-v1" in _cache_keys(site)  # ... and left the shared static files
    response = _offline_goto(site, SECTION_2)
    assert _is_offline_page(site, response)
    assert "Nothing is kept on this phone yet" in site.page.inner_text("main")


def test_a_refund_removes_the_kept_unit_at_the_next_online_visit(open_page: OpenPage) -> None:
    from mathmachine.billing import services

    user, order, site, name = _a_buyer_keeping_section_2(open_page)
    assert _offline_goto(site, SECTION_2).headers.get("x-mm-offline") is None  # kept, opens
    site.goto("/")  # online, still owned: the kept copy stays
    assert name in _cache_keys(site)
    services.refund_request(order=order, requested_by=user)  # test mode: processed at once
    order.refresh_from_db()
    assert order.state == "refunded"
    site.goto("/")  # one online visit, to any page
    site.page.wait_for_function(f"async () => !(await caches.keys()).includes('{name}')")
    assert _is_offline_page(site, _offline_goto(site, SECTION_2))


def test_another_learner_on_the_same_phone_never_sees_the_first_ones_kept_pages(
    open_page: OpenPage,
) -> None:
    _, _, asha = _buyer()
    _, _, ravi = _buyer()  # owns Unit 18 too: what he may keep is his own copy, not Asha's
    site = open_page()
    _sign_in(site, asha)
    _controlled(site, SECTION_2)
    name = _keep(site, [UNIT_PAGE, SECTION_2])
    _sign_in(site, ravi)
    site.goto("/")
    site.page.wait_for_function(f"async () => !(await caches.keys()).includes('{name}')")
    assert _is_offline_page(site, _offline_goto(site, SECTION_2))


def test_offline_only_the_last_learners_kept_copies_open(open_page: OpenPage) -> None:
    """A kept cache of someone else (named for another owner) is never served offline, even
    before the next online page deletes it."""
    _, _, cookie = _buyer()
    site = open_page()
    _sign_in(site, cookie)
    _controlled(site, SECTION_2)
    _keep(site, [SECTION_2], owner="0123456789abcdef0123")
    assert _is_offline_page(site, _offline_goto(site, SECTION_2))


# The lab offline ------------------------------------------------------------------------------


def test_the_lab_offline_says_it_needs_a_connection_and_shows_its_own_example(
    open_page: OpenPage,
) -> None:
    from support import unit18_examples

    example = unit18_examples()["attention_lab"]
    site = open_page(f"/units/{UNIT}/6/", buyer=True)
    site.allow(r"lab/attention/ net::ERR_INTERNET_DISCONNECTED|ERR_INTERNET_DISCONNECTED")
    page = site.page
    shown = page.locator('#w7 [data-target~="tokens"] li').all_inner_texts()
    page.select_option("#w7-layer", "3")
    page.fill("#w7-text", "She reads a book on the train.")
    site.context.set_offline(True)
    try:
        page.press("#w7-text", "Enter")
        error = page.locator("#w7-error")
        error.wait_for(state="visible", timeout=15000)
    finally:
        site.context.set_offline(False)
    message = error.inner_text()
    assert "The lab needs a connection" in message and example["sentence"] in message
    # The map is the section's own example again: its tokens, its layer and head.
    assert page.locator('#w7 [data-target~="tokens"] li').all_inner_texts() == shown
    assert page.input_value("#w7-layer") == str(example["layer"])
    assert page.input_value("#w7-head") == str(example["head"])
    assert page.locator("#w7-text").get_attribute("aria-invalid") is None
    assert page.input_value("#w7-text") == "She reads a book on the train."  # kept to try again
