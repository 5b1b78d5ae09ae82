"""The attention lab (§6) end to end over HTTP, as a buyer: one head of a 16-word sentence.

    .venv/bin/python bench/lab_latency.py [requests] [clients]

Serves the site as production does (page_weight.production_site: gunicorn, one gthread worker
per core, SQLite; on BENCH_PORT when set), its per-learner rate limits aside
(bench/baresite/unlimited.py: each phase's 200 requests would be over them), and signs in a
learner who bought Unit 18 (page_weight.buyer_session). Every request is the page's own call: POST
/units/attention-and-transformers/lab/attention/ with the sentence, a layer and a head, on a
keep-alive connection with the buyer's cookie, asking for gzip.

Printed, never asserted:
- the first call after the server started (each worker loads the model on its first lab call:
  about 0.3 s and 205 MB), and the first call that reaches the other worker(s);
- warm, the same sentence again (the run is kept in the process: rounding and JSON only),
  p50 and p95 over N requests (default 200), one client; goal p50 <= 30 ms;
- warm, a new 16-word sentence every time (the model runs: tokens, 6 layers, 72 heads), p50
  and p95, one client;
- requests per second with 4 clients (default), a new sentence every time, and their p50/p95.
The client runs on the same cores as the server, so every figure is a little worse than on a
machine of its own.
"""

from __future__ import annotations

import gzip
import http.client
import json
import os
import random
import statistics
import sys
import threading
import time
from urllib.parse import urlencode, urlsplit

from page_weight import buyer_session, production_site

UNLIMITED = "bench.baresite.unlimited"  # production, the route limits lifted (its docstring)

REQUESTS = int(sys.argv[1]) if len(sys.argv) > 1 else 200
CLIENTS = int(sys.argv[2]) if len(sys.argv) > 2 else 4
PATH = "/units/attention-and-transformers/lab/attention/"
SENTENCE = "The old man sat by the river bank and watched the boats go slowly past today"
WORDS = [
    *("the", "a", "old", "young", "man", "woman", "child", "sat", "stood", "walked", "by"),
    *("near", "river", "bank", "money", "boats", "trains", "and", "watched", "read", "wrote"),
    *("bought", "tea", "water", "rice", "book", "letter", "slowly", "quickly", "past", "today"),
    *("every", "morning", "evening", "in", "city", "village", "quiet", "after", "rain"),
]
GOAL_MS = 30.0


class Caller:
    """One keep-alive connection with the buyer's cookie."""

    def __init__(self, base: str, cookie: tuple[str, str]) -> None:
        url = urlsplit(base)
        self.host, self.port = url.hostname or "127.0.0.1", url.port or 80
        self.cookie = f"{cookie[0]}={cookie[1]}"
        self.conn: http.client.HTTPConnection | None = None

    def ask(self, text: str, layer: int = 3, head: int = 1) -> tuple[float, int, bytes]:
        body = urlencode({"text": text, "layer": layer, "head": head, "view": "head"})
        headers = {
            "Content-Type": "application/x-www-form-urlencoded",
            "Accept": "application/json",
            "Accept-Encoding": "gzip",
            "Cookie": self.cookie,
        }
        for attempt in range(2):
            if self.conn is None:
                self.conn = http.client.HTTPConnection(self.host, self.port, timeout=60)
            t0 = time.perf_counter()
            try:
                self.conn.request("POST", PATH, body=body, headers=headers)
                response = self.conn.getresponse()
                data = response.read()
            except (http.client.HTTPException, OSError):
                self.conn.close()
                self.conn = None
                if attempt:
                    raise
                continue
            return (time.perf_counter() - t0) * 1000, response.status, data
        raise AssertionError("unreachable")


def sentence(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(16))


def summary(ms: list[float]) -> str:
    s = sorted(ms)
    p95 = s[round(0.95 * (len(s) - 1))]
    return f"p50 {statistics.median(s):6.1f} ms   p95 {p95:6.1f} ms   ({len(s)} requests)"


def main() -> None:
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    with production_site(settings=UNLIMITED) as base:
        cookie = buyer_session(base)
        first = Caller(base, cookie)
        ms, status, data = first.ask(SENTENCE)
        assert status == 200, (status, data[:200])
        n = json.loads(gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data)
        print(f'sentence: "{SENTENCE}" (16 words, {n["n"]} tokens), layer 3, head 1')
        print(f"first call after start:        {ms:7.1f} ms (loads the model in that worker)")
        others = [Caller(base, cookie) for _ in range(CLIENTS)]
        cold = [c.ask(SENTENCE)[0] for c in others]  # new connections: other workers too
        print(f"first call on {CLIENTS} new connections: " + ", ".join(f"{x:.0f}" for x in cold))
        rng = random.Random(18)
        for _ in range(30):  # warm-up of every connection and worker
            for c in [first, *others]:
                c.ask(sentence(rng))
        same = [first.ask(SENTENCE)[0] for _ in range(REQUESTS)]
        print(f"warm, the same sentence:       {summary(same)}")
        verdict = "within" if statistics.median(same) <= GOAL_MS else "ABOVE"
        print(f"  goal p50 <= {GOAL_MS:.0f} ms: {verdict} the goal")
        fresh = [first.ask(sentence(rng))[0] for _ in range(REQUESTS)]
        print(f"warm, a new sentence each time: {summary(fresh)}")
        verdict = "within" if statistics.median(fresh) <= GOAL_MS else "ABOVE"
        print(f"  goal p50 <= {GOAL_MS:.0f} ms: {verdict} the goal")

        lock = threading.Lock()
        times: list[float] = []
        errors: list[int] = []

        def run(c: Caller, seed: int) -> None:
            r = random.Random(seed)
            mine, bad = [], []
            for _ in range(REQUESTS // CLIENTS):
                ms, status, _ = c.ask(sentence(r), layer=r.randint(1, 6), head=r.randint(1, 12))
                mine.append(ms)
                if status != 200:
                    bad.append(status)
            with lock:
                times.extend(mine)
                errors.extend(bad)

        threads = [threading.Thread(target=run, args=(c, i)) for i, c in enumerate(others)]
        t0 = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        elapsed = time.perf_counter() - t0
        print(f"{CLIENTS} clients, a new sentence each time: {len(times) / elapsed:.1f} requests/s")
        print(f"  {summary(times)}" + (f", {len(errors)} errors" if errors else ""))


if __name__ == "__main__":
    main()
