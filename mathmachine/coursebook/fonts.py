"""Per-section Devanagari fonts, made when the unit compiles (issue 19, "Lighter first visits").

The site ships one Devanagari webfont (static/site/fonts/noto-sans-devanagari-subset.woff2, the
whole Devanagari block with every layout feature, ~38 KB; scripts/make_devanagari_font.py), for
machines with no Devanagari font of their own. A section prints a few Hindi words, so the
compiler cuts that font down, per section, to the words the section can print: their characters'
glyphs and, for each word (each run of Devanagari), the glyphs the font's GSUB closure reaches
from that word's own characters (its conjuncts, matras, nukta and reph forms), plus the dotted
circle and the joiners. A browser shapes each run of text on its own: a conjunct is made of
letters next to each other in one word, never of letters of two words. A closure over the
section's characters all together would keep every conjunct any two of its letters can make:
§13 prints 37 letters in 58 words, and its cut was 20.4 KB that way, 8.0 KB word by word.
The file is kept in the compiled unit (CompiledUnit.fonts,
named by its hash), served at /units/<slug>/fonts/<name>.woff2 with a year's immutable cache,
and declared in the section's <head> under the same family name as the whole font.

The section's @font-face is declared after site.css's, so the browser tries it first for every
Devanagari character; a character it lacks (a learner typing Hindi into the lab) falls through,
cluster by cluster, to the whole font, which is downloaded only then (unicode-range). A page
that prints no Devanagari declares nothing and downloads no font.

What a section can print is every string of its compiled form (HTML, checks, problems and their
variants, widget configurations) and the unit's titles (the contents list shows them); a word is
a run of Devanagari in one of those strings (devanagari_words).
"""

from __future__ import annotations

import dataclasses
import hashlib
import html
import io
import logging
import re
from collections.abc import Iterable, Iterator
from functools import lru_cache
from pathlib import Path
from typing import Any

FAMILY = "Noto Sans Devanagari Subset"
SOURCE = Path(__file__).resolve().parents[1] / "static/site/fonts/noto-sans-devanagari-subset.woff2"
# The Devanagari blocks (main, Extended, Vedic Extensions): what the @font-face rules cover.
RANGES = ((0x0900, 0x097F), (0xA8E0, 0xA8FF), (0x1CD0, 0x1CFF))
UNICODE_RANGE = "U+0900-097F, U+1CD0-1CFF, U+200C-200D, U+25CC, U+A8E0-A8FF"
# Kept in every subset: ZWNJ and ZWJ (they steer conjuncts) and the dotted circle a shaper
# draws an orphan mark on ("◌ा", the lab's tokens).
ALWAYS = "\u200c\u200d\u25cc"


def is_devanagari(ch: str) -> bool:
    c = ord(ch)
    return any(lo <= c <= hi for lo, hi in RANGES)


# A run of Devanagari as a shaper sees it: letters, marks, the joiners and the dotted circle.
_RUN = re.compile("[\u0900-\u097f\ua8e0-\ua8ff\u1cd0-\u1cff\u200c\u200d\u25cc]+")
_TAG = re.compile(r"<[^>]*>")


def _strings(objects: Iterable[Any]) -> Iterator[str]:
    """Every string inside `objects` (dataclasses, tuples, lists, dicts, strings, walked
    recursively)."""
    found: list[str] = []
    seen: set[int] = set()

    def walk(obj: Any) -> None:
        if isinstance(obj, str):
            found.append(obj)
            return
        if obj is None or isinstance(obj, (int, float, bool, bytes)):
            return
        if id(obj) in seen:
            return
        seen.add(id(obj))
        if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
            for f in dataclasses.fields(obj):
                walk(getattr(obj, f.name))
        elif isinstance(obj, dict):
            for k, v in obj.items():
                walk(k)
                walk(v)
        elif isinstance(obj, (list, tuple, set, frozenset)):
            for v in obj:
                walk(v)
        elif hasattr(obj, "__dict__"):
            walk(vars(obj))

    for o in objects:
        walk(o)
    return iter(found)


