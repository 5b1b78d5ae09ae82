"""The lab's share of the server and of the cache, and its promise (issue 17, items 2, 3 and 7).

Before: the lab had no rate limit and no cap on the threads it could take; it cached every
sentence x view x layer x head for 10 minutes under a plain digest of the text, in the Redis that
holds the sign-in limits, for every learner alike (a repeat of someone else's sentence was
measurably faster: a timing oracle); the no-JavaScript form's sentence went to the access logs.

Now: per-learner and per-address limits in the shared cache (429 with a message and
Retry-After), a bounded pool per process (503 "busy" beyond it), the lab's cache in its own Redis
(LAB_REDIS_URL) under a keyed hash of the learner and the text, compressed entries of bounded
size; the logs leave out query strings. Sign-in limits hold with the lab's cache full.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import runpy
import secrets
import shutil
import socket
import subprocess
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from allauth.account.models import EmailAddress
from django.conf import settings as django_settings
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils.html import escape
from support import REPO, paid_order_create, redis_up

from mathmachine.accounts.adapter import LOCKOUT_MESSAGE
from mathmachine.billing.models import Product
from mathmachine.engine.pretrained import MODEL_SHA256, load_minilm
from mathmachine.learning import lab, route_limits
from mathmachine.learning.widget_api import ASKER

from .conftest import UNIT

pytestmark = pytest.mark.django_db
API = f"/units/{UNIT}/lab/attention/"
PAGE = f"/units/{UNIT}/lab/"
TEXT = "I drink tea"
PASSWORD = "a long test password 42"
LOCMEM_LAB = {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "lab-t"}


def _buyer(email: str) -> Client:
    user = get_user_model().objects.create_user(email, email, PASSWORD)
    paid_order_create(user, Product.objects.get(code="unit-18"))
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture(autouse=True)
def _fresh() -> Iterator[None]:
    from django.core.cache import cache

    lab.clear_caches()
    cache.clear()
    yield
    lab.clear_caches()


@pytest.fixture
def lab_cache(settings: Any) -> None:
    settings.LAB_REDIS_URL = "redis://lab.invalid/0"  # the lab's cache on: a LocMem stands in
    settings.CACHES = {**settings.CACHES, "lab": LOCMEM_LAB}


def _post(client: Client, **data: str) -> Any:
    return client.post(API, {"text": TEXT, "view": "head", "layer": "1", "head": "1", **data})


# -- item 7: what one learner sends is kept for them alone ---------------------------------------


def test_another_learners_repeat_is_no_faster(monkeypatch, lab_cache: None, unit18: Any) -> None:
    # unit18: compiled before counting (compiling §6 runs the model for its own sentence)
    model = load_minilm()
    calls: list[str] = []
    real = model.run
    monkeypatch.setattr(model, "run", lambda text: calls.append(text) or real(text))
    asha, ravi = _buyer("asha@example.com"), _buyer("ravi@example.com")
    first = _post(asha).json()
    assert _post(asha, head="2").status_code == 200  # her own repeat: kept
    assert calls == [TEXT]
    # Ravi sends the same sentence: neither the process's runs nor the shared cache serve him
    # what Asha's request left, so his timing tells nothing of what she sent.
    assert _post(ravi).json() == first
    assert calls == [TEXT, TEXT]


def test_the_cache_key_is_a_keyed_hash_of_the_learner_and_the_text(settings: Any) -> None:
    plain = hashlib.sha256(f"{MODEL_SHA256}\x1f{TEXT}".encode()).hexdigest()[:40]
    token = ASKER.set("u1")
    try:
        one = lab._shared_key(TEXT, "head", 1, 1)
        settings.SECRET_KEY = secrets.token_urlsafe(50)
        other_secret = lab._shared_key(TEXT, "head", 1, 1)
    finally:
        ASKER.reset(token)
    token = ASKER.set("u2")
    try:
        other_learner = lab._shared_key(TEXT, "head", 1, 1)
    finally:
        ASKER.reset(token)
    assert plain not in one and len({one, other_secret, other_learner}) == 3
    assert TEXT not in one and "drink" not in one


def test_entries_are_compressed_and_bounded(monkeypatch, lab_cache: None) -> None:
    from django.core.cache import caches

    buyer = _buyer("meena@example.com")
    heads = buyer.post(API, {"text": TEXT, "view": "heads"})
    assert heads.status_code == 200
    kept = caches["lab"]._cache  # LocMem's store: key -> pickled value
    sizes = [len(v) for v in kept.values()]
    assert sizes and max(sizes) <= lab.MAX_ENTRY_BYTES + 200
    assert max(sizes) < len(heads.content) / 4  # compressed
    # A payload over the bound is answered and not kept.
    monkeypatch.setattr(lab, "MAX_ENTRY_BYTES", 10)
    caches["lab"].clear()
    assert _post(buyer, head="5").status_code == 200 and not caches["lab"]._cache


def test_the_access_logs_leave_the_query_out() -> None:
    gunicorn = (REPO / "deploy" / "gunicorn.conf.py").read_text()
    fmt = re.search(r"^access_log_format = (.+)$", gunicorn, re.M)
    assert fmt and "%(U)s" in fmt.group(1)
    assert not re.search(r"%\((r|q)\)s|\{[^}]*query", fmt.group(1))
    nginx = (REPO / "deploy" / "nginx.conf.in").read_text()
    log_format = re.search(r"log_format timed (.+?);", nginx, re.S)
    assert log_format and "$uri" in log_format.group(1)
    assert not re.search(r"\$request\b|\$request_uri|\$args|\$query_string", log_format.group(1))


def test_nginx_turns_a_flood_of_route_requests_away_in_the_apps_shape() -> None:
    nginx = (REPO / "deploy" / "nginx.conf.in").read_text()
    block = re.search(r"location ~ \^/units/.*?lab/attention.*?\{(.*?)\}", nginx, re.S)
    assert block, "no location for the widgets' server routes"
    assert "limit_req zone=routes" in block.group(1) and "limit_conn routes_conn" in block.group(1)
    refused = re.search(r"location @routes_refused \{(.*?)\n        \}", nginx, re.S)
    assert refused and "application/json" in refused.group(1)
    body = re.search(r"return 429 '(.*)';", refused.group(1))
    assert body and json.loads(body.group(1))["error"].startswith("Too many requests")
    assert "limit_req_status 429;" in nginx and "limit_conn_status 429;" in nginx


# -- item 2: limits and a bounded share of the process -------------------------------------------


def test_a_learner_over_the_limit_gets_429_with_a_message(settings: Any) -> None:
    settings.ROUTE_LIMITS = {"learner": 3, "address": 1000}
    buyer = _buyer("asha@example.com")
    assert [_post(buyer, head=str(h)).status_code for h in (1, 2, 3)] == [200, 200, 200]
    refused = _post(buyer, head="4")
    assert refused.status_code == 429
    body = refused.json()
    assert set(body) == {"error"} and "Too many requests to the attention lab" in body["error"]
    wait = int(refused["Retry-After"])
    assert 1 <= wait <= 60 and f"wait {wait} second" in body["error"]
    assert "up to 3 a minute" in body["error"]
    # The page without JavaScript: the same limit, the message where its errors go.
    page = buyer.get(PAGE, {"text": TEXT, "layer": "1", "head": "1"})
    assert page.status_code == 429 and 'role="alert"' in page.content.decode()
    assert "Too many requests to the attention lab" in page.content.decode()
    # Another learner is not held back by her.
    assert _post(_buyer("ravi@example.com")).status_code == 200


def test_a_refusal_costs_no_database_query(settings: Any) -> None:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    settings.ROUTE_LIMITS = {"learner": 1, "address": 1000}
    buyer = _buyer("asha@example.com")
    assert _post(buyer).status_code == 200
    with CaptureQueriesContext(connection) as queries:
        refused = _post(buyer, head="2")
    assert refused.status_code == 429 and refused["Cache-Control"] == "private, no-store"
    assert len(queries) == 0  # turned away before the session and the database


def test_one_address_over_its_limit_gets_429(settings: Any) -> None:
    settings.ROUTE_LIMITS = {"learner": 1000, "address": 4}
    one, two = _buyer("asha@example.com"), _buyer("ravi@example.com")
    codes = [_post(c, head=str(h)).status_code for h in (1, 2) for c in (one, two)]
    assert codes == [200, 200, 200, 200]
    assert _post(one, head="3").status_code == 429
    assert _post(two, head="3").status_code == 429


def test_one_learner_has_at_most_in_flight_requests_at_once() -> None:
    from django.core.cache import cache

    buyer = _buyer("asha@example.com")
    session = buyer.cookies[django_settings.SESSION_COOKIE_NAME].value
    key = "routes-inflight:" + hashlib.sha256(session.encode()).hexdigest()[:24]
    assert _post(buyer).status_code == 200
    assert cache.get(key) == 0  # counted while it ran, then not
    full = route_limits.IN_FLIGHT
    cache.set(key, full - 1, 30)  # all but one of hers are running elsewhere: this one runs
    assert _post(buyer, head="3").status_code == 200
    cache.set(key, full, 30)  # as many as she may have are running elsewhere
    more = _post(buyer, head="2")
    assert more.status_code == 429 and more["Retry-After"] == "1"
    assert more.json() == {"error": route_limits.ONE_AT_A_TIME_MESSAGE}
    assert cache.get(key) == full
    assert _post(_buyer("ravi@example.com")).status_code == 200  # others are not held back


def test_beyond_the_pool_the_lab_is_busy_at_once(monkeypatch) -> None:
    monkeypatch.setattr(route_limits, "SLOTS", route_limits.Slots(0, 0, 0.0))
    buyer = _buyer("asha@example.com")
    started = time.monotonic()
    busy = _post(buyer)
    assert busy.status_code == 503 and busy.json() == {"error": route_limits.BUSY_MESSAGE}
    assert busy["Retry-After"] and time.monotonic() - started < 5
    page = buyer.get(PAGE, {"text": TEXT, "layer": "1", "head": "1"})
    assert page.status_code == 503 and escape(route_limits.BUSY_MESSAGE) in page.content.decode()
    # The pages are not in the pool: reading a section is answered.
    assert buyer.get(f"/units/{UNIT}/6/").status_code == 200


def test_slots_run_some_queue_a_few_and_refuse_the_rest() -> None:
    slots = route_limits.Slots(1, 1, 2.0)
    holding, release = threading.Event(), threading.Event()
    results: list[str] = []

    def hold() -> None:
        with slots.slot():
            holding.set()
            release.wait(5)

    def queue() -> None:
        with slots.slot():
            results.append("queued, then ran")

    first = threading.Thread(target=hold)
    first.start()
    assert holding.wait(5)
    second = threading.Thread(target=queue)
    second.start()
    time.sleep(0.2)  # the second is waiting in the queue
    with pytest.raises(route_limits.Busy), slots.slot():
        pass  # a third: neither a slot nor a place in the queue
    release.set()
    first.join(5)
    second.join(5)
    assert results == ["queued, then ran"]


def test_the_lab_leaves_three_of_a_processs_threads_for_pages(monkeypatch) -> None:
    """With the production threads (deploy/gunicorn.conf.py), at most RUNNING + WAITING are
    the lab's, and at least three serve pages, a burst of lab requests or not."""
    monkeypatch.delenv("GUNICORN_THREADS", raising=False)
    threads = runpy.run_path(str(REPO / "deploy" / "gunicorn.conf.py"))["threads"]
    lab = route_limits.RUNNING + route_limits.WAITING
    assert route_limits.SLOTS.waiting == route_limits.WAITING
    assert lab <= threads - 3, (lab, threads)


