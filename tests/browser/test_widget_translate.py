"""Widget 1 ("Translate with a look back") in real Chromium, driven by Playwright.

The harness page holds the server's render of the widget (the same function the compiler calls)
and is served with a strict Content-Security-Policy (no inline script or style), next to
mathmachine/static, by http.server on 127.0.0.1 with a random port. Page-level tests of the real
section page live with the web layer.
"""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from support import CHROMIUM, CHROMIUM_ARGS

from mathmachine.coursebook.widgets import WidgetContext
from mathmachine.coursebook.widgets.translate import render
from mathmachine.engine.golden import load_examples

playwright_api = pytest.importorskip("playwright.sync_api")

pytestmark = pytest.mark.browser

STATIC = Path(__file__).resolve().parents[2] / "mathmachine" / "static"
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; font-src 'self'; img-src 'self'; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
W = "#lookback"  # the widget element


def _page_html() -> str:
    examples = load_examples()
    ctx = WidgetContext(
        examples=examples, figures={}, unit_slug="attention-and-transformers", source="test:1"
    )
    out = render({"id": "lookback"}, ctx)
    scripts = "".join(f'<script type="module" src="/static/{s}"></script>' for s in out.scripts)
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        "<title>Widget 1 harness</title>"
        '<link rel="icon" href="/static/widgets/math.js">'  # any same-origin file: no 404
        '<link rel="stylesheet" href="/static/site/site.css">'
        '<link rel="stylesheet" href="/static/widgets/translate-lookback.css">'
        f"{scripts}</head><body><main><h1>Look back</h1><p>Before the widget.</p>"
        f"{out.html}<p>After the widget.</p></main></body></html>"
    )


class _Handler(http.server.SimpleHTTPRequestHandler):
    page = b""

    def do_GET(self) -> None:
        if self.path in ("/", "/index.html"):
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Security-Policy", CSP)
            self.send_header("Content-Length", str(len(self.page)))
            self.end_headers()
            self.wfile.write(self.page)
            return
        if not self.path.startswith("/static/"):
            self.send_error(404)
            return
        self.path = self.path.removeprefix("/static")
        super().do_GET()

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass


@pytest.fixture(scope="module")
def harness_url() -> Iterator[str]:
    handler = type("Handler", (_Handler,), {"page": _page_html().encode()})
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), partial(handler, directory=str(STATIC))
    )
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not CHROMIUM.exists():
        pytest.skip("needs Debian's chromium at /usr/bin/chromium (apt-get install chromium)")
    with playwright_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


class Opened:
    """A page on the harness that records console errors, page errors and CSP violations."""

    def __init__(self, browser: Any, url: str, **context: Any) -> None:
        self.context = browser.new_context(**context)
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.page.on(
            "console",
            lambda m: (
                self.errors.append(f"console.{m.type}: {m.text}")
                if m.type in ("error", "warning")
                else None
            ),
        )
        self.page.on("pageerror", lambda e: self.errors.append(f"pageerror: {e}"))
        if context.get("java_script_enabled", True):
            self.page.add_init_script(
                "window.__events = []; window.__csp = [];"
                "document.addEventListener('securitypolicyviolation',"
                " e => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI));"
                "document.addEventListener('translate-lookback:update',"
                " e => window.__events.push(e.detail));"
            )
        self.page.goto(url)
        if context.get("java_script_enabled", True):
            # Function predicates: a string predicate would need eval, which the CSP forbids.
            self.page.wait_for_function(
                "() => document.querySelector('#lookback .tl-toolbar')?.hidden === false"
            )

    def close(self) -> None:
        self.context.close()


@pytest.fixture
def opened(browser: Any, harness_url: str) -> Iterator[Any]:
    """Open the harness (keyword arguments go to browser.new_context); assert no errors after."""
    pages: list[Opened] = []

    def _open(**context: Any) -> Opened:
        o = Opened(browser, harness_url, **context)
        pages.append(o)
        return o

    yield _open
    for o in pages:
        csp = o.page.evaluate("window.__csp || []") if not o.page.is_closed() else []
        o.close()
        assert o.errors == [], o.errors
        assert csp == [], csp


