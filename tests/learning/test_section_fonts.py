"""Each section's own Devanagari font (coursebook/fonts.py, issue 19 "Lighter first visits").

Every written section's page, as a buyer (staff, so drafts too) is served it, is read: every
Devanagari character it prints, in text, attributes and widget data, must be in the cmap of
the font its <head> declares, and that font must hold at least as many glyphs as the whole
font's shaping closure (GSUB: conjuncts, matras, nukta) reaches from the page's words, word by
word (a word: a run of Devanagari in the page as read with its tags taken out, or in its JSON).
A page that prints no Devanagari declares no font. The font is served from the compiled unit,
cached for good.
"""

from __future__ import annotations

import functools
import html
import io
import re

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from fontTools import subset
from fontTools.ttLib import TTFont
from support import paid_order_create

from mathmachine.billing.models import Product
from mathmachine.coursebook import fonts
from mathmachine.learning import selectors

UNIT = "attention-and-transformers"
FACE = re.compile(
    r'<style nonce="[^"]+">@font-face\{font-family:"Noto Sans Devanagari Subset";[^<]*'
    r'src:url\("(/units/[^"]+\.woff2)"\)[^<]*</style>'
)


def _printed(page: str) -> str:
    """The Devanagari characters the page can show: its text and attributes (entities decoded)
    and the JSON it carries for widgets (\\u escapes decoded)."""
    text = html.unescape(page)
    text += re.sub(r"\\u([0-9a-fA-F]{4})", lambda m: chr(int(m.group(1), 16)), text)  # JSON escapes
    return "".join(sorted({ch for ch in text if fonts.is_devanagari(ch)}))


def _words(page: str) -> set[str]:
    """The runs of Devanagari in the page as a browser shapes them (tags out, entities and JSON
    escapes decoded)."""
    text = html.unescape(re.sub(r"<[^>]*>", "", page))
    text += re.sub(r"\\u([0-9a-fA-F]{4})", lambda m: chr(int(m.group(1), 16)), text)
    return set(re.findall("[\u0900-\u097f\u200c\u200d\u25cc]+", text))


@functools.lru_cache(maxsize=1)
def _whole_ttf() -> bytes:
    """The whole font as plain TrueType (read faster than WOFF2, once per word)."""
    font, out = TTFont(str(fonts.SOURCE)), io.BytesIO()
    font.flavor = None
    font.save(out)
    return out.getvalue()


@functools.cache
def _word_closure(word: str) -> frozenset[str]:
    """The glyphs (by name) the whole font keeps for `word` with every layout feature (a whole
    subset, by fontTools' public API)."""
    font = TTFont(io.BytesIO(_whole_ttf()))
    options = subset.Options()
    options.layout_features = ["*"]
    subsetter = subset.Subsetter(options)
    subsetter.populate(text=word + fonts.ALWAYS)
    subsetter.subset(font)
    return frozenset(font.getGlyphOrder())


def _closure(words: set[str]) -> set[str]:
    """The glyphs each word's closure keeps, all words together."""
    return set().union(*(_word_closure(w) for w in words))


@pytest.fixture
def reader(client: Client) -> Client:
    user = get_user_model().objects.create_user(
        "fonts@example.com", "fonts@example.com", "pw-fonts-123456", is_staff=True
    )
    paid_order_create(user, Product.objects.get(code="unit-18"))
    client.force_login(user)
    return client


@pytest.mark.django_db
def test_every_section_declares_a_font_that_covers_what_it_prints(reader: Client) -> None:
    unit = selectors.unit_get(UNIT).with_drafts()
    seen_with, seen_without = [], []
    for s in unit.sections:
        if not s.written:
            continue
        response = reader.get(f"/units/{UNIT}/{s.number}/")
        assert response.status_code == 200, s.number
        page = response.content.decode()
        assert "Keep reading" not in page or "locked" not in page
        printed = _printed(page)
        faces = FACE.findall(page)
        if not printed:
            assert not faces and not s.devanagari_font, f"§{s.number} prints no Devanagari"
            seen_without.append(s.number)
            continue
        assert len(faces) == 1, f"§{s.number} prints {printed!r} and declares {faces}"
        assert faces[0].endswith("/" + s.devanagari_font)
        served = reader.get(faces[0])
        assert served.status_code == 200 and served["Content-Type"] == "font/woff2"
        assert "immutable" in served["Cache-Control"]
        data = served.content
        font = TTFont(io.BytesIO(data))
        cmap = set(font.getBestCmap())
        missing = [f"U+{ord(c):04X} {c}" for c in printed if ord(c) not in cmap]
        assert not missing, f"§{s.number}'s font lacks {missing}"
        assert {ord(c) for c in fonts.ALWAYS} <= cmap
        # the shaping closure: at least every glyph the whole font's layout reaches from each
        # word (counted: the cut names a glyph no character maps to by its new index, so names
        # cannot be compared; the browser test compares the drawings)
        assert len(font.getGlyphOrder()) >= len(_closure(_words(page))), s.number
        assert {"GSUB", "GPOS"} <= set(font.keys())
        # far lighter than the whole font (37 KB)
        assert len(data) < (fonts.SOURCE.stat().st_size) / 1.5, (s.number, len(data))
        seen_with.append(s.number)
    assert seen_with and seen_without  # the unit has both kinds of page today


