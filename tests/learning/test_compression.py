"""mathmachine.web.compression.GZipMiddleware: Django's gzip behaviour at a cheaper level,
with the BREACH mitigation (random-length file name in the gzip header) kept."""

from __future__ import annotations

import gzip
import os

import brotli
import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.http import HttpResponse, StreamingHttpResponse
from django.test import Client, RequestFactory
from zlib_ng import gzip_ng, zlib_ng

from mathmachine.web.compression import (
    COMPRESSLEVEL,
    Deflated,
    GZipMiddleware,
    compress_string,
    deflate_run,
    deflated_set,
    gzip_with_runs,
)

from .conftest import SECTION_1

PAGE = ("<p>" + " ".join(f"attention weight {i} of the alignment map" for i in range(400))).encode()


def respond(response: HttpResponse, accept: str = "gzip, deflate, br") -> HttpResponse:
    request = RequestFactory().get("/", HTTP_ACCEPT_ENCODING=accept)
    return GZipMiddleware(lambda r: response)(request)  # type: ignore[return-value]


def deflate_stream(member: bytes) -> bytes:
    """The raw deflate data of a one-member gzip file (after its header and optional name)."""
    flags = member[3]
    start = 10
    if flags & gzip.FNAME:
        start = member.index(b"\x00", 10) + 1
    return member[start:-8]


def test_the_middleware_replaces_djangos_in_the_same_place() -> None:
    stack = settings.MIDDLEWARE
    assert "django.middleware.gzip.GZipMiddleware" not in stack
    ours = stack.index("mathmachine.web.compression.GZipMiddleware")
    assert stack.index("whitenoise.middleware.WhiteNoiseMiddleware") < ours
    assert ours < stack.index("django.contrib.sessions.middleware.SessionMiddleware")


def test_a_page_is_gzipped_at_the_chosen_level_and_reads_back_the_same() -> None:
    response = respond(HttpResponse(PAGE))
    assert response["Content-Encoding"] == "gzip"
    assert response["Vary"] == "Accept-Encoding"
    assert int(response["Content-Length"]) == len(response.content)
    assert gzip.decompress(response.content) == PAGE
    # zlib-ng's deflate at that level (not the standard library's: a cheaper encoder)
    expected = zlib_ng.compressobj(COMPRESSLEVEL, zlib_ng.DEFLATED, -zlib_ng.MAX_WBITS)
    raw = expected.compress(PAGE) + expected.flush()
    assert deflate_stream(response.content) == raw
    assert COMPRESSLEVEL < 6  # cheaper than Django's own level


def test_the_gzip_header_names_a_random_length_file_against_breach() -> None:
    lengths = set()
    for _ in range(40):
        body = respond(HttpResponse(PAGE)).content
        assert body[3] & gzip.FNAME
        name = body[10 : body.index(b"\x00", 10)]
        assert set(name) <= {ord("a")} and len(name) < GZipMiddleware.max_random_bytes
        lengths.add(len(name))
    assert len(lengths) > 1  # 40 equal lengths out of 100 would be a fixed padding


def test_no_gzip_for_a_client_that_does_not_accept_it() -> None:
    response = respond(HttpResponse(PAGE), accept="identity")
    assert not response.has_header("Content-Encoding")
    assert response.content == PAGE
    assert response["Vary"] == "Accept-Encoding"  # a cache must still tell the two apart


def test_short_encoded_or_incompressible_responses_are_left_alone() -> None:
    short = respond(HttpResponse(b"x" * 199))
    assert short.content == b"x" * 199 and not short.has_header("Content-Encoding")
    encoded = HttpResponse(PAGE, headers={"Content-Encoding": "br"})
    assert respond(encoded).content == PAGE
    noise = os.urandom(4096)
    random_bytes = respond(HttpResponse(noise))
    assert random_bytes.content == noise and not random_bytes.has_header("Content-Encoding")


def test_a_strong_etag_becomes_weak() -> None:
    response = respond(HttpResponse(PAGE, headers={"ETag": '"v1"'}))
    assert response["ETag"] == 'W/"v1"'


