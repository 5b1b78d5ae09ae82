"""Each section's own Devanagari font in real Chromium (issue 19, "Lighter first visits").

On every written section (drafts too, as a staff buyer) the page downloads its own cut of the
Devanagari font when it prints Devanagari, never the whole font, and no font when it prints
none. Every Devanagari grapheme cluster in the page (text and form values) is then drawn on a
canvas with the section's font alone and with the whole font: the two drawings must match
(same glyphs, same shaping: a missing glyph would be a box or a fallback, a missing conjunct
or matra a different drawing), and must differ from a family that does not exist (the bare
machine has no Devanagari font: boxes). The method is test_pages.py's canvas measure, run per
cluster. In the lab (§6, widget 7) a Hindi sentence the section does not print is typed: the
whole font is fetched then, and every cluster the lab shows is drawn with it, not as boxes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.conf import settings
from django.templatetags.static import static

from mathmachine import coursebook

from .conftest import UNIT

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

OpenPage = Callable[..., Any]
WHOLE = "site/fonts/noto-sans-devanagari-subset.woff2"

# Every Devanagari grapheme cluster in the page: text nodes (scripts and styles aside) and the
# values of form fields.
_CLUSTERS = r"""() => {
  const deva = /[\u0900-\u097F\uA8E0-\uA8FF\u1CD0-\u1CFF]/
  const seg = new Intl.Segmenter('hi', {granularity: 'grapheme'})
  const texts = []
  const family = e => getComputedStyle(e).fontFamily
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT)
  while (walker.nextNode()) {
    const n = walker.currentNode, e = n.parentElement
    if (deva.test(n.data) && !e.closest('script, style, template')) texts.push([n.data, family(e)])
  }
  for (const f of document.querySelectorAll('input, textarea'))
    if (deva.test(f.value)) texts.push([f.value, family(f)])
  const out = new Map()
  for (const [t, f] of texts)
    for (const {segment} of seg.segment(t))
      if (deva.test(segment)) out.set(segment + '\0' + f, [segment, f])
  return [...out.values()]
}"""

# Draw each cluster in family `a` (null: the family the page sets it in), in family `b` and in a
# family that does not exist; count the pixels whose ink differs. Returns the clusters that fail
# (a != b, or a like the fallback, or no ink).
_COMPARE = """async ([clusters, a, b, urls]) => {
  for (const [family, url] of urls) {
    const face = new FontFace(family, `url(${url})`)
    document.fonts.add(face)
    await face.load()
  }
  // drawn large: from about 256 px Chromium draws glyphs as paths, without the auto-hinter
  // (the font has no hints; at text sizes FreeType fits a cut, which lacks letters it measures,
  // a pixel differently from the whole font)
  const px = 260, W = px * 3, H = px * 2
  const draw = (family, text) => {
    const c = document.createElement('canvas'); c.width = W; c.height = H
    const g = c.getContext('2d'); g.fillStyle = '#000'; g.textBaseline = 'alphabetic'
    g.font = `${px}px ${family}`; g.fillText(text, px / 2, px * 1.3)
    const d = g.getImageData(0, 0, W, H).data, alpha = new Uint8Array(W * H)
    for (let i = 0; i < alpha.length; i++) alpha[i] = d[4 * i + 3]
    return alpha
  }
  const differ = (x, y) => {
    let n = 0
    for (let i = 0; i < x.length; i++) n += Math.abs(x[i] - y[i]) > 64
    return n
  }
  const bad = []
  for (const [cl, family] of clusters) {
    const one = draw(a || family, cl), two = draw(b, cl), none = draw('"No Such Font Anywhere"', cl)
    const same = differ(one, two), apart = differ(one, none)
    const ink = one.reduce((n, v) => n + (v > 128), 0)
    if (same > 20 || apart < 2000 || ink < 2000)
      bad.push({cluster: cl, family: a || family, same, apart, ink})
  }
  return bad
}"""


def _written_sections() -> list[int]:
    unit = coursebook.load_unit(UNIT, root=settings.CONTENT_DIR).with_drafts()
    return [s.number for s in unit.sections if s.written]


def _all_fonts_requested(site: Any) -> list[str]:
    return [
        u
        for u in site.page.evaluate("performance.getEntriesByType('resource').map(e => e.name)")
        if u.endswith(".woff2")
    ]


def _math_cuts() -> set[str]:
    unit = coursebook.load_unit(UNIT, root=settings.CONTENT_DIR).with_drafts()
    return {s.math_font for s in unit.sections if s.math_font}


def _fonts_requested(site: Any) -> list[str]:
    """The Devanagari fonts the page fetched (neither math font)."""
    math = _math_cuts()
    return [
        u
        for u in _all_fonts_requested(site)
        if "math-fences" not in u and u.rsplit("/", 1)[-1] not in math
    ]


# Every <math> element's box, in the fonts the page sets; then with the whole math fences font
# in their place (`url`): the boxes, by index. Equal boxes: the cut lays every formula out as the
# whole font does (its MATH table, the fences' size variants and assemblies).
_MATH_BOXES = """async (url) => {
  const boxes = () => [...document.querySelectorAll('math')].map((m) => {
    const r = m.getBoundingClientRect()
    return [Math.round(r.width * 2) / 2, Math.round(r.height * 2) / 2]
  })
  const mine = boxes()
  const face = new FontFace('WholeMathFences', `url(${url})`)
  document.fonts.add(face)
  await face.load()
  // through the CSSOM (the page's CSP allows no inline style)
  for (const m of document.querySelectorAll('math')) m.style.fontFamily = '"WholeMathFences", math'
  await document.fonts.ready
  const whole = boxes()
  for (const m of document.querySelectorAll('math')) m.style.fontFamily = ''
  return [mine, whole]
}"""


@pytest.mark.parametrize("number", _written_sections())
def test_a_section_draws_its_devanagari_with_its_own_font_alone(
    open_page: OpenPage, number: int
) -> None:
    unit = coursebook.load_unit(UNIT, root=settings.CONTENT_DIR).with_drafts()
    section = unit.section(number)
    site = open_page(f"/units/{UNIT}/{number}/", staff=True)
    page = site.page
    page.evaluate("document.fonts.ready.then(() => true)")
    page.wait_for_timeout(300)  # a late face would start loading here
    page.evaluate("document.fonts.ready.then(() => true)")
    clusters = page.evaluate(_CLUSTERS)
    requested = _fonts_requested(site)
    whole = static(WHOLE)
    assert not [u for u in requested if whole in u], (number, requested)
    if not section.devanagari_font:
        assert clusters == [], (number, clusters)
        assert requested == [], (number, requested)
        return
    own = f"/units/{UNIT}/fonts/{section.devanagari_font}"
    assert clusters, f"§{number} has a font but shows no Devanagari"
    # drawn at all only if something visible needed it; hidden Hindi is covered below anyway
    assert all(own in u for u in requested), requested
    # the page's own font stack draws every cluster as the section's cut alone does (a cluster
    # the cut lacked would go to the whole font's face, fetched, or be drawn as boxes)
    cut = [["SectionOnly", own]]
    assert page.evaluate(_COMPARE, [clusters, None, "SectionOnly", cut]) == [], number
    assert not [u for u in _fonts_requested(site) if whole in u], number
    # and the cut draws every cluster as the whole font does: same glyphs, same shaping
    wholly = [["WholeFont", whole]]
    bad = page.evaluate(_COMPARE, [clusters, "SectionOnly", "WholeFont", wholly])
    assert bad == [], (number, ascii(bad))


def test_the_lab_fetches_the_whole_font_only_for_hindi_its_page_does_not_print(
    open_page: OpenPage,
) -> None:
    site = open_page(f"/units/{UNIT}/6/", buyer=True)
    page = site.page
    page.evaluate("document.fonts.ready.then(() => true)")
    whole = static(WHOLE)
    assert not [u for u in _fonts_requested(site) if whole in u]
    # conjuncts (क्ष, ज्ञ, त्र), a nukta (ज़), a reph (र्म) and matras §6 itself never prints
    sentence = "ज़िंदगी में क्षमा और ज्ञान धर्म है"
    page.fill("#w7-text", sentence)
    page.press("#w7-text", "Enter")
    page.wait_for_function(
        "() => [...document.querySelectorAll('#w7 [data-target~=\"tokens\"] li')].length > 3"
    )
    page.evaluate("document.fonts.ready.then(() => true)")
    assert [u for u in _fonts_requested(site) if whole in u], _fonts_requested(site)
    clusters = page.evaluate(_CLUSTERS)
    in_lab = [c for c, f in clusters if "Noto Sans Devanagari Whole" in f]
    assert {"क्ष", "ज्ञा", "र्म", "ज़िं"} <= set(in_lab), ascii(sorted(set(in_lab)))
    # every cluster, in the lab and around it, drawn in the family the page sets it in,
    # matches the whole font alone
    bad = page.evaluate(_COMPARE, [clusters, None, "WholeFont", [["WholeFont", whole]]])
    assert bad == [], bad


@pytest.mark.parametrize("number", _written_sections())
def test_a_section_lays_its_math_out_with_its_own_cut_as_with_the_whole_font(
    open_page: OpenPage, number: int
) -> None:
    """A section that prints math fetches its own cut of the math fences font, never the whole
    font (its fences are all in the cut), and every formula of the page, the widgets' too, is
    laid out to the same box as with the whole font: no fence drawn by another font, none
    stretched otherwise. A section without math fetches no math font."""
    unit = coursebook.load_unit(UNIT, root=settings.CONTENT_DIR).with_drafts()
    section = unit.section(number)
    site = open_page(f"/units/{UNIT}/{number}/", staff=True)
    page = site.page
    page.evaluate("document.fonts.ready.then(() => true)")
    page.wait_for_timeout(300)
    page.evaluate("document.fonts.ready.then(() => true)")
    whole = static("site/fonts/math-fences.woff2")
    fonts = _all_fonts_requested(site)
    assert not [u for u in fonts if whole in u], (number, fonts)
    if not section.math_font:
        assert page.locator("math").count() == 0, number
        assert not [u for u in fonts if u.rsplit("/", 1)[-1] in _math_cuts()], (number, fonts)
        return
    assert [u for u in fonts if u.endswith(f"/fonts/{section.math_font}")], (number, fonts)
    mine, wholly = page.evaluate(_MATH_BOXES, whole)
    assert len(mine) == len(wholly) > 0
    differ = [(i, a, b) for i, (a, b) in enumerate(zip(mine, wholly, strict=True)) if a != b]
    assert differ == [], (number, differ[:5])
