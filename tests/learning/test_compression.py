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

from mathmachine.web.compression import COMPRESSLEVEL, GZipMiddleware, compress_string

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