def devanagari_chars(*objects: Any) -> str:
    """The Devanagari characters in every string inside `objects`, sorted, each once."""
    return "".join(sorted({ch for s in _strings(objects) for ch in s if is_devanagari(ch)}))


def devanagari_words(*objects: Any) -> str:
    """Every run of Devanagari in the strings inside `objects`, sorted, each once, joined by
    spaces. A string is read as it is and as HTML shows it (tags out, entities decoded: a word
    split by inline markup, च<b>ा</b>य, is shaped as one word)."""
    runs: set[str] = set()
    for s in _strings(objects):
        runs.update(_RUN.findall(s))
        if "<" in s or "&" in s:
            runs.update(_RUN.findall(html.unescape(_TAG.sub("", s))))
    return " ".join(sorted(runs))


@lru_cache(maxsize=1)
def _whole_font() -> Any:
    from fontTools.ttLib import TTFont

    return TTFont(str(SOURCE))


@lru_cache(maxsize=4096)
def _word_glyphs(word: str) -> frozenset[str]:
    """The glyphs (by name) of `word`'s characters (and ALWAYS) and every glyph the whole
    font's layout features reach from them alone (GSUB closure)."""
    from fontTools import subset

    subsetter = subset.Subsetter(_options())
    subsetter.populate(text=word + ALWAYS)
    # The closure step of Subsetter.subset(), without cutting the font (fontTools is pinned in
    # uv.lock; tests/learning/test_section_fonts.py checks the cut against a whole subset).
    subsetter._closure_glyphs(_whole_font())
    return frozenset(subsetter.glyphs_retained)


def _options(*, layout_closure: bool = True) -> Any:
    from fontTools import subset

    options = subset.Options()
    options.layout_features = ["*"]
    options.layout_closure = layout_closure
    options.flavor = "woff2"
    options.hinting = False
    options.desubroutinize = True
    options.name_IDs = ["*"]  # keep the OFL notice and the font's names
    return options


@lru_cache(maxsize=64)
def subset_font(text: str) -> bytes:
    """The whole Devanagari font cut down to the Devanagari words (runs) of `text`: the glyphs
    of their characters (and ALWAYS) and, word by word, every glyph the layout features reach
    from that word's characters (fontTools' GSUB closure: conjuncts, matra and nukta forms;
    GPOS kept for them), as WOFF2 bytes. The layout rules kept are those among these glyphs.
    Deterministic for the same text and fontTools version.

    The font has no hints (neither has the whole one), so on Linux FreeType's auto-hinter fits
    it to the pixel grid from letters it measures in the font; a cut lacking those letters can
    be fitted a pixel differently at text sizes. Drawn large (no hinting), a cut and the whole
    font draw every cluster the same (tests/browser/test_section_fonts.py)."""
    glyphs: set[str] = set()
    for word in _RUN.findall(text):
        glyphs |= _word_glyphs(word)
    glyphs |= _word_glyphs("")  # ALWAYS, and .notdef
    chars = {ord(ch) for ch in text if is_devanagari(ch)} | {ord(ch) for ch in ALWAYS}
    options = _options(layout_closure=False)
    return _cut(SOURCE, options, glyphs=sorted(glyphs), unicodes=sorted(chars))


def _cut(source: Path, options: Any, **populate: Any) -> bytes:
    """The font at ``source`` cut by fontTools' subsetter with ``options`` to what ``populate``
    names (glyphs, unicodes), as WOFF2 bytes: the same bytes at every compile (no timestamp)."""
    from fontTools import subset
    from fontTools.ttLib import TTFont

    quiet = logging.getLogger("fontTools.subset")
    level = quiet.level
    quiet.setLevel(logging.WARNING)  # it reports every table it prunes at INFO
    try:
        font = TTFont(str(source), recalcTimestamp=False)
        subsetter = subset.Subsetter(options)
        subsetter.populate(**populate)
        subsetter.subset(font)
    finally:
        quiet.setLevel(level)
    out = io.BytesIO()
    font.save(out)
    return out.getvalue()


def font_name(data: bytes) -> str:
    """The file name a subset is served under: its hash (so it can be cached for good)."""
    return hashlib.sha256(data).hexdigest()[:16] + ".woff2"


