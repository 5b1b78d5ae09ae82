"""Load, faults and scale-out (issue 10), each one bounded command that stops by itself.

    .venv/bin/python bench/load/run.py load       [--learners 200] [--seconds 60]   (make load)
    .venv/bin/python bench/load/run.py faults     [--learners 100] [--seconds 40]   (make faults)
    .venv/bin/python bench/load/run.py scale-out  [--learners 200] [--seconds 60]   (make scale-out)

Every run starts its own stack (deploy/local.py: a private PostgreSQL 15 cluster and Redis,
gunicorn with the production settings, and for scale-out two app servers behind nginx with TLS)
in a fresh directory, drives it with simulated learners (bench/load/learners.py: reading
sections, answering checks, some double submits; traffic only to 127.0.0.1), and stops and
removes everything at the end. It prints, with the load average: reads and answers per second,
p50/p95/p99/max latency, errors by kind (and by phase when something is broken on purpose),
and answers acknowledged by the server against answers stored in the database.

- load: one gunicorn (2 gthread workers) on PostgreSQL, no proxy; the goal line says how far
  the run is from 200 learners with p99 <= 300 ms for a read and an answer, 0 errors, 0 lost.
- faults: one stack, three phases of new learners: kill -9 of the app server and a restart;
  PostgreSQL stopped as by a crash (immediate shutdown) and started again; Redis stopped
  for a while (sign-in is tried during the outage; pages must keep working).
- scale-out: two app servers behind nginx (TLS, certificate verified by the client); one app
  server is killed with kill -9 mid-run and restarted; then sessions, sign-in limits and a
  webhook are tried across the two servers.

Figures are printed, never asserted; the exit status is 1 only if an acknowledged answer is
missing from the database (or a cross-server check fails), so a script can tell.
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import os
import random
import re
import resource
import ssl
import sys
import threading
import time
import uuid
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path[:0] = [str(REPO), str(REPO / "tests"), str(REPO / "tests" / "billing"), str(HERE)]

from learners import (  # noqa: E402
    ACTIONS,
    CheckPlan,
    Learner,
    Recorder,
    Request,
    abuse,
    check_answers,
)

from deploy.local import SERVER_NAME, Stack  # noqa: E402

GOAL_LEARNERS = 200
GOAL_P99_MS = 300.0
THINK = (1.0, 4.0)  # seconds between one learner's actions (uniform)
SIGNED_IN_SHARE = 0.75  # the others are anonymous (free sections only)


def loadavg() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} cores"


def django_setup(stack: Stack) -> None:
    """This process reads the stack's database (to verify) with the app's own settings."""
    import django

    os.environ.update(stack.env)
    django.setup()


def _close_db() -> None:
    """After a PostgreSQL restart the old connection is dead: the next query opens a new one."""
    from django.db import connections

    for connection in connections.all():
        if not connection.in_atomic_block:
            connection.close()


# -- the learners ---------------------------------------------------------------------------


def learners_make(n: int, *, base: str, recorder: Recorder, seed: int) -> list[Learner]:
    """n learners: SIGNED_IN_SHARE signed in and entitled to Unit 18, the rest anonymous.

    Signed-in learners get a session made directly in the session store (as a sign-in would
    make it), so the run does not spend its CPU on Argon2 or meet the sign-in rate limits.
    """
    from importlib import import_module

    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.auth.models import User
    from support import paid_order_create

    from mathmachine.billing.models import Product
    from mathmachine.coursebook.grading import grade
    from mathmachine.learning import selectors

    unit = next(u for u in selectors.units_list() if u.number == 18)
    written = [s for s in unit.sections if s.written]
    plans = [
        CheckPlan(c.id, s.number, answers)
        for s in written
        for c in s.checks
        if (answers := check_answers(c, grade))
    ]
    product = Product.objects.get(code="unit-18")
    store = import_module(settings.SESSION_ENGINE).SessionStore
    rng = random.Random(seed)
    run = uuid.uuid4().hex[:8]
    learners = []
    for i in range(n):
        signed_in = i < round(n * SIGNED_IN_SHARE)
        sections = tuple(s.number for s in written if signed_in or s.free)
        learner = Learner(
            index=i,
            base=base,
            unit_slug=unit.slug,
            sections=sections,
            checks=tuple(p for p in plans if p.section in sections),
            recorder=recorder,
            rng=random.Random(rng.random()),
            signed_in=signed_in,
            # Each learner from an address of their own, as behind the proxy in production
            # (the load stack trusts one proxy: this client); the lab's limits count per address.
            address=f"10.{seed % 200}.{i // 250}.{i % 250 + 1}",
        )
        if signed_in:
            email = f"load-{run}-{i}@example.invalid"
            user = User.objects.create_user(username=email, email=email)  # no usable password
            paid_order_create(user, product)
            session = store()
            session[SESSION_KEY] = str(user.pk)
            session[BACKEND_SESSION_KEY] = settings.AUTHENTICATION_BACKENDS[0]
            session[HASH_SESSION_KEY] = user.get_session_auth_hash()
            session.create()
            learner.cookies[settings.SESSION_COOKIE_NAME] = session.session_key
            learner.user_id = user.pk
        learners.append(learner)
    return learners


@dataclass
class Fault:
    """Something broken on purpose at ``at`` seconds; ``action`` blocks until it is repaired."""

    name: str
    at: float
    action: Callable[[], None]
    window: tuple[float, float] = (0.0, 0.0)  # when it was broken, measured
    notes: list[str] = field(default_factory=list)


async def drive(
    learners: list[Learner],
    *,
    seconds: float,
    ramp: float,
    think: tuple[float, float],
    client_keepalive: float,
    ssl_context: ssl.SSLContext | None,
) -> None:
    async def one(learner: Learner, delay: float) -> None:
        await asyncio.sleep(delay)
        await learner.run(
            until=seconds,
            think=think,
            connector_args={"keepalive_timeout": client_keepalive},
            ssl_context=ssl_context,
        )

    await asyncio.gather(*(one(lr, i * ramp / len(learners)) for i, lr in enumerate(learners)))


def break_on_schedule(recorder: Recorder, faults: list[Fault]) -> None:
    """Run each fault at its time, in this (the main) thread while the learners go on.

    Servers are restarted from the main thread on purpose: a child started from a passing
    thread would get its parent-death signal when that thread ends (deploy/local.py).
    """
    for f in sorted(faults, key=lambda f: f.at):
        time.sleep(max(0.0, f.at - recorder.now()))
        start = recorder.now()
        f.action()
        f.window = (start, recorder.now())


# -- figures --------------------------------------------------------------------------------


def _pct(sorted_ms: list[float], q: float) -> float:
    if not sorted_ms:
        return float("nan")
    return sorted_ms[min(len(sorted_ms) - 1, round(q * (len(sorted_ms) - 1)))]


def latency_table(recorder: Recorder, seconds: float) -> dict[str, dict[str, float]]:
    kinds = sorted({r.kind for r in recorder.requests}, key=lambda k: (k != "read", k))
    print(
        f"{'':<8} {'requests':>8} {'per s':>7} {'p50 ms':>7} {'p95 ms':>7} {'p99 ms':>7} "
        f"{'max ms':>7} {'errors':>7}"
    )
    out = {}
    for kind in kinds:
        rows = [r for r in recorder.requests if r.kind == kind]
        ok = sorted(r.ms for r in rows if not r.error)
        errors = sum(1 for r in rows if r.error)
        figures = {
            "n": len(rows),
            "rps": len(rows) / seconds,
            "p50": _pct(ok, 0.50),
            "p95": _pct(ok, 0.95),
            "p99": _pct(ok, 0.99),
            "max": ok[-1] if ok else float("nan"),
            "errors": errors,
        }
        out[kind] = figures
        print(
            f"{kind:<8} {len(rows):>8} {figures['rps']:>7.1f} {figures['p50']:>7.1f} "
            f"{figures['p95']:>7.1f} {figures['p99']:>7.1f} {figures['max']:>7.1f} {errors:>7}"
        )
    return out


def error_report(recorder: Recorder, faults: list[Fault]) -> int:
    errors = [r for r in recorder.requests if r.error]
    if not errors:
        print("errors: none")
        return 0
    if not faults:
        counts = Counter((r.kind, r.error) for r in errors)
        for (kind, error), n in counts.most_common():
            print(f"errors: {n} × {kind}: {error}")
        return len(errors)
    # With a fault: requests over before it began, those that overlapped it (or the 2 s after
    # it was repaired), those that began later.
    start = min(f.window[0] for f in faults)
    end = max(f.window[1] for f in faults) + 2.0
    phases: dict[str, list[Request]] = {"before": [], "during": [], "after": []}
    for r in errors:
        phase = (
            "before" if r.start + r.ms / 1000 < start else "after" if r.start > end else "during"
        )
        phases[phase].append(r)
    for phase, rows in phases.items():
        counts = Counter((r.kind, r.error) for r in rows)
        text = ", ".join(f"{n} × {k}: {e}" for (k, e), n in counts.most_common()) or "none"
        print(f"errors {phase} the fault: {text}")
    return len(phases["before"]) + len(phases["after"])


@dataclass
class Tally:
    acknowledged: int
    stored: int
    lost: int
    learners: int


def acknowledged_vs_stored(learners: list[Learner]) -> Tally:
    """Every acknowledged answer must be in the database.

    The server answers an accepted answer with its attempt number on that check (1, 2, ...).
    An acknowledged answer is lost if the stored row has fewer attempts than the number it was
    acknowledged with, or if two acknowledgements carry the same number (an overwritten
    update). Stored attempts beyond the acknowledged ones are answers whose reply never
    arrived (a server killed after the commit): stored, not acknowledged, not lost.
    """
    from importlib import import_module

    from django.conf import settings

    from mathmachine.learning.learners import SESSION_KEY
    from mathmachine.learning.models import CheckAnswer

    _close_db()
    store = import_module(settings.SESSION_ENGINE).SessionStore
    recorder = learners[0].recorder
    acked: dict[tuple[int, str], list[int]] = defaultdict(list)
    for ack in recorder.acks:
        acked[(ack.learner, ack.check_id)].append(ack.attempt)
    stored_total = lost = 0
    for learner in learners:
        if learner.signed_in:
            rows = CheckAnswer.objects.filter(user_id=learner.user_id)
        else:
            key = learner.cookies.get(settings.SESSION_COOKIE_NAME)
            token = store(session_key=key).load().get(SESSION_KEY) if key else None
            rows = CheckAnswer.objects.filter(anon_token=token) if token else []
        stored = {row.check_id: row.attempts for row in rows}
        stored_total += sum(stored.values())
        for check in {c for (i, c) in acked if i == learner.index}:
            attempts = acked[(learner.index, check)]
            lost += sum(1 for a in attempts if a > stored.get(check, 0))
            lost += len(attempts) - len(set(attempts))
    return Tally(len(recorder.acks), stored_total, lost, len(learners))


def tally_line(t: Tally) -> str:
    extra = t.stored - t.acknowledged + t.lost
    return (
        f"answers: {t.acknowledged} acknowledged, {t.stored} stored "
        f"({extra} stored without an acknowledgement), lost {t.lost}"
    )


def client_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def run_phase(
    stack: Stack,
    *,
    title: str,
    learners: int,
    seconds: float,
    think: tuple[float, float] = THINK,
    client_keepalive: float = 15.0,
    faults: list[Fault] | None = None,
    seed: int = 18,
    abuser: int = 0,
) -> tuple[dict[str, dict[str, float]], Tally, int]:
    faults = faults or []
    recorder = Recorder()
    crowd = learners_make(learners, base=stack.base_url, recorder=recorder, seed=seed)
    # One abusive buyer (issue 17, item 2): its own recorder, so the learners' figures and the
    # answers' tally are theirs alone; the lab's 429s and 503s are what it should get.
    abuse_recorder = Recorder(expected=frozenset({("abuser", 429), ("abuser", 503)}))
    bad = learners_make(1, base=stack.base_url, recorder=abuse_recorder, seed=seed + 1)[0]
    ssl_context = ssl.create_default_context(cafile=str(stack.tls_cert)) if stack.proxy else None
    print(f"\n== {title}")
    print(
        f"{learners} learners ({sum(lr.signed_in for lr in crowd)} signed in with Unit 18, the"
        f" others anonymous), {seconds:.0f} s, think {think[0]:g}–{think[1]:g} s between"
        f" actions ({', '.join(f'{k} {w:g}' for k, (w, _) in ACTIONS.items())}),"
        f" client keep-alive {client_keepalive:g} s, server keep-alive {stack.keepalive} s"
    )
    print(f"before: {loadavg()}")
    cpu0 = client_cpu()
    server0 = stack.cpu_seconds()
    recorder.t0 = abuse_recorder.t0 = time.perf_counter()
    ramp = min(10.0, seconds / 4)

    async def everyone() -> None:
        crowd_run = drive(
            crowd,
            seconds=seconds,
            ramp=ramp,
            think=think,
            client_keepalive=client_keepalive,
            ssl_context=ssl_context,
        )
        if not abuser:
            await crowd_run
            return

        async def abusive() -> None:
            await asyncio.sleep(ramp)  # once every learner is in
            await abuse(bad, connections=abuser, until=seconds, ssl_context=ssl_context)

        await asyncio.gather(crowd_run, abusive())

    crowd_thread = threading.Thread(target=asyncio.run, args=(everyone(),))
    crowd_thread.start()
    try:
        break_on_schedule(recorder, faults)
    finally:
        crowd_thread.join()
    elapsed = recorder.now()
    server1 = stack.cpu_seconds()
    print(f"after:  {loadavg()}")
    done = max(1, len(recorder.requests))
    used = {name: server1[name] - server0.get(name, 0.0) for name in server1}
    used["load client"] = client_cpu() - cpu0
    print(
        f"CPU per request ({done} requests in {elapsed:.0f} s): "
        + ", ".join(f"{name} {1000 * s / done:.1f} ms" for name, s in used.items() if s > 0)
        + (" (a killed server's CPU is not counted)" if faults else "")
    )
    for f in faults:
        print(f"fault: {f.name} from {f.window[0]:.1f} s to {f.window[1]:.1f} s")
        for note in f.notes:
            print(f"  {note}")
    figures = latency_table(recorder, elapsed)
    if abuser:
        rows = sorted(r.ms for r in abuse_recorder.requests if not r.error)
        codes = sorted((st, n) for (k, st), n in abuse_recorder.statuses.items() if k == "abuser")
        print(
            f"abuser: one buyer, {abuser} connections from {ramp:.0f} s, all 72 heads of a new "
            f"sentence each: {len(abuse_recorder.requests)} requests "
            f"({', '.join(f'{n} × {st}' for st, n in codes)}), p50 {_pct(rows, 0.5):.1f} ms, "
            f"p99 {_pct(rows, 0.99):.1f} ms, "
            f"{sum(1 for r in abuse_recorder.requests if r.error)} other errors"
        )
    print(f"double submits: {recorder.double_submits} (two answers at once)")
    errors = error_report(recorder, faults)
    tally = acknowledged_vs_stored(crowd)
    print(tally_line(tally))
    return figures, tally, errors


def goal_line(
    learners: int,
    figures: dict[str, dict[str, float]],
    errors: int,
    lost: int,
    *,
    fault: bool = False,
) -> None:
    parts = []
    for kind in ("read", "answer"):
        p99 = figures.get(kind, {}).get("p99", float("nan"))
        verdict = "ok" if p99 <= GOAL_P99_MS else f"{p99 / GOAL_P99_MS:.1f}× the goal"
        parts.append(f"{kind} p99 {p99:.0f} ms ({verdict})")
    ok = (
        learners >= GOAL_LEARNERS
        and all(figures.get(k, {}).get("p99", 1e9) <= GOAL_P99_MS for k in ("read", "answer"))
        and errors == 0
        and lost == 0
    )
    print(
        f"goal ({GOAL_LEARNERS} learners, p99 <= {GOAL_P99_MS:.0f} ms, 0 errors, 0 lost): "
        f"{learners} learners, {', '.join(parts)}, {errors} errors"
        + (" outside the fault" if fault else "")
        + f", {lost} lost -> "
        + ("MET" if ok else "NOT MET")
    )


# -- the three commands ---------------------------------------------------------------------


def cmd_load(args: argparse.Namespace) -> int:
    with Stack(
        app_servers=1,
        workers=args.workers,
        proxy=False,
        keepalive=args.server_keepalive,
        # The client stands for the proxy: each learner's X-Forwarded-For is their address.
        extra_env={"TRUSTED_PROXY_COUNT": "1"},
    ) as stack:
        django_setup(stack)
        print(f"gunicorn: {args.workers} gthread workers × {stack.threads} threads, PostgreSQL 15")
        figures, tally, errors = run_phase(
            stack,
            title="load: learners against gunicorn on PostgreSQL",
            learners=args.learners,
            seconds=args.seconds,
            client_keepalive=args.client_keepalive,
            abuser=args.abuser,
        )
        goal_line(args.learners, figures, errors, tally.lost)
    return 1 if tally.lost else 0


def _hold(seconds: float) -> None:
    time.sleep(seconds)


def cmd_faults(args: argparse.Namespace) -> int:
    lost = 0
    with Stack(app_servers=1, workers=2, proxy=False) as stack:
        django_setup(stack)
        at = args.seconds * 0.35

        def kill_app() -> None:
            stack.app_kill(0)
            _hold(1.0)
            stack.app_start(0)

        def restart_postgres() -> None:
            stack.postgres_stop(mode="immediate")
            _hold(1.0)
            stack.postgres_start()

        redis_fault = Fault("Redis stopped for 10 s", at, lambda: None)

        def redis_down() -> None:
            stack.redis_stop()
            _hold(2.0)
            redis_fault.notes.extend(sign_in_probe(stack, "while Redis is down"))
            _hold(8.0)
            stack.redis_start()
            redis_fault.notes.extend(sign_in_probe(stack, "after Redis is back"))

        redis_fault.action = redis_down
        for seed, fault in enumerate(
            [
                Fault(
                    "kill -9 of gunicorn (master and workers), restarted 1 s later", at, kill_app
                ),
                Fault(
                    "PostgreSQL stopped as by a crash (immediate), started 1 s later",
                    at,
                    restart_postgres,
                ),
                redis_fault,
            ]
        ):
            _, tally, _ = run_phase(
                stack,
                title=f"fault: {fault.name}",
                learners=args.learners,
                seconds=args.seconds,
                faults=[fault],
                seed=seed,
            )
            lost += tally.lost
    print(f"\nfaults: {lost} acknowledged answers lost in all")
    return 1 if lost else 0


# -- plain HTTP to one app server (cross-server checks) -------------------------------------


@dataclass
class Browser:
    """One visitor's cookies, sent to whichever app server we choose (as nginx would)."""

    stack: Stack
    cookies: dict[str, str] = field(default_factory=dict)

    def request(
        self, server: int, method: str, path: str, data: dict[str, str] | None = None
    ) -> tuple[int, dict[str, str], str]:
        conn = http.client.HTTPConnection("127.0.0.1", self.stack.app_port(server), timeout=30)
        host = f"{SERVER_NAME}:{self.stack.https_port}"
        headers = {"Host": host, "X-Forwarded-Proto": "https", "X-Forwarded-For": "127.0.0.1"}
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        body = None
        if data is not None:
            body = "&".join(f"{k}={_quote(v)}" for k, v in data.items())
            headers["Content-Type"] = "application/x-www-form-urlencoded"
            headers["Origin"] = f"https://{host}"
            headers["Referer"] = f"https://{host}{path}"
        try:
            conn.request(method, path, body=body, headers=headers)
            response = conn.getresponse()
            text = response.read().decode("utf-8", "replace")
        finally:
            conn.close()
        for header in response.headers.get_all("Set-Cookie") or []:
            name, _, rest = header.partition("=")
            self.cookies[name.strip()] = rest.split(";", 1)[0]
        return response.status, dict(response.headers), text

    def form_token(self, server: int, path: str) -> str:
        status, _, text = self.request(server, "GET", path)
        match = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', text)
        if status != 200 or not match:
            raise RuntimeError(f"no form at {path} on app server {server + 1} (HTTP {status})")
        return match.group(1)

    def sign_in(self, server: int, email: str, password: str) -> int:
        token = self.form_token(server, "/accounts/login/")
        data = {"csrfmiddlewaretoken": token, "login": email, "password": password}
        status, _, _ = self.request(server, "POST", "/accounts/login/", data)
        return status


