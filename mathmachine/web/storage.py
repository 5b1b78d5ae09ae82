"""Static files: hashed names (cached a year), brotli + gzip copies, ES imports rewritten."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from whitenoise.storage import CompressedManifestStaticFilesStorage


class StaticStorage(CompressedManifestStaticFilesStorage):
    # Rewrite `import … from "./math.js"` inside widget modules to the hashed file name, so a
    # changed math.js can never be served stale to a cached widget.
    support_js_module_import_aggregation = True

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._urls: dict[str, str] = {}

    def url(self, name: str | None, force: bool = False) -> str:
        """The hashed URL, kept per name: the manifest is read once, when the storage is made
        (a page asks for about ten, each a manifest lookup and a urljoin: a quarter of a
        section's template time). DEBUG (unhashed names) and ``force`` are not kept."""
        if force or settings.DEBUG or name is None:
            return super().url(name, force)
        found = self._urls.get(name)
        if found is None:
            found = self._urls[name] = super().url(name)
        return found
