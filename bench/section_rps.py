"""Requests per second for Unit 18 §1 against a static file of the same server, in one run
(issue 2 "Measured": goal section/static >= 0.5, i.e. rendering is cached).

    .venv/bin/python bench/section_rps.py [requests] [threads]

Serves the site as production does (page_weight.production_site: production settings, DEBUG
off, gunicorn with one gthread worker per core, WhiteNoise, SQLite). Each client thread keeps
one HTTP/1.1 connection alive and one learner's cookies (a returning reader: every section 1
request reads the session, records the visit and renders the learner's checks), and asks for
gzip/br as a browser does. After a warm-up, three rounds alternate: N requests (default 300,
4 threads) to /static/site/site.<hash>.css, then N to section 1. Each phase stops after 60 s
even if unfinished. Prints req/s and latency per phase, the median of the rounds and the ratio
section/static. The client runs on the same cores as the server, so both figures are lower than
on a machine of its own; the ratio is what compares. Figures are printed, never asserted.
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
from urllib.parse import urlsplit

from page_weight import SECTION_1, production_site

REQUESTS = int(sys.argv[1]) if len(sys.argv) > 1 else 300
THREADS = int(sys.argv[2]) if len(sys.argv) > 2 else 4
ROUNDS = 3
PHASE_LIMIT_S = 60.0
GOAL = 0.5
HEADERS = {"Accept-Encoding": "gzip, br", "Accept": "text/html,*/*", "User-Agent": "bench"}


@dataclass
class Client:
    """One keep-alive connection and one learner's cookies."""

    host: str
    port: int
    cookies: dict[str, str] = field(default_factory=dict)
    conn: http.client.HTTPConnection | None = None

    def get(self, path: str) -> tuple[int, bytes]:
        for attempt in range(2):
            if self.conn is None:
                self.conn = http.client.HTTPConnection(self.host, self.port, timeout=30)
            headers = dict(HEADERS)
            if self.cookies:
                headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
            try:
                self.conn.request("GET", path, headers=headers)
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


def main() -> None:
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    with production_site() as base:
        url = urlsplit(base)
        clients = [Client(url.hostname or "127.0.0.1", url.port or 80) for _ in range(THREADS)]
        status, page = clients[0].get(SECTION_1)
        assert status == 200, status
        # The stylesheet the page links, by its hashed name (WhiteNoise serves it from memory).
        html = gzip.decompress(page).decode() if page[:2] == b"\x1f\x8b" else page.decode()
        css = re.search(r'href="(/static/site/site\.[0-9a-f]{12}\.css)"', html)
        assert css, "section 1 links no hashed site.css"
        static = css.group(1)
        print(
            f"gunicorn, {os.cpu_count()} gthread workers; {THREADS} client threads with keep-alive;"
            f" {REQUESTS} requests per phase, {ROUNDS} rounds\n"
        )
        for c in clients:  # warm-up: every learner has a session; both paths are hot
            for _ in range(5):
                c.get(SECTION_1)
                c.get(static)
        print(f"{'round':<6} {'path':<44} {'req/s':>8} {'p50 ms':>7} {'p95 ms':>7}")
        results: dict[str, list[float]] = {"static": [], "section": []}
        for r in range(1, ROUNDS + 1):
            for name, path in (("static", static), ("section", SECTION_1)):
                out = phase(clients, path, REQUESTS)
                results[name].append(out["rps"])
                note = "" if out["done"] == REQUESTS else f"  ({out['done']} done in time)"
                print(
                    f"{r:<6} {path:<44} {out['rps']:>8.0f} {out['p50']:>7.1f} "
                    f"{out['p95']:>7.1f}{note}"
                )
    static_rps = statistics.median(results["static"])
    section_rps = statistics.median(results["section"])
    ratio = section_rps / static_rps
    print(
        f"\nmedian of {ROUNDS} rounds: section 1 {section_rps:.0f} req/s, "
        f"static {static_rps:.0f} req/s"
    )
    verdict = "within" if ratio >= GOAL else "BELOW"
    print(f"ratio section/static {ratio:.2f}; goal >= {GOAL}: {verdict} the goal")


if __name__ == "__main__":
    main()
