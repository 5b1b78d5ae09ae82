"""Widget 7, the attention lab (§6), in real Chromium at 360 px as a buyer: the Try box walked by
keyboard alone with reduced motion asked for, every number drawn compared with the engine's for
the same sentence, bad input told in words, the share link reopening the same sentence, layer and
head, the map saved as SVG, the toy mode against §3's numbers; and without JavaScript the form
reaching the lab's page, which draws the map on the server with its numbers as a table."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import numpy as np
import pytest
from support import unit18_examples

from mathmachine.engine import shares_rounded
from mathmachine.engine.pretrained import load_minilm
from mathmachine.engine.self_attention import self_attention_steps

from .conftest import UNIT, tab_to

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

OpenPage = Callable[..., Any]
Axe = Callable[..., list[dict[str, Any]]]
PAGE = f"/units/{UNIT}/6/"
W = "#w7"


def t(name: str) -> str:
    return f'{W} [data-target~="{name}"]'


def drawn(page: Any) -> np.ndarray:
    """The map's cells as drawn: the fill of each rect, read back as the weight order (rows)."""
    return np.array(
        page.evaluate(
            """(sel) => { const cells = [...document.querySelectorAll(sel + ' rect[data-r]')]
                 const n = Math.round(Math.sqrt(cells.length))
                 return [...Array(n)].map((_, i) => cells.slice(i * n, i * n + n)
                   .map((c) => c.getAttribute('fill'))) }""",
            t("map"),
        )
    )


def wait_for(page: Any, text: str) -> None:
    page.wait_for_function(
        "([sel, text]) => document.querySelector(sel).textContent.includes(text)",
        arg=[f"{W} [data-target~='status']", text],
        timeout=15000,
    )


def row_words(page: Any) -> str:
    return page.locator(t("row-words")).inner_text()


def test_the_try_walk_by_keyboard(open_page: OpenPage, axe: Axe) -> None:
    site = open_page(PAGE, buyer=True, reduced_motion="reduce")
    page = site.page
    model = load_minilm()
    sentence = page.locator(t("text")).input_value()
    run = model.run(sentence)

    # Layer 1, head 3 by keyboard: each token's row is the engine's, rounded, and sums to 1
    tab_to(page, f"{W} select[data-target~='layer']")
    page.keyboard.press("Home")  # layer 1
    wait_for(page, "Layer 1, head 1")
    tab_to(page, f"{W} select[data-target~='head']")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    wait_for(page, "Layer 1, head 3")
    tab_to(page, t("tokens"))
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")  # the row of "bank" (place 2)
    words = row_words(page)
    units = shares_rounded(run.attention[0, 2, 2], 3)
    top = int(np.argmax(units))
    assert f"Row of “bank” (place 2) looks at {run.tokens[top]} {units[top] / 1000:.3f}" in words
    assert words.endswith("The row adds up to 1.000.")
    live = page.locator(f"{W} [data-target~='live']").inner_text()
    assert "Row of “bank”" in live  # the keyboard move is announced
    shades = drawn(page)
    assert shades.shape == (len(run.tokens), len(run.tokens))

    # the neuron view of (bank, the): the engine's q·k, ÷√32 and weight
    tab_to(page, f"{W} select[data-target~='key']")
    page.keyboard.press("ArrowDown")  # key 1: "the"
    page.wait_for_function(
        "(sel) => document.querySelector(sel).textContent.includes('gives “the” the weight')",
        arg=t("neuron"),
        timeout=15000,
    )
    view = model.neuron_view(run, 0, 2, 2, 1)
    text = page.locator(t("neuron")).inner_text().replace("−", "-")
    assert f"products: {view.score:.3f}" in text
    assert f"√32 = 5.657: {view.scaled:.3f}" in text
    assert f"the weight {view.weight:.3f}" in text

    # all 72 heads, and one opened with Enter
    tab_to(page, t("all"))
    page.keyboard.press("Enter")
    page.wait_for_selector(f"{W} button[data-layer='6'][data-head='12']", timeout=15000)
    assert page.locator(f"{W} button.al-thumb").count() == 72
    tab_to(page, f"{W} button[data-layer='4'][data-head='2']")
    page.keyboard.press("Enter")
    wait_for(page, "Layer 4, head 2")
    assert page.locator(t("head")).input_value() == "2"
    sink = float((run.attention[3, 1][:, 0] + run.attention[3, 1][:, -1]).mean())
    assert f"on average {sink:.2f} of each row" in page.locator(t("status")).inner_text()

    # arcs by keyboard (a radio group: arrow keys)
    tab_to(page, f"{W} input[value='map']")
    page.keyboard.press("ArrowRight")
    assert page.locator(t("arcs-box")).is_visible() and page.locator(t("map-box")).is_hidden()
    assert page.locator(f"{t('arcs')} path").count() == len(run.tokens)
    assert axe(page, W) == []
    assert site.scroll_width() <= 360


