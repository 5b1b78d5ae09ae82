"""A widget's large state as a file of its own, in real Chromium (issue 19, coursebook/
state_files.py): §13's two widgets and §9's block fetch their state only when they come near the
screen, show their fallback until then, and upgrade with it, every number the file's; a repeat
visit takes the file from the browser's cache; a state that cannot be fetched leaves the
fallback in place, and the widget upgrades once the file can be fetched."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from mathmachine.coursebook import load_unit

from .conftest import UNIT

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

OpenPage = Callable[..., Any]
DRAFTS = {d.number for d in load_unit(UNIT).drafts}

_LAZY = """() => [...document.querySelectorAll('[data-kit]')]
  .filter((w) => w.querySelector(':scope > script[data-src]'))
  .map((w) => [w.id, w.hasAttribute('data-upgraded')])"""


def _data_requests(page: Any) -> list[str]:
    """The states fetched (a picture, <hash>.svg, is an image the page draws at once)."""
    names = page.evaluate("performance.getEntriesByType('resource').map(e => e.name)")
    return [u for u in names if f"/units/{UNIT}/data/" in u and u.endswith(".json")]


@pytest.mark.parametrize("number", [9, 13])
def test_a_large_state_is_fetched_when_its_widget_comes_near(
    open_page: OpenPage, number: int
) -> None:
    draft = number in DRAFTS
    site = open_page(buyer=not draft, staff=draft)
    page = site.page
    site.goto(f"/units/{UNIT}/{number}/", upgraded=False)
    page.wait_for_load_state("networkidle")
    lazy = page.evaluate(_LAZY)
    assert lazy, f"§{number} has no widget whose state is a file"
    # at the top of the page, far from the widgets: nothing fetched, the fallback shown
    assert _data_requests(page) == []
    assert all(not upgraded for _, upgraded in lazy), lazy
    for uid, _ in lazy:
        fallback = page.locator(f"#{uid} [data-nojs]").first
        assert fallback.count() == 0 or fallback.is_visible()
    # scrolled to: fetched, upgraded
    for uid, _ in lazy:
        page.locator(f"#{uid}").scroll_into_view_if_needed()
        page.wait_for_selector(f"#{uid}[data-upgraded]")
        assert page.locator(f"#{uid} [data-nojs]").evaluate_all("els => els.every(e => e.hidden)")
    fetched = _data_requests(page)
    assert len(fetched) == len({u for u in fetched}) == len(lazy)
    # the state is the file's: the element's state is the JSON the server sends for it
    for uid, _ in lazy:
        src = page.evaluate(
            f"new URL(document.querySelector('#{uid} > script[data-src]').dataset.src,"
            " document.baseURI).href"
        )
        same = page.evaluate(
            "async ([uid, src]) => JSON.stringify(document.getElementById(uid).state) === "
            "JSON.stringify(await (await fetch(src)).json())",
            [uid, src],
        )
        assert same, uid
    # a repeat visit: the files come from the browser's cache
    site.goto(f"/units/{UNIT}/{number}/")  # brings each widget near (conftest), so it upgrades
    served = page.evaluate(
        "performance.getEntriesByType('resource').filter(e => e.name.includes('/data/'))"
        ".map(e => e.transferSize)"
    )
    assert served and all(size == 0 for size in served), served


def test_a_state_that_cannot_be_fetched_leaves_the_fallback(open_page: OpenPage) -> None:
    draft = 13 in DRAFTS
    site = open_page(buyer=not draft, staff=draft)
    page = site.page
    failing = {"on": True}

    def route(r: Any) -> None:
        if failing["on"]:
            r.abort()
        else:
            r.continue_()

    site.context.route("**/data/*.json", route)
    site.allow(r"request failed: GET .*/data/")
    site.allow(r"console.error: Failed to load resource: net::ERR_FAILED")
    site.goto(f"/units/{UNIT}/13/", upgraded=False)
    uid = page.evaluate(_LAZY)[0][0]
    widget = page.locator(f"#{uid}")
    widget.scroll_into_view_if_needed()
    page.wait_for_timeout(500)
    assert widget.get_attribute("data-upgraded") is None
    assert page.locator(f"#{uid} [data-nojs]").first.is_visible()
    # once the file can be fetched, touching the widget upgrades it
    failing["on"] = False
    widget.hover()
    page.wait_for_selector(f"#{uid}[data-upgraded]")
