"""Lighthouse (mobile preset) on every written section, locked ones as a signed-in buyer (issue
9 "Measured": performance and accessibility 100 on each).

    npm i -E --prefix /tmp/lh lighthouse@12.2.3        # once (13 needs Node 22)
    .venv/bin/python bench/lighthouse_sections.py [section number ...]   (default: every one)

Serves the site as production does (page_weight.production_site), creates a buyer in its
database (page_weight.buyer_session) and runs Lighthouse 12.2.3 with Debian's Chromium on each
section: the free one as an anonymous visitor, a locked one with the buyer's session cookie sent
on every request (``--extra-headers``), so the page audited is the one a buyer reads (with its
widgets), not the locked page. ../shared/tools/lighthouse.py does the same for public pages.
Prints the four category scores, FCP / LCP / TBT / CLS and every audit scoring below 0.9.
Lighthouse's own lab figures are simulated (4x CPU slowdown, slow 4G); they are printed, never
asserted. LH_DIR overrides /tmp/lh.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from page_weight import (
    CHROMIUM,
    buyer_session,
    production_site,
    visit,
    written_sections,
)

LH = Path(os.environ.get("LH_DIR", "/tmp/lh")) / "node_modules" / ".bin" / "lighthouse"
CATEGORIES = "performance,accessibility,best-practices,seo"


def audit(url: str, cookie: tuple[str, str] | None, out: Path) -> dict | None:
    args = [
        str(LH),
        url,
        "--quiet",
        "--output=json",
        f"--output-path={out}",
        "--chrome-flags=--headless=new --no-sandbox --disable-gpu",
        f"--only-categories={CATEGORIES}",
    ]
    if cookie is not None:
        args.append("--extra-headers=" + json.dumps({"Cookie": f"{cookie[0]}={cookie[1]}"}))
    env = {**os.environ, "CHROME_PATH": str(CHROMIUM)}
    subprocess.run(args, env=env, check=False, timeout=300)
    try:
        return json.loads(out.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        print(f"  no report: {exc}")
        return None


def main(argv: list[str]) -> None:
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    if not LH.exists() or not CHROMIUM.exists():
        print(f"skipped: needs {LH} (npm i -E --prefix /tmp/lh lighthouse@12.2.3) and {CHROMIUM}")
        return
    pages = written_sections([int(a) for a in argv])
    with production_site() as site, tempfile.TemporaryDirectory() as tmp:
        buyer = buyer_session(site) if any(not p.free for p in pages) else None
        for page in pages:
            report = audit(site + page.path, visit(site, page, buyer), Path(tmp) / "lh.json")
            if report is None:
                continue
            final = report.get("finalDisplayedUrl", "")
            if not final.endswith(page.path):
                print(f"  redirected to {final}: not the section page")
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
            print(
                "  FCP {} · LCP {} · TBT {} · CLS {}".format(
                    *(
                        a[k]["displayValue"]
                        for k in (
                            "first-contentful-paint",
                            "largest-contentful-paint",
                            "total-blocking-time",
                            "cumulative-layout-shift",
                        )
                    )
                )
            )
            print(f"  below 0.9: {', '.join(low) if low else 'none'}")


if __name__ == "__main__":
    main(sys.argv[1:])