def _quote(value: str) -> str:
    from urllib.parse import quote_plus

    return quote_plus(value)


def sign_in_probe(stack: Stack, when: str) -> list[str]:
    """Open the sign-in page and try a wrong password, as a learner would; say what happened."""
    notes = []
    browser = Browser(stack)
    try:
        status, _, _ = browser.request(0, "GET", "/accounts/login/")
        notes.append(f"{when}: sign-in page HTTP {status}")
        token = re.search(
            r'name="csrfmiddlewaretoken" value="([^"]+)"', browser.request(0, "GET", "/")[2]
        )
        form = browser.form_token(0, "/accounts/login/") if token is None else token.group(1)
        data = {"csrfmiddlewaretoken": form, "login": "nobody@example.invalid", "password": "x"}
        status, _, _ = browser.request(0, "POST", "/accounts/login/", data)
        notes.append(f"{when}: a wrong password HTTP {status} (200: the form says it is wrong)")
    except (OSError, RuntimeError) as exc:
        notes.append(f"{when}: {exc}")
    return notes


# -- scale-out ------------------------------------------------------------------------------


def cross_server_checks(stack: Stack) -> list[tuple[str, bool, str]]:
    """Sessions, sign-in limits and webhooks, each tried across the two app servers."""
    from django.conf import settings
    from django.contrib.auth.models import User

    from mathmachine.billing.models import Entitlement, Order, Payment, Product, ProviderEvent

    _close_db()
    results = []
    run = uuid.uuid4().hex[:8]
    password = f"correct horse {run}"

    def learner_make(email: str) -> User:
        """A learner who has confirmed their address (sign-in requires it)."""
        from allauth.account.models import EmailAddress

        user = User.objects.create_user(username=email, email=email, password=password)
        EmailAddress.objects.create(user=user, email=email, verified=True, primary=True)
        return user

    # 1. A session made on one server is valid on the other.
    email = f"session-{run}@example.invalid"
    learner_make(email)
    browser = Browser(stack)
    signed = browser.sign_in(0, email, password)
    status, _, page = browser.request(1, "GET", "/your-learning/")
    ok = signed == 302 and status == 200 and email in page
    results.append(
        (
            "session: signed in on app1, 'Your learning' on app2",
            ok,
            f"sign-in HTTP {signed}, app2 HTTP {status}, shows the address: {email in page}",
        )
    )

    # 2. Failed sign-ins count on every server: 5 wrong passwords, spread over the two, then
    #    the right one is refused (the limit is 5 per address in 5 minutes).
    email = f"limits-{run}@example.invalid"
    learner_make(email)
    browser = Browser(stack)
    wrong = [browser.sign_in(i % 2, email, "wrong password") for i in range(5)]
    right = browser.sign_in(0, email, password)
    ok = right != 302
    results.append(
        (
            "sign-in limit: 5 wrong passwords (app1, app2, app1, app2, app1), then the right one",
            ok,
            f"wrong: HTTP {wrong}; right: HTTP {right} ({'refused' if ok else 'SIGNED IN'})",
        )
    )

    # 3. A Razorpay webhook delivered to both servers at once (Razorpay retries; two servers
    #    may get the same event) pays the order once.
    from billing_support import payload, rzp_id, sign  # tests/billing

    user = User.objects.create_user(username=f"buyer-{run}@example.invalid")
    product = Product.objects.get(code="unit-18")
    order = Order.objects.create(
        receipt=f"LOAD-{run}",
        user=user,
        product=product,
        amount_paise=product.price_paise,
        currency=product.currency,
        provider="razorpay",
        provider_order_id=rzp_id("order"),
    )
    body = payload(
        "payment_captured",
        order_id=order.provider_order_id,
        receipt=order.receipt,
        payment_id=rzp_id("pay"),
        refund_id=rzp_id("rfnd"),
    ).replace(b'"amount": 29900', f'"amount": {order.amount_paise}'.encode())
    headers = {
        "Content-Type": "application/json",
        "X-Razorpay-Signature": sign(settings.RAZORPAY_WEBHOOK_SECRET, body),
        "X-Razorpay-Event-Id": rzp_id("evt"),
        "Host": f"{SERVER_NAME}:{stack.https_port}",
        "X-Forwarded-Proto": "https",
    }
    statuses: list[int] = []

    def deliver(server: int) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", stack.app_port(server), timeout=30)
        conn.request("POST", "/billing/webhooks/razorpay/", body=body, headers=headers)
        statuses.append(conn.getresponse().status)
        conn.close()

    threads = [threading.Thread(target=deliver, args=(i % 2,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    order.refresh_from_db()
    counts = (
        ProviderEvent.objects.filter(event_id=headers["X-Razorpay-Event-Id"]).count(),
        Payment.objects.filter(order=order).count(),
        Entitlement.objects.filter(order=order).count(),
    )
    ok = order.state == Order.State.PAID and counts == (1, 1, 1) and set(statuses) == {200}
    results.append(
        (
            "webhook: one payment.captured delivered 4 times at once, to app1 and app2",
            ok,
            f"HTTP {sorted(statuses)}; order {order.state}; events, payments, entitlements "
            f"{counts}",
        )
    )
    return results


def cmd_scale_out(args: argparse.Namespace) -> int:
    with Stack(app_servers=2, workers=1, proxy=True) as stack:
        django_setup(stack)
        print(
            f"nginx (TLS, HTTP/1.1 to the client here) -> 2 gunicorn app servers × 1 gthread "
            f"worker × {stack.threads} threads; one PostgreSQL 15, one Redis"
        )

        def kill_one() -> None:
            stack.app_kill(1)
            _hold(5.0)
            stack.app_start(1)

        fault = Fault(
            "kill -9 of app server 2 (master and worker), restarted 5 s later",
            args.seconds * 0.4,
            kill_one,
        )
        figures, tally, errors = run_phase(
            stack,
            title="scale-out: learners through nginx, one app server killed mid-run",
            learners=args.learners,
            seconds=args.seconds,
            faults=[fault],
        )
        served = _served_by(stack)
        print(f"requests served: {served}")
        goal_line(args.learners, figures, errors, tally.lost, fault=True)
        print("\n== across the two app servers")
        checks = cross_server_checks(stack)
        for name, ok, detail in checks:
            print(f"{'ok  ' if ok else 'FAIL'} {name}: {detail}")
    return 1 if tally.lost or not all(ok for _, ok, _ in checks) else 0


def _served_by(stack: Stack) -> str:
    counts = []
    for i in range(stack.app_servers):
        log = stack.logs / f"app{i + 1}-access.log"
        n = sum(1 for _ in log.open()) if log.exists() else 0
        counts.append(f"app{i + 1} {n}")
    return ", ".join(counts) + " (their access logs)"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    load = sub.add_parser("load", help="learners against gunicorn on PostgreSQL")
    load.add_argument("--learners", type=int, default=GOAL_LEARNERS)
    load.add_argument("--seconds", type=float, default=60)
    load.add_argument("--workers", type=int, default=2)
    load.add_argument("--server-keepalive", type=int, default=75, help="gunicorn's, seconds")
    load.add_argument("--client-keepalive", type=float, default=15, help="seconds")
    load.add_argument(
        "--abuser", type=int, default=0, help="one buyer hammering the lab on N connections"
    )
    faults = sub.add_parser("faults", help="kill -9, PostgreSQL restart, Redis down")
    faults.add_argument("--learners", type=int, default=100)
    faults.add_argument("--seconds", type=float, default=40)
    scale = sub.add_parser("scale-out", help="two app servers behind nginx with TLS")
    scale.add_argument("--learners", type=int, default=GOAL_LEARNERS)
    scale.add_argument("--seconds", type=float, default=60)
    args = parser.parse_args()
    print(loadavg())
    commands = {"load": cmd_load, "faults": cmd_faults, "scale-out": cmd_scale_out}
    return commands[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
