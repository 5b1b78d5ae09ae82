"""Numbers past Python's int conversion limit (issue 17, item 6): never a 500.

``int()`` refuses a string of more than 4,300 digits (ValueError), and so does ``json.loads``
for such an integer. Before, a lab ``layer``, ``head``, ``query`` or ``key`` that long was an
HTML 500 with a traceback, on the JSON API and on the page without JavaScript. Every numeric
field of every operation in tests/fuzz/openapi.json (``type: integer`` or ``x-numeric``) is sent
numbers of 4,301 and 10,000 digits, alone and beside good values: the answer is a 4xx or 200
in the operation's JSON shape (a lab field names itself in ``field``), never a 5xx. The pages
that read numbers from their address (the lab without JavaScript, a section's number, a seed)
answer with a page, never a 500.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from django.test import Client
from test_json_endpoints import OPERATIONS, _buyer

pytestmark = pytest.mark.django_db

UNIT = "attention-and-transformers"
HUGE = ["9" * 4301, "1" + "0" * 9999, "-" + "7" * 4301, "0" * 5000 + "1"]
GOOD = {"text": "I drink tea", "view": "neuron", "layer": "1", "head": "1"}
GOOD.update(query="1", key="2")


def _numeric(schema: dict[str, Any], path: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    """Paths (property names) of the numeric fields in ``schema``."""
    if schema.get("type") in ("integer", "number") or schema.get("x-numeric"):
        yield path
    for name, sub in schema.get("properties", {}).items():
        yield from _numeric(sub, (*path, name))
    if "items" in schema:
        yield from _numeric(schema["items"], path)


CASES = [
    (path, op, field)
    for path, _, op in OPERATIONS
    for media in op["requestBody"]["content"].values()
    for field in _numeric(media["schema"])
]


def test_every_operation_has_numeric_fields_to_send() -> None:
    assert {p for p, _, _ in CASES} == {p for p, _, _ in OPERATIONS}


def _url(path: str, op: dict[str, Any]) -> str:
    params = {
        p["name"]: next(iter(p.get("examples", {}).values()))["value"]
        for p in op.get("parameters", [])
    }
    return path.format(**params)


def _json_body(field: tuple[str, ...], digits: str) -> bytes:
    """A JSON body with ``digits`` as a bare integer at ``field`` (json.dumps cannot write one
    past the limit: the text is built by hand)."""
    body: dict[str, Any] = {"event": "payment.captured"}
    node = body
    for name in field[:-1]:
        node = node.setdefault(name, {})
    node[field[-1]] = "@HUGE@"
    return json.dumps(body).replace('"@HUGE@"', digits).encode()


@pytest.mark.parametrize(
    ("path", "op", "field"), CASES, ids=[f"{p}:{'.'.join(f)}" for p, _, f in CASES]
)
@pytest.mark.parametrize("digits", HUGE, ids=["4301", "10000", "minus", "zeros"])
def test_a_number_past_the_int_limit_is_never_a_server_error(
    path: str, op: dict[str, Any], field: tuple[str, ...], digits: str
) -> None:
    client = Client(raise_request_exception=False)
    if op.get("x-fuzz-buyer"):
        client.force_login(_buyer())
    url = _url(path, op)
    headers = {"Accept": "application/json"}
    (media_type,) = op["requestBody"]["content"]
    if media_type == "application/json":
        data = _json_body(field, digits.lstrip("-") if digits.startswith("-") else digits)
        if op.get("x-fuzz-sign"):
            from mathmachine.billing.providers.base import hmac_sha256_hex
            from mathmachine.billing.providers.testmode import TestModeProvider

            secret = TestModeProvider.from_settings().webhook_secret
            headers["X-Razorpay-Signature"] = hmac_sha256_hex(secret, data)
        response = client.post(url, data=data, content_type=media_type, headers=headers)
    else:
        name = field[-1]
        body = {**GOOD, name: digits} if op.get("x-fuzz-buyer") else {name: digits}
        if name == "answer":
            body = {"answer": [digits]}
        response = client.post(url, body, headers=headers)
    assert response.status_code < 500, response.content[:300]
    assert response.status_code in {int(code) for code in op["responses"]}
    assert response["Content-Type"].startswith("application/json")
    payload = response.json()
    if op.get("x-fuzz-buyer") and digits.startswith("0"):
        assert response.status_code == 200, payload  # 5,000 zeros and a 1 are 1, a fine choice
    elif op.get("x-fuzz-buyer"):
        assert response.status_code == 400
        assert set(payload) == {"error", "field"} and payload["field"] == field[-1], payload


@pytest.mark.parametrize("name", ["layer", "head"])
@pytest.mark.parametrize("digits", HUGE[:2], ids=["4301", "10000"])
def test_the_lab_page_without_javascript_says_what_is_wrong(name: str, digits: str) -> None:
    client = Client(raise_request_exception=False)
    client.force_login(_buyer())
    response = client.get(
        f"/units/{UNIT}/lab/", {"text": "I drink tea", "layer": "1", "head": "1", name: digits}
    )
    assert response.status_code == 400
    page = response.content.decode()
    assert f"Choose a {name} from 1 to" in page and 'role="alert"' in page


@pytest.mark.parametrize("digits", HUGE[:2], ids=["4301", "10000"])
def test_numbers_in_page_addresses(digits: str) -> None:
    client = Client(raise_request_exception=False)
    assert client.get(f"/units/{UNIT}/{digits}/").status_code == 404
    seeded = client.get(f"/units/{UNIT}/1/", {"seed-s1-sharpen": digits})
    assert seeded.status_code == 200
