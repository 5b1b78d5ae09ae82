"""How much of the server one learner's use of the widgets' server routes may take (the attention
lab above all: a model run, tens of milliseconds of CPU a request).

- **Rate limits**, counted in the default cache, the Redis every process shares, like the sign-in
  limits (docs/accounts.md): PER_LEARNER requests a minute per signed-in learner and
  PER_ADDRESS per client address (a classroom behind one address fits). Over either, the route
  answers 429 with a message that says how long to wait (the page shows it where the lab shows
  its messages) and a Retry-After header; the request costs a cache increment, nothing more.
  While Redis is down the counts are lost and the limits let requests through (they fail open,
  as the sign-in limits do).
- **In flight**: at most IN_FLIGHT requests of one learner at once (counted in the shared
  cache); more at once are answered 429 at once, so one buyer on many connections holds no more
  of the pool below than a reader does.
- **A bounded share of each process** (Slots): at most RUNNING route answers are computed at
  once per process and at most WAITING more wait, for WAIT_SECONDS at most; anything beyond is
  answered 503 at once ("busy, try again"). gunicorn's other threads stay free for the pages, so
  reading a section keeps its latency while the lab is busy.
"""

from __future__ import annotations

import hashlib
import math
import re
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils.cache import patch_cache_control

from mathmachine.web.clientip import client_ip

#: Requests a minute to the server routes, per signed-in learner and per client address
#: (settings.ROUTE_LIMITS {"learner": n, "address": n} overrides them).
PER_LEARNER = 120
PER_ADDRESS = 600
WINDOW_SECONDS = 60
#: Requests one learner may have in flight at once, across every process. The page's script
#: asks again on every change (a layer, then a head, then Enter: three at once on a slow
#: server; it shows only the last answer), and at 2 that last one was refused (seen in
#: Chromium); 4 leaves a reader room, and a script on 32 connections still holds 4.
IN_FLIGHT = 4
IN_FLIGHT_SECONDS = 30  # a counter left by a process that died expires by then
#: Per process: route answers computed at once, more that may wait, and for how long. Four
#: may wait: with 200 learners and the lab one action in ten (`make load`, 3 December 2026),
#: about 2.5 lab requests a second reach each process, each ~30-70 ms under that load, and a
#: burst of four at once came about once in 1,000 lab requests; with two waiting each such
#: burst was a learner's "busy" (1 lab 503 in 3 runs). Five of gunicorn's 8 threads at most are
#: the lab's; 3 keep serving pages (a page costs a few milliseconds).
RUNNING = 1
WAITING = 4
WAIT_SECONDS = 3.0


