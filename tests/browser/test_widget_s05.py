"""Widget 6 (§5, "Bank by the river") in real Chromium at 360 px, opened as a buyer: the Try
boxes walked by keyboard alone with reduced motion asked for, every number compared with the
engine's; the tabs as a tablist; axe clean after the walk; and the fallback without JavaScript.

What every widget must do (Tab reaches every control, the main control updates it, axe) is the
conformance test's; here is what the Try boxes promise.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from support import unit18_examples

from mathmachine.engine.pretrained import word_senses
from mathmachine.engine.self_attention import self_attention_steps

from .conftest import UNIT, tab_to

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

OpenPage = Callable[..., Any]
Axe = Callable[..., list[dict[str, Any]]]
EX = unit18_examples()
TOY = EX["bank_toy"]
REAL = EX["bank_real"]
VECTORS = {w["word"]: w["vector"] for w in TOY["words"]} | {"bank": TOY["vector"]}
W = "bank-by-the-river"
PATH = f"/units/{UNIT}/5/"


def t(name: str) -> str:
    return f'{W} [data-target~="{name}"]'


def chip(word: str) -> str:
    return f'{W} [data-target="chip"][data-word="{word}"]'


def fmt(x: float, places: int = 3) -> str:
    s = f"{x:.{places}f}"
    return (s.lstrip("-") if float(s) == 0 else s).replace("-", "\u2212")


def bank(sentence: list[str]) -> tuple[np.ndarray, np.ndarray, str]:
    """The engine's weights and output of "bank", and its side of the line."""
    eye = np.eye(2)
    st = self_attention_steps([VECTORS[w] for w in sentence], eye, eye, eye)
    i = sentence.index("bank")
    out = st.output[i]
    gap = out[0] - out[1]
    side = "line" if abs(gap) < TOY["margin"] else ("water" if gap > 0 else "money")
    return st.weights[i], out, side


SIDE_WORDS = {
    "water": "on the water side",
    "money": "on the money side",
    "line": "on the line between the two sides",
}


def shows(page: Any, sentence: list[str]) -> None:
    """The widget shows the engine's numbers for ``sentence``: answer, side, visible rows."""
    weights, out, side = bank(sentence)
    assert page.locator(t("answer")).inner_text() == f"({fmt(out[0])}, {fmt(out[1])})"
    assert page.locator(t("side")).inner_text() == SIDE_WORDS[side]
    got = dict(
        page.locator(f"{t('row')}:visible").evaluate_all(
            "rows => rows.map(r => [r.dataset.word,"
            " r.querySelector('[data-target~=weight]').textContent])"
        )
    )
    assert got == {w: fmt(a) for w, a in zip(sentence, weights, strict=True)}
    pressed = page.locator(f'{W} [data-target="chip"][aria-pressed="true"]')
    assert sorted(pressed.evaluate_all("els => els.map(e => e.dataset.word)")) == sorted(
        w for w in sentence if w != "bank"
    )


def press_chip(page: Any, word: str) -> None:
    tab_to(page, chip(word), limit=40)
    page.keyboard.press("Enter")


