"""A shared lab link in real Chromium at 360 px (issue 16): a buyer presses "Share link" in the
lab, and the link, opened signed out in a new browser, shows that one map (drawn on the server,
without JavaScript too) with the offer under it; signing in from it comes back to it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from .conftest import UNIT, playwright_api

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

OpenPage = Callable[..., Any]
PAGE = f"/units/{UNIT}/6/"
W = "#w7"
HINDI = "मैं चाय पीता हूँ"


def _status(page: Any, text: str) -> None:
    page.wait_for_function(
        "([sel, text]) => document.querySelector(sel).textContent.includes(text)",
        arg=[f"{W} [data-target~='status']", text],
        timeout=15000,
    )


def test_a_buyers_link_opens_for_a_friend_signed_out(open_page: OpenPage, axe: Any) -> None:
    expect = playwright_api.expect
    site = open_page(PAGE, buyer=True)
    page = site.page
    page.fill("#w7-text", HINDI)
    page.select_option("#w7-layer", "2")
    page.press("#w7-text", "Enter")
    _status(page, "Layer 2, head")
    page.click(f"{W} [data-target~='share']")
    box = page.locator("#w7-share-url")
    page.wait_for_function(
        "() => document.querySelector('#w7-share-url').value.includes('/lab/shared/')"
    )
    link = urlsplit(box.input_value())
    assert HINDI not in box.input_value()

    for js in (True, False):
        friend = open_page(None, js=js)
        friend.goto(link.path, upgraded=False)
        fp = friend.page
        expect(fp.get_by_role("heading", name="Who looks at whom", level=1)).to_be_visible()
        expect(fp.get_by_text(f"“{HINDI}”")).to_be_visible()
        assert fp.locator("main svg.wk-hm-svg rect[data-r]").count() == 11 * 11
        assert "##◌ा" in fp.locator("main code[lang='hi']").all_inner_texts()
        expect(fp.locator(".offer")).to_be_visible()
        assert friend.scroll_width() <= 360
        if js:
            assert axe(fp) == []
            fp.screenshot(path=str(Path("/tmp") / "shared-link-360.png"), full_page=True)
            # signing in from the friend's page comes back to it
            fp.get_by_role("link", name="Sign in", exact=True).click()
            assert "next=%2Funits%2F" in fp.url and "%2Flab%2Fshared%2F" in fp.url
