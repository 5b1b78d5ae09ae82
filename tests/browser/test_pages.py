"""The real pages in Chromium: section 1's "Try" walk by keyboard at 360 px, JavaScript off,
reduced motion, phone widths, console and CSP cleanliness, and Devanagari drawn with a real font.

Every page opened through ``open_page`` also fails its test on any console error or warning,
page error, CSP violation, failed request, HTTP error or request to another host (conftest.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from .conftest import HOME, PRICING, SECTION_1, SECTION_2, UNIT_PAGE, focused, tab_to

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

OpenPage = Callable[..., Any]
W = "translate-lookback"
WRITTEN = f'{W} .tl-word:not([data-written="false"])'
LIT = f'{W} [data-target~="row"]:not([data-lit="false"])'


def beams(page: Any) -> list[str]:
    return page.locator(f'{W} [data-target~="beam-share"]').all_inner_texts()


def map_row(page: Any, i: int) -> list[str]:
    return page.locator(f'{W} [data-target~="row"]').nth(i).locator("td").all_inner_texts()


def status(page: Any) -> str:
    return page.locator(f"{W} .tl-status").inner_text()


def context_vector(page: Any) -> str:
    return page.locator(f"{W} .tl-context").inner_text()


def test_try_walk_keyboard_only_at_360px(open_page: OpenPage) -> None:
    """SPEC §1's "Try": ▶ translate, pick चाय, "how sure" 2 then 0, attention off and on."""
    site = open_page(SECTION_1, width=360, height=740)
    page = site.page

    # ▶ translate: the four Hindi words are written one by one and the map fills, four rows.
    tab_to(page, f"{W} .tl-play")
    page.keyboard.press("Enter")
    assert page.locator(WRITTEN).count() < 4  # still playing right after the press
    page.wait_for_function(
        "() => document.querySelector('translate-lookback .tl-status')"
        ".textContent.includes('is written')",
        timeout=10_000,
    )
    assert page.locator(WRITTEN).count() == 4
    assert page.locator(f"{W} .tl-word-hi").all_inner_texts() == ["मैं", "चाय", "पीता", "हूँ"]
    for word in page.locator(f"{W} .tl-word").all():
        assert word.is_visible()
    assert page.locator(LIT).count() == 4
    assert all(row.is_visible() for row in page.locator(f"{W} [data-target~=row]").all())
    assert map_row(page, 0) == ["0.736", "0.164", "0.100"]
    assert map_row(page, 3) == ["0.422", "0.422", "0.155"]

    # Select चाय with the keyboard.
    tab_to(page, f"{W} [data-target~=word]:nth-child(2)")
    page.keyboard.press("Enter")
    chai = page.locator(f"{W} [data-target~=word]:nth-child(2)")
    assert chai.get_attribute("aria-pressed") == "true"
    assert page.locator(f"{W} [aria-pressed=true]").count() == 1
    assert status(page) == "चाय (chai): I 0.100, drink 0.164, tea 0.736"

    # "how sure" to 2: tea gets 0.936 everywhere it shows.
    tab_to(page, f"{W} [data-target~=sure]")
    for _ in range(10):
        page.keyboard.press("ArrowRight")
    assert page.locator(f"{W} [data-target~=sure-value]").inner_text() == "2.0"
    assert beams(page) == ["0.017", "0.047", "0.936"]  # I, drink, tea
    assert map_row(page, 1) == ["0.017", "0.047", "0.936"]
    assert map_row(page, 0) == ["0.736", "0.164", "0.100"]  # the other rows stay
    assert status(page) == "चाय (chai): I 0.017, drink 0.047, tea 0.936"
    assert context_vector(page).endswith("(0.017, 0.047, 0.936)")

    # "how sure" to 0: a third each.
    page.keyboard.press("Home")
    assert page.locator(f"{W} [data-target~=sure-value]").inner_text() == "0.0"
    assert beams(page) == ["0.333", "0.333", "0.333"]
    assert map_row(page, 1) == ["0.333", "0.333", "0.333"]
    assert status(page) == "चाय (chai): I 0.333, drink 0.333, tea 0.333"

    # "no attention (Unit 17)": beams and map are gone, every word gets the same summary.
    tab_to(page, f"{W} [data-target~=noattn]", backwards=True)
    page.keyboard.press("Space")
    switch = page.locator(f"{W} [data-target~=noattn]")
    assert switch.is_checked()
    assert page.locator(f"{W} [data-target~=beams]").is_hidden()
    assert page.locator(f"{W} [data-target~=map]").is_hidden()
    assert page.locator(f"{W} [data-target~=noattn-note]").is_visible()
    assert "same summary" in status(page)
    assert context_vector(page).endswith("(0.000, 0.000, 1.000)")

    # Back on: beams and map return, with चाय still at 0.
    page.keyboard.press("Space")
    assert not switch.is_checked()
    assert page.locator(f"{W} [data-target~=beams]").is_visible()
    assert page.locator(f"{W} [data-target~=map]").is_visible()
    assert page.locator(f"{W} [data-target~=noattn-note]").is_hidden()
    assert beams(page) == ["0.333", "0.333", "0.333"]
    assert map_row(page, 1) == ["0.333", "0.333", "0.333"]
    assert chai.get_attribute("aria-pressed") == "true"
    assert focused(page) == "#w1-noattn"  # focus stayed where the reader is
    assert site.scroll_width() <= 360


