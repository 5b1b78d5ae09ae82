"""A section's repeat visit online against its first visit (issue 19 "Measured": bytes over the
network, HTML only, goal <= 15 KB compressed; and the time to the first paint).

    .venv/bin/python bench/repeat_visit.py [--rounds N] [section number ...]   (default: all, 3)

The site is served as production serves it (page_weight.production_site(): hashed static files
cached a year, WhiteNoise, gunicorn). For each written section and each round, headless Chromium
opens the section in a fresh context (empty cache; the free section with no cookie, a locked one
with only a buyer's session cookie: page_weight.buyer_session()), the **first visit**; then,
once the page has settled, the same section again in a new tab of the same context (its HTTP
cache warm, the cookies the first visit got), the **repeat visit**, as a learner coming back
to the section. For each visit:

- what the browser fetched over the network, from DevTools (per request: Network.loadingFinished
  encodedDataLength, headers included), apart from what came from its cache
  (Network.requestServedFromCache, response.fromDiskCache) or from a service worker
  (response.fromServiceWorker: a worker's own fetches are not the page's requests, so...);
- ...what the server sent, from gunicorn's access log (status, body bytes, path of every
  response it wrote during the visit): requests made by a service worker are counted there too,
  so the bench measures what really came from the server whoever asked for it;
- the first paint and first contentful paint (the Performance API's "paint" entries, from the
  navigation's start), the median over the rounds.

Prints per section and visit the HTML's bytes on the wire, everything's bytes on the wire, the
responses (network / cache / worker), the server's body bytes and the paints; then a summary
line per section. Figures are printed, never asserted.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from page_weight import (
    CHROMIUM,
    CHROMIUM_ARGS,
    buyer_session,
    production_site,
    visit,
    written_sections,
)

GOAL_HTML_KB = 15  # issue 19: a repeat visit's HTML, compressed
FCP = "first-contentful-paint"


class Visit:
    """One navigation's requests as DevTools reports them, and its paint timings."""

    def __init__(self) -> None:
        self.rows: dict[str, dict[str, Any]] = {}
        self.paint: dict[str, float] = {}
        self.server: list[tuple[int, int, str]] = []  # (status, body bytes, path)

    def listen(self, cdp: Any) -> None:
        def row(event: dict) -> dict[str, Any]:
            return self.rows.setdefault(event["requestId"], {"source": "network"})

        def on_request(event: dict) -> None:
            row(event).update(url=event["request"]["url"])

        def on_cached(event: dict) -> None:
            row(event)["source"] = "cache"

        def on_response(event: dict) -> None:
            r = event["response"]
            entry = row(event)
            entry.update(url=r["url"], status=r["status"], type=event.get("type", ""))
            if r.get("fromServiceWorker"):
                entry["source"] = "worker"
            elif r.get("fromDiskCache") or r.get("fromPrefetchCache"):
                entry["source"] = "cache"

        def on_finished(event: dict) -> None:
            row(event)["wire"] = int(event["encodedDataLength"])

        cdp.on("Network.requestWillBeSent", on_request)
        cdp.on("Network.requestServedFromCache", on_cached)
        cdp.on("Network.responseReceived", on_response)
        cdp.on("Network.loadingFinished", on_finished)

    @property
    def finished(self) -> list[dict[str, Any]]:
        return [r for r in self.rows.values() if "wire" in r and "url" in r]

    def network(self) -> list[dict[str, Any]]:
        return [r for r in self.finished if r["source"] == "network"]

    def html_wire(self) -> int:
        return sum(r["wire"] for r in self.network() if r.get("type") == "Document")

    def wire(self) -> int:
        return sum(r["wire"] for r in self.network())

    def count(self, source: str) -> int:
        return sum(1 for r in self.finished if r["source"] == source)


def _log_lines(log: Path, start: int) -> tuple[list[tuple[int, int, str]], int]:
    """The access log's lines written since byte `start`, and the new end."""
    with log.open("rb") as f:
        f.seek(start)
        data = f.read()
    lines = []
    for line in data.decode("utf-8", "replace").splitlines():
        parts = line.split(" ", 2)
        if len(parts) == 3 and parts[0].isdigit():
            body = int(parts[1]) if parts[1].isdigit() else 0
            lines.append((int(parts[0]), body, parts[2]))
    return lines, start + len(data)


def open_section(context: Any, url: str, log: Path, offset: int) -> tuple[Visit, int]:
    """Open `url` in a new tab of `context`; the visit's figures and the log's new end."""
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.setExtraHTTPHeaders", {"headers": {"Accept-Encoding": "br, gzip"}})
    result = Visit()
    result.listen(cdp)
    page.goto(url, wait_until="networkidle")
    page.evaluate("document.fonts.ready.then(() => true)")
    page.wait_for_timeout(300)  # any late request (fonts) has finished
    result.paint = page.evaluate(
        "Object.fromEntries(performance.getEntriesByType('paint').map(e => [e.name, e.startTime]))"
    )
    page.close()
    result.server, offset = _log_lines(log, offset)
    return result, offset


def _ms(values: list[float]) -> str:
    return f"{statistics.median(values):6.0f} ms" if values else "     — ms"


