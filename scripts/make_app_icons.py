"""Draw the installed app's icons from the site's own mark (run by hand; the PNGs are committed).

The web app manifest (mathmachine/web/pwa.py) names PNG icons at 192 and 512 px, which phones put
on the home screen and the splash screen, and a "maskable" one that Android crops to its own
shape (a circle, a squircle...). All three are drawn from mathmachine/static/site/favicon.svg,
the mark every page already shows, by Debian's Chromium (through Playwright, as the browser
tests drive it): no image library is needed, and the same Chromium draws the same pixels.

- icon-192.png, icon-512.png ("any"): the favicon itself, its rounded corners transparent.
- icon-maskable-512.png ("maskable"): the teal square to the edges, the mark scaled into the
  central safe zone (a circle of 40 % of the size), so no crop cuts it.

    .venv/bin/python scripts/make_app_icons.py
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SITE = REPO / "mathmachine" / "static" / "site"
FAVICON = SITE / "favicon.svg"
TARGET = SITE / "icons"
CHROMIUM = Path("/usr/bin/chromium")


def maskable(svg: str) -> str:
    """The favicon with its square to the edges (no rounded corners) and its mark, the strokes
    and the dot, scaled by 0.7 around the centre: the mark spans 18 of 32 units, so it keeps
    inside the 80 % safe zone with room to spare."""
    square = re.sub(r'<rect ([^>]*?) rx="[^"]*"', r"<rect \1", svg)
    head, _, rest = square.partition("/>")
    mark = rest.removesuffix("</svg>")
    return f'{head}/><g transform="translate(16 16) scale(0.7) translate(-16 -16)">{mark}</g></svg>'


def page(svg: str, size: int) -> str:
    sized = svg.replace("<svg ", f'<svg width="{size}" height="{size}" ', 1)
    return (
        "<!doctype html><html><head><style>html,body{margin:0;background:transparent}"
        "svg{display:block}</style></head><body>" + sized + "</body></html>"
    )


def main() -> None:
    from playwright.sync_api import sync_playwright

    if not CHROMIUM.exists():
        sys.exit(f"needs Debian's chromium at {CHROMIUM}")
    svg = FAVICON.read_text(encoding="utf-8").strip()
    icons = {
        "icon-192.png": (svg, 192),
        "icon-512.png": (svg, 512),
        "icon-maskable-512.png": (maskable(svg), 512),
    }
    TARGET.mkdir(exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
        for name, (source, size) in icons.items():
            context = browser.new_context(
                viewport={"width": size, "height": size}, device_scale_factor=1
            )
            tab = context.new_page()
            tab.set_content(page(source, size))
            tab.locator("svg").screenshot(path=str(TARGET / name), omit_background=True)
            context.close()
            print(f"{TARGET / name}: {(TARGET / name).stat().st_size} bytes")
        browser.close()


if __name__ == "__main__":
    main()
