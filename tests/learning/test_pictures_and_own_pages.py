"""What else leaves a section's page when the unit compiles (issue 19, a repeat visit's page in
<= 15 KB): a large picture its widget's script never touches, as an SVG file of the unit's own
drawn by an <image> (coursebook/state_files.py split_pictures: §8's map of the sinusoidal
encoding, §13's loss curve), and a long fallback on a page of its own (coursebook/own_pages.py:
§13's walk as tables, at /units/<slug>/13/walk/), both gated like their section."""

from __future__ import annotations

import re
from typing import Any

import brotli
import pytest
from django.test import Client
from django.utils.html import escape

from mathmachine.coursebook.model import CompiledUnit
from mathmachine.coursebook.own_pages import split_own_pages
from mathmachine.coursebook.state_files import PICTURE_FROM, split_pictures
from mathmachine.coursebook.widgets import tiny_walk
from mathmachine.learning import keeping

from .test_state_files import _client

UNIT = "attention-and-transformers"
_IMAGE = re.compile(
    r'<image href="\.\./data/([0-9a-f]{16}\.svg)" width="([\d.]+)" height="([\d.]+)"/>'
)


def _cells(n: int) -> str:
    return "".join(f'<rect x="{i}" y="0" width="1" height="1" fill="#0b6e69"/>' for i in range(n))