def test_devanagari_bad_input_and_the_toy(open_page: OpenPage, axe: Axe) -> None:
    site = open_page(PAGE, buyer=True, reduced_motion="reduce")
    site.allow(r"status of 400|HTTP 400")  # the refused sentence below answers 400, on purpose
    page = site.page
    page.fill("#w7-text", "मैं चाय पीता हूँ")
    page.press("#w7-text", "Enter")
    wait_for(page, "11 tokens")
    tokens = page.locator(f"{t('tokens')} li").all_inner_texts()
    # the model's pieces, a vowel sign shown on the dotted circle (test_lab_devanagari.py)
    model_tokens = load_minilm().run("मैं चाय पीता हूँ").tokens
    assert [x.replace("◌", "") for x in tokens] == model_tokens and "##◌ा" in tokens
    assert "drops combining marks" in page.locator(t("notes")).inner_text()

    page.fill("#w7-text", "I drink tea \U0001f375")
    page.press("#w7-text", "Enter")
    error = page.locator("#w7-error")
    error.wait_for(state="visible", timeout=15000)
    assert "emoji" in error.inner_text()
    assert page.locator("#w7-text").get_attribute("aria-invalid") == "true"
    assert "w7-error" in (page.locator("#w7-text").get_attribute("aria-describedby") or "")
    assert axe(page, W) == []

    # the toy: §3's weights, computed in the browser
    toy = unit18_examples()["attention_lab"]["toy"]
    steps = self_attention_steps(toy["X"], toy["W_Q"], toy["W_K"], toy["W_V"])
    tab_to(page, t("toy"))
    page.keyboard.press("Space")
    wait_for(page, "The toy model, 3 tokens")
    assert page.locator(f"{t('tokens')} li").all_inner_texts() == toy["words"]
    assert page.locator("#w7-text").is_disabled() and page.locator("#w7-head").is_disabled()
    w = steps.weights[0]  # the row of "I": drink first
    assert f"Row of “I” (place 0) looks at drink {w[1]:.3f}" in row_words(page)
    assert error.is_hidden()


def test_share_link_reopens_and_the_map_saves_as_svg(open_page: OpenPage) -> None:
    site = open_page(PAGE, buyer=True)
    page = site.page
    page.fill("#w7-text", "She reads a book on the train.")
    page.select_option("#w7-layer", "2")
    page.select_option("#w7-head", "9")
    page.press("#w7-text", "Enter")
    wait_for(page, "Layer 2, head 9")
    page.click(t("share"))
    page.wait_for_function(
        "(sel) => document.querySelector(sel).value.includes('/lab/shared/')", arg=t("share-url")
    )
    link = page.locator(t("share-url")).input_value()  # the signed link to the kept map
    assert re.search(rf"/units/{UNIT}/lab/shared/[^/]+/$", link), link
    with page.expect_download() as got:
        page.click(t("export"))
    svg = Path(got.value.path()).read_text(encoding="utf-8")
    assert svg.startswith("<svg") and "layer 2, head 9" in svg and "data-r" not in svg
    assert got.value.suggested_filename == "attention-layer2-head9.svg"
    # a buyer opening the link can take it into the lab: the same sentence, layer and head
    again = open_page(None, buyer=True)
    again.goto(urlsplit(link).path, upgraded=False)
    again.page.get_by_role("link", name="Open it in the lab").click()
    again.page.wait_for_function(
        "() => [...document.querySelectorAll('[data-kit]')]"
        ".every(w => w.hasAttribute('data-upgraded'))"
    )
    wait_for(again.page, "Layer 2, head 9")
    assert again.page.locator("#w7-text").input_value() == "She reads a book on the train."
    run = load_minilm().run("She reads a book on the train.")
    assert again.page.locator(f"{W} [data-target~='tokens'] li").all_inner_texts() == run.tokens


def test_without_javascript_the_form_opens_the_table(open_page: OpenPage) -> None:
    site = open_page(PAGE, js=False, buyer=True)
    page = site.page
    assert page.locator(f"{W} svg[data-target~=map] rect[data-r]").first.is_visible()
    assert page.locator(f"{W} table.wk-hm-table caption").is_visible()
    page.fill("#w7-text", "I drink tea")
    page.select_option("#w7-layer", "1")
    page.select_option("#w7-head", "3")
    page.click(f"{W} button[type='submit']")
    page.wait_for_url(re.compile(r"/lab/\?text=I\+drink\+tea&layer=1&head=3"))
    assert page.locator("main svg.wk-hm-svg rect[data-r]").count() == 5 * 5
    table = page.locator("table.wk-hm-table")
    assert table.locator("caption").is_visible()
    run = load_minilm().run("I drink tea")
    tea_row = table.locator("tbody tr").nth(3).locator("td").all_inner_texts()
    assert abs(float(tea_row[2]) - run.attention[0, 2, 3, 2]) <= 1e-3
    assert sum(round(float(x) * 1000) for x in tea_row[:-1]) == 1000
    assert site.scroll_width() <= 360


def test_opening_the_page_asks_the_server_nothing(open_page: OpenPage) -> None:
    """The example's map and its first neuron view come with the page (computed when the unit
    was compiled): the model runs only for what the learner asks."""
    site = open_page(None, buyer=True)
    asked: list[str] = []
    site.page.on("request", lambda r: asked.append(r.url) if "/lab/" in r.url else None)
    site.goto(PAGE)
    site.page.locator(t("neuron")).get_by_text("softmax over the row").wait_for()
    assert asked == []
    assert "of the row of “[CLS]”" in site.page.locator(t("neuron")).inner_text()
