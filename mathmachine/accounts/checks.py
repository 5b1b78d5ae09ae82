"""Deployment check: the sign-in limits need a cache that every process shares."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.checks import CheckMessage, Error, Tags, Warning, register

PER_PROCESS = {
    "django.core.cache.backends.locmem.LocMemCache",
    "django.core.cache.backends.dummy.DummyCache",
}


@register(Tags.caches, Tags.security, deploy=True)
def shared_cache_for_rate_limits(app_configs: Any = None, **kwargs: Any) -> list[CheckMessage]:
    backend = settings.CACHES.get("default", {}).get("BACKEND", "")
    name = backend.rsplit(".", 1)[-1]
    if backend in PER_PROCESS:
        return [
            Error(
                f"The default cache is {name}, which each process keeps on its own: with several "
                "workers or servers, every one counts failed sign-ins separately, and the "
                "lockout after 5 wrong passwords does not hold.",
                hint="Set REDIS_URL (e.g. redis://127.0.0.1:6379/0) to share one cache between "
                "every process (docs/accounts.md).",
                id="accounts.E001",
            )
        ]
    if backend == "django.core.cache.backends.filebased.FileBasedCache":
        return [
            Warning(
                "The default cache is FileBasedCache: shared only by the processes of one machine.",
                hint="With more than one server, set REDIS_URL (docs/accounts.md).",
                id="accounts.W002",
            )
        ]
    return []
