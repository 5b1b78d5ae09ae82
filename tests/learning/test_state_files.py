"""A widget's large state as a file of its own (issue 19, coursebook/state_files.py): the
compiler moves every state of STATE_FILE_FROM bytes or more out of the page into the compiled
unit; ``GET /units/<slug>/data/<hash>.json`` serves it, brotli, cached a year, gated like its
section; the page keeps its fallback for readers without JavaScript."""

from __future__ import annotations

import json
import re
from typing import Any

import brotli
import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from support import bought_order_create

from mathmachine.coursebook.model import CompiledUnit
from mathmachine.coursebook.state_files import STATE_FILE_FROM, file_name, split_states

UNIT = "attention-and-transformers"
_STATE = re.compile(r'<script type="application/json" data-state([^>]*)>(.*?)</script>', re.S)


def test_split_states_moves_only_the_large_ones() -> None:
    small = json.dumps({"beta": 1.5})
    large = json.dumps({"xs": list(range(STATE_FILE_FROM))})
    html = (
        f'<a-w><script type="application/json" data-state>{small}</script><p data-nojs>1.5</p>'
        f'</a-w><b-w><script type="application/json" data-state>{large}</script></b-w>'
    )
    page, files = split_states(html)
    name = file_name(large.encode())
    assert files == {name: large.encode()}
    assert f'<script type="application/json" data-state>{small}</script>' in page
    assert f'<script type="application/json" data-state data-src="../data/{name}"></script>' in page
    assert large not in page and "<p data-nojs>1.5</p>" in page
    assert split_states(page) == (page, {})  # nothing left to move


def test_no_page_carries_a_large_state(unit18: CompiledUnit) -> None:
    """Every state in a page is small; each file named is the unit's, of that section, and is
    the JSON the widget reads; the sections with one still have their fallback."""
    named = {}
    for s in unit18.with_drafts().sections:
        for attributes, body in _STATE.findall(s.html):
            assert len(body.encode()) < STATE_FILE_FROM, s.number
            found = re.search(r'data-src="\.\./data/([0-9a-f]{16}\.json)"', attributes)
            if found:
                assert body == ""
                named[found.group(1)] = s.number
    assert named, "no state is a file of its own"
    states = {n: k for n, k in unit18.state_file_sections.items() if n.endswith(".json")}
    assert named == states
    for name, data in unit18.state_files.items():
        if not name.endswith(".json"):
            continue  # a picture (test_pictures.py)
        assert len(data) >= STATE_FILE_FROM and file_name(data) == name
        assert isinstance(json.loads(data), dict)
    for number in set(named.values()):
        assert "data-nojs" in unit18.with_drafts().section(number).html


def _client(email: str, *, buy: bool) -> Client:
    user = get_user_model().objects.create_user(email, email, "a long test password 42")
    if buy:
        bought_order_create(user)
    client = Client()
    client.force_login(user)
    return client


@pytest.mark.django_db
def test_a_state_file_is_served_to_its_readers_only(unit18: CompiledUnit) -> None:
    name, number = next((n, k) for n, k in unit18.state_file_sections.items() if ".json" in n)
    assert not unit18.with_drafts().section(number).free
    url = f"/units/{UNIT}/data/{name}"
    owner = _client("owner@example.com", buy=True)
    response = owner.get(url, HTTP_ACCEPT_ENCODING="gzip, deflate, br")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert response["Content-Encoding"] == "br"
    assert brotli.decompress(response.content) == unit18.state_files[name]
    control = response["Cache-Control"]
    assert "private" in control and "max-age=31536000" in control and "immutable" in control
    assert "Accept-Encoding" in response["Vary"]
    plain = owner.get(url, HTTP_ACCEPT_ENCODING="identity")
    assert plain.content == unit18.state_files[name] and not plain.has_header("Content-Encoding")
    for client in (Client(), _client("other@example.com", buy=False)):
        refused: Any = client.get(url)
        assert refused.status_code == 403
        assert "no-store" in refused["Cache-Control"]
        assert unit18.state_files[name][:40] not in refused.content
    assert owner.get(f"/units/{UNIT}/data/{'0' * 16}.json").status_code == 404
    assert owner.post(url).status_code == 405