def test_without_javascript_section_1_shows_the_map_and_the_figure(open_page: OpenPage) -> None:
    site = open_page(SECTION_1, js=False)
    page = site.page
    table = page.locator(f"{W} table.tl-map").first
    assert table.is_visible()
    assert table.locator("caption").inner_text().startswith("Alignment map")
    assert page.locator(f"{W} #w1-summary").is_hidden()  # only the switch (JavaScript) shows it
    assert map_row(page, 0) == ["0.736", "0.164", "0.100"]
    assert map_row(page, 1) == ["0.100", "0.164", "0.736"]
    assert map_row(page, 3) == ["0.422", "0.422", "0.155"]
    assert page.locator(f"{W} .tl-figure svg").is_visible()
    assert page.get_by_role("img", name="Alignment of “I drink tea”", exact=False).is_visible()
    for control in (".tl-play", ".tl-word", "[data-target~=sure]", "[data-target~=noattn]"):
        assert page.locator(f"{W} {control}").first.is_hidden(), control
    # The checks are plain forms that post to the server.
    for form in page.locator("form.check-form").all():
        assert form.get_attribute("method") == "post"
        assert "/checks/" in (form.get_attribute("action") or "")
    assert site.scroll_width() <= 360


def test_reduced_motion_nothing_animates(open_page: OpenPage) -> None:
    site = open_page(SECTION_1, reduced_motion="reduce")
    page = site.page
    assert page.evaluate("matchMedia('(prefers-reduced-motion: reduce)').matches")
    tab_to(page, f"{W} .tl-play")
    page.keyboard.press("Enter")
    assert page.locator(f'{W} [data-written="false"], {W} [data-lit="false"]').count() == 0
    assert page.evaluate("document.getAnimations().length") == 0
    page.wait_for_timeout(300)  # nothing starts later either
    assert page.evaluate("document.getAnimations().length") == 0
    # Hover and focus (the usual triggers of transitions) start nothing anywhere on the page.
    page.locator(f"{W} [data-target~=word]:nth-child(3)").hover()
    page.keyboard.press("Tab")
    page.locator("a.skip-link").focus()
    assert page.evaluate("document.getAnimations().length") == 0
    moving = page.evaluate(
        "[...document.querySelectorAll('*')].filter(e => {"
        " const s = getComputedStyle(e);"
        " return s.animationName !== 'none' ||"
        "  s.transitionDuration.split(',').some(d => parseFloat(d) > 0) })"
        ".map(e => e.tagName + '.' + e.className)"
    )
    assert moving == []


def test_without_the_preference_translate_does_animate(open_page: OpenPage) -> None:
    """The counterpart of the reduced-motion test (so that one can fail)."""
    site = open_page(SECTION_1, reduced_motion="no-preference")
    site.page.locator(f"{W} .tl-play").press("Enter")
    site.page.wait_for_function("() => document.getAnimations().length > 0", timeout=3000)


@pytest.mark.parametrize("path", [HOME, UNIT_PAGE, SECTION_1, SECTION_2, PRICING])
def test_fits_a_360px_phone(open_page: OpenPage, billing_products: None, path: str) -> None:
    site = open_page(path, width=360, height=740)
    assert site.scroll_width() <= 360
    if path == SECTION_1:
        site.page.locator(f"{W} .tl-play").press("Enter")
        site.page.locator(f"{W} [data-target~=noattn]").press("Space")
        assert site.scroll_width() <= 360


