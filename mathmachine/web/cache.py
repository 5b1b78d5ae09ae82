"""The shared cache (Redis) that degrades instead of breaking when Redis is unreachable.

Django's ``RedisCache`` raises ``redis.ConnectionError`` from every cache call while Redis is
down, so every page that touches the cache (sign-in counts them; the lab caches results) would
answer 500. :class:`ResilientRedisCache` answers each call as if the cache were empty and every
write were lost: a miss for reads, nothing stored for writes, and ``add`` succeeds, so that
allauth's short locks around its counters are taken and signing in goes on. While Redis is
down, sign-in limits therefore count nothing (they *fail open*: a learner can still sign in),
and cached results are computed afresh; pages keep working.

One warning is logged when Redis becomes unreachable, one line when it is back. After a failure
the cache stops asking Redis for ``RETRY_AFTER`` seconds, so a Redis that hangs rather than
refuses costs one timeout (``socket_connect_timeout`` / ``socket_timeout`` in the settings'
OPTIONS) per interval, not per call.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

from django.core.cache.backends.redis import RedisCache
from redis.exceptions import RedisError

log = logging.getLogger(__name__)

T = TypeVar("T")

#: Seconds between tries to reach Redis again after a failure.
RETRY_AFTER = 5.0


class ResilientRedisCache(RedisCache):
    def __init__(self, server: Any, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._down_until = 0.0
        self._down = False
        self._lock = threading.Lock()

    def _call(self, call: Callable[[], T], fallback: T) -> T:
        if self._down and time.monotonic() < self._down_until:
            return fallback
        try:
            result = call()
        except RedisError as exc:
            with self._lock:
                self._down_until = time.monotonic() + RETRY_AFTER
                if not self._down:
                    self._down = True
                    log.warning(
                        "Cache (Redis at %s) unreachable: %s. Sign-in limits count nothing and "
                        "cached results are recomputed until it is back (retrying every %.0f s).",
                        ",".join(self._servers),
                        exc,
                        RETRY_AFTER,
                    )
            return fallback
        if self._down:
            with self._lock:
                if self._down:
                    self._down = False
                    log.warning("Cache (Redis at %s) reachable again.", ",".join(self._servers))
        return result

    # Each call as Django's RedisCache makes it, with what an empty, lossy cache would answer.
    def add(self, *args: Any, **kwargs: Any) -> bool:
        return self._call(lambda: super(ResilientRedisCache, self).add(*args, **kwargs), True)

    def get(self, key: Any, default: Any = None, version: Any = None) -> Any:
        return self._call(
            lambda: super(ResilientRedisCache, self).get(key, default, version), default
        )

    def set(self, *args: Any, **kwargs: Any) -> None:
        self._call(lambda: super(ResilientRedisCache, self).set(*args, **kwargs), None)

    def touch(self, *args: Any, **kwargs: Any) -> bool:
        return self._call(lambda: super(ResilientRedisCache, self).touch(*args, **kwargs), False)

    def delete(self, *args: Any, **kwargs: Any) -> bool:
        return self._call(lambda: super(ResilientRedisCache, self).delete(*args, **kwargs), False)

    def get_many(self, *args: Any, **kwargs: Any) -> dict[Any, Any]:
        return self._call(lambda: super(ResilientRedisCache, self).get_many(*args, **kwargs), {})

    def has_key(self, *args: Any, **kwargs: Any) -> bool:
        return self._call(lambda: super(ResilientRedisCache, self).has_key(*args, **kwargs), False)

    def incr(self, key: Any, delta: int = 1, version: Any = None) -> int:
        return self._call(lambda: super(ResilientRedisCache, self).incr(key, delta, version), delta)

    def set_many(self, data: Any, *args: Any, **kwargs: Any) -> list[Any]:
        return self._call(
            lambda: super(ResilientRedisCache, self).set_many(data, *args, **kwargs), list(data)
        )

    def delete_many(self, *args: Any, **kwargs: Any) -> None:
        self._call(lambda: super(ResilientRedisCache, self).delete_many(*args, **kwargs), None)

    def clear(self) -> bool:
        return self._call(lambda: super(ResilientRedisCache, self).clear(), False)
