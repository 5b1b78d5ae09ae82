"""Requests per second for Unit 18 §1 against a bare Django view and a static file of the same
server, in one run (issue 18: goal section/bare view >= 0.5, aim >= 0.8; issue 2: section/static
>= 0.5).

    .venv/bin/python bench/section_rps.py [requests] [threads]

Serves the site as production does (page_weight.production_site: production settings, DEBUG
off, gunicorn with one gthread worker per core, WhiteNoise, SQLite), plus one bare view
(bench/baresite: /bench/bare/ reads the session and the user and puts a CSRF token in a
two-line page, through the same middleware as every page: sessions, CSRF, authentication,
messages, CSP, gzip). Each client thread keeps one HTTP/1.1 connection alive and one returning
learner's cookies: before the run it answers §1's checks (one right, one wrong, through the
page's own form with its CSRF token), so every §1 request reads the session, records the visit,
renders the learner's answered checks and the offer at the end of the free preview. It asks for
gzip/br as a browser does. After a warm-up, three rounds alternate: N requests (default 300, 4
threads) to /static/site/site.<hash>.css, N to the bare view, N to section 1. Each phase stops
after 60 s even if unfinished. Prints req/s and latency per phase, the median of the rounds and
the ratios section/bare and section/static. The client runs on the same cores as the server, so
all figures are lower than on a machine of their own; the ratios are what compare. Figures are
printed, never asserted.
"""

from __future__ import annotations

import gzip
import http.client
import os
import re
import statistics
import sys
import threading
import time
from dataclasses import dataclass, field
from urllib.parse import urlencode, urlsplit

from page_weight import SECTION_1, WITH_BARE_VIEW, production_site, written_sections

from bench.baresite import BARE

REQUESTS = int(sys.argv[1]) if len(sys.argv) > 1 else 300
THREADS = int(sys.argv[2]) if len(sys.argv) > 2 else 4
ROUNDS = 3
PHASE_LIMIT_S = 60.0
GOAL = 0.5  # section / bare view (issue 18) and section / static (issue 2)
AIM = 0.8  # section / bare view
HEADERS = {"Accept-Encoding": "gzip, br", "Accept": "text/html,*/*", "User-Agent": "bench"}


@dataclass
class Client:
    """One keep-alive connection and one learner's cookies."""

    host: str
    port: int
    cookies: dict[str, str] = field(default_factory=dict)
    conn: http.client.HTTPConnection | None = None

    def get(self, path: str) -> tuple[int, bytes]:
        return self.request("GET", path)

    def request(
        self, method: str, path: str, body: str | None = None, extra: dict[str, str] | None = None
    ) -> tuple[int, bytes]:
        for attempt in range(2):
            if self.conn is None:
                self.conn = http.client.HTTPConnection(self.host, self.port, timeout=30)
            headers = {**HEADERS, **(extra or {})}
            if self.cookies:
                headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
            try:
                self.conn.request(method, path, body=body, headers=headers)
                response = self.conn.getresponse()
                body = response.read()
            except (http.client.HTTPException, OSError):
                self.conn.close()
                self.conn = None  # the server closed an idle connection: reconnect once
                if attempt:
                    raise
                continue
            for header in response.headers.get_all("Set-Cookie") or []:
                name, _, rest = header.partition("=")
                self.cookies[name.strip()] = rest.split(";", 1)[0]
            if response.headers.get("Connection", "").lower() == "close":
                self.conn.close()
                self.conn = None
            return response.status, body
        raise AssertionError("unreachable")


