"""What "Keep this unit on this phone" stores (issue 19): the kept unit's list of addresses, its
version and its size, derived from the compiled unit and the static storage, never a hand list.

The page's script (``static/site/keep-unit.js``) asks ``GET /units/<slug>/keep/`` (owners only,
``views.unit_keep``) and stores every address listed in the Cache Storage cache
``mm-kept:<owner>:<slug>``; the service worker serves them offline (docs/offline.md).

What is listed:

- the pages: the unit page and every published section (the arena, §15, is one), as the owner
  reads them;
- what the sections declare (``CompiledSection.scripts`` / ``.styles``, through ``static()``:
  the hashed names the pages load), each section's own Devanagari font and math fences font
  (``/units/<slug>/fonts/<hash>.woff2``) and its widgets' large states, files of their own that
  kit.js fetches (``/units/<slug>/data/<hash>.json``, coursebook/state_files.py);
- every same-site asset the rendered pages reference (``<link href>``, ``<script src>``,
  ``<img src>``, ``url()`` in a ``<style>``): the site's CSS, scripts and icons from base.html;
- then, for each stylesheet and script listed, what it pulls in: ``url()`` in CSS (fonts such
  as math-fences), ES module imports (the widgets' kit, their math modules), each resolved
  against the file's own address as the browser resolves it, until nothing new is found;
- but not the whole Devanagari font (site.css and the lab's stylesheet name it) unless a kept
  page prints a Devanagari character its own cut lacks: a page with a cut never fetches it, and
  the lab, which fetches it once Hindi is typed there, does not work offline.

A widget draws its figures into the page's HTML (SVG and tables from the unit's figures), so a
figure travels with its page; a widget that fetches a file at load time does so through one of
the forms above, and is listed with it. A widget that asks the server (the attention lab, §13's
walk: POST) cannot be kept: offline it says it needs a connection.

``bytes`` is what the listed files weigh on the wire: for a static file its brotli copy (else
gzip) as the storage collected it, or as they would be compressed when the storage keeps no
copy (tests, ``make run``); for a page, the page rendered for the owner and compressed as the
site's HTML compression sends it to a browser that accepts brotli (web/compression.py: brotli at
its quality for a page of BROTLI_FROM bytes or more, else gzip at its level); a font as served
(WOFF2 is compressed already); a state file as data_views serves it (brotli).

``version`` is a digest of the compiled unit's ``source_hash`` (its sources and the compiler's
code) and, for every listed asset, its address and a digest of its bytes: a changed section,
widget script, stylesheet, font or figure gives a new version, and the kept copy says it is out
of date.
"""

from __future__ import annotations

import gzip
import hashlib
import posixpath
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from html import unescape
from pathlib import Path
from urllib.parse import urljoin, urlsplit

from django.conf import settings
from django.contrib.staticfiles import finders
from django.contrib.staticfiles.storage import staticfiles_storage
from django.templatetags.static import static
from django.urls import reverse

from mathmachine.coursebook import fonts as unit_fonts
from mathmachine.coursebook.model import CompiledUnit
from mathmachine.web import pwa
from mathmachine.web.compression import (
    BROTLI_FROM,
    BROTLI_QUALITY,
    COMPRESSLEVEL,
    GZipMiddleware,
    compress_brotli,
    compress_string,
)

from . import data_views

# The kinds the size is told by (bench/kept_unit.py prints them), by the file's ending.
KINDS = {
    ".js": "scripts",
    ".mjs": "scripts",
    ".css": "styles",
    ".woff2": "fonts",
    ".woff": "fonts",
    ".ttf": "fonts",
    ".otf": "fonts",
    ".svg": "figures",
    ".png": "figures",
    ".jpg": "figures",
    ".jpeg": "figures",
    ".webp": "figures",
    ".gif": "figures",
    ".ico": "figures",
    ".json": "data",
}
# The whole Devanagari font's static name (coursebook/fonts.py SOURCE).
WHOLE_DEVANAGARI = "site/fonts/" + unit_fonts.SOURCE.name