def _count(scope: str, ident: str, limit: int, now: float) -> int | None:
    """Count one request of ``ident`` in this window; seconds to wait when over ``limit``."""
    window = int(now // WINDOW_SECONDS)
    key = f"routes-rl:{scope}:{ident}:{window}"
    cache.add(key, 0, WINDOW_SECONDS + 5)
    used = cache.incr(key)
    if used <= limit:
        return None
    return max(1, math.ceil((window + 1) * WINDOW_SECONDS - now))


def limits() -> tuple[int, int]:
    """(per learner, per address), a minute."""
    conf = getattr(settings, "ROUTE_LIMITS", None) or {}
    return int(conf.get("learner", PER_LEARNER)), int(conf.get("address", PER_ADDRESS))


def learner_key(request: HttpRequest) -> str:
    """Who is asking, read without the database: a digest of the session cookie ("" without
    one). The routes' gate lets only signed-in buyers in, each with their session; a made-up
    cookie gets a count of its own and then the gate's 403, and its address is counted too."""
    session = request.COOKIES.get(settings.SESSION_COOKIE_NAME, "")
    return hashlib.sha256(session.encode()).hexdigest()[:24] if session else ""


def wait_seconds(request: HttpRequest) -> int | None:
    """None when this request is within the limits (and counted); else the seconds to wait."""
    per_learner, per_address = limits()
    now = time.time()
    learner = learner_key(request)
    waits = []
    if learner:
        waits.append(_count("learner", learner, per_learner, now))
    waits.append(_count("address", client_ip(request), per_address, now))
    found = [w for w in waits if w is not None]
    return max(found) if found else None


@contextmanager
def in_flight(request: HttpRequest) -> Iterator[bool]:
    """Count this request among its learner's requests in flight (in the shared cache) while
    it runs; yields False when they already have IN_FLIGHT running. A request without a
    session is not counted (the routes' gate lets only signed-in buyers in)."""
    learner = learner_key(request)
    if not learner:
        yield True
        return
    key = f"routes-inflight:{learner}"
    cache.add(key, 0, IN_FLIGHT_SECONDS)
    running = cache.incr(key)
    try:
        yield running <= IN_FLIGHT
    finally:
        with suppress(ValueError):  # expired meanwhile
            cache.decr(key)


ONE_AT_A_TIME_MESSAGE = (
    "The lab is still working on your earlier requests: wait for them, then ask again."
)


def too_fast_message(what: str, seconds: int) -> str:
    name = what[:1].lower() + what[1:]
    unit = "second" if seconds == 1 else "seconds"
    return (
        f"Too many requests to {name} in a minute: wait {seconds} {unit}, then try again. "
        f"It answers each learner up to {limits()[0]} a minute."
    )


BUSY_MESSAGE = (
    "The lab is busy with other learners' sentences just now: try again in a few seconds."
)


class Busy(Exception):
    """No slot came free in time (Slots)."""


class Slots:
    """At most ``running`` holders at once, ``waiting`` more queued for ``wait`` seconds."""

    def __init__(self, running: int, waiting: int, wait: float) -> None:
        self._running = threading.BoundedSemaphore(running)
        self._lock = threading.Lock()
        self._queued = 0
        self.waiting = waiting
        self.wait = wait

    @contextmanager
    def slot(self) -> Iterator[None]:
        if not self._running.acquire(blocking=False):
            with self._lock:
                if self._queued >= self.waiting:
                    raise Busy
                self._queued += 1
            try:
                if not self._running.acquire(timeout=self.wait):
                    raise Busy
            finally:
                with self._lock:
                    self._queued -= 1
        try:
            yield
        finally:
            self._running.release()


SLOTS = Slots(RUNNING, WAITING, WAIT_SECONDS)


# The widgets' server routes (learning/urls.py): the lab's first address and the kit's.
_ROUTE_PATH = re.compile(r"^/units/[^/]+/(?:lab/attention|widgets/[^/]+)/$")


class RouteLimitMiddleware:
    """Turns away a POST to a widget's server route over its limits before anything else is
    done for it (no session read, no database query, no CSRF or template work), so that one
    buyer on many connections, refused, costs the server little: the rate limits per session
    and per address, then IN_FLIGHT, each a 429 with a message and Retry-After. Installed
    early in settings.MIDDLEWARE; the page without JavaScript is limited in its view."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.method != "POST" or not _ROUTE_PATH.match(request.path_info):
            return self.get_response(request)
        wait = wait_seconds(request)
        if wait is not None:
            return _refused(too_fast_message(_what(request.path_info), wait), wait)
        with in_flight(request) as allowed:
            if not allowed:
                return _refused(ONE_AT_A_TIME_MESSAGE, 1)
            return self.get_response(request)


def _what(path: str) -> str:
    from .widget_api import ROUTES

    name = "attention-lab" if "/lab/attention/" in path else path.rstrip("/").rsplit("/", 1)[-1]
    route = ROUTES.get(name)
    return route.what if route else "This widget"


def _refused(message: str, wait: int) -> HttpResponse:
    response = JsonResponse({"error": message}, status=429)
    patch_cache_control(response, private=True, no_store=True)
    response["Vary"] = "Cookie"
    response["Retry-After"] = str(wait)
    return response
