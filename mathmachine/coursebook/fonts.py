"""Per-section Devanagari fonts, made when the unit compiles (issue 19, "Lighter first visits").

The site ships one Devanagari webfont (static/site/fonts/noto-sans-devanagari-subset.woff2, the
whole Devanagari block with every layout feature, ~38 KB; scripts/make_devanagari_font.py), for
machines with no Devanagari font of their own. A section prints a few Hindi words, so the
compiler cuts that font down, per section, to the characters the section can print: fontTools'
subsetter keeps their glyphs and the GSUB/GPOS closure (conjuncts, matras, nukta, reph), plus
the dotted circle and the joiners. The file is kept in the compiled unit (CompiledUnit.fonts,
named by its hash), served at /units/<slug>/fonts/<name>.woff2 with a year's immutable cache,
and declared in the section's <head> under the same family name as the whole font.

The section's @font-face is declared after site.css's, so the browser tries it first for every
Devanagari character; a character it lacks (a learner typing Hindi into the lab) falls through,
cluster by cluster, to the whole font, which is downloaded only then (unicode-range). A page
that prints no Devanagari declares nothing and downloads no font.

What a section can print is every string of its compiled form (HTML, checks, problems and their
variants, widget configurations) and the unit's titles (the contents list shows them).
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import logging
from collections.abc import Iterable
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


def devanagari_chars(*objects: Any) -> str:
    """The Devanagari characters in every string inside `objects` (dataclasses, tuples, lists,
    dicts, strings, walked recursively), sorted, each once."""
    found: set[str] = set()
    seen: set[int] = set()

    def walk(obj: Any) -> None:
        if isinstance(obj, str):
            found.update(ch for ch in obj if is_devanagari(ch))
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
    return "".join(sorted(found))


@lru_cache(maxsize=64)
def subset_font(chars: str) -> bytes:
    """The whole Devanagari font cut down to `chars` (and ALWAYS) with every glyph their layout
    features can reach (fontTools' GSUB closure: conjuncts, matra and nukta forms; GPOS kept
    for them), as WOFF2 bytes. Deterministic for the same characters and fontTools version.

    The font has no hints (neither has the whole one), so on Linux FreeType's auto-hinter fits
    it to the pixel grid from letters it measures in the font; a cut lacking those letters can
    be fitted a pixel differently at text sizes. Drawn large (no hinting), a cut and the whole
    font draw every cluster the same (tests/browser/test_section_fonts.py)."""
    from fontTools import subset
    from fontTools.ttLib import TTFont

    options = subset.Options()
    options.layout_features = ["*"]
    options.flavor = "woff2"
    options.hinting = False
    options.desubroutinize = True
    options.name_IDs = ["*"]  # keep the OFL notice and the font's names
    font = TTFont(str(SOURCE))
    subsetter = subset.Subsetter(options)
    subsetter.populate(text=chars + ALWAYS)
    quiet = logging.getLogger("fontTools.subset")
    level = quiet.level
    quiet.setLevel(logging.WARNING)  # it reports every table it prunes at INFO
    try:
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
        chars = devanagari_chars(s, shared)
        if not chars:
            continue
        data = subset_font(chars)
        name = font_name(data)
        names[s.number] = name
        fonts[name] = data
    return names, fonts


def cmap_of(data: bytes) -> set[int]:
    """The code points a font file maps (for tests and the bench)."""
    from fontTools.ttLib import TTFont

    return set(TTFont(io.BytesIO(data)).getBestCmap())