def test_streaming_responses_are_still_gzipped_by_djangos_code() -> None:
    response = respond(StreamingHttpResponse(iter([PAGE[:1000], PAGE[1000:]])))
    assert response["Content-Encoding"] == "gzip"
    assert gzip.decompress(b"".join(response.streaming_content)) == PAGE


def test_compress_string_without_padding_is_plain_gzip() -> None:
    plain = compress_string(PAGE, level=1)
    assert plain == gzip_ng.compress(PAGE, compresslevel=1, mtime=0)
    assert plain[3] == 0 and gzip.decompress(plain) == PAGE  # no name: a plain gzip member


@pytest.mark.django_db
def test_section_1_arrives_gzipped_through_the_whole_stack(client: Client) -> None:
    response = client.get(SECTION_1, HTTP_ACCEPT_ENCODING="gzip, br")
    assert response["Content-Encoding"] == "gzip"
    html = gzip.decompress(response.content).decode()
    assert "Pause &amp; predict" in html and html.rstrip().endswith("</html>")


LONG_PAGE = ("<p>" + " ".join(f"attention weight {i} of the map" for i in range(5000))).encode()


def test_a_long_page_goes_as_brotli_to_a_client_that_accepts_it() -> None:
    from mathmachine.web.compression import BROTLI_FROM

    assert len(LONG_PAGE) >= BROTLI_FROM > len(PAGE)
    response = respond(HttpResponse(LONG_PAGE))
    assert response["Content-Encoding"] == "br"
    assert response["Vary"] == "Accept-Encoding"
    assert int(response["Content-Length"]) == len(response.content)
    assert brotli.decompress(response.content) == LONG_PAGE
    assert len(response.content) < len(gzip.compress(LONG_PAGE, COMPRESSLEVEL))
    # without br in Accept-Encoding: gzip as before; a short page: gzip even with br
    assert respond(HttpResponse(LONG_PAGE), accept="gzip")["Content-Encoding"] == "gzip"
    assert respond(HttpResponse(PAGE), accept="br, gzip")["Content-Encoding"] == "gzip"
    assert not respond(HttpResponse(LONG_PAGE), accept="brotli").has_header("Content-Encoding")


def test_the_brotli_stream_carries_a_random_length_skipped_block_against_breach() -> None:
    from mathmachine.web.compression import BROTLI_QUALITY, compress_brotli

    plain = compress_brotli(LONG_PAGE, quality=BROTLI_QUALITY)
    lengths = set()
    for _ in range(40):
        body = respond(HttpResponse(LONG_PAGE)).content
        assert brotli.decompress(body) == LONG_PAGE  # the block is skipped by the decoder
        lengths.add(len(body) - len(plain))
    assert len(lengths) > 1 and min(lengths) >= 0
    assert max(lengths) <= GZipMiddleware.max_random_bytes + 2  # the block's own two bytes
    for padding_max in (1, 2, 300):  # no block, a block of 1 byte, at most 256 bytes
        for _ in range(20):
            body = compress_brotli(LONG_PAGE, quality=5, max_random_bytes=padding_max)
            assert brotli.decompress(body) == LONG_PAGE


@pytest.mark.django_db
def test_a_long_section_arrives_as_brotli_through_the_whole_stack(client: Client) -> None:
    from support import paid_order_create

    from mathmachine.billing.models import Product

    from .conftest import section_url

    user = get_user_model().objects.create_user("br@example.com", "br@example.com", "pw 42 br!")
    paid_order_create(user, Product.objects.get(code="unit-18"))
    client.force_login(user)
    response = client.get(section_url(13), HTTP_ACCEPT_ENCODING="gzip, br")
    assert response["Content-Encoding"] == "br"
    html = brotli.decompress(response.content).decode()
    assert '<article class="section-body"' in html and html.rstrip().endswith("</html>")


# A page with runs deflated before its response ---------------------------------------------------


