"""The kept unit (issue 19 "Measured": the kept unit's total size) and the time to keep it.

    .venv/bin/python bench/kept_unit.py [--rounds N]      (default 3)

The site is served as production serves it (page_weight.production_site(): hashed static files,
their brotli and gzip copies, WhiteNoise, gzipped HTML, gunicorn on the loopback, an access log).
A buyer (page_weight.buyer_session()) asks for the keep list (GET /units/<slug>/keep/, what
"Keep this unit on this phone" stores: learning/keeping.py), and its files, bytes and kinds are
printed: the kept unit's size as the list says it travels (compressed).

Then, each round in a fresh headless Chromium context at 360 px with the buyer's cookie: the unit
page is opened twice (the second time through the service worker, which keeps the static files
that page loads, as a learner's visit does), then "Keep this unit on this phone" is pressed and
the time until the control says the unit is kept is taken in the page (performance.now(): from
the click to the control's outcome, the keep list asked again, every file fetched into the
staging cache, copied into the kept cache, the index written). Printed per round: that time;
what the server sent meanwhile (gunicorn's access log: responses and body bytes, i.e. compressed
as they travelled, whoever asked: the page or its worker); how much the origin's storage grew
(navigator.storage.estimate(): the kept files are stored decoded); the kept cache's entries.
Then, offline (Playwright's set_offline), every kept page is opened: how many came from the
phone (not the worker's offline page), how many with every widget upgraded (their hashed
scripts from the kept cache), and any request that failed (a file not kept). Figures are
printed, never asserted.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
import urllib.request
from pathlib import Path
from typing import Any

from page_weight import CHROMIUM, CHROMIUM_ARGS, buyer_session, production_site
from repeat_visit import _log_lines

UNIT = "attention-and-transformers"
UNIT_PAGE = f"/units/{UNIT}/"
KEEP_LIST = f"/units/{UNIT}/keep/"

# Press the control's button and wait for its outcome; the milliseconds between, in the page.
_KEEP = """async () => {
  const root = document.getElementById('keep-unit')
  const button = root.querySelector('[data-keep="keep"]')
  if (!button || button.hidden) return {error: root.innerText}
  const done = new Promise(resolve => new MutationObserver((_, observer) => {
    if (root.dataset.outcome) { observer.disconnect(); resolve(root.dataset.outcome) }
  }).observe(root, {attributes: true, attributeFilter: ['data-outcome']}))
  const start = performance.now()
  button.click()
  const outcome = await done
  const ms = performance.now() - start
  return {outcome, ms, text: root.querySelector('[data-keep="state"]').textContent}
}"""

_STORED = """async ([owner, unit]) => {
  const {usage} = await navigator.storage.estimate()
  const name = `mm-kept:${owner}:${unit}`
  const entries = (await caches.has(name)) ? (await (await caches.open(name)).keys()).length : 0
  return {usage, entries}
}"""


def keep_list(site: str, cookie: tuple[str, str]) -> dict[str, Any]:
    request = urllib.request.Request(
        site + KEEP_LIST, headers={"Cookie": f"{cookie[0]}={cookie[1]}"}
    )
    with urllib.request.urlopen(request) as response:
        return json.loads(response.read())


def print_list(listed: dict[str, Any]) -> None:
    print(
        f"\nthe kept unit (GET {KEEP_LIST} as the buyer): {listed['files']} files, "
        f"{listed['bytes']:,} B = {listed['bytes'] / 1000:.1f} KB compressed, "
        f"version {listed['version']}"
    )
    print(f"  {'kind':<8} {'files':>5} {'bytes':>10} {'share':>6}")
    for kind, row in sorted(listed["by_kind"].items(), key=lambda kv: -kv[1]["bytes"]):
        share = row["bytes"] / listed["bytes"]
        print(f"  {kind:<8} {row['files']:>5} {row['bytes']:>10,} {share:>6.0%}")


def read_offline(context: Any, page: Any, site: str, pages: list[str]) -> dict[str, Any]:
    """Offline, open every kept page: whether it came from the phone (not the worker's offline
    page), whether every widget upgraded (its scripts, hashed, from the kept cache), and the
    requests that failed (a file not kept)."""
    failed: list[str] = []
    page.on("requestfailed", lambda r: failed.append(r.url))
    context.set_offline(True)
    opened = upgraded = 0
    try:
        for path in pages:
            response = page.goto(site + path, wait_until="load")
            if response is None or response.headers.get("x-mm-offline"):
                continue
            opened += 1
            page.wait_for_timeout(100)
            # a widget loads its module and a large state when it comes near the screen
            # (site/widget-loader.js, kit.js): bring each to the screen, a second at most
            upgraded += page.evaluate(
                """async () => {
                  const widgets = [...document.querySelectorAll('[data-kit]')]
                  for (const w of widgets) {
                    w.scrollIntoView({block: 'center'})
                    for (let i = 0; i < 40 && !w.hasAttribute('data-upgraded'); i++)
                      await new Promise((done) => setTimeout(done, 25))
                  }
                  return widgets.every((w) => w.hasAttribute('data-upgraded'))
                }"""
            )
    finally:
        context.set_offline(False)
    return {"opened": opened, "upgraded": upgraded, "failed": failed}


def one_round(
    browser: Any, site: str, cookie: tuple[str, str], log: Path, pages: list[str]
) -> dict[str, Any]:
    context = browser.new_context(viewport={"width": 360, "height": 740})
    context.add_cookies([{"name": cookie[0], "value": cookie[1], "url": site}])
    try:
        page = context.new_page()
        page.goto(site + UNIT_PAGE)
        page.wait_for_function("() => navigator.serviceWorker.controller !== null")
        page.goto(site + UNIT_PAGE, wait_until="networkidle")
        page.wait_for_function(
            """() => { const b = document.querySelector('#keep-unit [data-keep="keep"]')
              return b && !b.hidden }"""
        )
        owner = page.locator('meta[name="mm-owner"]').get_attribute("content")
        before = page.evaluate(_STORED, [owner, UNIT])
        _, offset = _log_lines(log, 0)
        result = page.evaluate(_KEEP)
        after = page.evaluate(_STORED, [owner, UNIT])
        server, _ = _log_lines(log, offset)
        offline = (
            read_offline(context, page, site, pages) if result.get("outcome") == "kept" else {}
        )
    finally:
        context.close()
    if result.get("outcome") != "kept":
        raise RuntimeError(f"the unit was not kept: {result}")
    return {
        "ms": result["ms"],
        "responses": len(server),
        "body": sum(b for _, b, _ in server),
        "errors": [f"{s} {p}" for s, _, p in server if s >= 400],
        "stored": after["usage"] - before["usage"],
        "entries": after["entries"],
        "offline": offline,
    }


def main(argv: list[str]) -> None:
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    if not CHROMIUM.exists():
        print("skipped: needs Debian's chromium at /usr/bin/chromium (make browsers)")
        return
    rounds = int(argv[argv.index("--rounds") + 1]) if "--rounds" in argv else 3
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="kept-unit-") as tmp:
        log = Path(tmp) / "access.log"
        log.touch()
        with production_site(access_log=log) as site, sync_playwright() as p:
            cookie = buyer_session(site)
            listed = keep_list(site, cookie)
            print_list(listed)
            browser = p.chromium.launch(
                executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
            )
            print(
                f"\nkeeping it in Chromium on the loopback ({rounds} rounds, a fresh context each)"
            )
            runs = []
            for n in range(1, rounds + 1):
                pages = [u for u in listed["urls"] if u.endswith("/")]
                run = one_round(browser, site, cookie, log, pages)
                runs.append(run)
                off = run["offline"]
                print(
                    f"  round {n}: kept in {run['ms']:6.0f} ms; the server sent "
                    f"{run['responses']} responses, {run['body']:,} B of body; storage grew "
                    f"{run['stored']:,} B; {run['entries']} entries in the kept cache"
                    + (f"; errors: {', '.join(run['errors'])}" if run["errors"] else "")
                )
                print(
                    f"    then offline: {off['opened']} of {len(pages)} kept pages opened from "
                    f"the phone, {off['upgraded']} with every widget upgraded; "
                    f"{len(off['failed'])} requests failed"
                    + (f" ({', '.join(off['failed'][:5])})" if off["failed"] else "")
                )
            browser.close()
    print(
        f"\nsummary: the kept unit {listed['bytes'] / 1000:.1f} KB compressed in "
        f"{listed['files']} files; kept in {statistics.median(r['ms'] for r in runs):.0f} ms "
        f"(median of {rounds}) on the loopback; stored "
        f"{statistics.median(r['stored'] for r in runs) / 1000:.0f} KB decoded"
    )


if __name__ == "__main__":
    main(sys.argv[1:])
