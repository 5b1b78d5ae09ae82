"""Devanagari in the attention lab (§6), in real Chromium at 360 px (issue 16): the WordPiece
pieces of a Hindi sentence ("##ा", "##ी") are vowel signs with no letter to sit on. Drawn as they
are, Chromium puts the sign on "#" in a font that has no Devanagari, or the Devanagari font draws
an empty box for the "#": the lab shows them as the prose does, "##◌ा" (the dotted circle), with
lang="hi" so that the Devanagari font comes first, in the chips, the map's labels, the arcs and
the saved SVG; and without JavaScript on the lab's page.

What Chromium drew is read from the DevTools protocol (CSS.getPlatformFontsForNode: the fonts
that drew a node's text and how many glyphs each). A node with Devanagari must be drawn partly by
a Devanagari font; the other fonts may draw at most one glyph per character outside Devanagari
(the box of a missing glyph is one more), and the Devanagari font at most one glyph per Devanagari
character or dotted circle (a "#" it has no glyph for, drawn as its empty box, is one more)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from mathmachine.engine.pretrained import load_minilm

from .conftest import UNIT

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

OpenPage = Callable[..., Any]
PAGE = f"/units/{UNIT}/6/"
W = "#w7"
HINDI = "मैं चाय पीता हूँ"
DEVANAGARI = re.compile(r"[\u0900-\u097f\ua8e0-\ua8ff\u25cc]")


def t(name: str) -> str:
    return f'{W} [data-target~="{name}"]'


def glyph_problems(page: Any, selector: str) -> tuple[list[str], int]:
    """Each node under `selector` with Devanagari whose glyphs do not add up (see the module's
    docstring), and how many such nodes were read."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("DOM.enable")
    cdp.send("CSS.enable")
    root = cdp.send("DOM.getDocument", {"depth": -1})["root"]["nodeId"]
    ids = cdp.send("DOM.querySelectorAll", {"nodeId": root, "selector": selector})["nodeIds"]
    problems, read = [], 0
    for node in ids:
        text = page.evaluate(
            "([sel, i]) => document.querySelectorAll(sel)[i].textContent",
            [selector, ids.index(node)],
        )
        if not DEVANAGARI.search(text):
            continue
        read += 1
        fonts = cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]
        deva = sum(f["glyphCount"] for f in fonts if "Devanagari" in f["familyName"])
        other = sum(f["glyphCount"] for f in fonts if "Devanagari" not in f["familyName"])
        n_deva = len(DEVANAGARI.findall(text))
        n_other = len(text.replace(" ", "")) - n_deva
        if not deva or deva > n_deva or other > n_other:
            problems.append(f"{text!r}: {[(f['familyName'], f['glyphCount']) for f in fonts]}")
    cdp.detach()
    return problems, read


def _ask_hindi(open_page: OpenPage) -> Any:
    site = open_page(PAGE, buyer=True)
    page = site.page
    page.fill("#w7-text", HINDI)
    page.press("#w7-text", "Enter")
    page.wait_for_function(
        "(sel) => document.querySelector(sel).textContent.includes('11 tokens')",
        arg=f"{W} [data-target~='status']",
        timeout=15000,
    )
    page.evaluate("document.fonts.ready")
    return site


def test_the_helper_catches_the_empty_box(open_page: OpenPage) -> None:
    """On a page of the site (its fonts), "##ा" drawn as it is fails and "##◌ा" passes."""
    site = open_page(PAGE, buyer=True)
    page = site.page
    page.evaluate(
        """() => { for (const [id, text, lang] of [
             ['bare', '##\u093e', ''], ['hi', '##\u093e', 'hi'], ['ok', '##\u25cc\u093e', 'hi']]) {
             const s = document.createElement('span'); s.id = 'g-' + id; s.textContent = text
             if (lang) s.lang = lang
             document.querySelector('main').append(s) } }"""
    )
    page.evaluate("document.fonts.ready")
    assert len(glyph_problems(page, "#g-bare")[0]) == 1
    assert len(glyph_problems(page, "#g-hi")[0]) == 1
    assert glyph_problems(page, "#g-ok") == ([], 1)


def test_a_hindi_sentence_draws_every_glyph(open_page: OpenPage) -> None:
    site = _ask_hindi(open_page)
    page = site.page
    tokens = load_minilm().tokenize(HINDI)[0]
    assert "##ा" in tokens  # the sentence has the pieces this is about
    chips = page.locator(f"{t('tokens')} li")
    shown = chips.all_inner_texts()
    assert shown == [tok.replace("##ा", "##◌ा").replace("##ी", "##◌ी") for tok in tokens]
    assert chips.nth(1).get_attribute("lang") == "hi" and chips.nth(0).get_attribute("lang") is None
    problems, read = glyph_problems(page, f"{t('tokens')} li")
    assert problems == [] and read == len(tokens) - 2
    problems, read = glyph_problems(page, f"{t('map')} text")
    assert problems == [] and read == 2 * (len(tokens) - 2)
    page.check(f"{W} input[value='arcs']")
    problems, read = glyph_problems(page, f"{t('arcs')} text")
    assert problems == [] and read == 2 * (len(tokens) - 2)
    assert site.scroll_width() <= 360
    page.screenshot(path=str(Path("/tmp") / "lab-hindi-360.png"), full_page=True)