# -- item 3: the lab's cache is apart, with its own limit; sign-in limits hold ---------------------


@pytest.fixture
def full_lab_redis(tmp_path: Path) -> Iterator[str]:
    """A Redis of the lab's own, as docs/deploy.md sets it up (maxmemory, allkeys-lru), small."""
    binary = shutil.which("redis-server")
    if binary is None:
        pytest.skip("no redis-server")
    port = 8181
    with socket.socket() as s:
        if s.connect_ex(("127.0.0.1", port)) == 0:
            pytest.skip(f"port {port} is taken")
    proc = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
         "--maxmemory", "4mb", "--maxmemory-policy", "allkeys-lru", "--dir", str(tmp_path)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 10
        while True:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert time.monotonic() < deadline and proc.poll() is None, "redis did not start"
            time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.mark.skipif(not redis_up(), reason="no Redis at 127.0.0.1:6379")
def test_sign_in_limits_hold_when_the_labs_cache_is_full(
    settings: Any, full_lab_redis: str
) -> None:
    import redis

    prefix = f"test-lab-full-{uuid.uuid4().hex}"
    resilient = "mathmachine.web.cache.ResilientRedisCache"
    options = {"socket_connect_timeout": 0.5, "socket_timeout": 0.5}
    settings.CACHES = {
        "default": {
            "BACKEND": resilient, "LOCATION": "redis://127.0.0.1:6379/5",
            "OPTIONS": options, "KEY_PREFIX": prefix,
        },
        "lab": {
            "BACKEND": resilient, "LOCATION": full_lab_redis,
            "OPTIONS": options, "KEY_PREFIX": prefix + "-lab",
        },
    }  # fmt: skip
    settings.REDIS_URL = "redis://127.0.0.1:6379/5"
    settings.LAB_REDIS_URL = full_lab_redis
    # Fill the lab's cache past its limit, as many learners' sentences would, through the
    # lab's own code: entries of a few KB that do not compress away.
    for i in range(1500):
        token = ASKER.set(f"u{i}")
        try:
            lab._shared(f"sentence {i}", ("heads",), lambda: {"cells": os.urandom(3000).hex()})
        finally:
            ASKER.reset(token)
    info = redis.Redis.from_url(full_lab_redis).info()
    assert info["evicted_keys"] > 0 and info["used_memory"] <= 4 * 1024 * 1024 * 1.1
    # The sign-in limits, in the other Redis: five wrong passwords pause the address.
    user = get_user_model().objects.create_user("lata@example.com", "lata@example.com", PASSWORD)
    EmailAddress.objects.create(user=user, email=user.email, primary=True, verified=True)
    client = Client()
    for _ in range(5):
        wrong = client.post("/accounts/login/", {"login": user.email, "password": "guess"})
        assert "not correct" in wrong.content.decode()
    right = client.post("/accounts/login/", {"login": user.email, "password": PASSWORD})
    assert LOCKOUT_MESSAGE in right.content.decode()
    main = redis.Redis.from_url("redis://127.0.0.1:6379/5")
    assert not [k for k in main.scan_iter(f"{prefix}:*") if b"lab:" in k]  # no lab entry here
    for key in main.scan_iter(f"{prefix}*"):
        main.delete(key)
