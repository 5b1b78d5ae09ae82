"""Widget 1 ("Translate with a look back") in real Chromium, on section 1's page.

What every widget must do (tag defined, Tab reaches every control, the main control updates it,
axe at 360 px, the fallback without JavaScript) is the conformance test's
(test_widget_conformance.py); the page-wide walk, reduced motion and JavaScript off are in
test_pages.py. Here: this widget's own behaviour, and what a screen reader hears.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from .conftest import SECTION_1, tab_to

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

OpenPage = Callable[..., Any]
W = "translate-lookback"


def t(name: str) -> str:
    """The widget's part named `name` (its data-target)."""
    return f'{W} [data-target~="{name}"]'


def word_button(i: int) -> str:
    return f"{t('word')}:nth-child({i + 1})"


def beams_text(page: Any) -> list[str]:
    return page.locator(t("beam-share")).all_inner_texts()


def map_row(page: Any, i: int) -> list[str]:
    return page.locator(t("row")).nth(i).locator("td").all_inner_texts()


def word(page: Any, hindi: str) -> Any:
    return page.locator(f"{W} .tl-word", has_text=hindi)


def status(page: Any) -> str:
    return page.locator(t("status")).inner_text()


# Count what a screen reader would be told: changes of the live region's text, and of the
# slider's aria-valuetext (read out when the focused slider moves).
_LISTEN = """() => {
  window.__said = []
  window.__valuetext = []
  const live = document.querySelector('translate-lookback [data-target~="live"]')
  new MutationObserver(() => window.__said.push(live.textContent))
    .observe(live, {childList: true, characterData: true, subtree: true})
  const range = document.querySelector('translate-lookback [data-target~="sure"]')
  new MutationObserver(() => window.__valuetext.push(range.getAttribute('aria-valuetext')))
    .observe(range, {attributes: true, attributeFilter: ['aria-valuetext']})
}"""


def test_upgrade_shows_the_live_widget_with_the_engines_numbers(open_page: OpenPage) -> None:
    page = open_page(SECTION_1, width=1000, height=900).page
    assert page.locator(t("play")).is_visible()
    assert page.locator(f"{W} .tl-figure").is_hidden()
    assert page.locator(t("word")).count() == 4
    assert word(page, "मैं").get_attribute("aria-pressed") == "true"
    assert beams_text(page) == ["0.736", "0.164", "0.100"]
    assert map_row(page, 1) == ["0.100", "0.164", "0.736"]
    assert map_row(page, 3) == ["0.422", "0.422", "0.155"]
    assert page.locator(t("context")).inner_text().endswith("(0.736, 0.164, 0.100)")
    assert page.locator(t("sure")).input_value() == "1"
    assert page.locator(t("sure-value")).inner_text() == "1.0"
    assert page.locator(t("summary-map")).is_hidden()
    # Devanagari is marked as Hindi wherever it shows.
    assert page.evaluate(
        "[...document.querySelectorAll('translate-lookback .tl-word-hi,"
        " translate-lookback tbody th span, translate-lookback .tl-status span')]"
        ".every(e => e.lang === 'hi')"
    )


def test_each_beam_is_named_by_its_note_and_its_share(open_page: OpenPage) -> None:
    page = open_page(SECTION_1, width=1000, height=900).page
    page.locator(word_button(1)).click()  # चाय
    beams = page.get_by_role("list", name="shares of attention, from the word being written")
    assert beams.locator("li").all_text_contents() == ["I: 0.100", "drink: 0.164", "tea: 0.736"]
    assert '- listitem: "tea: 0.736"' in beams.aria_snapshot()
    # The SVG lines themselves are decoration: hidden from assistive technology.
    assert page.locator(f"{W} .tl-beams-svg").get_attribute("aria-hidden") == "true"


