"""CPU milliseconds per GET of Unit 18 §1, in process, under the production settings (issue 18:
goal <= 2 ms for a returning learner).

    .venv/bin/python bench/section_cpu.py [requests] [--profile]

Production settings (DEBUG off, the manifest storage of collected static files, HTTPS: the
client's requests are secure), a fresh SQLite database and STATIC_ROOT in a temporary folder,
the unit built as the release step builds it. Django's test client (the whole middleware stack,
no socket, no server) asks for §1 as four learners:

- anonymous: no cookie (the free preview as a first visit);
- reader: signed in, not a buyer, with answers in §1 (right, wrong, right after wrong): the
  offer at the end of the page;
- buyer: signed in, Unit 18 bought, answers in every written section;
- buyer, §7: the same buyer on a paid section with its widget and checks.

After 30 warm-up requests each, N requests (default 300) per learner: CPU time of this process
(time.process_time: user + system, all threads) per request, and wall time (median and p95).
--profile prints cProfile's top functions for the buyer's §1 (cumulative time). Figures are
printed, never asserted.
"""

from __future__ import annotations

import cProfile
import os
import pstats
import secrets
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "tests"), str(REPO / "scripts")]

from bench.baresite import BARE  # noqa: E402

GOAL_MS = 2.0
WARM_UP = 30


def setup(var_dir: str) -> None:
    os.environ.update(
        DJANGO_SETTINGS_MODULE="bench.baresite.settings",  # production + the bare view
        DJANGO_SECRET_KEY=secrets.token_urlsafe(50),
        ALLOWED_HOSTS="testserver",
        MATHMACHINE_VAR_DIR=var_dir,
        LOG_LEVEL="WARNING",
    )
    for name in ("DATABASE_URL", "REDIS_URL"):
        os.environ.pop(name, None)
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", "--noinput", verbosity=0)
    call_command("collectstatic", "--noinput", verbosity=0)
    from mathmachine.coursebook.__main__ import main as coursebook

    with open(os.devnull, "w") as quiet:
        stdout, sys.stdout = sys.stdout, quiet
        try:
            coursebook(["build"])  # the release step
        finally:
            sys.stdout = stdout


def learners() -> dict[str, tuple[object, str]]:
    """Name -> (a test client with that learner's cookies, the path it asks for)."""
    from django.contrib.auth import get_user_model
    from django.test import Client
    from page_snapshot import answer_section
    from support import paid_order_create

    from mathmachine.billing.models import Product
    from mathmachine.learning import selectors

    unit = selectors.unit_get("attention-and-transformers")
    first = f"/units/{unit.slug}/1/"
    users = get_user_model().objects
    reader = Client()
    reader.force_login(users.create_user("reader@example.com", "reader@example.com", "x" * 12))
    answer_section(reader, unit, unit.sections[0], secure=True)
    buyer_user = users.create_user("buyer@example.com", "buyer@example.com", "x" * 12)
    paid_order_create(buyer_user, Product.objects.get(code="unit-18"))
    buyer = Client()
    buyer.force_login(buyer_user)
    for section in unit.sections:
        if section.written:
            answer_section(buyer, unit, section, secure=True)
    return {
        "anonymous": (Client(), first),
        "reader (offer at the end)": (reader, first),
        "buyer with answers": (buyer, first),
        "buyer, §7": (buyer, f"/units/{unit.slug}/7/"),
    }


def measure(
    client: object, path: str, n: int, *, section: bool = True
) -> tuple[float, float, float]:
    """(CPU ms per request, median wall ms, p95 wall ms) over n GETs after the warm-up."""
    get = client.get  # type: ignore[attr-defined]
    for _ in range(WARM_UP):
        response = get(path, secure=True)
        assert response.status_code == 200, (path, response.status_code)
        assert not section or b'<article class="section-body"' in response.content, "locked"
    walls = []
    cpu0 = time.process_time()
    for _ in range(n):
        t0 = time.perf_counter()
        get(path, secure=True)
        walls.append((time.perf_counter() - t0) * 1000)
    cpu = (time.process_time() - cpu0) * 1000 / n
    walls.sort()
    return cpu, statistics.median(walls), walls[round(0.95 * (n - 1))]


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    n = int(args[0]) if args else 300
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory(prefix="mathmachine-section-cpu-") as var_dir:
        setup(var_dir)
        who = learners()
        print(f"in process, production settings, Django's test client over HTTPS; {n} GETs each")
        print(
            f"{'learner':<27} {'path':<36} {'CPU ms':>7} {'p50 ms':>7} {'p95 ms':>7}"
            f" {'bare CPU':>9} {'ratio':>6}"
        )
        figures = {}
        for name, (client, path) in who.items():
            cpu, p50, p95 = measure(client, path, n)
            bare, _, _ = measure(client, BARE, n, section=False)
            figures[name] = cpu
            print(
                f"{name:<27} {path:<36} {cpu:>7.2f} {p50:>7.2f} {p95:>7.2f}"
                f" {bare:>9.2f} {bare / cpu:>6.2f}"
            )
        returning = figures["buyer with answers"]
        verdict = "within" if returning <= GOAL_MS else "ABOVE"
        print(
            f"\nCPU per §1 GET, a returning learner (buyer with answers): {returning:.2f} ms; "
            f"goal <= {GOAL_MS} ms: {verdict} the goal"
        )
        if "--profile" in sys.argv:
            client, path = who["buyer with answers"]
            profile = cProfile.Profile()
            profile.enable()
            for _ in range(50):
                client.get(path, secure=True)  # type: ignore[attr-defined]
            profile.disable()
            stats = pstats.Stats(profile)
            stats.sort_stats("cumulative").print_stats(60)
            stats.sort_stats("tottime").print_stats(25)


if __name__ == "__main__":
    main()
