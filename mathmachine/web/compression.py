"""Gzip for HTML responses, cheaper than Django's: zlib-ng at level 5.

Django's GZipMiddleware always compresses with the standard library's zlib at level 6. On
section 1 (~52 KB of HTML) that costs ~0.8 ms of CPU per request for 11.9 KB; zlib's level 4
gave 12.6 KB in ~0.45 ms. zlib-ng (the ``zlib-ng`` package: the same gzip format, a faster
deflate) at level 5 gives 12.1 KB in ~0.31 ms (figures from this machine, 2 December 2026):
smaller than zlib's level 4 and a third cheaper, for every returning learner's page (issue 18).

**Runs deflated once** (issue 18, 4 December 2026): a section page may come with the long runs
of it that every response of its shape shares already deflated (``Deflated``, made by
learning/rendering.page_html; how below, at ``gzip_with_runs``); its gzip is then those runs as
they are with the rest deflated per response: §1 for a returning reader about 0.33 → 0.20 ms of
gzip in process, its bytes 0–0.6 % fewer than the page deflated whole (the runs go at level 9).

Everything else is Django's behaviour, kept: only responses of 200 bytes or more, never twice,
``Vary: Accept-Encoding``, only when the client accepts gzip, only when it is smaller, strong
ETags weakened, and the "Heal The Breach" mitigation (a random-length file name in the gzip
header, so the compressed length does not leak secrets in the page, BREACH). Streaming
responses are left to Django's own code (level 6).

**Brotli for the long pages** (issue 19, a section in <= 50 KB): a page of BROTLI_FROM bytes or
more (§7, §8, §9, §13, §15: 67–78 KB of HTML since the widgets' large states, large pictures and
long fallbacks leave the pages, coursebook/state_files.py and own_pages.py) goes as brotli at
BROTLI_QUALITY to a client that accepts ``br``, 17–21 % smaller than gzip at level 4 (§8 22.4 →
17.8 KB, §13 39.9 → 33.0 KB, measured before those left) for about twice zlib's gzip at level 4
on those pages (§13 1.7 → 3.2 ms on this machine). Shorter pages, §1 among them, stay gzip:
there brotli gives less (§1 12.7 → 11.4 KB at quality 5) and would cost a returning learner's §1
more CPU (issue 18). Quality 6 rather than 5 (3 December 2026): §8 15.0 → 14.9 KB, §9 14.7 →
14.5, for 0.1–0.2 ms more a page (1.5 → 1.7 ms on §8); quality 7 gives 0.1 KB more, at times for
7 ms. The same BREACH mitigation: a brotli stream may carry metadata blocks that a decoder skips,
so one of a random length (0 to max_random_bytes - 1 bytes) goes in after the stream's header,
as the gzip file name does.
"""

from __future__ import annotations

import gzip
import re
import secrets
import struct
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import brotli
from django.http import HttpRequest, HttpResponseBase
from django.middleware.gzip import GZipMiddleware as DjangoGZipMiddleware
from django.middleware.gzip import re_accepts_gzip
from django.utils.cache import patch_vary_headers
from zlib_ng import gzip_ng, zlib_ng

COMPRESSLEVEL = 5  # zlib-ng's
BROTLI_FROM = 64 * 1024  # bytes of HTML from which a page goes as brotli (when accepted)
BROTLI_QUALITY = 6
re_accepts_brotli = re.compile(r"\bbr\b")


def compress_string(data: bytes, *, level: int, max_random_bytes: int = 0) -> bytes:
    """``data`` gzipped by zlib-ng at ``level`` (mtime 0), with a random-length file name in the
    header (0 to max_random_bytes - 1 bytes, as django.utils.text.compress_string) when asked."""
    compressed = gzip_ng.compress(data, compresslevel=level, mtime=0)
    if not max_random_bytes:
        return compressed
    return _gzip_header(compressed[:10], max_random_bytes) + compressed[10:]


def _gzip_header(plain: bytes, max_random_bytes: int) -> bytes:
    """A gzip header (``plain``: ten bytes, no file name) with a random-length file name when
    max_random_bytes asks for one."""
    if not max_random_bytes:
        return plain
    header = bytearray(plain)
    header[3] = gzip.FNAME
    return bytes(header) + b"a" * secrets.randbelow(max_random_bytes) + b"\x00"


# A page whose long runs were compressed before its response (issue 18) ---------------------------
#
# Most of a section page is the same for every learner who reads it in the same standing: the
# page around the body and the body's text before its first check. Compressing those bytes
# again for each response was a fifth of a section's CPU. A page may therefore come with runs of
# its bytes already deflated (Deflated, from learning/rendering.page_html), each as raw deflate
# blocks that end on a byte (a sync flush), compressed once against the bytes before it in the
# page with each response's own values (the CSRF token, the CSP nonce, the offline owner and
# keep list) as NUL bytes of the same length: a page holds no NUL, so no back-reference can
# point into a value that differs from response to response, and every other byte it points to
# is the same in every response of that shape. A response's gzip stream is then its header,
# the runs as they are, what lies between and after them deflated now (against the 32 KB of
# the page before them, so they refer back as far as a whole-page compression would; a short
# stretch goes as a stored block), and the CRC-32 of the whole page.

GZIP_HEADER = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"  # no name, mtime 0, OS unknown
WINDOW = 32 * 1024  # how far back deflate refers
RUN_LEVEL = 9  # a run is compressed once per page shape: the smallest zlib-ng makes
STORED_UP_TO = 64  # bytes between two runs sent as a stored block rather than deflated
_FINAL_EMPTY = b"\x03\x00"  # a last, empty block (fixed Huffman codes: the end of block)


