"""Simulated learners for the load test (bench/load/run.py): what they do, and what they saw.

Each learner is one asyncio task with its own cookies and its own keep-alive connections (at
most two: a double submit sends the second answer on a second connection, as a browser does
when the first is busy). It loops until the deadline: pick an action by weight, do it, think
for a random time. Every request is timed and recorded with its outcome; every answer the
server acknowledged (HTTP 200 with the attempt number) is remembered, so that run.py can
compare what was acknowledged with what the database holds.

Adding an action (e.g. the attention lab's JSON API) is one entry in ``ACTIONS``.
"""

from __future__ import annotations

import asyncio
import errno
import json
import random
import ssl
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import aiohttp

CSRF_COOKIE = "csrftoken"


@dataclass(frozen=True)
class CheckPlan:
    """A check a learner may answer: where it is, and answers the grader can read."""

    id: str
    section: int
    answers: tuple[tuple[str, ...], ...]  # each: one string per field; some right, some wrong


@dataclass(frozen=True)
class Request:
    kind: str  # "read", "answer", ...
    start: float  # seconds since the run began
    ms: float
    error: str  # "" when the request succeeded


@dataclass
class Ack:
    """An answer the server acknowledged: which learner, which check, which attempt."""

    learner: int
    check_id: str
    attempt: int


@dataclass
class Recorder:
    t0: float = field(default_factory=time.perf_counter)
    requests: list[Request] = field(default_factory=list)
    acks: list[Ack] = field(default_factory=list)
    double_submits: int = 0
    statuses: Counter[tuple[str, int]] = field(default_factory=Counter)
    # (kind, status) answers that are the point, not errors: the abuser's 429s and 503s
    expected: frozenset[tuple[str, int]] = frozenset()

    def now(self) -> float:
        return time.perf_counter() - self.t0


def classify(exc: BaseException) -> str:
    """A short name for a failed request, to count by kind."""
    if isinstance(exc, aiohttp.ServerDisconnectedError):
        return "server closed the connection"
    if isinstance(exc, aiohttp.ClientConnectorError):
        return "connection refused"
    if isinstance(exc, aiohttp.ClientOSError) and exc.errno == errno.ECONNRESET:
        return "connection reset"
    if isinstance(exc, TimeoutError | asyncio.TimeoutError):
        return "timeout"
    return type(exc).__name__


@dataclass
class Learner:
    index: int
    base: str  # e.g. https://localhost:8643
    unit_slug: str
    sections: tuple[int, ...]  # the sections this learner may read
    checks: tuple[CheckPlan, ...]  # the checks in those sections
    recorder: Recorder
    rng: random.Random
    cookies: dict[str, str] = field(default_factory=dict)
    signed_in: bool = False
    user_id: int | None = None
    read_sections: set[int] = field(default_factory=set)
    http: aiohttp.ClientSession | None = None
    address: str = ""  # sent as X-Forwarded-For (the load run trusts one proxy: the client)

    # -- HTTP -------------------------------------------------------------------------------

    async def _send(
        self, kind: str, method: str, path: str, *, data: list[tuple[str, str]] | None = None
    ) -> tuple[int, bytes] | None:
        """One request, timed and recorded. None when it failed (the failure is recorded)."""
        assert self.http is not None
        headers = {"Accept-Encoding": "gzip", "User-Agent": "mathmachine-load"}
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        if self.address:
            headers["X-Forwarded-For"] = self.address
        if method == "POST":
            headers["Accept"] = "application/json"
            headers["X-CSRFToken"] = self.cookies.get(CSRF_COOKIE, "")
            headers["Origin"] = self.base
            headers["Referer"] = self.base + path
        start = self.recorder.now()
        t = time.perf_counter()
        try:
            async with self.http.request(method, self.base + path, headers=headers, data=data) as r:
                body = await r.read()
                for morsel in r.cookies.values():
                    self.cookies[morsel.key] = morsel.value
                status = r.status
        except (aiohttp.ClientError, OSError, TimeoutError) as exc:
            ms = (time.perf_counter() - t) * 1000
            self.recorder.requests.append(Request(kind, start, ms, classify(exc)))
            return None
        ms = (time.perf_counter() - t) * 1000
        self.recorder.statuses[(kind, status)] += 1
        error = (
            "" if status == 200 or (kind, status) in self.recorder.expected else f"HTTP {status}"
        )
        self.recorder.requests.append(Request(kind, start, ms, error))
        return (status, body) if not error else None

    # -- actions ----------------------------------------------------------------------------

    async def read(self) -> None:
        number = self.rng.choice(self.sections)
        got = await self._send("read", "GET", f"/units/{self.unit_slug}/{number}/")
        if got is not None and b"<h1" in got[1]:
            self.read_sections.add(number)

    async def _answer_once(self, check: CheckPlan, answer: tuple[str, ...]) -> None:
        path = f"/units/{self.unit_slug}/checks/{check.id}/"
        got = await self._send(
            "answer", "POST", path, data=[(f"answer-{i}", a) for i, a in enumerate(answer)]
        )
        if got is None:
            return
        payload = json.loads(got[1])
        if isinstance(payload.get("attempts"), int):
            self.recorder.acks.append(Ack(self.index, check.id, payload["attempts"]))

    def _pick_check(self) -> tuple[CheckPlan, tuple[str, ...]] | None:
        # A learner answers checks on pages they have opened (the form needs the CSRF cookie).
        ready = [c for c in self.checks if c.section in self.read_sections]
        if not ready or CSRF_COOKIE not in self.cookies:
            return None
        check = self.rng.choice(ready)
        return check, self.rng.choice(check.answers)

    async def answer(self) -> None:
        picked = self._pick_check()
        if picked is None:
            await self.read()
            return
        await self._answer_once(*picked)

    async def double_submit(self) -> None:
        """A double tap on "Check": the same answer twice at once, on two connections."""
        picked = self._pick_check()
        if picked is None:
            await self.read()
            return
        self.recorder.double_submits += 1
        await asyncio.gather(self._answer_once(*picked), self._answer_once(*picked))

    async def lab(self) -> None:
        """The attention lab (§6): one head of a sentence, now and then the 72 thumbnails. A
        learner who has not bought the unit reads a page instead (the lab would refuse them)."""
        if not self.signed_in:
            await self.read()
            return
        words = self.rng.sample(LAB_WORDS, k=self.rng.randint(4, 16))
        data = [("text", " ".join(words)), ("layer", str(self.rng.randint(1, 6)))]
        data += [("head", str(self.rng.randint(1, 12)))]
        if self.rng.random() < 0.2:
            data.append(("view", "heads"))
        await self._send("lab", "POST", f"/units/{self.unit_slug}/lab/attention/", data=data)

    # -- the loop ---------------------------------------------------------------------------

    async def run(
        self,
        *,
        until: float,
        think: tuple[float, float],
        connector_args: dict[str, object],
        ssl_context: ssl.SSLContext | None,
    ) -> None:
        connector = aiohttp.TCPConnector(limit=2, ssl=ssl_context or False, **connector_args)  # type: ignore[arg-type]
        timeout = aiohttp.ClientTimeout(total=30)
        async with aiohttp.ClientSession(
            connector=connector, cookie_jar=aiohttp.DummyCookieJar(), timeout=timeout
        ) as self.http:
            await self.read()  # everyone starts on a page
            names, weights = zip(*((name, w) for name, (w, _) in ACTIONS.items()), strict=True)
            while self.recorder.now() < until:
                await asyncio.sleep(self.rng.uniform(*think))
                if self.recorder.now() >= until:
                    break
                name = self.rng.choices(names, weights)[0]
                await ACTIONS[name][1](self)