def test_the_try_walk_by_keyboard(open_page: OpenPage, axe: Axe) -> None:
    page = open_page(PATH, buyer=True, reduced_motion="reduce").page
    shows(page, ["river", "bank"])

    # "bank loan" from the sentence list: across the line; the ring (the input) never moves
    ring = page.locator(f"{W} .bk-in").evaluate("c => [c.getAttribute('cx'), c.getAttribute('cy')]")
    tab_to(page, t("preset"))
    page.keyboard.press("ArrowDown")
    assert page.locator(t("preset")).input_value() == "loan"
    shows(page, ["bank", "loan"])
    assert ring == page.locator(f"{W} .bk-in").evaluate(
        "c => [c.getAttribute('cx'), c.getAttribute('cy')]"
    )
    assert "comes out at (0.269, 2.462), on the money side" in page.locator(t("live")).inner_text()

    # take "loan" out: "bank" alone comes out as itself, and the list says so
    press_chip(page, "loan")
    shows(page, ["bank"])
    assert page.locator(t("preset")).input_value() == "alone"

    # fish, by, the: a preset of the list, found again from the buttons
    for word in ("fish", "by", "the"):
        press_chip(page, word)
    assert page.locator(t("preset")).input_value() == "fish"
    shows(page, ["fish", "by", "the", "bank"])

    # the check's swap: river with loan sits on the line; money instead of loan: water side
    for word in ("fish", "by", "the", "river", "loan"):
        press_chip(page, word)
    shows(page, ["river", "bank", "loan"])
    press_chip(page, "loan")
    press_chip(page, "money")
    assert page.locator(t("preset")).input_value() == "own"
    shows(page, ["river", "money", "bank"])
    assert page.locator(t("sentence")).inner_text() == "river money bank"

    # the real model: the tablist is one Tab stop, the arrow keys switch the panel
    tab_to(page, f'{W} [role="tab"][aria-selected="true"]', backwards=True)
    page.keyboard.press("ArrowRight")
    real_tab = page.locator(f'{W} [role="tab"][data-tab="real"]')
    assert real_tab.get_attribute("aria-selected") == "true"
    assert page.evaluate("document.activeElement.dataset.tab") == "real"
    assert page.locator("#w6-real").is_visible() and page.locator("#w6-toy").is_hidden()
    assert page.locator("#w6-real").get_attribute("role") == "tabpanel"

    senses = word_senses([s["text"] for s in REAL["sentences"]], REAL["word"])
    ids = [s["id"] for s in REAL["sentences"]]

    def table(view: str) -> list[list[str]]:
        cells = page.locator(f"#w6-{view} tbody tr").evaluate_all(
            "rows => rows.map(r => [...r.querySelectorAll('td')].map(td => td.textContent))"
        )
        return [[c.strip() for c in row] for row in cells]

    def expect(m: np.ndarray) -> list[list[str]]:
        return [[fmt(m[i, j], 2) for j in range(len(ids))] for i in range(len(ids))]

    assert page.locator("#w6-centred").is_visible() and page.locator("#w6-raw").is_hidden()
    assert table("centred") == expect(senses.centred)
    tab_to(page, f'{W} [data-target="pick"]:checked')
    page.keyboard.press("ArrowDown")  # outputs, raw
    assert page.locator("#w6-raw").is_visible() and page.locator("#w6-centred").is_hidden()
    assert table("raw") == expect(senses.raw)
    assert "Mean over pairs of the same sense" in page.locator(t("live")).inner_text()
    page.keyboard.press("ArrowDown")  # inputs (layer 0)
    assert page.locator("#w6-input").is_visible()
    assert table("input") == expect(senses.input_cosines)

    assert page.evaluate("document.getAnimations().length") == 0
    assert axe(page, "#w6") == []
    assert page.evaluate("document.documentElement.scrollWidth") <= 360


def test_the_dot_glides_unless_reduced_motion_is_asked(open_page: OpenPage) -> None:
    page = open_page(PATH, buyer=True).page
    page.locator(t("preset")).select_option("loan")
    assert page.evaluate("document.getAnimations().length") >= 1  # the 250 ms glide
    page.wait_for_function("() => document.getAnimations().length === 0")
    shows(page, ["bank", "loan"])


def test_without_javascript(open_page: OpenPage) -> None:
    page = open_page(PATH, buyer=True, js=False).page
    # the plane with both outputs of the worked example, the weights of "river bank"
    _, out_river, _ = bank(["river", "bank"])
    _, out_loan, _ = bank(["bank", "loan"])
    desc = page.locator(f"{W} figure desc").text_content() or ""
    for out in (out_river, out_loan):
        assert f"({fmt(out[0])}, {fmt(out[1])})" in desc
    assert page.locator(f"{W} .bk-second").count() == 3
    assert page.locator(f"{W} circle.bk-second").is_visible()
    shows_rows = page.locator(f"{t('row')}:visible").evaluate_all(
        "rows => rows.map(r => r.dataset.word)"
    )
    assert shows_rows == ["bank", "river"]
    # every preset's output, and all three tables of the real model, each with its caption
    presets = page.locator("#w6-presets tbody tr")
    assert presets.count() == len(TOY["presets"])
    for k, p in enumerate(TOY["presets"]):
        _, out, _ = bank(p["sentence"])
        assert f"({fmt(out[0])}, {fmt(out[1])})" in presets.nth(k).inner_text()
    for view in ("centred", "raw", "input"):
        assert page.locator(f"#w6-{view}").is_visible()
        assert page.locator(f"#w6-{view} caption").is_visible()
    for control in page.locator(f"{W} button, {W} input, {W} select").all():
        assert control.is_hidden()
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
