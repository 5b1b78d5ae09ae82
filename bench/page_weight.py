"""Transfer weight of Unit 18 §1 on a first visit (issue 2 "Measured": goal <= 100 KB).

    .venv/bin/python bench/page_weight.py

The site is served as production would serve it: production settings (DEBUG off), static files
collected with the manifest storage (hashed names, brotli and gzip copies made at build time)
into a temporary STATIC_ROOT and served by WhiteNoise, HTML gzipped by Django's GZipMiddleware,
behind gunicorn (one worker per core, threads, keep-alive), with a throwaway SQLite database.
Headless Chromium (Debian's) opens section 1 in a fresh context (empty cache, no cookies)
asking for br/gzip, and the DevTools protocol reports, per response, the bytes that came over
the wire (Network.loadingFinished encodedDataLength: headers and compressed body) and the body
once decoded. Prints one row per resource, the total, whether the Devanagari webfont was
downloaded, and any request to another host (there must be none). Figures are printed, never
asserted.

production_site() is also used by section_rps.py and slider_latency.py.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))
from support import CHROMIUM, CHROMIUM_ARGS  # noqa: E402  (shared with the browser tests)

PY = sys.executable
SECTION_1 = "/units/attention-and-transformers/1/"
GOAL_KB = 100
FONT = "noto-sans-devanagari-subset"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _environment(var_dir: Path) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE", "DEBUG"}
    }
    env.update(
        DJANGO_SETTINGS_MODULE="mathmachine.web.settings.production",
        DJANGO_SECRET_KEY=secrets.token_urlsafe(50),
        ALLOWED_HOSTS="127.0.0.1,localhost",
        SECURE_SSL_REDIRECT="0",  # plain HTTP on the loopback; TLS is the proxy's job
        MATHMACHINE_VAR_DIR=str(var_dir),  # SQLite database and STATIC_ROOT live here
        LOG_LEVEL="WARNING",
        PYTHONUNBUFFERED="1",
    )
    return env


@contextlib.contextmanager
def production_site(workers: int | None = None, threads: int = 4) -> Iterator[str]:
    """Build and serve the site like production; yields its base URL (http://127.0.0.1:PORT).

    Migrates a fresh SQLite database and runs collectstatic into a temporary directory, then
    starts gunicorn (gthread workers: keep-alive) and waits until it answers. Everything is
    stopped and removed on exit.
    """
    var_dir = Path(tempfile.mkdtemp(prefix="mathmachine-bench-"))
    env = _environment(var_dir)
    server: subprocess.Popen[bytes] | None = None
    try:
        for args in (
            ["manage.py", "migrate", "--noinput", "-v", "0"],
            ["-m", "mathmachine.coursebook", "build"],
            ["manage.py", "collectstatic", "--noinput", "-v", "0"],
        ):
            subprocess.run([PY, *args], cwd=REPO, env=env, check=True, stdout=subprocess.DEVNULL)
        port = _free_port()
        server = subprocess.Popen(
            [
                PY,
                "-m",
                "gunicorn",
                "mathmachine.web.wsgi:application",
                "--bind",
                f"127.0.0.1:{port}",
                "--workers",
                str(workers or os.cpu_count() or 1),
                "--worker-class",
                "gthread",
                "--threads",
                str(threads),
                "--keep-alive",
                "5",
                "--log-level",
                "warning",
            ],
            cwd=REPO,
            env=env,
        )
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(base + "/", timeout=2) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            if server.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("gunicorn did not start (see its output above)")
            time.sleep(0.2)
        yield base
    finally:
        if server is not None and server.poll() is None:
            server.send_signal(signal.SIGTERM)
            try:
                server.wait(timeout=20)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
        shutil.rmtree(var_dir, ignore_errors=True)


def measure(base: str) -> dict[str, object]:
    """Open section 1 in a fresh Chromium context; return the per-resource transfer figures."""
    from playwright.sync_api import sync_playwright

    origin = urlsplit(base).netloc
    rows: dict[str, dict[str, object]] = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        context = browser.new_context(viewport={"width": 360, "height": 740})
        page = context.new_page()
        cdp = context.new_cdp_session(page)
        cdp.send("Network.enable")
        cdp.send("Network.setCacheDisabled", {"cacheDisabled": False})
        cdp.send("Network.setExtraHTTPHeaders", {"headers": {"Accept-Encoding": "br, gzip"}})

        def on_response(event: dict) -> None:
            r = event["response"]
            headers = {k.lower(): v for k, v in r["headers"].items()}
            rows.setdefault(event["requestId"], {}).update(
                url=r["url"],
                status=r["status"],
                type=event.get("type", ""),
                encoding=headers.get("content-encoding", "-"),
                cache=headers.get("cache-control", ""),
                decoded=0,
            )

        def on_data(event: dict) -> None:
            row = rows.setdefault(event["requestId"], {"decoded": 0})
            row["decoded"] = int(row.get("decoded", 0)) + event["dataLength"]

        def on_finished(event: dict) -> None:
            rows.setdefault(event["requestId"], {})["wire"] = event["encodedDataLength"]

        def on_request(event: dict) -> None:
            rows.setdefault(event["requestId"], {})["asked"] = event["request"]["headers"].get(
                "Accept-Encoding", ""
            )

        cdp.on("Network.requestWillBeSent", on_request)
        cdp.on("Network.responseReceived", on_response)
        cdp.on("Network.dataReceived", on_data)
        cdp.on("Network.loadingFinished", on_finished)
        page.goto(base + SECTION_1, wait_until="networkidle")
        page.evaluate("document.fonts.ready.then(() => true)")
        page.wait_for_timeout(300)  # any late request (fonts) has finished
        fonts_loaded = page.evaluate(
            "[...document.fonts].filter(f => f.status === 'loaded').map(f => f.family)"
        )
        context.close()
        browser.close()
    finished = [r for r in rows.values() if "wire" in r and "url" in r]
    return {"rows": finished, "origin": origin, "fonts_loaded": fonts_loaded}


def report(result: dict[str, object]) -> None:
    rows = sorted(result["rows"], key=lambda r: -int(r["wire"]))  # type: ignore[index]
    origin = result["origin"]
    print(f"{'resource':<58} {'type':<10} {'enc':<5} {'wire B':>8} {'decoded B':>10}")
    for r in rows:
        path = urlsplit(str(r["url"])).path
        name = path if len(path) <= 58 else "…" + path[-57:]
        print(
            f"{name:<58} {r['type']!s:<10} {r['encoding']!s:<5} {r['wire']:>8,} {r['decoded']:>10,}"
        )
    wire = sum(int(r["wire"]) for r in rows)
    decoded = sum(int(r["decoded"]) for r in rows)
    kb = wire / 1000
    print(f"{'total (' + str(len(rows)) + ' responses)':<75} {wire:>8,} {decoded:>10,}")
    verdict = "within" if kb <= GOAL_KB else "OVER"
    print(f"\nfirst visit, compressed, all assets: {kb:.1f} KB ({wire / 1024:.1f} KiB) over the")
    print(f"wire, headers included; goal <= {GOAL_KB} KB: {verdict} the goal")
    asked = {str(r.get("asked", "")) for r in rows}
    print(f"Accept-Encoding sent: {', '.join(sorted(asked))}")
    font_rows = [r for r in rows if FONT in str(r["url"])]
    if font_rows:
        f = font_rows[0]
        print(
            f"Devanagari webfont downloaded: yes, {f['wire']:,} B ({urlsplit(str(f['url'])).path})"
        )
    else:
        print("Devanagari webfont downloaded: no (a local Devanagari font was used)")
    print(f"fonts loaded in the page: {result['fonts_loaded']}")
    others = [str(r["url"]) for r in rows if urlsplit(str(r["url"])).netloc != origin]
    print(f"requests to other hosts: {others if others else 'none'}")
    short = [
        urlsplit(str(r["url"])).path
        for r in rows
        if "/static/" in str(r["url"]) and "immutable" not in str(r["cache"])
    ]
    print(
        "static files: every one hashed and cached for a year (immutable)"
        if not short
        else f"static files NOT hashed / cached for a year: {short}"
    )


def main() -> None:
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    if not CHROMIUM.exists():
        print("skipped: needs Debian's chromium at /usr/bin/chromium (make browsers)")
        return
    with production_site() as base:
        result = measure(base)
    report(result)


if __name__ == "__main__":
    main()
