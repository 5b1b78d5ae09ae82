"""A hint is on the page once. A practice problem keeps its hints under "Need a hint?", opened
on request, and its feedback after a wrong answer points there; a section's check gives its hint
in the feedback. Neither shows a hint twice, with JavaScript on or off (an earlier shift saw the
arena's hints twice after a wrong answer: in the feedback, and again in "Need a hint?").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from html import unescape
from typing import Any

import pytest

from mathmachine.learning import selectors

from .conftest import SECTION_1

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

OpenPage = Callable[..., Any]
ARENA = "/units/attention-and-transformers/15/"
PROBLEM = "p15-soft-weights"
CHECK = "s1-sharpen"
WRONG = "0.3, 0.3, 0.4"  # matches no named mistake of either: the hints answer it


def hint_texts(check_id: str) -> list[str]:
    """The longest stretch of words outside math of each hint of ``check_id`` (seed 1): text
    the page shows as it is (math is drawn in other characters)."""
    texts = []
    for html in selectors.unit_get("attention-and-transformers").check(check_id).hints_html:
        prose = re.split(r"<math.*?</math>", html, flags=re.S)
        plain = [re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", p))).strip() for p in prose]
        texts.append(max(plain, key=len))
    return texts


def shown(page: Any, check_id: str) -> str:
    """What the check shows with every hint it offers opened (the learner's fullest view)."""
    page.evaluate(
        "(id) => document.querySelectorAll(`#check-${id} details`).forEach(d => d.open = true)",
        check_id,
    )
    return re.sub(r"\s+", " ", page.locator(f"#check-{check_id}").inner_text())


def answer_wrong(page: Any, check_id: str, js: bool) -> None:
    page.locator(f"#check-{check_id}-0").fill(WRONG)
    button = page.locator(f"#check-{check_id} .check-form button[type=submit]")
    if js:
        button.click()
        page.wait_for_function(
            "(id) => document.activeElement?.id === id", arg=f"check-{check_id}-feedback"
        )
    else:
        with page.expect_navigation():
            button.click()


@pytest.mark.parametrize("js", [True, False], ids=["js", "no-js"])
def test_a_problem_shows_each_hint_once_after_wrong_answers(open_page: OpenPage, js: bool) -> None:
    page = open_page(ARENA, width=360, js=js, buyer=True).page
    first, second = hint_texts(PROBLEM)
    for tries in (1, 2):
        answer_wrong(page, PROBLEM, js)
        said = page.locator(f"#check-{PROBLEM} .check-feedback").inner_text()
        assert "Not quite" in said and "open “Need a hint?” above" in said, said
        assert first not in said and second not in said, said
        text = shown(page, PROBLEM)
        assert text.count(first) == 1 and text.count(second) == 1, (tries, text)
        if js:
            page.reload()  # what the page shows when it is drawn again
            text = shown(page, PROBLEM)
            assert text.count(first) == 1 and text.count(second) == 1, (tries, text)


@pytest.mark.parametrize("js", [True, False], ids=["js", "no-js"])
def test_a_check_gives_one_hint_in_its_feedback(open_page: OpenPage, js: bool) -> None:
    page = open_page(SECTION_1, width=360, js=js).page
    first, second = hint_texts(CHECK)
    answer_wrong(page, CHECK, js)
    text = shown(page, CHECK)
    assert text.count(first) == 1 and second not in text, text
    answer_wrong(page, CHECK, js)
    text = shown(page, CHECK)
    assert text.count(second) == 1 and first not in text, text
