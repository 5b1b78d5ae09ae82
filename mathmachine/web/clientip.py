"""The client's address as our own proxies report it (for rate limits and logs).

``TRUSTED_PROXY_COUNT`` says how many reverse proxies of ours stand in front of the app: 0 (the
default) means none, and ``X-Forwarded-For`` is ignored (a client could write anything in it);
with nginx in front it is 1, and so on. Each proxy appends the address it received the request
from, so the client is the N-th entry from the right: whatever the client itself wrote stands to
the left of it and is not believed.
"""

from __future__ import annotations

import ipaddress

from django.conf import settings
from django.http import HttpRequest


def _address(value: str) -> str | None:
    try:
        return str(ipaddress.ip_address(value.strip()))
    except ValueError:
        return None


def client_ip(request: HttpRequest) -> str:
    remote = request.META.get("REMOTE_ADDR", "")
    count = int(getattr(settings, "TRUSTED_PROXY_COUNT", 0) or 0)
    if count <= 0:
        return remote
    hops = [hop for hop in request.headers.get("X-Forwarded-For", "").split(",") if hop.strip()]
    if not hops:
        return remote
    # Fewer entries than proxies: the request skipped the outer ones (e.g. it reached nginx
    # directly), and the first entry is the one a proxy of ours wrote.
    entry = hops[-count] if len(hops) >= count else hops[0]
    return _address(entry) or remote