# A module specifier in an ES module: `import … from "x"`, `import "x"`, `export … from "x"`,
# `import("x")`, and `new URL("x", import.meta.url)` (a file a widget fetches at load time).
_JS_REFERENCES = re.compile(
    r"""(?:\bfrom\s*|\bimport\s*\(?\s*)(["'])([^"'\n]+)\1"""
    r"""|\bnew\s+URL\(\s*(["'])([^"'\n]+)\3\s*,\s*import\.meta\.url"""
)
_CSS_URL = re.compile(r"""url\(\s*(["']?)([^"')\s]+)\1\s*\)""")
_CSS_IMPORT = re.compile(r"""@import\s+(["'])([^"']+)\1""")


@dataclass(frozen=True)
class KeptFile:
    url: str
    kind: str  # html, scripts, styles, fonts, figures, data, other
    bytes: int  # as it travels (compressed)


@dataclass(frozen=True)
class KeepList:
    """What keeping the unit stores: ``files`` in order (pages first), ``version``."""

    unit: str
    version: str
    files: tuple[KeptFile, ...]
    by_kind: dict[str, dict[str, int]] = field(default_factory=dict)

    @property
    def urls(self) -> list[str]:
        return [f.url for f in self.files]

    @property
    def bytes(self) -> int:
        return sum(f.bytes for f in self.files)

    def as_json(self) -> dict[str, object]:
        return {
            "unit": self.unit,
            "version": self.version,
            "urls": self.urls,
            "sizes": [f.bytes for f in self.files],  # each url's bytes on the wire, in order
            "bytes": self.bytes,
            "files": len(self.files),
            "by_kind": self.by_kind,
        }


# What a page's HTML loads: link href (stylesheets, icons, a manifest), script, img and source
# src, and url() inside its <style> elements. Links to other pages (<a href>) are not loads.
# Regular expressions over the tags rather than an HTML parser: a section's MathML makes
# html.parser take 60 ms a page; the site's own templates write these attributes plainly.
_LOADING_TAG = re.compile(r"<(link|script|img|source)\b([^>]*)>", re.IGNORECASE)
_ATTRIBUTE = re.compile(r"""\b(href|src)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))""", re.IGNORECASE)
_STYLE = re.compile(r"<style\b[^>]*>(.*?)</style>", re.IGNORECASE | re.DOTALL)


def page_references(html: str) -> list[str]:
    """Every address ``html`` loads (see _LOADING_TAG), as written, entities undone."""
    found: list[str] = []
    for tag in _LOADING_TAG.finditer(html):
        name = tag.group(1).lower()
        for attribute in _ATTRIBUTE.finditer(tag.group(2)):
            wanted = "href" if name == "link" else "src"
            if attribute.group(1).lower() == wanted:
                value = attribute.group(2) or attribute.group(3) or attribute.group(4) or ""
                found.append(unescape(value))
    for style in _STYLE.finditer(html):
        found += [unescape(m.group(2)) for m in _CSS_URL.finditer(style.group(1))]
    return found


def _same_site_path(url: str, base: str) -> str | None:
    """``url`` resolved against ``base`` (a path of this site), as a path; None for another
    site's address or a data: URL."""
    if url.startswith(("data:", "blob:", "#")):
        return None
    resolved = urlsplit(urljoin(base, url))
    if resolved.scheme or resolved.netloc:
        return None
    return resolved.path


def kind_of(path: str) -> str:
    return KINDS.get(posixpath.splitext(path)[1].lower(), "other")


class _Asset:
    """A static or root file: its bytes as served and what it weighs on the wire."""

    def __init__(self, data: bytes, wire: int) -> None:
        self.data = data
        self.wire = wire


_SIZES: dict[bytes, int] = {}


def _compressed_size(data: bytes) -> int:
    """What a file the storage kept no compressed copy of would travel as: the smaller of
    brotli (as WhiteNoise makes its .br copies), gzip and the bytes themselves (kept by the
    file's digest: brotli's best takes 10 ms a file)."""
    key = hashlib.sha256(data).digest()
    if key in _SIZES:
        return _SIZES[key]
    sizes = [len(data), len(gzip.compress(data, compresslevel=9, mtime=0))]
    try:
        import brotli
    except ImportError:  # pragma: no cover - brotli is a dependency of the static storage
        pass
    else:
        sizes.append(len(brotli.compress(data)))
    if len(_SIZES) > 4096:
        _SIZES.clear()
    _SIZES[key] = min(sizes)
    return _SIZES[key]