def test_a_large_marked_group_becomes_an_image_of_its_own_file() -> None:
    big, small = _cells(PICTURE_FROM // 40), _cells(3)
    html = (
        f'<svg viewBox="0 0 320 200"><title>t</title><g data-picture="320 200">'
        f'<g class="cols" fill="#1d2330"><text x="1" y="2">5</text></g>{big}</g>'
        f'<rect class="mark"/></svg>'
        f'<svg><g class="lines" data-picture="10 10">{small}</g></svg>'
        f'<svg><g data-picture="10 10"><text>चाय</text>{big}</g></svg>'
    )
    page, files = split_pictures(html)
    ((name, body),) = files.items()
    image = _IMAGE.search(page)
    assert image and image.groups() == (name, "320", "200")
    svg = body.decode()
    assert svg.startswith('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 320 200"')
    assert big in svg and '<g class="cols" fill="#1d2330"><text x="1" y="2">5</text></g>' in svg
    assert big not in page.split("</svg>")[0] and '<rect class="mark"/>' in page
    # Too small to be worth a request, or with Devanagari (an image cannot use the page's
    # font): they stay, unmarked.
    assert f'<g class="lines">{small}</g>' in page and f"<g><text>चाय</text>{big}</g>" in page
    assert "data-picture" not in page
    assert split_pictures(page) == (page, {})


def test_a_marked_part_goes_to_a_page_of_its_own() -> None:
    html = (
        '<x-w><p data-nojs>before</p><div class="a" data-own-page="walk" '
        'data-own-page-title="The walk &amp; its tables"><div><table><tr><td>1</td></tr>'
        "</table></div></div><p>after</p></x-w>"
    )
    page, pages = split_own_pages(html)
    (own,) = pages
    assert (own.name, own.title) == ("walk", "The walk & its tables")
    assert own.html == '<div class="a"><div><table><tr><td>1</td></tr></table></div></div>'
    assert page == (
        '<x-w><p data-nojs>before</p><p class="own-page-link"><a href="walk/">The walk &amp; its '
        "tables</a></p><p>after</p></x-w>"
    )
    twice = '<div data-own-page="a" data-own-page-title="A"></div>' * 2
    with pytest.raises(ValueError, match="both named"):
        split_own_pages(twice)


def test_the_unit_draws_its_large_pictures_from_files(unit18: CompiledUnit) -> None:
    """§8's 16 × 32 map and §13's loss curve are files; their pages keep the title, the
    description, the outlines heatmap.js moves, and the options that place them."""
    pictures = {n: k for n, k in unit18.state_file_sections.items() if n.endswith(".svg")}
    assert sorted(pictures.values()) == [8, 13]
    for name, number in pictures.items():
        html = unit18.section(number).html
        assert f'href="../data/{name}"' in html
        svg = unit18.state_files[name].decode()
        assert svg.startswith('<svg xmlns="http://www.w3.org/2000/svg"')
    s8 = unit18.section(8).html
    map8 = s8[s8.index('<figure class="wk-hm sc-map') :].split("</figure>")[0]
    assert "rect data-r" not in map8 and 'class="wk-hm-row"' in map8 and 'class="wk-hm-key"' in map8
    assert "&quot;left&quot;:" in map8 and "&quot;top&quot;:" in map8
    (name8,) = [n for n, k in pictures.items() if k == 8]
    svg8 = unit18.state_files[name8].decode()
    assert svg8.count("<rect ") == 16 * 32 and svg8.count("data-r=") >= 16 * 32
    (name13,) = [n for n, k in pictures.items() if k == 13]
    assert "<polyline" in unit18.state_files[name13].decode()
    assert "wk-plot-line-0" in unit18.state_files[name13].decode()  # plots.css came with it


@pytest.mark.django_db
def test_a_picture_is_served_as_an_svg_image_to_its_readers_only(unit18: CompiledUnit) -> None:
    name = next(n for n in unit18.state_file_sections if n.endswith(".svg"))
    url = f"/units/{UNIT}/data/{name}"
    owner = _client("owner@example.com", buy=True)
    response = owner.get(url, HTTP_ACCEPT_ENCODING="br")
    assert response.status_code == 200 and response["Content-Type"] == "image/svg+xml"
    assert brotli.decompress(response.content) == unit18.state_files[name]
    assert "immutable" in response["Cache-Control"]
    for client in (Client(), _client("other@example.com", buy=False)):
        refused: Any = client.get(url)
        assert refused.status_code == 403 and b"<svg" not in refused.content


@pytest.mark.django_db
def test_the_walk_as_tables_is_a_page_of_its_own(unit18: CompiledUnit) -> None:
    """§13's page links to it where the tables were; the page holds them (the walk's every
    number, the Hindi it writes), with the section's styles, as its owner keeps it."""
    s13 = unit18.section(13)
    (own,) = s13.own_pages
    assert own.name == tiny_walk.OWN_PAGE and "tw-vectors" in own.html
    assert "tw-vectors" not in s13.html and f'<a href="{own.name}/">' in s13.html
    url = f"/units/{UNIT}/13/{own.name}/"
    owner = _client("owner@example.com", buy=True)
    page = owner.get(url)
    assert page.status_code == 200
    html = page.content.decode()
    assert f'<h1 id="own-page-title">{own.title}</h1>' in html
    assert html.count('class="wk-table tw-vectors"') == 3 and "मैं चाय पीता हूँ" in html
    assert f'href="/units/{UNIT}/13/"' in html and "tiny-walk" in html  # back, its stylesheet
    assert "private" in page["Cache-Control"] and "no-cache" in page["Cache-Control"]
    assert "no-store" not in page["Cache-Control"]  # kept on the phone with the unit
    # A section's page on its own goes with the section: locked for anyone else.
    for client in (Client(), _client("other@example.com", buy=False)):
        refused = client.get(url)
        assert refused.status_code == 403 and b"tw-vectors" not in refused.content
    assert owner.get(f"/units/{UNIT}/13/nothing/").status_code == 404
    assert owner.get(f"/units/{UNIT}/12/{own.name}/").status_code == 404
    assert owner.post(url).status_code == 405
    # Kept with the unit, right after the sections.
    kept = owner.get(f"/units/{UNIT}/keep/").json()
    assert url in kept["urls"]
    assert kept["urls"].index(url) > kept["urls"].index(f"/units/{UNIT}/15/")
    assert url in keeping.kept_page_paths(unit18)


@pytest.mark.django_db
def test_every_page_of_its_own_opens_for_the_owner_and_is_kept(unit18: CompiledUnit) -> None:
    """Each section's parts on pages of their own (from the compiled unit: a new one is covered
    here without a list to edit) open for an owner, say where they belong, and are kept."""
    owner = _client("owner@example.com", buy=True)
    kept = owner.get(f"/units/{UNIT}/keep/").json()["urls"]
    found = 0
    for s in unit18.sections:
        for own in s.own_pages:
            found += 1
            url = f"/units/{UNIT}/{s.number}/{own.name}/"
            html = owner.get(url).content.decode()
            assert f"<title>{escape(own.title)} · §{s.number} · Unit 18" in html
            assert f'<a href="{own.name}/">' in s.html and url in kept
    assert found >= 2
    # §8's map, every number: 16 dimensions by 32 positions.
    (numbers,) = unit18.section(8).own_pages
    body = numbers.html[numbers.html.index("<tbody>") :]
    assert body.count("<tr>") == 16 and body.count("<td") == 16 * 32
