"""Widget 13 (§10, "The mask") in real Chromium at 360 px, as staff while §10 is a draft (a buyer
once it is published): the Try box walked by keyboard alone with reduced motion asked for (word
4 becomes "water": places 1 to 3 keep every printed digit; the mask off: they change; word 2
changed with the mask on), every number shown compared with the engine's; the status line says
it in words; axe clean; nothing wider than the phone. Without JavaScript: the fallback's tables
show, the live controls do not (axe without JavaScript: the conformance test)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from support import unit18_examples

from mathmachine.coursebook import load_unit
from mathmachine.engine.masking import masked_self_attention_steps

from .conftest import UNIT, tab_to

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

OpenPage = Callable[..., Any]
Axe = Callable[..., list[dict[str, Any]]]
EX = unit18_examples()["mask"]
SECTION = f"/units/{UNIT}/10/"
W = "#w13"
DRAFT = any(d.number == 10 for d in load_unit(UNIT).drafts)
MINUS = "\u2212"


def fmt(x: float, places: int = 3) -> str:
    s = f"{x:.{places}f}"
    return (s.lstrip("-") if float(s) == 0 else s).replace("-", MINUS)


def vec(xs: Any) -> str:
    return "(" + ", ".join(fmt(x) for x in xs) + ")"


def _open(open_page: OpenPage, **kw: Any) -> Any:
    return open_page(SECTION, buyer=not DRAFT, staff=DRAFT, **kw)


def texts(page: Any, name: str) -> list[str]:
    sel = f'{W} [data-target~="{name}"]'
    return [s.strip() for s in page.locator(sel).evaluate_all("els => els.map(e => e.textContent)")]


def shown(page: Any, words: list[str], masked: bool) -> None:
    x = [EX["vectors"][w] for w in words]
    st = masked_self_attention_steps(x, EX["W_Q"], EX["W_K"], EX["W_V"], masked)
    n = len(words)
    hidden = ~np.tril(np.ones((n, n), dtype=bool)) if masked else np.zeros((n, n), dtype=bool)
    assert texts(page, "score") == [
        "\u2212\u221e" if hidden[i, j] else fmt(st.scaled[i, j]) for i in range(n) for j in range(n)
    ]
    assert texts(page, "weight") == [
        "0" if hidden[i, j] else fmt(st.weights[i, j]) for i in range(n) for j in range(n)
    ]
    assert texts(page, "out") == [vec(r) for r in st.output]
    assert texts(page, "row-word") == texts(page, "col-word") == words + words
    assert texts(page, "reads") == [" ".join(words[: t + 1]) for t in range(n)]
    assert texts(page, "guess") == [*words[1:], EX["end"]]


def pick(page: Any, place: int, word: str) -> None:
    """Reach place's select by Tab and move to ``word`` with the arrow keys."""
    sel = f'{W} select[data-target="word"][data-i="{place - 1}"]'
    tab_to(page, sel)
    options = page.locator(f"{sel} option").evaluate_all("els => els.map(e => e.value)")
    for _ in range(len(options)):
        if page.locator(sel).input_value() == word:
            return
        page.keyboard.press("ArrowDown")
    assert page.locator(sel).input_value() == word


def test_the_try_walk_by_keyboard(open_page: OpenPage, axe: Axe) -> None:
    site = _open(open_page, reduced_motion="reduce")
    page = site.page
    words = [c[0] for c in EX["choices"]]
    shown(page, words, True)
    assert texts(page, "same") == ["—"] * 4
    # word 4 becomes "water": places 1-3 the same, to every digit
    pick(page, 4, "water")
    after = [*words[:3], "water"]
    shown(page, after, True)
    assert texts(page, "same") == ["same", "same", "same", "changed"]
    status = page.locator(f'{W} [data-target="status"]').inner_text()
    assert "places 1 to 3 are the same as before" in status
    # the mask off: they peek
    tab_to(page, f'{W} [data-target="mask"]')
    page.keyboard.press("Space")
    assert not page.locator(f'{W} [data-target="mask"]').is_checked()
    shown(page, after, False)
    assert texts(page, "same") == ["changed"] * 4
    assert "They peeked" in page.locator(f'{W} [data-target="status"]').inner_text()
    assert "Mask off" in page.locator(f'{W} [data-target="live"]').inner_text()
    # on again, and word 2 changed: place 1 keeps its output
    page.keyboard.press("Space")
    pick(page, 2, "make")
    now = [after[0], "make", *after[2:]]
    shown(page, now, True)
    assert texts(page, "same") == ["same", "changed", "changed", "changed"]
    assert site.scroll_width() <= 360
    assert axe(page, W) == []


def test_without_javascript_the_fallback_shows(open_page: OpenPage) -> None:
    page = _open(open_page, js=False).page
    assert page.locator(f"{W} .cm-fallback").is_visible()
    assert not page.locator(f"{W} select").first.is_visible()
    assert not page.locator(f'{W} [data-target="mask"]').is_visible()
    assert page.locator(f"{W} .cm-fallback caption").all_inner_texts() == [
        "With the mask: “tea” becomes “water”",
        "Without the mask: “tea” becomes “water”",
    ]
