"""Static files: hashed names (cached a year), brotli + gzip copies, ES imports rewritten."""

from whitenoise.storage import CompressedManifestStaticFilesStorage


class StaticStorage(CompressedManifestStaticFilesStorage):
    # Rewrite `import … from "./math.js"` inside widget modules to the hashed file name, so a
    # changed math.js can never be served stale to a cached widget.
    support_js_module_import_aggregation = True
