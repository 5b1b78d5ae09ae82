"""Widget 8 (§7, "Two heads, two questions") in real Chromium at 360 px, opened as a buyer: the
Try box walked by keyboard alone with reduced motion asked for (pick each word, switch head 2
off and on, then head 1 off), every number shown compared with the engine's; the status line
says it in words; axe clean after the walk. Without JavaScript: the maps and every table show,
with the engine's numbers, and the Try box's words for a reader without JavaScript."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from support import unit18_examples

from mathmachine.engine.heads import multi_head_steps

from .conftest import UNIT, tab_to

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

OpenPage = Callable[..., Any]
Axe = Callable[..., list[dict[str, Any]]]
EX = unit18_examples()["two_heads"]
WORDS = EX["words"]
ST = multi_head_steps(EX["X"], [(h["W_Q"], h["W_K"], h["W_V"]) for h in EX["heads"]], EX["W_O"])
SECTION = f"/units/{UNIT}/7/"
W = "#w8"


def fmt(x: float, places: int = 3) -> str:
    s = f"{x:.{places}f}"
    return (s.lstrip("-") if float(s) == 0 else s).replace("-", "\u2212")


def texts(page: Any, name: str) -> list[str]:
    sel = f'{W} [data-target~="{name}"]'
    return [s.strip() for s in page.locator(sel).evaluate_all("els => els.map(e => e.textContent)")]


def shown(page: Any, word: int, on: tuple[bool, bool]) -> None:
    """Every number the live widget shows for `word` with heads `on`, against the engine."""
    for k in (1, 2):
        assert texts(page, f"w{k}") == [fmt(w) for w in ST.heads[k - 1].weights[word]]
        assert texts(page, f"o{k}") == [fmt(v) for v in ST.heads[k - 1].output[word]]
    concat = ST.concat[word].copy()
    output = np.zeros(ST.output.shape[1])
    for k in (0, 1):
        if on[k]:
            output += ST.head_part(k)[word]
        else:
            concat[4 * k : 4 * k + 4] = 0.0
    assert texts(page, "c1") + texts(page, "c2") == [fmt(v) for v in concat]
    assert texts(page, "y1") + texts(page, "y2") == [fmt(v) for v in output]
    assert all(t == WORDS[word] for t in texts(page, "chosen"))
    pressed = page.locator(f'{W} [data-target="word"]').evaluate_all(
        "els => els.map(e => e.getAttribute('aria-pressed'))"
    )
    assert pressed == ["true" if i == word else "false" for i in range(len(WORDS))]
    outlined = page.locator(f"{W} rect.wk-hm-row:not([visibility=hidden])").evaluate_all(
        "els => els.map(e => e.dataset.row)"
    )
    assert outlined == [str(word), str(word)]  # the row, in both maps


def status(page: Any) -> str:
    return page.locator(f'{W} [data-target="status"]').inner_text()


def test_the_try_walk_by_keyboard(open_page: OpenPage, axe: Axe) -> None:
    page = open_page(SECTION, buyer=True, reduced_motion="reduce").page
    drink, always, tea, i = (WORDS.index(w) for w in ("drink", "always", "tea", "I"))
    shown(page, drink, (True, True))
    assert "head 1 looks mostly at “always”, 0.870; head 2 looks mostly at “I”, 0.870" in status(
        page
    )
    assert page.locator(f'{W} details[data-target="tables"]').evaluate("d => d.open") is False
    # "Now pick always, then tea": head 1 still finds the word before, head 2 spreads evenly
    for word in (always, tea, i):
        tab_to(page, f'{W} [data-target="word"][data-i="{word}"]', backwards=word < drink)
        page.keyboard.press("Enter")
        shown(page, word, (True, True))
        assert texts(page, "w2") == ["0.250"] * 4
    assert texts(page, "w1") == ["0.250"] * 4  # nothing comes before "I"
    assert "head 1 spreads its weight evenly, 0.250 on each word" in status(page)
    # "With drink picked, switch head 2 off": its half of the concatenation is 0
    tab_to(page, f'{W} [data-target="word"][data-i="{drink}"]')
    page.keyboard.press("Enter")
    tab_to(page, f'{W} [data-target="head-on"][data-k="2"]')
    page.keyboard.press("Space")
    shown(page, drink, (True, False))
    assert texts(page, "y1") + texts(page, "y2") == [fmt(v) for v in ST.head_part(0)[drink]]
    assert page.locator(f'{W} [data-target="live"]').inner_text().startswith("Head 2 off")
    # "Switch it on again, and head 1 off"
    page.keyboard.press("Space")
    shown(page, drink, (True, True))
    tab_to(page, f'{W} [data-target="head-on"][data-k="1"]', backwards=True)
    page.keyboard.press("Space")
    shown(page, drink, (False, True))
    assert status(page).startswith("Head 1 off: its columns of the concatenation are 0")
    # the tables are one tap away
    tab_to(page, f"{W} details > summary")
    page.keyboard.press("Enter")
    assert page.locator(f'{W} details[data-target="tables"]').evaluate("d => d.open") is True
    assert page.evaluate("document.getAnimations().length") == 0
    assert axe(page, W) == []
    assert page.evaluate("document.documentElement.scrollWidth") <= 360


def test_without_javascript_the_maps_and_tables_show(open_page: OpenPage) -> None:
    page = open_page(SECTION, buyer=True, js=False).page
    maps = page.locator(f"{W} figure svg[role=img]")
    assert maps.count() == 2 and all(m.is_visible() for m in maps.all())
    tables = page.locator(f"{W} details[open] table")
    assert tables.count() == 5 and all(t.is_visible() for t in tables.all())
    first = tables.nth(0).locator("tbody tr").nth(WORDS.index("drink")).locator("td")
    assert first.all_inner_texts() == [fmt(w) for w in ST.heads[0].weights[2]]
    out = tables.nth(4).locator("tbody tr").nth(WORDS.index("drink")).locator("td")
    assert out.all_inner_texts() == [fmt(v) for v in ST.output[2]]
    for part in ("word", "head-on", "bars-1", "c1"):
        assert page.locator(f'{W} [data-target="{part}"]').first.is_hidden()
    body = page.locator("article").inner_text()
    assert "Without JavaScript: The two figures above are the two heads' maps" in body
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
