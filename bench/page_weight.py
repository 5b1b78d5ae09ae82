"""Transfer weight of every written section on a first visit (issues 2 and 9 "Measured": goal
<= 100 KB a section; issue 19 "Lighter first visits": <= 50 KB; compressed, all assets).

    .venv/bin/python bench/page_weight.py [section number ...]     (default: every written one)

The site is served as production would serve it: production settings (DEBUG off), static files
collected with the manifest storage (hashed names, brotli and gzip copies made at build time)
into a temporary STATIC_ROOT and served by WhiteNoise, HTML gzipped by Django's GZipMiddleware,
behind gunicorn (one worker per core, threads, keep-alive), with a throwaway SQLite database.
Headless Chromium (Debian's) opens each section in a fresh context (empty cache; the free
section with no cookies, a locked one with only the session cookie of a buyer created in the
site's database: buyer_session()) asking for br/gzip, and the DevTools protocol reports, per
response, the bytes that came over the wire (Network.loadingFinished encodedDataLength: headers
and compressed body) and the body once decoded. Prints, per section, one row per resource, the
total, whether the whole Devanagari webfont or the section's own cut of it
(/units/<slug>/fonts/<hash>.woff2, coursebook/fonts.py) was downloaded, the same for the math
fences font and the section's cut of it, which of the widgets' state files
(/units/<slug>/data/<hash>.json, coursebook/state_files.py: fetched when a widget comes near the
screen) came, and any request to another host (there must be none); then one summary line per
section. Figures are printed, never asserted.

production_site(), buyer_session() and written_sections() are also used by section_rps.py,
slider_latency.py and lighthouse_sections.py.
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
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(1, str(REPO))
from support import CHROMIUM, CHROMIUM_ARGS  # noqa: E402  (shared with the browser tests)

PY = sys.executable
SECTION_1 = "/units/attention-and-transformers/1/"
PRODUCTION = "mathmachine.web.settings.production"
# The production settings plus a bare view (/bench/bare/, bench/baresite), for section_rps.py.
WITH_BARE_VIEW = "bench.baresite.settings"
GOAL_KB = 50  # issue 19 (issues 2 and 9 asked for 100)
FONT = "noto-sans-devanagari-subset"  # the whole Devanagari font (site.css)
SECTION_FONT = "/fonts/"  # a section's own cut of it: /units/<slug>/fonts/<hash>.woff2
MATH_FONT = "math-fences"  # the whole math fences font (site.css)
STATE_FILE = "/data/"  # a widget's state file: /units/<slug>/data/<hash>.json


def _free_port() -> int:
    """A free port on the loopback, or BENCH_PORT when it is set (on a shared machine each
    engineer keeps to their own range of ports)."""
    if os.environ.get("BENCH_PORT"):
        return int(os.environ["BENCH_PORT"])
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _environment(var_dir: Path, settings: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE", "DEBUG"}
    }
    env.update(
        DJANGO_SETTINGS_MODULE=settings,
        DJANGO_SECRET_KEY=secrets.token_urlsafe(50),
        ALLOWED_HOSTS="127.0.0.1,localhost",
        SECURE_SSL_REDIRECT="0",  # plain HTTP on the loopback; TLS is the proxy's job
        MATHMACHINE_VAR_DIR=str(var_dir),  # SQLite database and STATIC_ROOT live here
        LOG_LEVEL="WARNING",
        PYTHONUNBUFFERED="1",
    )
    return env


class Site(str):
    """The base URL of a site production_site() serves (http://127.0.0.1:PORT), with the
    environment its manage.py commands run in (its settings and database)."""

    env: dict[str, str]

    def __new__(cls, base: str, env: dict[str, str]) -> Site:
        site = super().__new__(cls, base)
        site.env = env
        return site


@dataclass(frozen=True)
class SectionPage:
    """A written section: its path, whether it is the free preview, its compiled form."""

    path: str
    number: int
    title: str
    free: bool
    section: Any  # mathmachine.coursebook.model.CompiledSection


def written_sections(numbers: list[int] | None = None) -> list[SectionPage]:
    """Every written section of every unit (compiled from the repository), or those `numbers`."""
    from mathmachine.coursebook import cache

    pages = []
    for folder in cache.unit_folders(cache.content_root()):
        unit = cache.build_unit(folder)
        for s in unit.sections:
            if s.written and (not numbers or s.number in numbers):
                path = f"/units/{unit.slug}/{s.number}/"
                pages.append(SectionPage(path, s.number, s.title, s.free, s))
    return pages


_BUYER = """
import sys, uuid
sys.path.insert(0, "tests")
from django.conf import settings
from django.contrib.auth import get_user_model
from django.test import Client
from mathmachine.billing.models import Product
from support import paid_order_create
email = f"bench-{uuid.uuid4().hex[:10]}@example.com"
user = get_user_model().objects.create_user(email, email, uuid.uuid4().hex)
paid_order_create(user, Product.objects.get(code="unit-18"))
client = Client()
client.force_login(user)
print("SESSION", settings.SESSION_COOKIE_NAME, client.cookies[settings.SESSION_COOKIE_NAME].value)
"""


def buyer_session(site: Site) -> tuple[str, str]:
    """A signed-in learner who bought Unit 18 (a paid order with its entitlement, written in
    the site's database): the session cookie's (name, value)."""
    out = subprocess.run(
        [PY, "manage.py", "shell", "--no-imports", "-c", _BUYER],
        cwd=REPO,
        env=site.env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    line = next(x for x in out.splitlines() if x.startswith("SESSION "))
    _, name, value = line.split()
    return name, value


def opens_as_section(site: str, path: str, cookie: tuple[str, str] | None) -> bool:
    """Whether `path` is served as the section itself (not the locked page) to this cookie."""
    headers = {"Cookie": f"{cookie[0]}={cookie[1]}"} if cookie else {}
    with urllib.request.urlopen(urllib.request.Request(site + path, headers=headers)) as r:
        return b'<article class="section-body"' in r.read()


def visit(site: str, page: SectionPage, buyer: tuple[str, str] | None) -> tuple[str, str] | None:
    """Print which section is measured and as whom; the cookie to send (the buyer's for a locked
    section), after checking that the server then sends the section, not the locked page."""
    who = "anonymous, no cookie" if page.free else "a buyer, session cookie only"
    print(f"\n§{page.number} {page.title} ({page.path}), as {who}")
    cookie = None if page.free else buyer
    if not opens_as_section(site, page.path, cookie):
        print("  NOT the section: the server sent the locked page")
    return cookie


@contextlib.contextmanager
def production_site(
    workers: int | None = None,
    threads: int = 4,
    settings: str = PRODUCTION,
    access_log: Path | None = None,
) -> Iterator[Site]:
    """Build and serve the site like production; yields its base URL (http://127.0.0.1:PORT)
    as a Site (a str that also carries the environment, for buyer_session()).

    Migrates a fresh SQLite database and runs collectstatic into a temporary directory, then
    starts gunicorn (gthread workers: keep-alive) and waits until it answers. Everything is
    stopped and removed on exit. ``access_log``: gunicorn writes one line per response there,
    ``<status> <body bytes sent> <path>`` (repeat_visit.py counts what the server sent).
    """
    var_dir = Path(tempfile.mkdtemp(prefix="mathmachine-bench-"))
    env = _environment(var_dir, settings)
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
                *(
                    [
                        "--access-logfile",
                        str(access_log),
                        "--access-logformat",
                        "%(s)s %(B)s %(U)s",
                        "--no-sendfile",  # else a file response is logged as 0 bytes
                    ]
                    if access_log is not None
                    else []
                ),
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
        yield Site(base, env)
    finally:
        if server is not None and server.poll() is None:
            server.send_signal(signal.SIGTERM)
            try:
                server.wait(timeout=20)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
        shutil.rmtree(var_dir, ignore_errors=True)


def measure(
    base: str, path: str = SECTION_1, cookie: tuple[str, str] | None = None
) -> dict[str, object]:
    """Open `path` in a fresh Chromium context (empty cache; no cookie but `cookie` if given);
    return the per-resource transfer figures."""
    from playwright.sync_api import sync_playwright

    origin = urlsplit(base).netloc
    rows: dict[str, dict[str, object]] = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        context = browser.new_context(viewport={"width": 360, "height": 740})
        if cookie is not None:
            context.add_cookies([{"name": cookie[0], "value": cookie[1], "url": base}])
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
        page.goto(base + path, wait_until="networkidle")
        page.evaluate("document.fonts.ready.then(() => true)")
        page.wait_for_timeout(300)  # any late request (fonts) has finished
        fonts_loaded = page.evaluate(
            "[...document.fonts].filter(f => f.status === 'loaded').map(f => f.family)"
        )
        context.close()
        browser.close()
    finished = [r for r in rows.values() if "wire" in r and "url" in r]
    return {"rows": finished, "origin": origin, "fonts_loaded": fonts_loaded}


def report(result: dict[str, object], section: Any = None) -> float:
    """Print the per-resource table and the checks (`section`, the compiled section, names its
    fonts); returns the total in KB."""
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
        path = urlsplit(str(f["url"])).path
        print(f"whole Devanagari webfont downloaded: yes, {f['wire']:,} B ({path})")
    else:
        print("whole Devanagari webfont downloaded: no")
    own = [r for r in rows if urlsplit(str(r["url"])).path.startswith("/units/")]
    own = [r for r in own if SECTION_FONT in str(r["url"])]
    math_cut = getattr(section, "math_font", "") or None
    for label, wanted in (
        ("Devanagari", lambda u: not math_cut or not u.endswith(math_cut)),
        ("math fences", lambda u: bool(math_cut) and u.endswith(math_cut)),
    ):
        found = [r for r in own if wanted(urlsplit(str(r["url"])).path)]
        if found:
            f = found[0]
            path = urlsplit(str(f["url"])).path
            print(f"the section's own {label} font: {f['wire']:,} B ({path})")
        else:
            print(f"the section's own {label} font: none downloaded")
    whole_math = [r for r in rows if MATH_FONT in str(r["url"])]
    print(
        f"whole math fences font downloaded: yes, {whole_math[0]['wire']:,} B"
        if whole_math
        else "whole math fences font downloaded: no"
    )
    states = [r for r in rows if STATE_FILE in urlsplit(str(r["url"])).path]
    print(
        "widgets' state files fetched: "
        + (", ".join(f"{r['wire']:,} B" for r in states) if states else "none")
    )
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
    return kb


def main(argv: list[str]) -> None:
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    if not CHROMIUM.exists():
        print("skipped: needs Debian's chromium at /usr/bin/chromium (make browsers)")
        return
    pages = written_sections([int(a) for a in argv])
    totals = []
    with production_site() as site:
        buyer = buyer_session(site) if any(not p.free for p in pages) else None
        for page in pages:
            result = measure(site, page.path, visit(site, page, buyer))
            totals.append((page, report(result, page.section), len(result["rows"])))  # type: ignore[arg-type]
    print(f"\nsummary (goal <= {GOAL_KB} KB a section, first visit, compressed, all assets)")
    for page, kb, n in totals:
        verdict = "within" if kb <= GOAL_KB else "OVER"
        print(
            f"  §{page.number:<3} {kb:6.1f} KB in {n:2} responses  {verdict} the goal  {page.title}"
        )


if __name__ == "__main__":
    main(sys.argv[1:])
