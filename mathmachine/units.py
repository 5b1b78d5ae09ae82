"""The published units, as compiled: the Django side's one read of the coursebook.

Below the apps: learning (pages, the gate) and billing (the offer, receipts, refunds) both read
the units here, and this module imports neither of them.

In production (``COURSEBOOK_RELOAD`` off) the units are those the release step built
(``python -m mathmachine.coursebook build``): loaded once per process, then served from memory,
without reading ``unit.toml`` or a stat of the content's files again (the WSGI entry loads them
before the first request). In development (``make run``: ``COURSEBOOK_RELOAD`` on) every call
checks the content's files, so an edited section shows on the next request.
"""

from __future__ import annotations

import logging

from django.conf import settings

from mathmachine import coursebook
from mathmachine.coursebook.model import CompiledUnit

UnitNotFound = coursebook.UnitNotFound
log = logging.getLogger(__name__)


def _watch() -> bool:
    return bool(settings.COURSEBOOK_RELOAD)


def unit(slug: str) -> CompiledUnit:
    """The compiled unit ``slug``; raises UnitNotFound when no unit has that slug."""
    return coursebook.load_unit(slug, root=settings.CONTENT_DIR, watch=_watch())


def published() -> list[CompiledUnit]:
    """Every published unit, by number."""
    watch = _watch()
    return [unit(info.slug) for info in coursebook.catalog(root=settings.CONTENT_DIR, watch=watch)]


def preload() -> None:
    """Load the published units now (production: the WSGI entry, before the first request);
    a unit that cannot be loaded is logged, and its pages answer as they would have."""
    if _watch():
        return
    try:
        published()
    except Exception:  # the site still serves its other pages (the admin among them)
        log.exception("the published units could not be loaded")