def test_no_console_errors_or_csp_violations_on_any_page(
    open_page: OpenPage, billing_products: None
) -> None:
    """Walk every page by following links, with JavaScript on and off; then show that a CSP
    violation is noticed (so the silence above means something)."""
    for js in (True, False):
        site = open_page(HOME, js=js, width=1000, height=800)
        page = site.page
        page.get_by_role("link", name="Attention and Transformers").click()
        page.wait_for_url("**" + UNIT_PAGE)
        page.locator(".toc a", has_text="look back").first.click()
        page.wait_for_url("**" + SECTION_1)
        site.goto(SECTION_1)  # and wait for the widget
        site.goto(SECTION_2)
        assert "part of the paid unit" in page.locator("main").inner_text()
        page.get_by_role("link", name="Pricing", exact=True).first.click()
        page.wait_for_url("**" + PRICING)
        assert page.locator(".plan").count() == 2
        assert site.unexpected_problems() == []
        if js:
            nonce_less = "document.head.append(Object.assign(document.createElement('script'),"
            page.evaluate(nonce_less + " {textContent: 'window.__ran = 1'}))")
            page.wait_for_function("() => window.__csp.length > 0")
            assert page.evaluate("window.__ran") is None
            found = site.unexpected_problems()
            assert any("Content Security Policy" in p for p in found), found
            assert any(p.startswith("CSP violation: script-src") for p in found), found
            site.allow("Content Security Policy|CSP violation")


# Draw चाय in the subset font and in a family that does not exist (what a page without the
# webfont gets: a fallback, on a bare machine empty boxes), and three unassigned code points
# (boxes for sure); count the pixels whose ink differs.
_DRAW_CHAI = """() => {
  const draw = (family, text) => {
    const c = document.createElement('canvas'); c.width = 240; c.height = 90
    const g = c.getContext('2d'); g.fillStyle = '#000'; g.textBaseline = 'middle'
    g.font = `56px ${family}`; g.fillText(text, 8, 45)
    return [...g.getImageData(0, 0, 240, 90).data].filter((_, i) => i % 4 === 3)
  }
  const font = draw('"Noto Sans Devanagari Subset"', 'चाय')
  const fallback = draw('"No Such Font Anywhere"', 'चाय')
  const tofu = draw('"No Such Font Anywhere"', '\\u0378\\u0378\\u0378')
  const differ = (a, b) => a.reduce((n, v, i) => n + (Math.abs(v - b[i]) > 64), 0)
  return {ink: font.filter(v => v > 128).length,
          vsFallback: differ(font, fallback), vsTofu: differ(font, tofu)}
}"""
_FACES = "[...document.fonts].map(f => [f.family.replaceAll('\"', ''), f.status])"


def test_devanagari_is_drawn_with_the_subset_font_not_boxes(open_page: OpenPage) -> None:
    site = open_page(SECTION_1, width=360, height=740)
    page = site.page
    page.evaluate("document.fonts.ready.then(() => true)")
    # The page's @font-face for the subset was used and has loaded (the bare machine has no
    # Devanagari font of its own, so the page needed it).
    faces = page.evaluate(_FACES)
    # It is the section's own cut (coursebook/fonts.py), loaded; the whole font, declared
    # under the same family by site.css, was not needed (test_section_fonts.py draws with it).
    assert ["Noto Sans Devanagari Subset", "loaded"] in faces, faces
    assert ["Noto Sans Devanagari Subset", "unloaded"] in faces, faces
    drawn = page.evaluate(_DRAW_CHAI)
    assert drawn["ink"] > 300, drawn
    assert drawn["vsFallback"] > 300, drawn
    assert drawn["vsTofu"] > 300, drawn
    # The Hindi on the page is set in it (first in line on a machine without Devanagari fonts).
    families = page.evaluate(
        "[...document.querySelectorAll('translate-lookback [lang=hi]')]"
        ".map(e => getComputedStyle(e).fontFamily)"
    )
    assert families and all("Noto Sans Devanagari Subset" in f for f in families), families
    page.locator(W).screenshot(path="/tmp/devanagari-check.png")


def test_without_the_webfont_the_same_measure_sees_no_devanagari(open_page: OpenPage) -> None:
    """The counterpart: with the font file broken, the drawing matches the fallback's."""
    site = open_page(None)
    site.page.route(
        "**/*.woff2", lambda route: route.fulfill(status=200, content_type="font/woff2", body="")
    )
    site.allow("Failed to decode downloaded font|OTS parsing error")
    site.goto(SECTION_1)
    page = site.page
    page.evaluate("document.fonts.ready.then(() => true)")
    assert ["Noto Sans Devanagari Subset", "error"] in page.evaluate(_FACES)
    drawn = page.evaluate(_DRAW_CHAI)
    assert drawn["vsFallback"] < 50, drawn