def test_translate_plays_the_four_words_one_by_one_with_four_map_rows(
    open_page: OpenPage,
) -> None:
    page = open_page(SECTION_1, width=1000, height=900).page
    written = f'{W} .tl-word:not([data-written="false"])'
    lit = f'{t("row")}:not([data-lit="false"])'
    # Record how many words are written / rows lit after every DOM change, to see the order.
    page.evaluate(
        """([written, lit]) => {
          window.__updates.length = 0
          window.__seen = []
          const el = document.querySelector('translate-lookback')
          const words = [...el.querySelectorAll('[data-target~="word"]')]
          const count = () => [document.querySelectorAll(written).length,
                               document.querySelectorAll(lit).length,
                               words.findIndex(b => b.getAttribute('aria-pressed') === 'true')]
          new MutationObserver(() => {
            const c = count(), prev = window.__seen.at(-1)
            if (!prev || prev[0] !== c[0] || prev[1] !== c[1]) window.__seen.push(c)
          }).observe(el, {subtree: true, attributes: true,
                          attributeFilter: ['data-written', 'data-lit']})
        }""",
        [written, lit],
    )
    page.evaluate(_LISTEN)
    page.locator(t("play")).click()
    assert page.locator(written).count() < 4  # right after the press not everything is written
    page.wait_for_function(
        "([sel]) => document.querySelectorAll(sel).length === 4", arg=[written], timeout=8000
    )
    # Nothing written at first, then one word and its map row at a time, each word appearing
    # while it is the selected one (its beams already reach back to the notes).
    seen = page.evaluate("window.__seen")
    assert [s[:2] for s in seen] == [[0, 0], [1, 1], [2, 2], [3, 3], [4, 4]]
    assert [s[2] for s in seen[1:]] == [0, 1, 2, 3]
    assert page.locator(lit).count() == 4
    page.wait_for_function(
        "() => document.querySelector('translate-lookback .tl-status')"
        ".textContent.includes('is written')"
    )
    assert status(page).startswith("मैं चाय पीता हूँ")
    # One announcement for the whole translation, when it is done (not one per word).
    said = page.evaluate("window.__said")
    assert len(said) == 1 and "is written" in said[0], said
    order = page.evaluate("[...new Set(window.__updates.map(d => d.word))]")
    assert order == [0, 1, 2, 3]
    assert word(page, "हूँ").get_attribute("aria-pressed") == "true"
    assert beams_text(page) == ["0.422", "0.422", "0.155"]


def test_keyboard_only_select_chai_and_set_how_sure(open_page: OpenPage) -> None:
    page = open_page(SECTION_1, width=1000, height=900).page
    page.evaluate(_LISTEN)
    chai = word_button(1)
    tab_to(page, chai)
    page.keyboard.press("Enter")
    assert page.locator(chai).get_attribute("aria-pressed") == "true"
    assert word(page, "मैं").get_attribute("aria-pressed") == "false"
    assert status(page) == "चाय (chai): I 0.100, drink 0.164, tea 0.736"
    assert page.evaluate("window.__said") == ["चाय (chai): I 0.100, drink 0.164, tea 0.736"]

    tab_to(page, t("sure"))
    page.evaluate("window.__valuetext.length = 0")  # selecting चाय rewrote it once
    for _ in range(10):
        page.keyboard.press("ArrowRight")
    assert page.locator(t("sure-value")).inner_text() == "2.0"
    assert status(page) == "चाय (chai): I 0.017, drink 0.047, tea 0.936"
    assert beams_text(page) == ["0.017", "0.047", "0.936"]
    assert map_row(page, 1) == ["0.017", "0.047", "0.936"]
    assert map_row(page, 0) == ["0.736", "0.164", "0.100"]  # other words keep their rows
    assert page.locator(t("context")).inner_text().endswith("(0.017, 0.047, 0.936)")
    # Each move is announced once: by the slider's own value text, never by the live region.
    valuetext = page.evaluate("window.__valuetext")
    assert len(valuetext) == 10, valuetext
    assert valuetext[-1] == "2.0 times the state: I 0.017, drink 0.047, tea 0.936"
    assert len(page.evaluate("window.__said")) == 1  # still only the word's announcement
    last = page.evaluate("window.__updates.at(-1)")
    assert last["word"] == 1 and last["sure"] == 2 and last["attention"] is True
    assert abs(last["weights"][2] - 0.9362395518765058) < 1e-12

    page.keyboard.press("Home")
    assert page.locator(t("sure-value")).inner_text() == "0.0"
    assert beams_text(page) == ["0.333", "0.333", "0.333"]
    assert map_row(page, 1) == ["0.333", "0.333", "0.333"]

    # Each word keeps its own "how sure": back to मैं (still 1), then चाय again (still 0).
    tab_to(page, word_button(0), backwards=True)
    page.keyboard.press(" ")
    assert page.locator(t("sure")).input_value() == "1"
    assert beams_text(page) == ["0.736", "0.164", "0.100"]
    page.locator(chai).click()
    assert page.locator(t("sure")).input_value() == "0"


