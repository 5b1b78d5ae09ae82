"""Lighthouse (mobile preset) on every written section, locked ones as a signed-in buyer (issue
9 "Measured": performance and accessibility 100 on each), and on each section's parts on pages
of their own (§8's map numbers, §13's walk as tables: coursebook/own_pages.py) as its reader.

    npm i -E --prefix /tmp/lh lighthouse@12.2.3        # once (13 needs Node 22)
    .venv/bin/python bench/lighthouse_sections.py [section number ...]   (default: every one)

Serves the site as production does (page_weight.production_site), creates a buyer in its
database (page_weight.buyer_session) and runs Lighthouse 12.2.3 with Debian's Chromium on each
section: the free one as an anonymous visitor in a Chromium of its own, a locked one in a
Chromium holding the buyer's session cookie (buyer_browser), so the page audited is the one a
buyer reads (with its widgets), not the locked page. ../shared/tools/lighthouse.py does the
same for public pages.
Prints the four category scores, FCP / LCP / TBT / CLS and every audit scoring below 0.9.
Lighthouse's own lab figures are simulated (4x CPU slowdown, slow 4G); they are printed, never
asserted. LH_DIR overrides /tmp/lh.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

from page_weight import (
    CHROMIUM,
    _free_port,
    buyer_session,
    production_site,
    visit,
    written_sections,
)

LH = Path(os.environ.get("LH_DIR", "/tmp/lh")) / "node_modules" / ".bin" / "lighthouse"
CATEGORIES = "performance,accessibility,best-practices,seo"


def audit(url: str, port: int | None, out: Path) -> dict | None:
    """Lighthouse on ``url``: in a Chromium of its own, or (``port``) in the signed-in buyer's
    browser listening there (buyer_browser)."""
    args = [
        str(LH),
        url,
        "--quiet",
        "--output=json",
        f"--output-path={out}",
        f"--only-categories={CATEGORIES}",
    ]
    if port is None:
        args.append("--chrome-flags=--headless=new --no-sandbox --disable-gpu")
    else:
        args.append(f"--port={port}")
    env = {**os.environ, "CHROME_PATH": str(CHROMIUM)}
    subprocess.run(args, env=env, check=False, timeout=300)
    try:
        return json.loads(out.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        print(f"  no report: {exc}")
        return None


@contextlib.contextmanager
def buyer_browser(site: str, cookie: tuple[str, str]) -> Iterator[int]:
    """A headless Chromium with the buyer's session cookie in its cookie jar, listening for
    DevTools on a port of its own (Lighthouse's "authenticated pages", option 4): every request
    of the page carries the cookie as a browser's would, the service worker's own fetches too
    (Lighthouse's --extra-headers reach the page's requests only: a file the worker fetched for
    it came back 403). Lighthouse's storage reset clears the site's service worker, caches and
    storage before each page, never its cookies."""
    from playwright.sync_api import sync_playwright

    port = _free_port()
    with sync_playwright() as p, tempfile.TemporaryDirectory() as profile:
        context = p.chromium.launch_persistent_context(
            profile,
            executable_path=str(CHROMIUM),
            headless=True,
            args=[f"--remote-debugging-port={port}", "--no-sandbox", "--disable-gpu"],
            ignore_default_args=["--disable-back-forward-cache"],  # Lighthouse audits it
        )
        context.add_cookies([{"name": cookie[0], "value": cookie[1], "url": site}])
        try:
            yield port
        finally:
            context.close()


def main(argv: list[str]) -> None:
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    if not LH.exists() or not CHROMIUM.exists():
        print(f"skipped: needs {LH} (npm i -E --prefix /tmp/lh lighthouse@12.2.3) and {CHROMIUM}")
        return
    pages = written_sections([int(a) for a in argv])
    with contextlib.ExitStack() as stack:
        site = stack.enter_context(production_site())
        tmp = stack.enter_context(tempfile.TemporaryDirectory())
        buyer = buyer_session(site) if any(not p.free for p in pages) else None

        def run(path: str, cookie: tuple[str, str] | None) -> None:
            # a fresh browser for each page, as Lighthouse's own launch gives the free one
            with buyer_browser(site, cookie) if cookie else contextlib.nullcontext() as port:
                _report(audit(site + path, port, Path(tmp) / "lh.json"), path)

        for page in pages:
            cookie = visit(site, page, buyer)
            run(page.path, cookie)
            # its parts on pages of their own (coursebook/own_pages.py), gated as it is
            for own in page.section.own_pages:
                path = f"{page.path}{own.name}/"
                print(f"\n{path} ({own.title}), a page of its own of §{page.number}")
                run(path, cookie)


def _report(report: dict | None, path: str) -> None:
    if report is None:
        return
    final = report.get("finalDisplayedUrl", "")
    if not final.endswith(path):
        print(f"  redirected to {final}: not the page asked for")
    cats = {k: round((v["score"] or 0) * 100) for k, v in report["categories"].items()}
    a = report["audits"]
    low = [
        f"{k} ({a[k]['score']:.2f})"
        for k in sorted(a)
        if a[k].get("score") is not None
        and a[k]["score"] < 0.9
        and a[k].get("scoreDisplayMode") in ("binary", "numeric", "metricSavings")
    ]
    print(f"  scores: {cats}")
    metrics = (
        "first-contentful-paint",
        "largest-contentful-paint",
        "total-blocking-time",
        "cumulative-layout-shift",
    )
    shown = (a.get(k, {}).get("displayValue", "?") for k in metrics)
    print("  FCP {} · LCP {} · TBT {} · CLS {}".format(*shown))
    if report.get("runtimeError"):
        print(f"  runtime error: {report['runtimeError'].get('message', '')}")
    print(f"  below 0.9: {', '.join(low) if low else 'none'}")


if __name__ == "__main__":
    main(sys.argv[1:])