def section_fonts(sections: Iterable[Any], shared: Any) -> tuple[dict[int, str], dict[str, bytes]]:
    """For each written section (by number) that prints Devanagari, its font's file name; and
    the fonts by name. `shared` is what every page of the unit prints too (titles)."""
    names: dict[int, str] = {}
    fonts: dict[str, bytes] = {}
    for s in sections:
        if not s.written:
            continue
        words = devanagari_words(s, shared)
        if not words:
            continue
        data = subset_font(words)
        name = font_name(data)
        names[s.number] = name
        fonts[name] = data
    return names, fonts


def cmap_of(data: bytes) -> set[int]:
    """The code points a font file maps (for tests and the bench)."""
    from fontTools.ttLib import TTFont

    return set(TTFont(io.BytesIO(data)).getBestCmap())


# Each section's own cut of the math fences font (static/site/fonts/math-fences.woff2, ~5.8 KB;
# scripts/make_math_fences_font.py): the space and the fences, radical and big operators the
# section can print (any string of its compiled form, as for the Devanagari cut), with their
# size variants and glyph assemblies and the whole MATH table. The cut is declared in the
# section's <head> under the same family, with a unicode-range of exactly what it holds, after
# site.css's whole font (whose unicode-range is the font's 19 characters): the browser tries the
# cut first and fetches the whole font only for a fence the cut lacks (a widget drawing one the
# page's HTML did not print). The space is always kept: it makes the cut the first available
# font of `math` (CSS Fonts 4, "first available font"), so its MATH table lays every formula out
# as the whole font's did.
MATH_FAMILY = "Math Fences"
MATH_SOURCE = SOURCE.parent / "math-fences.woff2"
MATH_CHARACTERS = " ()[]{|}\u2016\u220f\u2211\u221a\u222b\u2308\u2309\u230a\u230b\u27e8\u27e9"


_MATH = re.compile(r"<math\b.*?</math>", re.DOTALL)


def math_characters(*objects: Any) -> str:
    """The characters of the math fences font that the MathML in the strings inside `objects`
    prints (its text, entities decoded), the space always: what a section's cut keeps, in the
    font's order. Only text inside <math> is drawn in that family (site.css); a square root
    (<msqrt>, <mroot>) draws the radical sign of the font's own."""
    found = {" "}
    for s in _strings(objects):
        if "<math" not in s:
            continue
        for formula in _MATH.findall(s):
            text = html.unescape(_TAG.sub("", formula))
            found.update(ch for ch in MATH_CHARACTERS if ch in text)
            if "<msqrt" in formula or "<mroot" in formula:
                found.add("\u221a")  # the radical sign is drawn from the font, not the text
    return "".join(ch for ch in MATH_CHARACTERS if ch in found)


@lru_cache(maxsize=64)
def math_subset_font(chars: str) -> bytes:
    """The math fences font cut down to `chars` (and what its layout features and MATH table
    reach from them: size variants, assembly parts), as WOFF2 bytes; deterministic."""
    return _cut(MATH_SOURCE, _options(), unicodes=sorted({ord(ch) for ch in chars}))


def unicode_range(chars: str) -> str:
    """A CSS unicode-range listing `chars` one by one (U+20, U+28, ...)."""
    return ",".join(f"U+{ord(ch):X}" for ch in sorted(set(chars)))


def section_math_fonts(
    sections: Iterable[Any],
) -> tuple[dict[int, tuple[str, str]], dict[str, bytes]]:
    """For each written section that prints math (a <math> element), its cut's file name and
    the cut's unicode-range; and the cuts by name."""
    names: dict[int, tuple[str, str]] = {}
    fonts: dict[str, bytes] = {}
    for s in sections:
        if not s.written or "<math" not in "".join(_strings([s])):
            continue
        chars = math_characters(s)
        data = math_subset_font(chars)
        name = font_name(data)
        # what the cut maps (a fence may bring its pair along): all of it is declared
        names[s.number] = (name, unicode_range("".join(map(chr, cmap_of(data)))))
        fonts[name] = data
    return names, fonts
