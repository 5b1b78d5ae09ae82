"""A draft section in Chromium (issue 13, part 2): the site runs on a copy of Unit 18 whose §8
is a draft holding one widget and one check (tests/draft_content.py).

Learners (anonymous, signed in without the unit, buyers) find §8 as a section still being
written, with no widget and no draft's word; staff find the draft, its note, and its widget,
which passes the kit's conformance test (browser half) as any published widget does.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from django.core.cache import cache
from draft_content import DRAFT, DRAFT_CHECK, DRAFT_SENTINEL, DRAFT_WIDGET, build_draft_content

from mathmachine import coursebook

from . import test_widget_conformance as conformance

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

OpenPage = Callable[..., Any]
SLUG = "attention-and-transformers"
PAGE = f"/units/{SLUG}/{DRAFT}/"


@pytest.fixture(scope="module")
def draft_content(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_draft_content(tmp_path_factory.mktemp("drafts"))


@pytest.fixture
def draft_site(
    settings: Any, draft_content: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[None]:
    monkeypatch.setenv("MATHMACHINE_CACHE_DIR", str(draft_content.parent / "coursebook-cache"))
    settings.CONTENT_DIR = draft_content
    coursebook.cache.clear_memo()
    cache.clear()
    yield
    coursebook.cache.clear_memo()
    cache.clear()  # rate limits (allauth keeps one confirmation email per address a while)


@pytest.mark.parametrize("buyer", [False, True], ids=["anonymous", "buyer"])
def test_learners_find_a_section_being_written(
    draft_site: None, open_page: OpenPage, buyer: bool
) -> None:
    site = open_page(PAGE, buyer=buyer)
    page = site.page
    assert "This section is still being written" in page.inner_text("main")
    assert DRAFT_SENTINEL not in page.content() and page.locator(f"#{DRAFT_WIDGET}").count() == 0
    site.goto(f"/units/{SLUG}/")
    item = page.locator(f'.toc-item[value="{DRAFT}"]')
    assert "being written" in item.inner_text() and "draft" not in item.inner_text()


def test_staff_read_the_draft_and_its_widget_works(draft_site: None, open_page: OpenPage) -> None:
    site = open_page(f"/units/{SLUG}/", staff=True)
    page = site.page
    item = page.locator(f'.toc-item[value="{DRAFT}"]')
    assert "draft, staff only" in item.inner_text()
    item.locator("a").click()
    page.wait_for_url(f"**{PAGE}")
    assert page.locator(".draft-note").inner_text().startswith("Draft, shown to staff only.")
    # The click is not site.goto, which waits for upgrades: the widget loads its module when it
    # comes near the screen (site/widget-loader.js), so bring it there and wait for its upgrade.
    widget = page.locator(f"#{DRAFT_WIDGET}")
    widget.scroll_into_view_if_needed()
    page.wait_for_selector(f"#{DRAFT_WIDGET}[data-upgraded]")
    assert widget.get_attribute("data-upgraded") == ""
    assert site.scroll_width() <= 360
    # Its check answers (the page's script posts it; the feedback comes back in place).
    check = page.locator(f"#check-{DRAFT_CHECK}")
    check.locator("input[name='answer-0']").fill("7")
    check.get_by_role("button", name="Check my answer").click()
    feedback = page.locator(f"#check-{DRAFT_CHECK}-feedback")
    feedback.locator(".verdict-wrong").wait_for()
    assert f"A hint that says {DRAFT_SENTINEL}" in feedback.inner_text()


@pytest.mark.parametrize("js", [True, False], ids=["js", "nojs"])
def test_the_draft_widget_passes_the_conformance_test(
    draft_site: None, open_page: OpenPage, axe: Any, monkeypatch: pytest.MonkeyPatch, js: bool
) -> None:
    """The conformance test's own functions, on the draft's widget (opened as staff)."""
    monkeypatch.setattr(conformance, "DRAFTS", {(SLUG, DRAFT)})
    args = (open_page, axe, SLUG, DRAFT, False, "translate-lookback", DRAFT_WIDGET)
    if js:
        conformance.test_with_javascript(*args)
    else:
        conformance.test_without_javascript(*args)


def test_the_honest_offer_counts_published_sections_only(
    draft_site: None, open_page: OpenPage, billing_products: Any
) -> None:
    """The honest-offer walk (home, preview end, unit page, locked section, pricing, payment,
    receipt, every promised section opened) on the unit with a draft: what is promised as
    written opens with its content for the buyer, so a draft counted anywhere fails it."""
    from django.conf import settings

    from .test_honest_offer import (
        test_what_the_shop_promised_before_payment_is_what_the_unit_opens as walk,
    )

    served = coursebook.load_unit(SLUG, root=settings.CONTENT_DIR)
    assert DRAFT in served.contents.unwritten
    walk(open_page, billing_products, served)  # the unit as the draft site serves it
