"""Widget 16's server step (§13, "The whole walk") end to end over HTTP, as a buyer: one sentence
through the tiny translator, every tensor of its walk.

    .venv/bin/python bench/tiny_walk_latency.py [requests] [clients]

Serves the site as production does (page_weight.production_site: gunicorn, one gthread worker
per core, SQLite; on BENCH_PORT when set) and signs in a learner who bought Unit 18
(page_weight.buyer_session). Every request is the widget's own call: POST
/units/attention-and-transformers/widgets/tiny-walk/ with the sentence (the page posts to
../widgets/tiny-walk/ from §13), on a keep-alive connection with the buyer's cookie, asking for
gzip. Each answer is checked: status 200 and the walk's Hindi words and stages present.

Printed, never asserted:
- the first call after the server started (the worker loads the tiny model: its weights and
  vocabulary) and the first call on each new connection (other workers load it too);
- warm, the same sentence again (the walk is kept in the process, an LRU of 256 sentences:
  JSON only), p50 and p95 over N requests (default 200), one client;
- warm, a new sentence of the corpus every time: the 408 sentences in a fixed shuffled order,
  more than the 256 the process keeps, so every one of these requests runs the model: the
  encoder, the decoder greedy word by word, every tensor printed (the goal: p50 <= 20 ms);
- requests per second with 4 clients (default), a new sentence each time, and their p50/p95;
- the answer's size, raw and gzipped.
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

from mathmachine.engine.tiny.corpus import all_pairs

REQUESTS = int(sys.argv[1]) if len(sys.argv) > 1 else 200
CLIENTS = int(sys.argv[2]) if len(sys.argv) > 2 else 4
PATH = "/units/attention-and-transformers/widgets/tiny-walk/"
SENTENCE = "I drink tea"
GOAL_MS = 20.0


class Caller:
    """One keep-alive connection with the buyer's cookie."""

    def __init__(self, base: str, cookie: tuple[str, str]) -> None:
        url = urlsplit(base)
        self.host, self.port = url.hostname or "127.0.0.1", url.port or 80
        self.cookie = f"{cookie[0]}={cookie[1]}"
        self.conn: http.client.HTTPConnection | None = None

    def ask(self, text: str) -> tuple[float, int, bytes]:
        body = urlencode({"text": text})
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


def decoded(data: bytes) -> dict[str, object]:
    return json.loads(gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data)


def checked(result: tuple[float, int, bytes], text: str) -> float:
    """The time of a right answer: a walk of `text` (status 200, its Hindi written)."""
    ms, status, data = result
    assert status == 200, (text, status, data[:200])
    walk = decoded(data)
    assert walk.get("written") and walk.get("sentence") == text, (text, sorted(walk)[:12])
    return ms


def summary(ms: list[float]) -> str:
    s = sorted(ms)
    p95 = s[round(0.95 * (len(s) - 1))]
    return f"p50 {statistics.median(s):6.1f} ms   p95 {p95:6.1f} ms   ({len(s)} requests)"


def verdict(ms: list[float]) -> str:
    within = statistics.median(ms) <= GOAL_MS
    return f"  goal p50 <= {GOAL_MS:.0f} ms: {'within' if within else 'ABOVE'} the goal"


def main() -> None:
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    sentences = [" ".join(p.english) for p in all_pairs()]
    random.Random(16).shuffle(sentences)
    with production_site() as base:
        cookie = buyer_session(base)
        first = Caller(base, cookie)
        result = first.ask(SENTENCE)
        ms = checked(result, SENTENCE)
        walk = decoded(result[2])
        print(f'sentence: "{SENTENCE}" -> {" ".join(map(str, walk["written"]))}')  # type: ignore[call-overload]
        raw = json.dumps(walk, ensure_ascii=False).encode()
        print(f"answer: {len(raw):,} bytes of JSON, {len(result[2]):,} bytes over the wire")
        print(f"first call after start:        {ms:7.1f} ms (loads the tiny model in that worker)")
        others = [Caller(base, cookie) for _ in range(CLIENTS)]
        cold = [checked(c.ask(SENTENCE), SENTENCE) for c in others]
        print(f"first call on {CLIENTS} new connections: " + ", ".join(f"{x:.0f}" for x in cold))
        for k in range(10):  # warm-up of every connection and worker (kept sentences after)
            for c in [first, *others]:
                checked(c.ask(sentences[-1 - k]), sentences[-1 - k])
        same = [checked(first.ask(SENTENCE), SENTENCE) for _ in range(REQUESTS)]
        print(f"warm, the same sentence (kept): {summary(same)}")
        n = min(REQUESTS, len(sentences) - 10)
        fresh = [checked(first.ask(s), s) for s in sentences[:n]]
        print(f"warm, a new sentence each time: {summary(fresh)}")
        print(verdict(fresh))

        lock = threading.Lock()
        times: list[float] = []

        def run(c: Caller, mine: list[str]) -> None:
            got = [checked(c.ask(s), s) for s in mine]
            with lock:
                times.extend(got)

        # The sentences not asked yet: no worker has any of them kept, so each one runs.
        rest = sentences[n:-10] or sentences
        share = max(1, len(rest) // CLIENTS)
        threads = [
            threading.Thread(target=run, args=(c, rest[i * share : (i + 1) * share]))
            for i, c in enumerate(others)
        ]
        t0 = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        elapsed = time.perf_counter() - t0
        print(f"{CLIENTS} clients, a new sentence each time: {len(times) / elapsed:.1f} requests/s")
        print(f"  {summary(times)}")


if __name__ == "__main__":
    main()
