"""Redis down: sign-in limits degrade, pages keep working (issue 10, failure 2).

The cache the settings build for REDIS_URL is pointed at a port where nothing listens. Signing
in, failing to, and the pages around them still answer as usual; the outage is logged once, not
on every request; the limits count again once the cache is back.
"""

from __future__ import annotations

import logging

import pytest
from django.core.cache import caches
from django.test import Client, override_settings
from support import free_port, redis_cache_settings, redis_up

pytestmark = pytest.mark.django_db

PASSWORD = "a long test password 42"


@pytest.fixture(scope="module")
def dead_redis_caches() -> dict:
    return redis_cache_settings(f"redis://127.0.0.1:{free_port()}/0")


def test_sign_in_works_while_redis_is_down(signup, dead_redis_caches, caplog) -> None:
    signup(Client(), "asha@example.com")
    with override_settings(CACHES=dead_redis_caches), caplog.at_level(logging.WARNING):
        client = Client(raise_request_exception=False)
        assert client.get("/accounts/login/").status_code == 200
        wrong = client.post("/accounts/login/", {"login": "asha@example.com", "password": "x"})
        assert wrong.status_code == 200
        assert "not correct" in wrong.content.decode()
        right = client.post("/accounts/login/", {"login": "asha@example.com", "password": PASSWORD})
        assert right.status_code == 302
        assert client.get("/your-learning/").status_code == 200
        assert client.get("/units/attention-and-transformers/1/").status_code == 200
        caches["default"].clear()
    outage_lines = [r for r in caplog.records if "unreachable" in r.getMessage()]
    assert len(outage_lines) == 1, [r.getMessage() for r in caplog.records]
    assert outage_lines[0].levelno == logging.WARNING
    assert not outage_lines[0].exc_info  # one line, not a traceback per request


@pytest.mark.skipif(not redis_up(), reason="no Redis at 127.0.0.1:6379")
def test_the_cache_counts_again_once_redis_is_back(monkeypatch, caplog) -> None:
    import uuid

    from redis.exceptions import ConnectionError as RedisConnectionError

    from mathmachine.web import cache as resilient

    cache = resilient.ResilientRedisCache(
        "redis://127.0.0.1:6379/15", {"KEY_PREFIX": f"test-{uuid.uuid4().hex}"}
    )
    cache.set("count", 3, 30)
    real_get = cache._cache.get

    def down(*args, **kwargs):
        raise RedisConnectionError("Connection refused")

    monkeypatch.setattr(cache._cache, "get", down)
    with caplog.at_level(logging.INFO, logger="mathmachine.web.cache"):
        assert cache.get("count", "missed") == "missed"
        assert cache.add("lock", 1) is True  # allauth's lock is taken: signing in goes on
        monkeypatch.setattr(cache._cache, "get", real_get)
        assert cache.get("count", "missed") == "missed"  # not asked again for RETRY_AFTER s
        monkeypatch.setattr(resilient, "RETRY_AFTER", 0.0)
        cache._down_until = 0.0
        assert cache.get("count") == 3
    messages = [r.getMessage() for r in caplog.records]
    assert sum("unreachable" in m for m in messages) == 1
    assert sum("reachable again" in m for m in messages) == 1
    cache.delete_many(["count", "lock"])  # not clear(): that would empty the whole Redis db
