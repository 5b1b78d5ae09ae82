"""The unit page's "Keep this unit on this phone" (issue 19; docs/offline.md), in real Chromium at
360 px: the size said before, progress while it downloads, the kept unit read offline (§2, §9
and §15 from the phone, their widgets computing), "Remove from this phone", an out-of-date copy
updated, a download cut halfway that keeps nothing (and leaves an older copy whole), and no
control for anyone but an owner.

Offline is Playwright's ``context.set_offline(True)`` (see test_offline_app.py: it holds for the
worker's own fetches). A cut download is made real: the server holds the requests for §9-§12
until the browser is offline, so the fetches after them fail as they would in a train.
"""

from __future__ import annotations

import dataclasses
import re
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from .conftest import UNIT, tab_to
from .test_offline_app import (
    _buyer,
    _cache_keys,
    _controlled,
    _is_offline_page,
    _offline_goto,
    _sign_in,
)

playwright_api = pytest.importorskip("playwright.sync_api")
expect = playwright_api.expect

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

OpenPage = Callable[..., Any]
UNIT_PAGE = f"/units/{UNIT}/"
KEEP_LIST = f"/units/{UNIT}/keep/"
CONTROL = "#keep-unit"
STATE = '#keep-unit [data-keep="state"]'
COUNT = '#keep-unit [data-keep="count"]'


def section(n: int) -> str:
    return f"/units/{UNIT}/{n}/"


def _owner_on_the_unit_page(open_page: OpenPage, **kwargs: Any) -> Any:
    """A buyer signed in, the worker in control, on the unit page with the control drawn."""
    _, _, cookie = _buyer()
    site = open_page(**kwargs)
    _sign_in(site, cookie)
    _controlled(site, UNIT_PAGE)
    _drawn(site)
    return site


def _drawn(site: Any) -> None:
    """The control has read what is kept and what the server says (its first text replaced)."""
    site.page.wait_for_function(
        """(sel) => { const s = document.querySelector(sel)
          return s && !s.closest('[hidden]') && !s.textContent.startsWith('Finding') }""",
        arg=STATE,
    )


def _keep_list(site: Any) -> dict[str, Any]:
    return site.page.evaluate(
        "async (url) => (await fetch(url, {credentials: 'same-origin'})).json()", KEEP_LIST
    )


def _says_about(state: str, size: int) -> bool:
    """Whether ``state`` says "about N KB" for ``size`` bytes. The page asked for its own keep
    list, whose pages carry their own CSRF tokens and nonces: their compressed size differs
    from this one's by some bytes, which may round to the next KB."""
    found = re.search(r"about (\d+) KB", state)
    return found is not None and abs(int(found.group(1)) * 1000 - size) <= 1000


def _owner_key(site: Any) -> str:
    return site.page.locator('meta[name="mm-owner"]').get_attribute("content")


def _kept(site: Any) -> dict[str, Any] | None:
    """The kept cache of Unit 18 for this page's owner: its index entry and every path in it."""
    return site.page.evaluate(
        """async ([owner, unit]) => {
          const name = `mm-kept:${owner}:${unit}`
          if (!(await caches.has(name))) return null
          const cache = await caches.open(name)
          const entry = await cache.match(`/__mm__/kept/${unit}.json`)
          const paths = (await cache.keys()).map(r => new URL(r.url).pathname)
          return {index: entry ? await entry.json() : null, paths}
        }""",
        [_owner_key(site), UNIT],
    )


def _record_progress(site: Any) -> None:
    """Record every value the progress bar and its live text take (window.__keeping)."""
    site.page.evaluate(
        """() => {
          window.__keeping = []
          const root = document.getElementById('keep-unit')
          const bar = root.querySelector('[data-keep="progress"]')
          const count = root.querySelector('[data-keep="count"]')
          new MutationObserver(() => window.__keeping.push(
            {value: bar.value, max: bar.max, hidden: bar.hidden, text: count.textContent}
          )).observe(root, {subtree: true, attributes: true, childList: true,
                            characterData: true})
        }"""
    )


def _press_keep(site: Any, name: str) -> None:
    """Reach the control's button by Tab and press it with Enter."""
    tab_to(site.page, f'#keep-unit button[data-keep="{name}"]')
    site.page.keyboard.press("Enter")


def _outcome(site: Any, outcome: str) -> None:
    site.page.locator(f'{CONTROL}[data-outcome="{outcome}"]').wait_for(state="attached")
    _drawn(site)


def _keep_it(site: Any) -> dict[str, Any]:
    _press_keep(site, "keep")
    _outcome(site, "kept")
    kept = _kept(site)
    assert kept is not None and kept["index"] is not None
    return kept


