"""Build the math fences webfont the site ships (run by hand; its output is committed).

Chromium draws MathML's stretchy operators (the parentheses of a matrix, a sum sign, a square
root over a fraction) only with a font that has an OpenType MATH table; a phone or a desktop
without one draws a matrix's parentheses one line tall. This keeps, from STIX Math (SIL Open
Font License 1.1, Debian's fonts-stix: `apt-get download fonts-stix`, then `dpkg -x`), the
space, the fences, the radical, the big operators and their size variants and glyph assemblies
with the MATH table: about 5.5 KB of WOFF2. The copy is renamed "Math Fences" (STIX is the
original's name; the licence asks modified copies to carry another). Letters and digits still
come from the reader's own math font: site.css lists "Math Fences" first, so its MATH table sets
the layout and its fences stretch.

    .venv/bin/python scripts/make_math_fences_font.py [path/to/STIXMath-Regular.otf]
"""

from __future__ import annotations

import sys
from pathlib import Path

from fontTools import subset
from fontTools.ttLib import TTFont

SOURCE = Path("/usr/share/fonts/opentype/stix-word/STIXMath-Regular.otf")
TARGET = Path(__file__).resolve().parents[1] / "mathmachine/static/site/fonts/math-fences.woff2"
FAMILY = "Math Fences"
# space; ( ) [ ] { | } ‖ √ ∑ ∏ ∫ ⌈ ⌉ ⌊ ⌋ ⟨ ⟩
UNICODES = (
    "U+0020,U+0028-0029,U+005B,U+005D,U+007B-007D,U+2016,U+221A,U+2211,U+220F,U+222B,"
    "U+2308-230B,U+27E8-27E9"
)


def main() -> None:
    source = Path(sys.argv[1]) if len(sys.argv) > 1 else SOURCE
    if not source.exists():
        sys.exit(f"{source} not found: install fonts-stix, or pass the .otf path")
    subset.main(
        [
            str(source),
            f"--unicodes={UNICODES}",
            "--layout-features=*",
            "--flavor=woff2",
            "--no-hinting",
            "--desubroutinize",
            "--name-IDs=0,2,5,13,14",  # copyright, style, version, the licence and its address
            f"--output-file={TARGET}",
        ]
    )
    font = TTFont(TARGET)
    assert "MATH" in font, "the subset lost its MATH table"
    names = font["name"]
    names.setName(FAMILY, 1, 3, 1, 0x409)
    names.setName("Regular", 2, 3, 1, 0x409)
    names.setName(f"{FAMILY} Regular; subset of STIX Math 1.1", 3, 3, 1, 0x409)
    names.setName(f"{FAMILY} Regular", 4, 3, 1, 0x409)
    names.setName("MathFences-Regular", 6, 3, 1, 0x409)
    if "CFF " in font:
        font["CFF "].cff.fontNames = ["MathFences-Regular"]
    font.flavor = "woff2"
    font.save(TARGET)
    print(f"wrote {TARGET} ({TARGET.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