def phase(clients: list[Client], path: str, total: int) -> dict[str, float]:
    """``total`` GETs of ``path`` shared by the clients' threads; req/s and latency in ms."""
    per = [total // len(clients) + (i < total % len(clients)) for i in range(len(clients))]
    latencies: list[float] = []
    errors: list[str] = []
    lock = threading.Lock()
    deadline = time.perf_counter() + PHASE_LIMIT_S

    def run(client: Client, n: int) -> None:
        mine = []
        for _ in range(n):
            if time.perf_counter() > deadline:
                break
            t0 = time.perf_counter()
            try:
                status, _ = client.get(path)
            except Exception as exc:  # counted and shown, the phase goes on
                errors.append(repr(exc))
                continue
            mine.append((time.perf_counter() - t0) * 1000)
            if status != 200:
                errors.append(f"HTTP {status}")
        with lock:
            latencies.extend(mine)

    threads = [threading.Thread(target=run, args=(c, n)) for c, n in zip(clients, per, strict=True)]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - start
    if errors:
        print(f"  {len(errors)} errors on {path}, e.g. {errors[0]}")
    s = sorted(latencies)
    return {
        "done": len(s),
        "rps": len(s) / elapsed,
        "p50": statistics.median(s) if s else float("nan"),
        "p95": s[round(0.95 * (len(s) - 1))] if s else float("nan"),
    }


def html_of(body: bytes) -> str:
    return gzip.decompress(body).decode() if body[:2] == b"\x1f\x8b" else body.decode()


def become_returning_learner(client: Client) -> None:
    """Answer §1's checks through the page's own form (right, then wrong), as a reader does."""
    status, page = client.get(SECTION_1)
    assert status == 200, status
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html_of(page))
    assert token, "section 1 has no form"
    first = next(p for p in written_sections([1]) if p.path == SECTION_1).section
    for i, check in enumerate(first.checks):
        typed = [f.answer_text if i % 2 == 0 else "0" for f in check.fields]
        fields = {f"answer-{n}": value for n, value in enumerate(typed)}
        body = urlencode({"csrfmiddlewaretoken": token.group(1), **fields})
        status, _ = client.request(
            "POST",
            f"/units/attention-and-transformers/checks/{check.id}/",
            body,
            {"Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"},
        )
        assert status == 200, f"answering {check.id}: HTTP {status}"


def main() -> None:
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    with production_site(settings=WITH_BARE_VIEW) as base:
        url = urlsplit(base)
        clients = [Client(url.hostname or "127.0.0.1", url.port or 80) for _ in range(THREADS)]
        for c in clients:
            become_returning_learner(c)
        status, page = clients[0].get(SECTION_1)
        assert status == 200, status
        html = html_of(page)
        assert "verdict-right" in html and 'class="offer"' in html, "not a returning reader's §1"
        # The stylesheet the page links, by its hashed name (WhiteNoise serves it from memory).
        css = re.search(r'href="(/static/site/site\.[0-9a-f]{12}\.css)"', html)
        assert css, "section 1 links no hashed site.css"
        static = css.group(1)
        status, _ = clients[0].get(BARE)
        assert status == 200, f"the bare view: HTTP {status}"
        print(
            f"gunicorn, {os.cpu_count()} gthread workers; {THREADS} client threads with keep-alive,"
            f" each a returning learner; {REQUESTS} requests per phase, {ROUNDS} rounds\n"
        )
        phases = (("static", static), ("bare", BARE), ("section", SECTION_1))
        for c in clients:  # warm-up: every path is hot
            for _ in range(5):
                for _, path in phases:
                    c.get(path)
        print(f"{'round':<6} {'path':<44} {'req/s':>8} {'p50 ms':>7} {'p95 ms':>7}")
        results: dict[str, list[float]] = {name: [] for name, _ in phases}
        for r in range(1, ROUNDS + 1):
            for name, path in phases:
                out = phase(clients, path, REQUESTS)
                results[name].append(out["rps"])
                note = "" if out["done"] == REQUESTS else f"  ({out['done']} done in time)"
                print(
                    f"{r:<6} {path:<44} {out['rps']:>8.0f} {out['p50']:>7.1f} "
                    f"{out['p95']:>7.1f}{note}"
                )
    rps = {name: statistics.median(values) for name, values in results.items()}
    print(
        f"\nmedian of {ROUNDS} rounds: section 1 {rps['section']:.0f} req/s, bare view "
        f"{rps['bare']:.0f} req/s, static {rps['static']:.0f} req/s"
    )
    bare = rps["section"] / rps["bare"]
    verdict = "the aim met" if bare >= AIM else "within the goal" if bare >= GOAL else "BELOW"
    print(f"ratio section/bare view {bare:.2f}; goal >= {GOAL}, aim >= {AIM}: {verdict}")
    ratio = rps["section"] / rps["static"]
    verdict = "within" if ratio >= GOAL else "BELOW"
    print(f"ratio section/static {ratio:.2f}; goal >= {GOAL}: {verdict} the goal")


if __name__ == "__main__":
    main()