def test_the_saved_svg_marks_its_hindi_and_explains_itself(open_page: OpenPage) -> None:
    site = _ask_hindi(open_page)
    page = site.page
    page.select_option("#w7-layer", "2")
    page.wait_for_function(
        "(sel) => document.querySelector(sel).textContent.includes('Layer 2, head')",
        arg=f"{W} [data-target~='status']",
        timeout=15000,
    )
    head = page.locator("#w7-head").input_value()
    page.click(f"{t('tokens')} li >> nth=3")  # a row outlined, a cell marked on the page
    with page.expect_download() as got:
        page.click(t("export"))
    svg = Path(got.value.path()).read_text(encoding="utf-8")
    assert "##◌ा" in svg and "##ा<" not in svg
    labels = re.findall(r"<text[^>]*>##◌ा</text>", svg)
    assert labels and all('lang="hi"' in x and "Noto Sans Devanagari" in x for x in labels)
    # the caption: the sentence, the model, layer and head, the scale; no selection outlines
    assert f"“{HINDI}”" in svg and f"all-MiniLM-L6-v2, layer 2, head {head}; each row" in svg
    assert "darker: more weight" in svg and svg.count("<rect") == 11 * 11 + 11
    assert 'stroke="#b45309"' not in svg and 'stroke-width="2"' not in svg


def test_without_javascript_the_lab_page_draws_hindi_too(open_page: OpenPage) -> None:
    site = open_page(None, buyer=True, js=False)
    page = site.page
    site.goto(f"/units/{UNIT}/lab/?text={HINDI}&layer=2&head=3")
    codes = page.locator("main code[lang='hi']")
    assert "##◌ा" in codes.all_inner_texts()
    # the shaded map drawn on the server, its numbers as a table under it
    assert page.locator("main svg.wk-hm-svg rect[data-r]").count() == 11 * 11
    assert page.locator("main svg.wk-hm-svg text[lang='hi']").count() == 2 * 9
    assert page.locator("main table.wk-hm-table caption").is_visible()
    assert site.scroll_width() <= 360


def test_on_a_phone_the_count_the_stale_map_and_the_larger_map(open_page: OpenPage) -> None:
    """The live count against the limits (a long paste is not cut: it is counted and refused in
    words), an old error gone once the box changes, a note that the map is the previous
    sentence's, and a larger map to tap past 12 tokens."""
    site = open_page(PAGE, buyer=True)
    site.allow(r"status of 400|HTTP 400")  # the long paste is refused, on purpose
    page = site.page
    shown = page.locator("#w7-text").input_value()
    count = page.locator(t("count"))
    assert count.is_visible() and f"{len(shown)} of 250 characters" in count.inner_text()
    long = "tea " * 75  # 300 characters, 299 once its end is trimmed
    page.fill("#w7-text", long)
    assert page.locator("#w7-text").input_value() == long  # not cut at 250
    assert "299 of 250 characters: 49 too many" in count.inner_text()
    page.press("#w7-text", "Enter")
    error = page.locator("#w7-error")
    error.wait_for(state="visible", timeout=15000)
    assert "299 characters" in error.inner_text()
    stale = page.locator(t("stale"))
    assert stale.is_visible() and shown in stale.inner_text()
    page.fill("#w7-text", "")
    assert error.is_hidden()  # the error was about the text that is gone
    # the larger map: cells of 32 px, in a box that scrolls
    before = float(page.locator(f"{t('map')} rect[data-r]").first.get_attribute("width"))
    page.click(t("zoom"))
    assert page.locator(t("zoom")).get_attribute("aria-pressed") == "true"
    assert float(page.locator(f"{t('map')} rect[data-r]").first.get_attribute("width")) == 32
    assert before < 32 and site.scroll_width() <= 360


def test_the_thumbnails_show_their_head_numbers(open_page: OpenPage) -> None:
    site = open_page(PAGE, buyer=True)
    page = site.page
    page.click(t("all"))
    page.wait_for_function("() => document.querySelectorAll('#w7 .al-thumb').length === 72")
    label = page.locator("#w7 .al-thumb >> nth=4").locator("span").first
    assert label.inner_text() == "H5" and label.is_visible()
    ink, paper = label.evaluate(
        "s => [getComputedStyle(s).color, getComputedStyle(s.closest('button')).backgroundColor]"
    )
    assert ink != paper and ink != "rgb(255, 255, 255)"  # readable, not white on white
