"""Section 1's proof opens step by step, and its "Try" box says what a reader without JavaScript
sees (the {proof} and {try}/{nojs} directives, in real Chromium at 360 px)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from .conftest import SECTION_1, tab_to

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

OpenPage = Callable[..., Any]
Axe = Callable[..., list[dict[str, Any]]]
PROOF = "details.proof"
STEPS = f"{PROOF} .proof-steps > li"


def shown_steps(page: Any) -> list[bool]:
    return [li.is_visible() for li in page.locator(STEPS).all()]


def test_the_proof_opens_one_step_at_a_time_by_keyboard(open_page: OpenPage, axe: Axe) -> None:
    site = open_page(SECTION_1)
    page = site.page
    tab_to(page, f"{PROOF} > summary")
    page.keyboard.press("Enter")
    assert page.locator(PROOF).get_attribute("open") == ""
    assert shown_steps(page) == [True, False, False, False, False]
    assert page.locator(f"{PROOF} .proof-qed").is_hidden()  # ∎ comes with the last step
    nxt = page.locator(f"{PROOF} .proof-next")
    assert nxt.inner_text() == "Next step (2 of 5)"
    violations = axe(page, PROOF)
    assert violations == [], json.dumps(violations, indent=1)

    tab_to(page, f"{PROOF} .proof-next")
    page.keyboard.press("Enter")
    assert shown_steps(page) == [True, True, False, False, False]
    # Focus moves to the new step, so a screen reader reads it and Tab goes on from there.
    assert page.evaluate(
        "document.activeElement === document.querySelectorAll('details.proof .proof-steps > li')[1]"
    )
    assert nxt.inner_text() == "Next step (3 of 5)"
    for _ in range(3):
        tab_to(page, f"{PROOF} .proof-next")
        page.keyboard.press("Enter")
    assert shown_steps(page) == [True] * 5
    assert page.locator(f"{PROOF} .proof-qed").is_visible()
    assert page.locator(f"{PROOF} .proof-controls").is_hidden()  # nothing left to reveal
    assert site.scroll_width() <= 360


def test_all_steps_at_once_on_demand(open_page: OpenPage) -> None:
    page = open_page(SECTION_1).page
    page.evaluate(
        "() => { window.__proof = [];"
        " document.addEventListener('proof-steps:update', e => window.__proof.push(e.detail)) }"
    )
    page.locator(f"{PROOF} > summary").click()
    page.locator(f"{PROOF} .proof-all").click()
    assert shown_steps(page) == [True] * 5
    assert page.locator(f"{PROOF} .proof-qed").is_visible()
    assert page.evaluate("window.__proof") == [{"shown": 5, "total": 5}]
    # The first step it revealed has focus.
    assert page.evaluate(
        "document.activeElement === document.querySelectorAll('details.proof .proof-steps > li')[1]"
    )


def test_without_javascript_every_step_shows_and_no_button(open_page: OpenPage) -> None:
    page = open_page(SECTION_1, js=False).page
    page.locator(f"{PROOF} > summary").click()
    assert shown_steps(page) == [True] * 5
    assert page.locator(f"{PROOF} .proof-qed").is_visible()
    assert page.locator(f"{PROOF} .proof-controls").is_hidden()


def test_the_try_box_without_javascript_says_what_the_figure_shows(open_page: OpenPage) -> None:
    off = open_page(SECTION_1, js=False).page
    boxes = off.locator(".callout-try").all()
    assert len(boxes) == 2  # at the widget, and after check 1 ("check your prediction")
    first = boxes[0].inner_text()
    assert "Without JavaScript: The figure above shows all four Hindi words at once." in first
    for box in boxes:  # no dead instructions, and words for the reader without JavaScript
        text = box.inner_text()
        assert "Tap ▶ translate" not in text and "set how sure" not in text, text
        assert box.locator(".try-static").is_visible()
    assert off.locator(".tl-figure").is_visible()  # the static figure they describe

    on = open_page(SECTION_1).page
    boxes = on.locator(".callout-try").all()
    assert "Tap ▶ translate" in boxes[0].inner_text()
    assert all("Without JavaScript" not in box.inner_text() for box in boxes)