def _static_asset(name: str) -> _Asset | None:
    """A static file by its storage name (hashed in production), from the collected files
    (with the .br/.gz copies the storage made) or, without collectstatic, the finders."""
    try:
        if staticfiles_storage.exists(name):
            with staticfiles_storage.open(name) as handle:
                data = handle.read()
            for suffix in (".br", ".gz"):
                if staticfiles_storage.exists(name + suffix):
                    return _Asset(data, min(len(data), staticfiles_storage.size(name + suffix)))
            return _Asset(data, _compressed_size(data))
    except (OSError, ValueError):  # a name outside the storage's folder
        return None
    found = finders.find(name)
    if isinstance(found, list):
        found = found[0] if found else None
    if not found:
        return None
    data = Path(found).read_bytes()
    return _Asset(data, _compressed_size(data))


def _root_asset(path: str) -> _Asset | None:
    """A file WhiteNoise serves at the site's root (/favicon.ico)."""
    root = getattr(settings, "WHITENOISE_ROOT", None)
    if not root:
        return None
    candidate = (Path(root) / path.lstrip("/")).resolve()
    if Path(root).resolve() not in candidate.parents or not candidate.is_file():
        return None
    data = candidate.read_bytes()
    return _Asset(data, _compressed_size(data))


def _references_in(path: str, data: bytes) -> list[str]:
    """What a stylesheet or module at ``path`` pulls in, resolved against its address."""
    kind = kind_of(path)
    text = data.decode("utf-8", errors="replace")
    if kind == "styles":
        written = [m.group(2) for m in _CSS_URL.finditer(text)]
        written += [m.group(2) for m in _CSS_IMPORT.finditer(text)]
    elif kind == "scripts":
        written = [m.group(2) or m.group(4) for m in _JS_REFERENCES.finditer(text)]
    else:
        return []
    out = []
    for url in written:
        resolved = _same_site_path(url, path)
        if resolved is not None:
            out.append(resolved)
    return out


def page_wire_size(html: bytes) -> int:
    """What a page's body travels as to a browser that accepts brotli (web/compression.py:
    the same codec at the same level), with the mean of the random padding it adds against
    BREACH."""
    padding = GZipMiddleware.max_random_bytes // 2
    if len(html) >= BROTLI_FROM:
        return len(compress_brotli(html, quality=BROTLI_QUALITY)) + padding
    return len(compress_string(html, level=COMPRESSLEVEL)) + padding


@lru_cache(maxsize=64)
def _mapped(font: bytes) -> frozenset[int]:
    return frozenset(unit_fonts.cmap_of(font))


def _needs_whole_devanagari(
    unit: CompiledUnit, pages: dict[str, bytes], cuts: dict[str, str]
) -> bool:
    """Whether a kept page prints a Devanagari character that no font of its own maps (a page
    without its own cut: any); ``cuts`` is a page's path -> its cut's file name."""
    for path, html in pages.items():
        printed = {ord(ch) for ch in unit_fonts.devanagari_chars(html.decode("utf-8", "replace"))}
        if not printed:
            continue
        cut = cuts.get(path)
        if cut is None or printed - _mapped(unit.fonts[cut]):
            return True
    return False