def shaped_page(values: list[bytes]) -> tuple[bytes, list[tuple[int, int]], list[tuple[int, int]]]:
    """A page of fixed text with ``values`` between its parts (the holes), then a tail that
    differs per response; (page, fixed spans, holes)."""
    parts = [b"<head>" + PAGE[:900], PAGE[300:1700], b"<p>x</p>", PAGE[50:2000]]
    page, fixed, holes = b"", [], []
    for i, part in enumerate(parts):
        fixed.append((len(page), len(page) + len(part)))
        page += part
        if i < len(values):
            holes.append((len(page), len(page) + len(values[i])))
            page += values[i]
    return page + b"<p>the learner's own " + os.urandom(8).hex().encode() * 40, fixed, holes


def runs_of(page: bytes, fixed: list[tuple[int, int]], holes: list[tuple[int, int]]) -> list:
    """Each fixed span deflated against the page before it with the holes as NUL bytes."""
    template = bytearray(page)
    for start, end in holes:
        template[start:end] = b"\x00" * (end - start)
    return [(s, e, deflate_run(page[s:e], bytes(template[:s]))) for s, e in fixed]


def test_runs_deflated_once_serve_every_response_of_the_same_shape() -> None:
    """Runs made against one response's page (its own values as NUL bytes) are right in the
    gzip of another whose values differ but are as long: it decompresses to that page."""
    first, fixed, holes = shaped_page([b"a" * 24, b"token-" * 10, b"z"])
    runs = runs_of(first, fixed, holes)
    for _ in range(5):
        values = [os.urandom(12).hex().encode(), os.urandom(30).hex().encode(), b"q"]
        page, again, _ = shaped_page(values)
        assert again == fixed
        body = gzip_with_runs(page, runs, level=COMPRESSLEVEL)
        assert gzip.decompress(body) == page  # the CRC and the length at the end check too
        whole = compress_string(page, level=COMPRESSLEVEL)
        assert len(body) <= len(whole) + 120  # a few blocks' codes more, on a page this short


def test_a_page_of_runs_only_ends_with_an_empty_last_block() -> None:
    page = PAGE[:3000]
    runs = [
        (0, 1000, deflate_run(page[:1000], b"")),
        (1000, 3000, deflate_run(page[1000:], page[:1000])),
    ]
    body = gzip_with_runs(page, runs, level=COMPRESSLEVEL)
    assert gzip.decompress(body) == page and deflate_stream(body).endswith(b"\x03\x00")


def test_runs_keep_the_random_length_file_name_against_breach() -> None:
    page, fixed, holes = shaped_page([b"n" * 24])
    runs = runs_of(page, fixed, holes)
    lengths = set()
    for _ in range(40):
        body = gzip_with_runs(page, runs, level=COMPRESSLEVEL, max_random_bytes=100)
        assert body[3] & gzip.FNAME and gzip.decompress(body) == page
        lengths.add(body.index(b"\x00", 10) - 10)
    assert len(lengths) > 1


def test_the_middleware_uses_the_runs_only_while_the_content_is_their_page() -> None:
    page, fixed, holes = shaped_page([b"n" * 24])
    runs = runs_of(page, fixed, holes)
    response = HttpResponse(page)
    deflated_set(response, Deflated(page, lambda: runs))
    body = respond(response, accept="gzip").content
    assert gzip.decompress(body) == page
    assert deflate_stream(body).startswith(runs[0][2])  # the first run, as it was deflated
    changed = HttpResponse(page)
    deflated_set(changed, Deflated(page, lambda: runs))
    other = page.replace(b"<head>", b"<head><meta>")
    changed.content = other  # another middleware's change after the view
    assert gzip.decompress(respond(changed, accept="gzip").content) == other


def test_a_long_page_with_runs_still_goes_as_brotli() -> None:
    page = LONG_PAGE
    response = HttpResponse(page)
    deflated_set(response, Deflated(page, lambda: pytest.fail("runs made for brotli")))
    out = respond(response, accept="gzip, br")
    assert out["Content-Encoding"] == "br" and brotli.decompress(out.content) == page
