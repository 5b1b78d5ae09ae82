"""Accessibility audit (axe-core, WCAG 2.1 A and AA rules) of the pages a learner meets first.

Zero violations on the home page, the unit page, section 1 (as loaded, after ▶ translate, with
the no-attention switch on, after answering both checks, and as without JavaScript), the locked
section 2 and the pricing page, on a phone (360 px) and on a desktop.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from .conftest import HOME, PRICING, SECTION_1, SECTION_2, UNIT_PAGE

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

Axe = Callable[..., list[dict[str, Any]]]


def _report(violations: list[dict[str, Any]]) -> str:
    return json.dumps(violations, indent=1, ensure_ascii=False)


@pytest.mark.parametrize("width", [360, 1100])
@pytest.mark.parametrize("path", [HOME, UNIT_PAGE, SECTION_1, SECTION_2, PRICING])
def test_page_has_no_violations(
    open_page: Callable[..., Any], axe: Axe, billing_products: None, path: str, width: int
) -> None:
    site = open_page(path, width=width, height=900)
    violations = axe(site.page)
    assert violations == [], _report(violations)


def test_section_1_after_translate_and_with_attention_off(
    open_page: Callable[..., Any], axe: Axe
) -> None:
    site = open_page(SECTION_1, reduced_motion="reduce")
    page = site.page
    page.locator("translate-lookback .tl-play").press("Enter")
    assert page.locator('translate-lookback [data-written="false"]').count() == 0
    violations = axe(page)
    assert violations == [], _report(violations)
    page.locator("translate-lookback [data-target~=noattn]").press("Space")
    assert page.locator("translate-lookback [data-target~=noattn]").is_checked()
    violations = axe(page)
    assert violations == [], _report(violations)


def test_section_1_with_feedback_shown(open_page: Callable[..., Any], axe: Axe) -> None:
    site = open_page(SECTION_1)
    page = site.page
    for check, answers in (("s1-sharpen", ["0.1, 0.2, 0.7"]), ("s1-count", ["35", "1050"])):
        for i, text in enumerate(answers):
            page.locator(f"#check-{check}-{i}").fill(text)
        page.locator(f"#check-{check} button[type=submit]").click()
        page.locator(f"#check-{check} .feedback-verdict").wait_for()
    violations = axe(page)
    assert violations == [], _report(violations)


def test_section_1_as_without_javascript(open_page: Callable[..., Any], axe: Axe) -> None:
    """The page as a reader without JavaScript gets it: every script answers empty, so nothing
    upgrades (axe itself needs JavaScript, so the context keeps it on)."""
    site = open_page(None)
    site.page.route(
        "**/*.js", lambda route: route.fulfill(status=200, content_type="text/javascript", body="")
    )
    site.goto(SECTION_1, upgraded=False)
    assert site.page.locator("translate-lookback .tl-figure").is_visible()
    assert site.page.locator("translate-lookback .tl-toolbar").is_hidden()
    violations = axe(site.page)
    assert violations == [], _report(violations)


def test_the_audit_can_fail(open_page: Callable[..., Any], axe: Axe) -> None:
    """The helper does report violations: an unlabelled field and a missing alt are caught."""
    site = open_page(HOME)
    site.page.evaluate(
        """() => {
          const main = document.querySelector('main')
          main.append(Object.assign(document.createElement('input'), {type: 'text'}))
          const img = document.createElement('img')
          img.src = '/static/site/favicon.svg'
          main.append(img)
        }"""
    )
    ids = {v["id"] for v in axe(site.page)}
    assert {"label", "image-alt"} <= ids, ids


def test_the_practice_arena_with_hints_feedback_and_a_solution(
    open_page: Callable[..., Any], axe: Axe
) -> None:
    site = open_page("/units/attention-and-transformers/15/", width=360, buyer=True)
    page = site.page
    assert site.scroll_width() <= 360
    page.locator("#check-p15-general > .check-hint > summary").click()
    page.locator("#check-p15-general .check-hint .check-hint > summary").click()
    page.locator("#check-p15-gradient-0").fill("1 2\n3 4")
    page.locator("#check-p15-gradient .check-form button").click()
    page.locator("#check-p15-gradient .feedback-verdict").wait_for()
    page.locator("#check-p15-soft-output .check-reveal button").click()
    page.locator("#check-p15-soft-output .check-solution").wait_for()
    assert site.scroll_width() <= 360
    violations = axe(page)
    assert violations == [], _report(violations)