async def abuse(
    learner: Learner,
    *,
    connections: int,
    until: float,
    ssl_context: ssl.SSLContext | None,
) -> None:
    """One buyer hammering the lab: ``connections`` loops at once, no pause, each a new sentence
    and all 72 heads (the costliest view), recorded as "abuser" (its 429s and 503s are the
    server holding it back: counted, not errors)."""
    connector = aiohttp.TCPConnector(limit=connections, ssl=ssl_context or False)
    async with aiohttp.ClientSession(
        connector=connector,
        cookie_jar=aiohttp.DummyCookieJar(),
        timeout=aiohttp.ClientTimeout(total=30),
    ) as learner.http:

        async def loop() -> None:
            while learner.recorder.now() < until:
                words = learner.rng.sample(LAB_WORDS, k=learner.rng.randint(8, 16))
                data = [("text", " ".join(words)), ("view", "heads")]
                path = f"/units/{learner.unit_slug}/lab/attention/"
                await learner._send("abuser", "POST", path, data=data)

        await asyncio.gather(*(loop() for _ in range(connections)))


# Words the lab's sentences are drawn from (4 to 16 of them, so most texts are new to the cache).
LAB_WORDS = [
    *("i", "you", "she", "we", "they", "drink", "eat", "read", "write", "watch", "buy", "make"),
    *("bring", "tea", "water", "rice", "book", "letter", "film", "fruit", "bread", "the", "a"),
    *("every", "morning", "by", "river", "bank", "money", "near", "quiet", "after", "rain"),
]

# name -> (weight, action). Reading is the most common thing a learner does, then answering.
ACTIONS: dict[str, tuple[float, Callable[[Learner], Awaitable[None]]]] = {
    "read": (5.0, Learner.read),
    "answer": (3.5, Learner.answer),
    "double submit": (0.5, Learner.double_submit),
    "lab": (1.0, Learner.lab),
}


def check_answers(check: object, grade: Callable[[object, list[str]], object]) -> tuple:
    """Answers to a compiled check that the grader reads: the right one and a wrong one.

    The right one is each box's printed answer; the wrong one puts, box by box, the first of a
    few plain values that the box's kind reads and marks wrong. Every answer is confirmed
    readable by the grader itself, so each one the server accepts is stored.
    """
    fields = check.fields  # type: ignore[attr-defined]
    right = [f.answer_text for f in fields]
    answers = []
    if grade(check, right).ok:  # type: ignore[attr-defined]
        answers.append(tuple(right))
    for values in (("0", "(0, 0, 0)", "1/7", "2"), ("1", "3", "a")):
        wrong = list(right)
        for box in range(len(fields)):
            for value in values:
                trial = [*wrong[:box], value, *wrong[box + 1 :]]
                verdict = grade(check, trial)
                if verdict.ok and not verdict.fields[box].correct:  # type: ignore[attr-defined]
                    wrong = trial
                    break
        verdict = grade(check, wrong)
        if verdict.ok and not verdict.correct and tuple(wrong) not in answers:  # type: ignore[attr-defined]
            answers.append(tuple(wrong))
    return tuple(answers)