def _ms1(value: float | None) -> str:
    return f"{value:.0f} ms" if value else "—"


def main(argv: list[str]) -> None:
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    if not CHROMIUM.exists():
        print("skipped: needs Debian's chromium at /usr/bin/chromium (make browsers)")
        return
    rounds = 3
    if "--rounds" in argv:
        at = argv.index("--rounds")
        rounds = int(argv[at + 1])
        argv = argv[:at] + argv[at + 2 :]
    pages = written_sections([int(a) for a in argv])
    from playwright.sync_api import sync_playwright

    summary = []
    with tempfile.TemporaryDirectory(prefix="repeat-visit-") as tmp:
        log = Path(tmp) / "access.log"
        log.touch()
        with production_site(access_log=log) as site, sync_playwright() as p:
            buyer = buyer_session(site) if any(not s.free for s in pages) else None
            browser = p.chromium.launch(
                executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
            )
            offset = log.stat().st_size
            for page in pages:
                cookie = visit(site, page, buyer)
                visits: dict[str, list[Visit]] = {"first": [], "repeat": []}
                _, offset = _log_lines(log, offset)  # visit()'s own request
                for _ in range(rounds):
                    context = browser.new_context(viewport={"width": 360, "height": 740})
                    if cookie is not None:
                        context.add_cookies([{"name": cookie[0], "value": cookie[1], "url": site}])
                    for kind in ("first", "repeat"):
                        v, offset = open_section(context, site + page.path, log, offset)
                        visits[kind].append(v)
                    context.close()
                summary.append((page, _report(visits)))
            browser.close()
    print("\nsummary (repeat visit: the HTML's bytes on the wire, goal <= 15 KB compressed;")
    print("when the service worker fetched it, the body the server sent, headers aside;")
    print("first contentful paint, median, of the first visit and of the repeat visit)")
    print(
        f"  {'§':<4} {'repeat HTML':>11}  {'goal':<6} {'all, first':>10} {'all, repeat':>11}  "
        f"{'FCP first':>9} {'FCP repeat':>10} {'repeat/first':>12}"
    )
    for page, (html_kb, total_first, total_repeat, fcp_first, fcp_repeat) in summary:
        verdict = "within" if html_kb <= GOAL_HTML_KB else "OVER"
        ratio = f"{fcp_repeat / fcp_first:.2f}" if fcp_first and fcp_repeat else "—"
        print(
            f"  §{page.number:<3} {html_kb:8.1f} KB  {verdict:<6} {total_first:7.1f} KB "
            f"{total_repeat:8.1f} KB  {_ms1(fcp_first):>9} {_ms1(fcp_repeat):>10} {ratio:>12}"
        )


def _report(
    visits: dict[str, list[Visit]],
) -> tuple[float, float, float, float | None, float | None]:
    """Print one section's figures; (repeat HTML KB, first KB, repeat KB, and the median first
    contentful paint of the first and of the repeat visits, ms)."""
    out: dict[str, Any] = {}
    for kind, runs in visits.items():
        last = runs[-1]
        fp = [v.paint["first-paint"] for v in runs if "first-paint" in v.paint]
        fcp = [
            v.paint["first-contentful-paint"] for v in runs if "first-contentful-paint" in v.paint
        ]
        server = last.server
        html_server = sum(b for s, b, path in server if not path.startswith("/static/") and s < 300)
        print(
            f"  {kind:<6} visit: HTML {last.html_wire():7,} B on the wire; all {last.wire():7,} B "
            f"in {len(last.network())} responses over the network, {last.count('cache')} from "
            f"the cache, {last.count('worker')} from a worker; the server sent "
            f"{len(server)} responses, {sum(b for _, b, _ in server):,} B of body "
            f"({html_server:,} B not static); first paint {_ms(fp)}, FCP {_ms(fcp)} "
            f"(median of {len(runs)})"
        )
        if kind == "repeat":
            fetched = [
                f"{urlsplit(r['url']).path} ({r['status']}, {r['wire']:,} B)"
                for r in last.network()
                if r.get("type") != "Document"
            ]
            print(f"    fetched again: {', '.join(fetched) if fetched else 'nothing but the HTML'}")
        out[kind] = (last, statistics.median(fcp) if fcp else None)
    first, repeat = out["first"][0], out["repeat"][0]
    return (
        _html_bytes(repeat) / 1000,
        _all_bytes(first) / 1000,
        _all_bytes(repeat) / 1000,
        out["first"][1],
        out["repeat"][1],
    )


def _is_page(path: str) -> bool:
    return not path.startswith("/static/") and "/fonts/" not in path and "/data/" not in path


def _html_bytes(v: Visit) -> int:
    """The page's bytes over the network: as DevTools saw them (headers included), or, when the
    service worker fetched it (the page's DevTools do not see the worker's requests), the body
    the server sent, from its access log (headers aside)."""
    return v.html_wire() or sum(b for s, b, path in v.server if s < 300 and _is_page(path))


def _all_bytes(v: Visit) -> int:
    """Everything over the network, the same way (DevTools, else the server's log)."""
    return v.wire() or sum(b for _, b, _ in v.server)


if __name__ == "__main__":
    main(sys.argv[1:])
