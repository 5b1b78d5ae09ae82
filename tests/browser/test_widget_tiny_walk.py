"""Widget 16 (§13, "The whole walk") in real Chromium at 360 px, as staff while §13 is a draft (a
buyer once it is published): the Try box by keyboard alone. Next walks "I drink tea" stage by
stage (tokens, word and place, the encoder's maps, its block, then each Hindi word), each
number the engine's; the verb's cross-attention; a preset the corpus never makes says so and is
walked through the server route; a word the model does not know gets the message listing the
words it knows, and the walk stays; a typed sentence is walked. axe clean. Without JavaScript:
the walk of "I drink tea" as tables."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from mathmachine.coursebook import load_unit
from mathmachine.coursebook.widgets.tiny_walk import walk_numbers
from mathmachine.printing import dec

from .conftest import UNIT, tab_to

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

OpenPage = Callable[..., Any]
Axe = Callable[..., list[dict[str, Any]]]
SECTION = f"/units/{UNIT}/13/"
W = "#w16"
DRAFT = any(d.number == 13 for d in load_unit(UNIT).drafts)
WALK = walk_numbers("I drink tea")
WHERE_SAYS = "(s) => document.querySelector('#w16 [data-target=where]').textContent.includes(s)"


def _open(open_page: OpenPage, **kw: Any) -> Any:
    return open_page(SECTION, buyer=not DRAFT, staff=DRAFT, **kw)


def text(page: Any, name: str) -> str:
    return page.locator(f'{W} [data-target="{name}"]').first.inner_text().strip()


def cells(page: Any, selector: str) -> list[list[str]]:
    return page.locator(selector).evaluate_all(
        "rows => rows.map(r => [...r.querySelectorAll('td')].map(td => td.textContent.trim()))"
    )


def test_the_try_walk_by_keyboard(open_page: OpenPage, axe: Axe) -> None:
    site = _open(open_page, reduced_motion="reduce")
    site.allow(r"status of 400|HTTP 400")  # the unknown word below answers 400, on purpose
    page = site.page
    n = 4 + 5 * len(WALK["chosen"])
    assert text(page, "stage-title") == f"1 of {n} · Tokens"
    assert cells(page, f'{W} [data-target="tables"] tbody tr') == [["1"], ["2"], ["3"]]
    assert "learned from" in text(page, "where") and "exactly" in text(page, "where")
    tab_to(page, f'{W} [data-target="next"]')
    page.keyboard.press("Enter")  # word and place: every number of the three words
    rows = cells(page, f'{W} [data-target="tables"] tbody tr')
    enc = WALK["encoder"]
    assert rows[3] == [dec(x) for x in enc["embeddings"][1]]  # "drink": its word row
    assert rows[5] == [dec(x) for x in enc["input"][1]]
    page.keyboard.press("Enter")  # the encoder's four maps
    maps = page.locator(f"{W} [data-target^='map-']").evaluate_all("fs => fs.map(f => !f.hidden)")
    assert maps == [True, True, True, True, False]
    # Next (still focused) on to place 3's cross-attention: stage 4 + 5 * 2 + 3
    for _ in range(4 + 5 * 2 + 3 - 3):
        page.keyboard.press("Enter")
    assert text(page, "stage-title") == f"{4 + 5 * 2 + 3} of {n} · Place 3: cross-attention"
    shown = cells(page, f"{W} [data-target='map-0'] table tbody tr")
    cross = [[dec(x) for x in h[2]] for h in WALK["decoder"]["cross_attention"]]
    assert shown == [*cross, [dec(x) for x in WALK["decoder"]["cross_average"][2]]]
    assert "“drink” most" in text(page, "stage-text")
    for _ in range(2):  # the rest of the block, then the logits
        page.keyboard.press("Enter")
    assert text(page, "stage-title").endswith("Place 3: logits and softmax, and it writes पीता")
    top = cells(page, f'{W} [data-target="tables"] tbody tr')[0]
    assert top == [
        dec(WALK["logits"][2][WALK["ranked"][2][0]], 2),
        dec(WALK["probabilities"][2][WALK["ranked"][2][0]]),
    ]
    assert text(page, "written") == "Written so far: मैं चाय पीता"

    # a preset the corpus never makes, walked by the server
    tab_to(page, f'{W} [data-target="preset"]', backwards=True)
    page.locator(f'{W} [data-target="preset"]').select_option("tea drink I")
    page.wait_for_function(WHERE_SAYS, arg="tea drink I")
    assert "not in the corpus" in text(page, "where")
    assert text(page, "stage-title").startswith("1 of ")

    # a word it does not know: the message lists the words it knows; the walk stays
    box = page.locator(f'{W} [data-target="text"]')
    box.fill("I drink coffee")
    box.press("Enter")
    page.wait_for_function("() => document.querySelector('#w16 [data-target=error]').textContent")
    assert "does not know “coffee”" in text(page, "error") and "tea, the, they" in text(
        page, "error"
    )
    assert "tea drink I" in text(page, "where")

    # a sentence of one's own
    box.fill("She eats rice.")
    box.press("Enter")
    page.wait_for_function(WHERE_SAYS, arg="she eats rice")
    assert text(page, "error") == ""
    assert axe(page, W) == []


def test_without_javascript_the_walk_is_tables(open_page: OpenPage) -> None:
    """Without JavaScript the widget says what the model writes, for the example and the other
    sentences, and links to the walk's every number: tables on a page of their own
    (coursebook/own_pages.py), which keep the section's page light; back to the section."""
    site = _open(open_page, js=False)
    page = site.page
    fallback = page.locator(f"{W} .tw-fallback")
    assert fallback.is_visible()
    assert page.locator(f'{W} [data-target="text"]').is_hidden()
    assert "वह चावल खाती है" in fallback.inner_text()
    assert " ".join(WALK["written"]) in fallback.inner_text()
    assert fallback.locator("table").count() == 1  # what it writes; the rest on its page
    link = fallback.get_by_role("link", name="The whole walk of “I drink tea”, step by step")
    assert link.is_visible()
    link.click()
    page.wait_for_url(f"**{SECTION}walk/")
    walk = page.locator(".tw-fallback")
    assert walk.locator("table").count() >= 4 + 2 * len(WALK["chosen"])
    assert site.scroll_width() <= 360
    assert page.get_by_role("heading", level=1).inner_text().startswith("The whole walk")
    page.get_by_role("link", name="Back to §13").click()
    page.wait_for_url(f"**{SECTION}")