@dataclass(frozen=True)
class Deflated:
    """``page`` (a response's bytes) with ``runs()``: (start, end, raw deflate blocks of
    page[start:end] ending on a byte), in order and apart; called only when the page goes as
    gzip (a long page goes as brotli)."""

    page: bytes
    runs: Callable[[], Sequence[tuple[int, int, bytes]]]


_DEFLATED = "_mm_deflated"


def deflated_set(response: HttpResponseBase, deflated: Deflated) -> None:
    """Say that ``response``'s content has runs already deflated (GZipMiddleware uses them
    while the content is still ``deflated.page``)."""
    setattr(response, _DEFLATED, deflated)


def deflate_run(data: bytes, before: bytes) -> bytes:
    """``data`` as raw deflate blocks ending on a byte (a sync flush), which may refer back into
    ``before`` (what the page holds before it, a response's own values as NUL bytes)."""
    compressor = _compressor(RUN_LEVEL, before)
    return compressor.compress(data) + compressor.flush(zlib_ng.Z_SYNC_FLUSH)


def gzip_with_runs(
    page: bytes,
    runs: Sequence[tuple[int, int, bytes]],
    *,
    level: int,
    max_random_bytes: int = 0,
) -> bytes:
    """``page`` gzipped: the runs as they were deflated, the rest deflated at ``level`` now."""
    out = [_gzip_header(GZIP_HEADER, max_random_bytes)]
    done = 0
    for start, end, blocks in runs:
        if start > done:
            out.append(_deflated_now(page, done, start, level, last=False))
        out.append(blocks)
        done = end
    out.append(_deflated_now(page, done, len(page), level, last=True))
    out.append(struct.pack("<II", zlib_ng.crc32(page), len(page) & 0xFFFFFFFF))
    return b"".join(out)


def _deflated_now(page: bytes, start: int, end: int, level: int, *, last: bool) -> bytes:
    if start == end:
        return _FINAL_EMPTY if last else b""
    data = page[start:end]
    if not last and len(data) <= STORED_UP_TO:
        return b"\x00" + struct.pack("<HH", len(data), len(data) ^ 0xFFFF) + data
    compressor = _compressor(level, page[max(0, start - WINDOW) : start])
    return compressor.compress(data) + compressor.flush(
        zlib_ng.Z_FINISH if last else zlib_ng.Z_SYNC_FLUSH
    )


def _compressor(level: int, before: bytes) -> Any:
    if not before:
        return zlib_ng.compressobj(level, zlib_ng.DEFLATED, -15)
    return zlib_ng.compressobj(
        level,
        zlib_ng.DEFLATED,
        -15,
        zlib_ng.DEF_MEM_LEVEL,
        zlib_ng.Z_DEFAULT_STRATEGY,
        before[-WINDOW:],
    )


def compress_brotli(data: bytes, *, quality: int, max_random_bytes: int = 0) -> bytes:
    """``data`` as a brotli stream at ``quality``, with a metadata block of a random length
    (0 to max_random_bytes - 1 bytes, at most 256) after the stream's header when asked.

    The encoder's header is flushed first (the stream's window size, then an empty metadata
    block that ends on a byte: RFC 7932 section 9.2), so a metadata block of ours can follow on
    a byte boundary: ISLAST 0, MNIBBLES 0 (the bits 11), a reserved 0, MSKIPBYTES 1, then
    MSKIPLEN - 1 in one byte, fill bits to the byte's end, and MSKIPLEN bytes a decoder skips.
    """
    encoder = brotli.Compressor(quality=quality, mode=brotli.MODE_TEXT)
    head = encoder.process(b"") + encoder.flush()
    padding = secrets.randbelow(min(max_random_bytes, 257)) if max_random_bytes else 0
    meta = b""
    if padding:
        meta = ((0b11 << 1) | (1 << 4) | ((padding - 1) << 6)).to_bytes(2, "little")
        meta += b"\x00" * padding
    return bytes(head + meta + encoder.process(data) + encoder.finish())


class GZipMiddleware(DjangoGZipMiddleware):
    """Django's GZipMiddleware with ``compresslevel`` for whole (non-streaming) responses, and
    brotli for those of BROTLI_FROM bytes or more when the client accepts it."""

    compresslevel = COMPRESSLEVEL

    def process_response(
        self, request: HttpRequest, response: HttpResponseBase
    ) -> HttpResponseBase:
        if response.streaming:
            return super().process_response(request, response)
        content = response.content
        if len(content) < 200 or response.has_header("Content-Encoding"):
            return response
        patch_vary_headers(response, ("Accept-Encoding",))
        accepts = request.META.get("HTTP_ACCEPT_ENCODING", "")
        if len(content) >= BROTLI_FROM and re_accepts_brotli.search(accepts):
            encoding = "br"
            compressed = compress_brotli(
                content, quality=BROTLI_QUALITY, max_random_bytes=self.max_random_bytes
            )
        elif re_accepts_gzip.search(accepts):
            encoding = "gzip"
            deflated: Deflated | None = getattr(response, _DEFLATED, None)
            if deflated is not None and deflated.page is content:
                compressed = gzip_with_runs(
                    content,
                    deflated.runs(),
                    level=self.compresslevel,
                    max_random_bytes=self.max_random_bytes,
                )
            else:
                compressed = compress_string(
                    content, level=self.compresslevel, max_random_bytes=self.max_random_bytes
                )
        else:
            return response
        if len(compressed) >= len(content):
            return response
        response.content = compressed
        response.headers["Content-Length"] = str(len(compressed))
        etag = response.get("ETag")
        if etag and etag.startswith('"'):
            response.headers["ETag"] = "W/" + etag
        response.headers["Content-Encoding"] = encoding
        return response