def test_the_cut_is_made_from_the_text_and_only_the_text() -> None:
    few = fonts.subset_font("चाय")
    more = fonts.subset_font("क्षत्रिय ज्ञान चाय")
    assert fonts.cmap_of(few) >= {ord(c) for c in "चाय"}
    assert ord("ष") not in fonts.cmap_of(few)
    assert {ord(c) for c in "क्षत्रिय ज्ञान"} - {32} <= fonts.cmap_of(more)

    # the conjuncts' forms come with them (the closure): glyphs no character maps to (most
    # of them unnamed in the font), more of them in the cut made for क्ष and ज्ञ
    def forms(data: bytes) -> int:
        font = TTFont(io.BytesIO(data))
        return len(set(font.getGlyphOrder()) - set(font.getBestCmap().values()))

    assert forms(more) >= forms(few) + 2, (forms(more), forms(few))
    assert fonts.devanagari_chars({"a": ("x मैं", ["हूँ"])}, "tea") == "ँंमहूै"


def test_the_cut_keeps_each_words_conjuncts_not_those_of_letters_of_two_words() -> None:
    # क and ष in two words (कम, षट): क्ष is in neither, so its conjunct glyph is not kept;
    # in one word (क्षमा) it is.
    apart = fonts.subset_font("कम षट्")
    together = fonts.subset_font("कम षट् क्षमा")
    glyphs = {len(TTFont(io.BytesIO(d)).getGlyphOrder()) for d in (apart, together)}
    assert len(TTFont(io.BytesIO(together)).getGlyphOrder()) > len(
        TTFont(io.BytesIO(apart)).getGlyphOrder()
    ), glyphs
    assert fonts.cmap_of(apart) >= {ord(c) for c in "कमषट्"}
    # a word split by inline markup is one word; each string is read as text and as HTML
    assert fonts.devanagari_words(["च<b>ा</b>य", "मैं &amp; तुम"], "x") == "च चाय तुम मैं य ा"


@pytest.mark.django_db
def test_an_unknown_font_is_a_404(client: Client) -> None:
    assert client.get(f"/units/{UNIT}/fonts/0000000000000000.woff2").status_code == 404
    assert client.get(f"/units/{UNIT}/fonts/..%2Fsite.css").status_code == 404
    assert client.get("/units/no-such-unit/fonts/0000000000000000.woff2").status_code == 404


MATH_FACE = re.compile(
    r'<style nonce="[^"]+">@font-face\{font-family:"Math Fences";[^<]*'
    r'src:url\("(/units/[^"]+\.woff2)"\)[^<]*unicode-range:([^}]+)\}</style>'
)
_MATH = re.compile(r"<math\b.*?</math>", re.S)


@pytest.mark.django_db
def test_every_section_with_math_declares_a_math_cut_that_holds_its_fences(
    reader: Client,
) -> None:
    """A section that prints math declares its own cut of the math fences font: it maps the
    space and every fence, radical and big operator its formulas print (a square root draws the
    radical), keeps the MATH table, and its unicode-range is what it maps of the whole font's
    characters; lighter than the whole font. A section without math declares none."""
    unit = selectors.unit_get(UNIT).with_drafts()
    whole = TTFont(str(fonts.MATH_SOURCE))
    whole_cmap = set(whole.getBestCmap())
    seen = 0
    for s in unit.sections:
        if not s.written:
            continue
        page = reader.get(f"/units/{UNIT}/{s.number}/").content.decode()
        faces = MATH_FACE.findall(page)
        formulas = _MATH.findall(page)
        if not formulas:
            assert not faces and not s.math_font, s.number
            continue
        assert len(faces) == 1, s.number
        url, declared = faces[0]
        assert url.endswith("/" + s.math_font)
        served = reader.get(url)
        assert served.status_code == 200 and "immutable" in served["Cache-Control"]
        font = TTFont(io.BytesIO(served.content))
        cmap = set(font.getBestCmap())
        assert "MATH" in font
        text = html.unescape(re.sub(r"<[^>]*>", "", "".join(formulas)))
        wanted = {ord(c) for c in text} & whole_cmap | {0x20}
        if any("<msqrt" in f or "<mroot" in f for f in formulas):
            wanted.add(0x221A)
        assert wanted <= cmap, (s.number, sorted(wanted - cmap))
        assert cmap <= whole_cmap
        assert {int(u[2:], 16) for u in declared.split(",")} == cmap, s.number
        assert len(served.content) < fonts.MATH_SOURCE.stat().st_size * 0.8, s.number
        seen += 1
    assert seen


def test_the_math_cut_holds_what_the_formulas_print() -> None:
    chars = fonts.math_characters(
        "<p>(not math) [x]</p><math><mo>(</mo><msqrt><mi>d</mi></msqrt><mo>&#x2211;</mo></math>"
    )
    assert chars == " (\u2211\u221a"
    cut = fonts.cmap_of(fonts.math_subset_font(chars))
    assert cut >= {ord(c) for c in chars}
    assert fonts.unicode_range(chars) == "U+20,U+28,U+2211,U+221A"


def test_a_cut_is_the_same_bytes_at_every_compile(monkeypatch: pytest.MonkeyPatch) -> None:
    """Its name is its hash, cached for good: a compile a second later (a new release) must give
    the same file, or every reader fetches the section's fonts again (no timestamp inside)."""
    import time

    first = fonts.math_subset_font(" ()"), fonts.subset_font("चाय")
    fonts.math_subset_font.cache_clear()
    fonts.subset_font.cache_clear()
    real = time.time
    monkeypatch.setattr(time, "time", lambda: real() + 86400 * 400)
    assert (fonts.math_subset_font(" ()"), fonts.subset_font("चाय")) == first
