"""Helpers shared by test packages (tests/ is on pytest's pythonpath: `from support import …`)."""

from __future__ import annotations

import ast
import os
import socket
import subprocess
import sys
import threading
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from django.db import connection

REPO = Path(__file__).resolve().parents[1]
UNIT18 = REPO / "content" / "units" / "18-attention-and-transformers"
# A secret key that passes `check --deploy` (tests only).
STRONG_KEY = "x7#Kp2!vQ9zL@m4$Rt8^Wn3&Yb6*Hc1(Jd5)Fg0_Se-Ua+Ie=Oo~Pq,Lr.Mk?Nj"

# Debian's Chromium, driven by Playwright through executable_path (browser tests and bench/).
CHROMIUM = Path("/usr/bin/chromium")
# Headless on a closed network: no background traffic, no sandbox as root, no first-run chores.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def in_parallel(*jobs: Callable[[], object]) -> list[BaseException]:
    """Run each job in its own thread (its own database connection), released together.

    Returns the exceptions the jobs raised, for the test to judge.
    """
    barrier = threading.Barrier(len(jobs))
    errors: list[BaseException] = []

    def run(job: Callable[[], object]) -> None:
        try:
            barrier.wait(timeout=10)
            job()
        except BaseException as exc:  # reported to the test
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(job,)) for job in jobs]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not any(t.is_alive() for t in threads), "a job never finished"
    return errors


def paid_order_create(user: Any, product: Any) -> Any:
    """A paid order with its entitlement, written directly (for tests of reads, not of buying)."""
    from django.utils import timezone

    from mathmachine.billing.models import Entitlement, Order

    now = timezone.now()
    order = Order.objects.create(
        receipt=f"TEST-{uuid.uuid4().hex[:12]}",
        user=user,
        product=product,
        amount_paise=product.price_paise,
        currency=product.currency,
        state=Order.State.PAID,
        provider="testmode",
        paid_at=now,
    )
    Entitlement.objects.create(user=user, product=product, order=order, granted_at=now)
    return order


def bought_order_create(user: Any, code: str = "unit-18") -> Any:
    """Buy a product ("unit-18" or "all-paid-units") through billing's own services: an order
    with the (offline test-mode) provider, then its captured payment, which grants access (so,
    unlike paid_order_create, it can be refunded as a learner's would)."""
    from mathmachine.billing import services
    from mathmachine.billing.models import Product

    order = services.order_create(user=user, product=Product.objects.get(code=code))
    outcome = services.payment_record_captured(
        order=order,
        payment_id=f"pay_{uuid.uuid4().hex[:14]}",
        amount_paise=order.amount_paise,
        currency=order.currency,
        source="test",
    )
    assert outcome.granted, outcome.message
    return order


def widget_context(examples: dict[str, Any]) -> Any:
    """The context a widget renderer gets inside Unit 18, with the unit's examples (no figures)."""
    from mathmachine.coursebook.widgets import WidgetContext

    return WidgetContext(
        examples=examples, figures={}, unit_slug="attention-and-transformers", source="t.md:1"
    )


def unit18_examples() -> dict[str, Any]:
    """Unit 18's figures.EXAMPLES, loaded as the compiler loads them (widget tests render with
    the inputs the unit really uses)."""
    from mathmachine.coursebook.passes.load import load_figures

    return load_figures(UNIT18, 18).examples


def manage(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """``manage.py *args`` in a fresh process on the production settings, with ``env`` set
    (and none of the deployment variables of the shell running the tests)."""
    environ = {
        k: v
        for k, v in os.environ.items()
        if k
        not in {
            "DJANGO_SECRET_KEY",
            "ALLOWED_HOSTS",
            "REDIS_URL",
            "SITE_URL",
            "PYTEST_XDIST_WORKER",
        }
    }
    environ.update(DJANGO_SETTINGS_MODULE="mathmachine.web.settings.production", **env)
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=REPO,
        env=environ,
        capture_output=True,
        text=True,
        timeout=120,
    )


def setting_value(expr: str, **env: str) -> str:
    """``print(expr)`` over ``django.conf.settings`` in such a process."""
    code = f"from django.conf import settings; print({expr})"
    result = manage("shell", "--no-imports", "-c", code, **env)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def redis_cache_settings(url: str) -> dict[str, Any]:
    """The CACHES that the production settings build for ``REDIS_URL=url``."""
    return ast.literal_eval(
        setting_value("settings.CACHES", DJANGO_SECRET_KEY=STRONG_KEY, REDIS_URL=url)
    )


def redis_up() -> bool:
    """Is a Redis listening at 127.0.0.1:6379 (for the tests that need a real one)?"""
    try:
        with socket.create_connection(("127.0.0.1", 6379), timeout=0.5):
            return True
    except OSError:
        return False


def free_port() -> int:
    """A local port nothing listens on (connections to it are refused) until someone binds it."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def products_restore(django_db_blocker: Any) -> None:
    """Put billing's products (a data migration) back after a ``transactional_db`` flush."""
    import importlib

    from django.apps import apps

    migration = importlib.import_module("mathmachine.billing.migrations.0002_products")
    with django_db_blocker.unblock():
        migration.create_products(apps, None)