@pytest.fixture
def keep_list_version(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[str], None]]:
    """``keep_list_version("…")``: from now on the server's keep list says the unit is at that
    version (as after a change of a section or a widget); the live server runs in this process."""
    from mathmachine.learning import keeping

    made = keeping.unit_keep_list

    def change(version: str) -> None:
        def changed(**kwargs: Any) -> Any:
            return dataclasses.replace(made(**kwargs), version=version)

        monkeypatch.setattr(keeping, "unit_keep_list", changed)

    yield change


@pytest.fixture
def held_sections(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """Once ``.arm()``-ed, the server holds every request for §9-§12 (the pages, not the keep
    list's own renders) until ``.release()``; ``.reached`` is set by the first one held."""
    from mathmachine.learning import views

    original = views._section_page

    class Held:
        armed = threading.Event()
        reached = threading.Event()
        go = threading.Event()

        def arm(self) -> None:
            self.armed.set()

        def release(self) -> None:
            self.go.set()

    held = Held()

    def holding(request: Any, published: Any, unit: Any, section: Any, *a: Any, **k: Any) -> Any:
        if (
            held.armed.is_set()
            and 9 <= section.number <= 12
            and request.path.endswith(f"/{section.number}/")
        ):
            held.reached.set()
            held.go.wait(timeout=20)
        return original(request, published, unit, section, *a, **k)

    monkeypatch.setattr(views, "_section_page", holding)
    yield held
    held.release()


def _cut_while_keeping(site: Any, held: Any, button: str) -> None:
    """Press ``button`` (keep or update), go offline while §9-§12 are held, let them go: the
    fetches after them fail; wait until the control says so."""
    site.allow(r"ERR_INTERNET_DISCONNECTED|Failed to load resource")
    held.arm()
    _press_keep(site, button)
    assert held.reached.wait(timeout=20), "the download never reached §9"
    site.context.set_offline(True)
    held.release()
    try:
        _outcome(site, "failed")
    finally:
        site.context.set_offline(False)


# Keeping, then reading offline -----------------------------------------------------------------


# Whether each <image> matched has its picture: the page asks for its file as the image did
# (offline, the worker answers from the phone's copy) and gets the SVG.
_PICTURE_DRAWN = """async (sel) => Promise.all(
  [...document.querySelectorAll(sel)].map(async (im) => {
    const r = await fetch(new URL(im.href.baseVal, location.href))
    return r.ok && (await r.text()).startsWith('<svg')
  }))"""


def test_an_owner_keeps_the_unit_with_its_size_and_progress_then_reads_it_offline(
    open_page: OpenPage, axe: Callable[..., list[dict[str, Any]]]
) -> None:
    site = _owner_on_the_unit_page(open_page, reduced_motion="reduce")
    page = site.page
    listed = _keep_list(site)
    total = len(listed["urls"])
    assert total > 60 and listed["bytes"] > 100_000
    # Before: the size, from the keep list; one button; axe clean, nothing wider than 360 px.
    state = page.locator(STATE).inner_text()
    assert _says_about(state, listed["bytes"]) and f"{total} files" in state
    keep = page.get_by_role("button", name="Keep this unit on this phone")
    expect(keep).to_be_visible()
    expect(page.get_by_role("button", name="Remove from this phone")).to_be_hidden()
    assert axe(page, CONTROL) == []
    assert site.scroll_width() <= 360

    _record_progress(site)
    kept = _keep_it(site)
    # Progress: an accessible <progress> and its live text counted every file up to the total.
    seen = page.evaluate("window.__keeping")
    shown = [s for s in seen if not s["hidden"] and s["text"]]
    assert shown, seen
    assert {s["max"] for s in shown} == {total}
    values = [s["value"] for s in shown]
    assert values == sorted(values) and values[-1] == total and len(set(values)) > 5
    # ... each text saying the bar's own value, some of them on the way.
    assert all(s["text"] == f"{int(s['value'])} of {total} files" for s in shown)
    assert any(0 < s["value"] < total for s in shown)
    assert page.locator(COUNT).get_attribute("role") == "status"
    expect(page.locator('#keep-unit [data-keep="progress"]')).to_be_hidden()  # done

    # Kept: every listed file under its path, the index entry last, no staging cache left.
    assert set(listed["urls"]) <= set(kept["paths"])
    index = kept["index"]
    assert index["version"] == listed["version"]
    # The pages' gzipped size moves by a few bytes from one render to the next (nonces, tokens).
    assert index["bytes"] == pytest.approx(listed["bytes"], rel=0.01)
    assert index["urls"] == listed["urls"] and index["kept_at"]
    assert not any(k.startswith("mm-keeping:") for k in _cache_keys(site))
    assert "Kept on this phone on" in page.locator(STATE).inner_text()
    expect(page.get_by_role("button", name="Remove from this phone")).to_be_visible()
    expect(keep).to_be_hidden()
    assert page.evaluate("document.activeElement?.dataset.keep") == "state"  # focus on the news
    assert page.evaluate("document.getAnimations().length") == 0  # reduced motion: none ran
    assert axe(page, CONTROL) == []
    assert site.scroll_width() <= 360

    site.context.set_offline(True)
    try:
        # §2: the soft dictionary computes from the phone's copy of its scripts.
        response = site.goto(section(2))
        assert response.headers.get("x-mm-offline") is None
        sd = "soft-dictionary"
        answer = page.locator(f'{sd} [data-target~="answer"]').first
        before = answer.text_content()
        tab_to(page, f'{sd} [data-target~="x"]')
        for _ in range(10):
            page.keyboard.press("ArrowLeft")
        assert answer.text_content() != before
        # §9: "Inside one block" steps through its stages.
        response = site.goto(section(9))
        assert response.headers.get("x-mm-offline") is None
        nums = 'inside-block [data-target="num"]'
        before_nums = page.locator(nums).all_text_contents()
        tab_to(page, 'inside-block [data-target="stage"]')
        page.keyboard.press("ArrowRight")
        assert page.locator(nums).all_text_contents() != before_nums
        # §15, the arena: its sixteen problems and their hints (no widget of its own: its
        # answers are checked by the server).
        response = site.goto(section(15))
        assert response.headers.get("x-mm-offline") is None
        assert "Practice arena" in page.locator("h1").first.inner_text()
        assert page.locator("form.check-form").count() >= 16
        hint = page.locator("details.check-hint").first
        hint.locator(":scope > summary").focus()
        page.keyboard.press("Enter")
        assert hint.evaluate("d => d.open") is True
        # §8's map drawn from its picture file, and its numbers' page of its own, from the phone.
        response = site.goto(section(8))
        assert response.headers.get("x-mm-offline") is None
        drawn = page.evaluate(_PICTURE_DRAWN, "sinusoidal-clock svg.wk-hm-svg image")
        assert drawn == [True]
        response = site.goto(section(8) + "numbers/", upgraded=False)
        assert response.headers.get("x-mm-offline") is None
        assert page.locator("table tbody tr").count() == 16
        # §6, the lab, from the phone: the section's own example map is there to read.
        response = site.goto(section(6))
        assert response.headers.get("x-mm-offline") is None
        assert page.locator('attention-lab [data-target~="tokens"] li').count() > 0
        # The unit page itself, from the phone: it says it is kept, and that this is offline.
        site.goto(UNIT_PAGE)
        _drawn(site)
        state = page.locator(STATE).inner_text()
        assert "Kept on this phone on" in state and "You are offline" in state
    finally:
        site.context.set_offline(False)
    # Online again, the control asks the server afresh (and finds the copy current).
    expect(page.locator(STATE)).to_contain_text("opens from this phone when there is no connection")


def test_remove_from_this_phone_frees_it(open_page: OpenPage) -> None:
    site = _owner_on_the_unit_page(open_page)
    name = f"mm-kept:{_owner_key(site)}:{UNIT}"
    _keep_it(site)
    assert name in _cache_keys(site)
    _press_keep(site, "remove")
    _outcome(site, "removed")
    assert name not in _cache_keys(site)
    assert not any(k.startswith(("mm-kept:", "mm-keeping:")) for k in _cache_keys(site))
    state = site.page.locator(STATE).inner_text()
    assert state.startswith("Removed from this phone.") and "about" in state
    expect(site.page.get_by_role("button", name="Keep this unit on this phone")).to_be_visible()
    assert _is_offline_page(site, _offline_goto(site, section(2)))
    assert "Nothing is kept on this phone yet" in site.page.inner_text("main")
    assert "Keep this unit on this phone" in site.page.inner_text("main")  # how to keep one


def test_a_kept_copy_of_an_older_version_says_so_and_updates(
    open_page: OpenPage, keep_list_version: Callable[[str], None]
) -> None:
    site = _owner_on_the_unit_page(open_page)
    first = _keep_it(site)["index"]
    keep_list_version("0123456789abcdef0123")  # the unit changed on the server
    site.goto(UNIT_PAGE)
    _drawn(site)
    state = site.page.locator(STATE).inner_text()
    assert "out of date" in state and "Kept on this phone on" not in state
    expect(site.page.get_by_role("button", name="Update")).to_be_visible()
    expect(site.page.get_by_role("button", name="Remove from this phone")).to_be_visible()
    _press_keep(site, "update")
    _outcome(site, "kept")
    index = _kept(site)["index"]
    assert index["version"] == "0123456789abcdef0123" != first["version"]
    assert index["kept_at"] >= first["kept_at"]
    state = site.page.locator(STATE).inner_text()
    assert state.startswith("Updated.") and "Kept on this phone on" in state
    expect(site.page.get_by_role("button", name="Update")).to_be_hidden()


# A download cut halfway ----------------------------------------------------------------------


def test_a_download_cut_halfway_keeps_nothing_and_says_so(
    open_page: OpenPage, held_sections: Any
) -> None:
    site = _owner_on_the_unit_page(open_page)
    _cut_while_keeping(site, held_sections, "keep")
    state = site.page.locator(STATE).inner_text()
    assert "keeping stopped, and nothing was kept on this phone" in state, state
    assert not any(k.startswith(("mm-kept:", "mm-keeping:")) for k in _cache_keys(site))
    # Offline, nothing of it opens: the worker's offline page.
    assert _is_offline_page(site, _offline_goto(site, section(2)))
    # Online again, the control offers to keep it.
    site.goto(UNIT_PAGE)
    _drawn(site)
    expect(site.page.get_by_role("button", name="Keep this unit on this phone")).to_be_visible()


def test_an_update_cut_halfway_leaves_the_older_copy_whole(
    open_page: OpenPage, held_sections: Any, keep_list_version: Callable[[str], None]
) -> None:
    site = _owner_on_the_unit_page(open_page)
    first = _keep_it(site)
    keep_list_version("fedcba9876543210fedc")
    site.goto(UNIT_PAGE)
    _drawn(site)
    _cut_while_keeping(site, held_sections, "update")
    state = site.page.locator(STATE).inner_text()
    assert "the update stopped" in state and "older copy is still on this phone" in state, state
    after = _kept(site)
    assert after is not None and after["index"] == first["index"]
    assert sorted(after["paths"]) == sorted(first["paths"])
    assert not any(k.startswith("mm-keeping:") for k in _cache_keys(site))
    site.context.set_offline(True)
    try:
        response = site.page.goto(site.url(section(9)))
        assert response is not None and response.headers.get("x-mm-offline") is None
        assert "section-body" in site.page.content()
    finally:
        site.context.set_offline(False)


# Who sees it ------------------------------------------------------------------------------------


def test_nobody_but_an_owner_sees_the_control(open_page: OpenPage) -> None:
    from django.contrib.auth import get_user_model
    from django.test import Client

    visitor = open_page(UNIT_PAGE)
    assert visitor.page.locator(CONTROL).count() == 0
    assert "keep-unit.js" not in visitor.page.content()
    email = "reader-not-owner@example.com"
    user = get_user_model().objects.create_user(email, email, "a long test password 42")
    client = Client()
    client.force_login(user)
    from django.conf import settings

    reader = open_page()
    _sign_in(reader, client.cookies[settings.SESSION_COOKIE_NAME].value)
    reader.goto(UNIT_PAGE)
    assert reader.page.locator(CONTROL).count() == 0
    assert "Keep this unit" not in reader.page.inner_text("main")


def test_without_javascript_an_owner_is_told_keeping_needs_it(open_page: OpenPage) -> None:
    site = open_page(UNIT_PAGE, js=False, buyer=True)
    main = site.page.locator("main")
    assert "needs JavaScript" in main.inner_text()
    assert site.page.locator("#keep-unit button:visible").count() == 0
    assert site.scroll_width() <= 360


# The worker's side of it ------------------------------------------------------------------------


def test_a_copy_left_unfinished_is_never_served_and_staging_caches_follow_the_paywall(
    open_page: OpenPage,
) -> None:
    """A kept cache without its index entry (the page closed while it was copied) is not
    served offline, and the unit page deletes it; a staging cache of another learner goes at
    the next page, as their kept caches do."""
    site = _owner_on_the_unit_page(open_page)
    owner = _owner_key(site)
    name = f"mm-kept:{owner}:{UNIT}"
    other = f"mm-keeping:0123456789abcdef0123:{UNIT}"
    site.goto(section(1))  # a page without the control, which would delete it at once
    site.page.evaluate(
        """async ([name, other, path]) => {
          const response = await fetch(path, {credentials: 'same-origin'})
          await (await caches.open(name)).put(path, response.clone())
          await (await caches.open(other)).put(path, response)
        }""",
        [name, other, section(2)],
    )
    assert _is_offline_page(site, _offline_goto(site, section(2)))
    site.goto(UNIT_PAGE)
    _drawn(site)
    keys = _cache_keys(site)
    assert other not in keys and name not in keys
    expect(site.page.get_by_role("button", name="Keep this unit on this phone")).to_be_visible()
