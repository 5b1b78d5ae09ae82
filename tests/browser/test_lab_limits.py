"""The lab's rate limit as a learner meets it (issue 17, item 2), in real Chromium at 360 px: a
429 from the server is told in the widget's own message box, in words, and the widget keeps
working once the minute is over; and the same on the page without JavaScript."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from .conftest import UNIT, tab_to

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

OpenPage = Callable[..., Any]
W = "#w7"
SCREENSHOTS = "/tmp"


def test_a_learner_over_the_limit_reads_why_in_the_lab(open_page: OpenPage, settings) -> None:
    settings.ROUTE_LIMITS = {"learner": 2, "address": 1000}
    site = open_page(None, buyer=True, reduced_motion="reduce")
    site.allow(r"429|Too Many Requests")  # the refusal is the point of this test
    site.goto(f"/units/{UNIT}/6/")
    page = site.page
    error = page.locator(f"{W} [data-target~='error']")
    # Ask for heads by keyboard until the server refuses (the page asks once on its own).
    tab_to(page, f"{W} select[data-target~='head']")
    for _ in range(4):
        page.keyboard.press("ArrowDown")
        page.wait_for_timeout(400)
        if error.is_visible():
            break
    page.wait_for_function(
        "(sel) => !document.querySelector(sel).hidden", arg=f"{W} [data-target~='error']"
    )
    text = error.inner_text()
    assert "Too many requests to the attention lab in a minute" in text
    assert "then try again" in text and "up to 2 a minute" in text
    assert error.get_attribute("role") == "alert"
    page.screenshot(path=f"{SCREENSHOTS}/hardening-lab-429-360.png", full_page=False)
    error.scroll_into_view_if_needed()
    page.screenshot(path=f"{SCREENSHOTS}/hardening-lab-429-message-360.png")
    # A new minute, or a higher limit: the lab answers again.
    settings.ROUTE_LIMITS = {"learner": 1000, "address": 1000}
    page.keyboard.press("ArrowDown")
    page.wait_for_function(
        "(sel) => document.querySelector(sel).hidden", arg=f"{W} [data-target~='error']"
    )
    assert site.scroll_width() <= 360


def test_without_javascript_the_limit_is_in_the_pages_alert(open_page: OpenPage, settings) -> None:
    settings.ROUTE_LIMITS = {"learner": 1, "address": 1000}
    site = open_page(None, buyer=True, js=False)
    site.allow(r"429|Too Many Requests")
    lab = f"/units/{UNIT}/lab/?text=I+drink+tea&layer=1&head=1"
    site.goto(lab)
    response = site.page.goto(site.page.url.split("/units/")[0] + lab)
    assert response is not None and response.status == 429
    alert = site.page.locator("[role='alert']")
    assert "Too many requests to the attention lab" in alert.inner_text()
    site.page.screenshot(path=f"{SCREENSHOTS}/hardening-lab-nojs-429-360.png", full_page=True)
    assert site.scroll_width() <= 360
