"""Section 1's two "Pause & predict" checks in Chromium: by keyboard at 360 px with feedback
focused and announced, the answer forms learners type, unreadable answers, the session keeping
answers across a reload, and the same flows with JavaScript off (plain posts and redirects).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from .conftest import SECTION_1, focused, tab_to

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

OpenPage = Callable[..., Any]
C1 = "#check-s1-sharpen"
C2 = "#check-s1-count"
OLD_WEIGHTS = "These are the old weights"  # check 1's feedback for the unchanged weights
C1_RIGHT = "Squaring makes a big number grow"  # check 1's "correct" feedback
C1_WORKED = "A common slip is to double the weights"  # check 1's worked answer ({solution})
HINT_1 = "What are the new scores?"
HINT_2 = "Work out"  # check 1's second hint starts so
DOUBLED = "You doubled the weights"
C2_RIGHT = "one context vector for each word it writes"
ONE_VECTOR = "One context vector for the whole sentence is the trap"
UNREADABLE = "Type 3 numbers in order, like (0.1, 0.2, 0.3)."  # check 1 is a vector of 3
COUNT_UNREADABLE = "Numbers in the map: “lots” is not a number. Type a whole number, like 12."


def feedback(page: Any, check: str) -> str:
    return page.locator(f"{check} .check-feedback").inner_text()


def wait_feedback_focused(page: Any, check: str) -> None:
    page.wait_for_function(
        "(id) => document.activeElement?.id === id", arg=f"{check[1:]}-feedback", timeout=5000
    )


def assert_announced(page: Any, check: str) -> None:
    region = page.locator(f"{check} .check-feedback")
    assert region.get_attribute("role") == "status"
    assert region.get_attribute("aria-live") == "polite"
    assert focused(page) == f"{check}-feedback"


def test_both_checks_by_keyboard_at_360px_and_kept_after_reload(open_page: OpenPage) -> None:
    site = open_page(SECTION_1, width=360, height=740)
    page = site.page
    # Before answering, no feedback (nor the key) is in the page.
    assert feedback(page, C1).strip() == "" and feedback(page, C2).strip() == ""
    assert C1_RIGHT not in page.content() and OLD_WEIGHTS not in page.content()

    # Check 1, wrong first: the old weights get their own explanation.
    tab_to(page, f"{C1}-0")
    page.keyboard.type("0.1, 0.164, 0.736")
    page.keyboard.press("Enter")
    wait_feedback_focused(page, C1)
    assert_announced(page, C1)
    text = feedback(page, C1)
    assert text.lstrip().startswith("✗ Not quite.")
    assert OLD_WEIGHTS in text and C1_RIGHT not in text and "0.936" not in text
    assert page.locator(f"{C1}-0").input_value() == "0.1, 0.164, 0.736"

    # Then right, from the feedback back to the field by Shift+Tab.
    tab_to(page, f"{C1}-0", backwards=True, limit=5)
    page.keyboard.press("Control+A")
    page.keyboard.type(".017 .047 .936")
    page.keyboard.press("Enter")
    wait_feedback_focused(page, C1)
    assert_announced(page, C1)
    text = feedback(page, C1)
    assert "Right (after 2 tries)." in text
    assert C1_RIGHT in text and OLD_WEIGHTS not in text

    # Check 2: two fields, "35" and "1,050".
    tab_to(page, f"{C2}-0")
    page.keyboard.type("35")
    page.keyboard.press("Tab")
    assert focused(page) == f"{C2}-1"
    page.keyboard.type("1,050")
    page.keyboard.press("Enter")
    wait_feedback_focused(page, C2)
    assert_announced(page, C2)
    text = feedback(page, C2)
    assert "Right." in text and C2_RIGHT in text
    assert site.scroll_width() <= 360

    # The session keeps the answers and their feedback.
    page.reload()
    assert page.locator(f"{C1}-0").input_value() == ".017 .047 .936"
    assert "Right (after 2 tries)." in feedback(page, C1)
    assert C1_RIGHT in feedback(page, C1)
    assert page.locator(f"{C2}-0").input_value() == "35"
    assert page.locator(f"{C2}-1").input_value() == "1,050"
    assert C2_RIGHT in feedback(page, C2)


def answer(page: Any, check: str, *values: str) -> str:
    """Type the answer into each field, press Enter, and return the feedback shown."""
    for i, value in enumerate(values):
        page.locator(f"{check}-{i}").fill(value)
    page.locator(f"{check}-{len(values) - 1}").press("Enter")
    wait_feedback_focused(page, check)
    return feedback(page, check)


def test_the_forms_learners_type(open_page: OpenPage) -> None:
    page = open_page(SECTION_1, width=1000, height=800).page
    right = [
        "(0.017, 0.047, 0.936)",
        "1.7%, 4.7%, 93.6%",
        "[0.017,0.047,0.936]",
        "0.017 0.047 0.936",
    ]
    for tries, text in enumerate(right, start=1):
        shown = answer(page, C1, text)
        assert "Right" in shown and C1_RIGHT in shown, (text, shown)
        assert (f"after {tries} tries" in shown) == (tries > 1), shown
    # A wrong answer now is graded and named, but the right one stays stored.
    shown = answer(page, C1, "0.2, 0.328, 1.472")
    assert DOUBLED in shown and "Your earlier right answer is kept." in shown
    shown = answer(page, C1, "0.2, 0.3, 0.5")
    assert "Not quite (6 tries so far)." in shown and HINT_2 in shown and C1_WORKED not in shown
    page.reload()
    assert page.locator(f"{C1}-0").input_value() == "0.017 0.047 0.936"

    assert C2_RIGHT in answer(page, C2, "३५", "१०५०")  # Devanagari digits


def test_wrong_answers_get_mistakes_then_hints_then_the_worked_answer(open_page: OpenPage) -> None:
    page = open_page(SECTION_1, width=360, height=740).page
    shown = answer(page, C2, "1", "900")
    assert ONE_VECTOR in shown and "The map is not square" in shown  # both named mistakes
    assert "Context vectors: not yet" in shown and "Numbers in the map: not yet" in shown
    shown = answer(page, C1, "0.3, 0.3, 0.4")
    assert HINT_1 in shown and C1_WORKED not in shown
    assert HINT_2 in answer(page, C1, "0.25, 0.25, 0.5")
    shown = answer(page, C1, "0.2, 0.2, 0.6")  # the third wrong answer: the worked answer
    assert C1_WORKED in page.locator(f"{C1} .check-solution").inner_text()
    # "Show me" on check 2, by keyboard: recorded, so it stays after a reload.
    tab_to(page, f"{C2} .check-reveal button")
    page.keyboard.press("Enter")
    page.wait_for_selector(f"{C2} .check-solution")
    assert "1050 numbers" in page.locator(f"{C2} .check-solution").inner_text()
    page.reload()
    assert page.locator(f"{C2} .check-solution").count() == 1


def test_an_unreadable_answer_says_so_and_changes_nothing(open_page: OpenPage) -> None:
    site = open_page(SECTION_1, width=1000, height=800)
    page = site.page
    # The server answers an unreadable answer with 400 (the page shows its message).
    site.allow(r"status of 400|HTTP 400: POST .*/checks/s1-sharpen/")
    shown = answer(page, C1, "about a third each")
    assert UNREADABLE in shown
    assert page.locator(f"{C1}-0").get_attribute("aria-invalid") == "true"
    described = page.locator(f"{C1}-0").get_attribute("aria-describedby")
    assert described == f"{C1[1:]}-feedback {C1[1:]}-0-format"
    assert "Not quite" not in shown and "Right" not in shown
    page.reload()
    assert page.locator(f"{C1}-0").input_value() == ""
    assert feedback(page, C1).strip() == ""
    # The next readable answer is the first attempt.
    assert "after" not in answer(page, C1, "0.017, 0.047, 0.936")


def post_without_js(page: Any, check: str, *values: str) -> None:
    for i, value in enumerate(values):
        page.locator(f"{check}-{i}").fill(value)
    with page.expect_navigation():
        page.locator(f"{check} .check-form button[type=submit]").press("Enter")


def test_without_javascript_checks_post_and_redirect(open_page: OpenPage) -> None:
    site = open_page(SECTION_1, js=False, width=360, height=740)
    page = site.page
    responses: list[tuple[str, int]] = []
    page.on("response", lambda r: responses.append((r.request.method, r.status)))

    post_without_js(page, C1, "0.1, 0.164, 0.736")
    assert ("POST", 302) in responses
    assert re.search(r"/units/attention-and-transformers/1/#check-s1-sharpen$", page.url)
    assert OLD_WEIGHTS in feedback(page, C1)
    assert page.locator(f"{C1}-0").input_value() == "0.1, 0.164, 0.736"

    post_without_js(page, C1, "(0.017, 0.047, 0.936)")
    assert "Right (after 2 tries)." in feedback(page, C1)
    assert C1_RIGHT in feedback(page, C1)

    post_without_js(page, C2, "35", "1,050")
    assert page.url.endswith("#check-s1-count")
    assert C2_RIGHT in feedback(page, C2)
    assert C1_RIGHT in feedback(page, C1)  # the first check keeps its feedback

    # Unreadable: the message is shown once, at the check, and nothing is stored.
    post_without_js(page, C2, "35", "lots")
    assert COUNT_UNREADABLE in feedback(page, C2)
    assert page.locator(f"{C2}-1").input_value() == "lots"  # what was typed stays
    assert page.locator(f"{C2}-0").get_attribute("aria-invalid") == "true"
    page.reload()
    assert COUNT_UNREADABLE not in feedback(page, C2)
    assert C2_RIGHT in feedback(page, C2)
    assert page.locator(f"{C2}-1").input_value() == "1,050"
    assert site.scroll_width() <= 360