def keep_list(
    *,
    unit: CompiledUnit,
    pages: dict[str, bytes],
) -> KeepList:
    """The kept unit: ``pages`` (path -> the page's HTML as the owner is served it, the unit
    page and every published section) and everything they and the compiled unit load."""
    static_url = settings.STATIC_URL
    fonts: dict[str, bytes] = {}
    states: dict[str, tuple[str, bytes]] = {}
    cuts: dict[str, str] = {}
    declared: list[str] = []
    for section in unit.sections:
        if not section.published:
            continue
        declared += [static(name) for name in (*section.styles, *section.scripts)]
        for name in (section.devanagari_font, section.math_font):
            if name:
                font = reverse("learning:section_font", args=[unit.slug, name])
                fonts[font] = unit.fonts[name]
                declared.append(font)
        if section.devanagari_font:  # the section's pages: its own and its parts' (own_pages)
            for path in (
                reverse("learning:section", args=[unit.slug, section.number]),
                *(
                    reverse("learning:section_own_page", args=[unit.slug, section.number, p.name])
                    for p in section.own_pages
                ),
            ):
                cuts[path] = section.devanagari_font
        for name, number in unit.state_file_sections.items():
            if number == section.number:
                url = reverse("learning:state_file", args=[unit.slug, name])
                states[url] = (name, unit.state_files[name])
                declared.append(url)
    skipped = set()
    if not _needs_whole_devanagari(unit, pages, cuts):
        skipped.add(static(WHOLE_DEVANAGARI))
    for path, html in pages.items():
        for url in page_references(html.decode("utf-8", errors="replace")):
            found = _same_site_path(url, path)
            if found is not None and found not in pages:
                declared.append(found)

    assets: dict[str, _Asset] = {}
    queue = list(dict.fromkeys(declared))
    while queue:
        path = queue.pop(0)
        if path in assets or path in pages or path in skipped:
            continue
        if path in fonts:
            asset: _Asset | None = _Asset(fonts[path], len(fonts[path]))
        elif path in states:
            name, data = states[path]
            asset = _Asset(data, len(data_views.encoded(unit.source_hash, name, data, "br")))
        elif path == reverse("manifest"):  # the installed app's manifest, and its icons
            data = pwa.manifest_bytes()
            asset = _Asset(data, _compressed_size(data))
            queue += pwa.manifest_icons()
        elif path.startswith(static_url):
            asset = _static_asset(path[len(static_url) :])
        else:
            asset = _root_asset(path)
        if asset is None:
            continue  # not a file this site serves (a page, an API): not kept
        assets[path] = asset
        queue += [p for p in _references_in(path, asset.data) if p not in assets]

    files = [KeptFile(path, "html", page_wire_size(html)) for path, html in pages.items()]
    files += [KeptFile(path, kind_of(path), a.wire) for path, a in assets.items()]
    digest = hashlib.sha256(unit.source_hash.encode())
    for path in sorted(pages):
        digest.update(b"\0page\0" + path.encode())
    for path in sorted(assets):
        digest.update(b"\0" + path.encode() + b"\0" + hashlib.sha256(assets[path].data).digest())
    by_kind: dict[str, dict[str, int]] = {}
    for f in files:
        entry = by_kind.setdefault(f.kind, {"files": 0, "bytes": 0})
        entry["files"] += 1
        entry["bytes"] += f.bytes
    return KeepList(
        unit=unit.slug, version=digest.hexdigest()[:20], files=tuple(files), by_kind=by_kind
    )


def kept_page_paths(unit: CompiledUnit) -> list[str]:
    """The pages kept: the unit page, then every published section in order (the arena too),
    then the sections' parts on pages of their own (coursebook/own_pages.py)."""
    paths = [reverse("learning:unit", args=[unit.slug])]
    published = [s for s in unit.sections if s.published]
    paths += [reverse("learning:section", args=[unit.slug, s.number]) for s in published]
    paths += [
        reverse("learning:section_own_page", args=[unit.slug, s.number, p.name])
        for s in published
        for p in s.own_pages
    ]
    return paths


# Kept per process in production (the unit and the static files do not change under it); made
# afresh each time where they may (make run, tests: COURSEBOOK_RELOAD or WhiteNoise's
# autorefresh).
_KEPT: dict[str, KeepList] = {}
_LOCK = threading.Lock()


def _may_keep() -> bool:
    return not (
        settings.DEBUG
        or getattr(settings, "COURSEBOOK_RELOAD", False)
        or getattr(settings, "WHITENOISE_AUTOREFRESH", False)
    )


def unit_keep_list(
    *, unit: CompiledUnit, render_pages: Callable[[list[str]], dict[str, bytes]]
) -> KeepList:
    """The kept unit for ``unit`` (see keep_list): ``render_pages`` renders the pages named
    (kept_page_paths) for the owner asking; kept per process by the unit's source hash where
    nothing can change under it."""
    if _may_keep():
        found = _KEPT.get(unit.source_hash)
        if found is not None:
            return found
    made = keep_list(unit=unit, pages=render_pages(kept_page_paths(unit)))
    if _may_keep():
        with _LOCK:
            _KEPT.clear()
            _KEPT[unit.source_hash] = made
    return made


def forget_kept() -> None:
    """Drop the kept lists (tests that change what a unit's version means)."""
    with _LOCK:
        _KEPT.clear()
