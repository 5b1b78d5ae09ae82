"""Build the Devanagari webfont the site ships (run by hand; its output is committed).

Source: Noto Sans Devanagari Regular (SIL Open Font License 1.1) from Debian's fonts-noto-core
(`apt-get install fonts-noto-core`). We keep the whole Devanagari block with every OpenType layout
feature (conjuncts and matras must shape correctly), drop hinting, and write WOFF2:
about 37 KB. The site lists phones' own Devanagari fonts first, so most learners never download it;
it is there for machines without one (a bare Debian headless Chromium draws empty boxes otherwise).

    .venv/bin/python scripts/make_devanagari_font.py [path/to/NotoSansDevanagari-Regular.ttf]
"""

from __future__ import annotations

import sys
from pathlib import Path

from fontTools import subset

SOURCE = Path("/usr/share/fonts/truetype/noto/NotoSansDevanagari-Regular.ttf")
TARGET = (
    Path(__file__).resolve().parents[1]
    / "mathmachine/static/site/fonts/noto-sans-devanagari-subset.woff2"
)


def main() -> None:
    source = Path(sys.argv[1]) if len(sys.argv) > 1 else SOURCE
    if not source.exists():
        sys.exit(f"{source} not found: apt-get install fonts-noto-core, or pass the .ttf path")
    subset.main(
        [
            str(source),
            "--unicodes=U+0900-097F,U+200C-200D,U+25CC",
            "--layout-features=*",
            "--flavor=woff2",
            "--no-hinting",
            "--desubroutinize",
            f"--output-file={TARGET}",
        ]
    )
    print(f"wrote {TARGET} ({TARGET.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
