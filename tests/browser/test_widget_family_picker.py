"""Widget 14 (§11, "Family picker") in real Chromium at 360 px, as staff while §11 is a draft (a
buyer once it is published): the Try box by keyboard alone (each family in turn shows only its
panel; in the encoder–decoder's, the head buttons redraw the learned map with the tiny
translator's numbers), axe clean. Without JavaScript every panel and its tables show."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from mathmachine.coursebook import load_unit
from mathmachine.coursebook.widgets._parts import PALETTE
from mathmachine.engine import shares_rounded, tiny

from .conftest import UNIT, tab_to

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

OpenPage = Callable[..., Any]
Axe = Callable[..., list[dict[str, Any]]]
SECTION = f"/units/{UNIT}/11/"
W = "#w14"
DRAFT = any(d.number == 11 for d in load_unit(UNIT).drafts)


def _open(open_page: OpenPage, **kw: Any) -> Any:
    return open_page(SECTION, buyer=not DRAFT, staff=DRAFT, **kw)


def visible_panels(page: Any) -> list[str]:
    return page.locator(f"{W} [data-target='panel']").evaluate_all(
        "els => els.filter(e => !e.hidden).map(e => e.dataset.family)"
    )


def printed_map(page: Any) -> list[list[str]]:
    return page.locator(f"{W} .fp-cross table tbody tr").evaluate_all(
        "rows => rows.map(r => [...r.querySelectorAll('td')].map(td => td.textContent.trim()))"
    )


def test_the_try_walk_by_keyboard(open_page: OpenPage, axe: Axe) -> None:
    page = _open(open_page, reduced_motion="reduce").page
    assert visible_panels(page) == ["encoder"]
    for fam in ("decoder", "encoder-decoder", "encoder"):
        tab_to(page, f'{W} [data-target="family"][data-family="{fam}"]', backwards=fam == "encoder")
        page.keyboard.press("Enter")
        assert visible_panels(page) == [fam]
        pressed = page.locator(f'{W} [data-target="family"]').evaluate_all(
            "els => els.map(e => e.getAttribute('aria-pressed'))"
        )
        assert pressed.count("true") == 1
    assert "encoder-only family: BERT" in page.locator(f'{W} [data-target="status"]').inner_text()
    tab_to(page, f'{W} [data-target="family"][data-family="encoder-decoder"]')
    page.keyboard.press("Enter")
    t = tiny.load().translate("she eats rice")
    want = [[f"{u / 1000:.3f}" for u in r] for r in shares_rounded(t.cross_attention, 3)]
    assert printed_map(page) == want
    tab_to(page, f'{W} [data-target="head"][data-k="2"]')
    page.keyboard.press("Enter")
    head = [
        [f"{u / 1000:.3f}" for u in r] for r in shares_rounded(t.cross_attention_per_head[1], 3)
    ]
    assert printed_map(page) == head
    # the try box: head 2's verb row peaks on "eats"
    verb = page.locator(f"{W} .fp-cross svg rect[data-r='2']").evaluate_all(
        "els => els.map(e => e.getAttribute('fill'))"
    )
    shades = [PALETTE.index(f) for f in verb]
    assert shades.index(max(shades)) == 1  # "eats", the darkest of the verb's row
    assert "head 2" in page.locator(f"{W} .fp-cross figcaption").inner_text()
    assert axe(page, W) == []


def test_without_javascript_every_panel_shows(open_page: OpenPage) -> None:
    page = _open(open_page, js=False).page
    assert page.locator(f"{W} [data-target='panel']").evaluate_all(
        "els => els.map(e => e.checkVisibility())"
    ) == [True, True, True]
    assert page.locator(f"{W} [data-target='family']").first.is_hidden()
    assert page.locator(f"{W} .fp-cross table").is_visible()  # the learned map's numbers, open
    assert page.locator(f"{W} figure.wk-hm").count() == 6  # 1 + 1 + 3 masks and the learned map