def beams_text(page: Any) -> list[str]:
    return page.locator(f"{W} [data-tl-beam-label]").all_inner_texts()


def map_row(page: Any, i: int) -> list[str]:
    return page.locator(f'{W} tr[data-tl-row="{i}"] td').all_inner_texts()


def word(page: Any, hindi: str) -> Any:
    return page.locator(f"{W} .tl-word", has_text=hindi)


def tab_to(page: Any, selector: str, limit: int = 20) -> None:
    """Press Tab until `selector` has focus (keyboard only)."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        if page.evaluate(f"document.activeElement === document.querySelector({selector!r})"):
            return
    raise AssertionError(f"Tab never reached {selector}")


def test_upgrade_shows_the_live_widget_with_the_engines_numbers(opened: Any) -> None:
    page = opened(viewport={"width": 1000, "height": 900}).page
    assert page.locator(f"{W} .tl-play").is_visible()
    assert page.locator(f"{W} [data-tl=figure]").is_hidden()
    assert page.locator(f"{W} .tl-word").count() == 4
    assert word(page, "मैं").get_attribute("aria-pressed") == "true"
    assert beams_text(page) == ["0.736", "0.164", "0.100"]
    assert map_row(page, 1) == ["0.100", "0.164", "0.736"]
    assert map_row(page, 3) == ["0.422", "0.422", "0.155"]
    assert page.locator(f"{W} .tl-context").inner_text().endswith("(0.736, 0.164, 0.100)")
    assert page.locator(f"{W} [data-tl=sure]").input_value() == "1"
    assert page.locator(f"{W} [data-tl=sure-value]").inner_text() == "1.0"
    # Devanagari is marked as Hindi wherever it shows.
    assert page.evaluate(
        "[...document.querySelectorAll('#lookback .tl-word-hi, #lookback tbody th span')]"
        ".every(e => e.lang === 'hi')"
    )


def test_translate_plays_the_four_words_one_by_one_with_four_map_rows(opened: Any) -> None:
    page = opened(viewport={"width": 1000, "height": 900}).page
    written = f'{W} .tl-word:not([data-written="false"])'
    lit = f'{W} tr[data-tl-row]:not([data-lit="false"])'
    # Record how many words are written / rows lit after every DOM change, to see the order.
    page.evaluate(
        """([written, lit]) => {
          window.__events.length = 0
          window.__seen = []
          const words = [...document.querySelectorAll('#lookback .tl-word')]
          const count = () => [document.querySelectorAll(written).length,
                               document.querySelectorAll(lit).length,
                               words.findIndex(b => b.getAttribute('aria-pressed') === 'true')]
          new MutationObserver(() => {
            const c = count(), prev = window.__seen.at(-1)
            if (!prev || prev[0] !== c[0] || prev[1] !== c[1]) window.__seen.push(c)
          }).observe(document.querySelector('#lookback'), {subtree: true, attributes: true,
                     attributeFilter: ['data-written', 'data-lit']})
        }""",
        [written, lit],
    )
    page.locator(f"{W} .tl-play").click()
    assert page.locator(written).count() < 4  # right after the press not everything is written
    page.wait_for_function(
        "([sel]) => document.querySelectorAll(sel).length === 4", arg=[written], timeout=8000
    )
    # Nothing written at first, then one word and its map row at a time, each word appearing
    # while it is the selected one (its beams already reach back to the notes).
    seen = page.evaluate("window.__seen")
    assert [s[:2] for s in seen] == [[0, 0], [1, 1], [2, 2], [3, 3], [4, 4]]
    assert [s[2] for s in seen[1:]] == [0, 1, 2, 3]
    assert page.locator(lit).count() == 4
    page.wait_for_function(
        "() => document.querySelector('#lookback .tl-status').textContent.includes('is written')"
    )
    assert page.locator(f"{W} .tl-status").inner_text().startswith("मैं चाय पीता हूँ")
    # Before each word the beams moved to it: updates came for words 0, 1, 2, 3 in that order.
    order = page.evaluate("[...new Set(window.__events.map(d => d.word))]")
    assert order == [0, 1, 2, 3]
    assert word(page, "हूँ").get_attribute("aria-pressed") == "true"
    assert beams_text(page) == ["0.422", "0.422", "0.155"]


def test_keyboard_only_select_chai_and_set_how_sure(opened: Any) -> None:
    page = opened(viewport={"width": 1000, "height": 900}).page
    chai = f"{W} [data-tl-word='1']"
    tab_to(page, chai)
    page.keyboard.press("Enter")
    assert page.locator(chai).get_attribute("aria-pressed") == "true"
    assert word(page, "मैं").get_attribute("aria-pressed") == "false"
    assert (
        page.locator(f"{W} .tl-status").inner_text()
        == "चाय (chai): I 0.100, drink 0.164, tea 0.736"
    )

    tab_to(page, f"{W} [data-tl=sure]")
    for _ in range(10):
        page.keyboard.press("ArrowRight")
    assert page.locator(f"{W} [data-tl=sure-value]").inner_text() == "2.0"
    assert (
        page.locator(f"{W} .tl-status").inner_text()
        == "चाय (chai): I 0.017, drink 0.047, tea 0.936"
    )
    assert beams_text(page) == ["0.017", "0.047", "0.936"]
    assert map_row(page, 1) == ["0.017", "0.047", "0.936"]
    assert map_row(page, 0) == ["0.736", "0.164", "0.100"]  # other words keep their rows
    assert page.locator(f"{W} .tl-context").inner_text().endswith("(0.017, 0.047, 0.936)")
    last = page.evaluate("window.__events.at(-1)")
    assert last["word"] == 1 and last["sure"] == 2 and last["attention"] is True
    assert abs(last["weights"][2] - 0.9362395518765058) < 1e-12

    page.keyboard.press("Home")
    assert page.locator(f"{W} [data-tl=sure-value]").inner_text() == "0.0"
    assert beams_text(page) == ["0.333", "0.333", "0.333"]
    assert map_row(page, 1) == ["0.333", "0.333", "0.333"]

    # Each word keeps its own "how sure": back to मैं (still 1), then चाय again (still 0).
    tab_to(page, f"{W} [data-tl-word='0']")
    page.keyboard.press(" ")
    assert page.locator(f"{W} [data-tl=sure]").input_value() == "1"
    assert beams_text(page) == ["0.736", "0.164", "0.100"]
    page.locator(chai).click()
    assert page.locator(f"{W} [data-tl=sure]").input_value() == "0"


def test_no_attention_switch_removes_beams_and_map_and_brings_them_back(opened: Any) -> None:
    page = opened(viewport={"width": 1000, "height": 900}).page
    switch = page.locator(f"{W} [data-tl=noattn]")
    assert switch.get_attribute("role") == "switch"
    tab_to(page, f"{W} [data-tl=noattn]")
    page.keyboard.press(" ")
    assert switch.is_checked()
    assert page.locator(f"{W} [data-tl=beams]").is_hidden()
    assert page.locator(f"{W} table").is_hidden()
    assert page.locator(f"{W} [data-tl=noattn-note]").is_visible()
    assert "same summary" in page.locator(f"{W} [data-tl=noattn-note]").inner_text()
    assert page.locator(f"{W} .tl-context").inner_text().endswith("(0.000, 0.000, 1.000)")
    word(page, "पीता").click()
    assert "same summary" in page.locator(f"{W} .tl-status").inner_text()
    assert page.locator(f"{W} .tl-context").inner_text().endswith("(0.000, 0.000, 1.000)")
    assert page.evaluate("window.__events.at(-1).weights") is None

    switch.press(" ")
    assert not switch.is_checked()
    assert page.locator(f"{W} [data-tl=beams]").is_visible()
    assert page.locator(f"{W} table").is_visible()
    assert page.locator(f"{W} [data-tl=noattn-note]").is_hidden()
    assert beams_text(page) == ["0.164", "0.736", "0.100"]
    assert page.locator(f"{W} .tl-context").inner_text().endswith("(0.164, 0.736, 0.100)")


def test_reduced_motion_translates_at_once_without_animation(opened: Any) -> None:
    o = opened(viewport={"width": 1000, "height": 900}, reduced_motion="reduce")
    page = o.page
    assert page.evaluate("matchMedia('(prefers-reduced-motion: reduce)').matches")
    page.locator(f"{W} .tl-play").click()
    # Synchronously complete: no word or row waits for a timer, nothing animates.
    assert page.locator(f'{W} [data-written="false"], {W} [data-lit="false"]').count() == 0
    assert page.evaluate("document.getAnimations().length") == 0
    assert "is written" in page.locator(f"{W} .tl-status").inner_text()
    word(page, "चाय").hover()
    durations = page.evaluate(
        "[...document.querySelectorAll('#lookback *')]"
        ".map(e => getComputedStyle(e).transitionDuration).filter(d => d !== '0s')"
    )
    assert durations == []
    assert page.evaluate("document.getAnimations().length") == 0


def test_motion_is_used_when_not_reduced(opened: Any) -> None:
    """The counterpart of the reduced-motion test: without the preference there is animation."""
    page = opened(viewport={"width": 1000, "height": 900}, reduced_motion="no-preference").page
    page.locator(f"{W} .tl-play").click()
    page.wait_for_function("() => document.getAnimations().length > 0", timeout=3000)


def test_fits_and_stays_usable_at_360px(opened: Any) -> None:
    page = opened(viewport={"width": 360, "height": 740}).page
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    targets = page.locator(f"{W} .tl-play, {W} .tl-switch, {W} .tl-word, {W} [data-tl=sure]").all()
    assert len(targets) == 7
    for t in targets:
        box = t.bounding_box()
        assert box is not None and box["height"] >= 44 and box["width"] >= 44, box
        assert box["x"] >= 0 and box["x"] + box["width"] <= 360, box
    page.locator(f"{W} [data-tl=noattn]").check()
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    page.locator(f"{W} [data-tl=noattn]").uncheck()
    page.screenshot(path="/tmp/widget-translate-360.png", full_page=True)
    assert page.evaluate("document.documentElement.scrollWidth") <= 360


def test_without_javascript_the_fallback_shows_the_map_and_the_figure(opened: Any) -> None:
    page = opened(viewport={"width": 360, "height": 740}, java_script_enabled=False).page
    table = page.locator(f"{W} table")
    assert table.is_visible()
    assert table.locator("caption").inner_text().startswith("Alignment map")
    assert map_row(page, 1) == ["0.100", "0.164", "0.736"]
    assert page.get_by_role("cell", name="0.736").count() == 3
    assert page.locator(f'{W} thead th[scope="col"]').count() == 4
    assert page.locator(f'{W} tbody th[scope="row"]').count() == 4
    figure = page.locator(f"{W} [data-tl=figure] svg")
    assert figure.is_visible()
    assert figure.get_attribute("role") == "img"
    assert page.get_by_role(
        "img", name="Alignment of “I drink tea” with the Hindi “main chai peeta hoon”"
    ).count()
    # No control that needs JavaScript is on show.
    for sel in (".tl-play", ".tl-word", "[data-tl=sure]", "[data-tl=noattn]"):
        assert page.locator(f"{W} {sel}").first.is_hidden(), sel
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    page.screenshot(path="/tmp/widget-translate-nojs-360.png", full_page=True)


def test_desktop_screenshot_mid_state(opened: Any) -> None:
    """Chai at 2 on a desktop width: the picture a reviewer looks at (and a last sanity check)."""
    page = opened(viewport={"width": 1100, "height": 1000}).page
    word(page, "चाय").click()
    page.locator(f"{W} [data-tl=sure]").fill("2")
    assert page.locator(f"{W} .tl-status").inner_text().endswith("tea 0.936")
    page.locator(W).screenshot(path="/tmp/widget-translate-desktop.png")
