"""Static files: comments out (web/minify.py), hashed names (cached a year), brotli + gzip
copies, ES imports rewritten."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.files.base import ContentFile
from whitenoise.storage import CompressedManifestStaticFilesStorage

from .minify import strip_css, strip_js

# Our own sources (not Django's admin files, already minified): stripped when collected.
STRIPPED = {".js": strip_js, ".css": strip_css}
OWN_FOLDERS = ("site/", "widgets/")


class StaticStorage(CompressedManifestStaticFilesStorage):
    # Rewrite `import … from "./math.js"` inside widget modules to the hashed file name, so a
    # changed math.js can never be served stale to a cached widget.
    support_js_module_import_aggregation = True

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._urls: dict[str, str] = {}

    def _save(self, name: str, content: Any) -> str:
        """Store ``name``; one of our scripts or stylesheets without its comments and
        indentation (web/minify.py), before it is hashed and compressed. The hashed copy
        post_process saves is stripped already (stripping twice is stripping once)."""
        strip = STRIPPED.get(name[name.rfind(".") :]) if name.startswith(OWN_FOLDERS) else None
        if strip is not None:
            content.seek(0)
            text = content.read()
            text = text.decode("utf-8") if isinstance(text, bytes) else text
            content = ContentFile(strip(text).encode("utf-8"))
        return str(super()._save(name, content))

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