def test_no_attention_shows_the_cost_every_row_the_same_summary(open_page: OpenPage) -> None:
    page = open_page(SECTION_1, width=1000, height=900).page
    page.evaluate(_LISTEN)
    switch = page.locator(t("noattn"))
    assert switch.get_attribute("role") == "switch"
    page.locator(t("sure")).fill("3")  # the slider was moved before attention is turned off
    tab_to(page, t("noattn"))
    page.keyboard.press(" ")
    assert switch.is_checked()
    assert page.locator(t("beams")).is_hidden()
    assert page.locator(t("map")).is_hidden()
    assert page.locator(t("noattn-note")).is_visible()
    assert "same summary" in page.locator(t("noattn-note")).inner_text()
    # The cost, shown as such: every Hindi word is handed the same vector, the last note.
    summary = page.locator(t("summary-map"))
    assert summary.is_visible()
    rows = [r.locator("td").all_inner_texts() for r in summary.locator("tbody tr").all()]
    assert rows == [["0.000", "0.000", "1.000"]] * 4
    assert "Every row is the same summary" in summary.locator("caption").inner_text()
    # The status says it in words (no raw "h tea = (0, 0, 1)").
    said = status(page)
    assert said == (
        "मैं (main): no look back; it is handed the same summary as every word, the last note: "
        "the one for “tea”"
    )
    assert page.evaluate("window.__said.at(-1)") == said
    # The greyed slider does not go on reading a multiplier that no longer does anything.
    slider = page.locator(t("sure"))
    assert slider.is_disabled()
    assert page.locator(t("sure-value")).inner_text() == "off"
    assert slider.get_attribute("aria-valuetext") == "not used without attention"
    assert "not used without attention" in page.locator(t("sure-help")).inner_text()
    assert page.locator(t("context")).inner_text().endswith("(0.000, 0.000, 1.000)")
    word(page, "पीता").click()
    assert status(page).startswith("पीता (peeta): no look back")
    assert page.locator(t("context")).inner_text().endswith("(0.000, 0.000, 1.000)")
    assert page.evaluate("window.__updates.at(-1).weights") is None

    switch.press(" ")
    assert not switch.is_checked()
    assert page.locator(t("beams")).is_visible()
    assert page.locator(t("map")).is_visible()
    assert summary.is_hidden() and page.locator(t("noattn-note")).is_hidden()
    assert not slider.is_disabled()
    assert page.locator(t("sure-value")).inner_text() == "1.0"  # पीता's own multiplier
    assert beams_text(page) == ["0.164", "0.736", "0.100"]
    assert page.locator(t("context")).inner_text().endswith("(0.164, 0.736, 0.100)")


def test_desktop_screenshot_mid_state(open_page: OpenPage) -> None:
    """Chai at 2 on a desktop width: the picture a reviewer looks at (and a last sanity check)."""
    page = open_page(SECTION_1, width=1100, height=1000).page
    word(page, "चाय").click()
    page.locator(t("sure")).fill("2")
    assert status(page).endswith("tea 0.936")
    page.locator(W).screenshot(path="/tmp/widget-translate-desktop.png")
