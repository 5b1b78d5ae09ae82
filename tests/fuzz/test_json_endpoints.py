"""Schema-driven fuzz of the JSON endpoints (issue 10, "bad input, generated"): 0 server errors.

Every operation in tests/fuzz/openapi.json is called with requests that hypothesis builds from
it: path parameters from their examples or random text, bodies that follow the schema (with
random values and extra keys) or are random JSON, sometimes not JSON at all. A signed operation
(x-fuzz-sign) is signed with the test-mode webhook secret, so the handler behind the signature
is fuzzed too; one marked x-fuzz-buyer is called by a learner who bought the unit, so the handler
behind the gate is. Whatever comes in, the answer is never 5xx and always JSON.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

DESCRIPTION = json.loads((Path(__file__).parent / "openapi.json").read_text(encoding="utf-8"))
OPERATIONS = [
    (path, method, op) for path, item in DESCRIPTION["paths"].items() for method, op in item.items()
]
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


def from_schema(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    """Values that follow ``schema`` (mostly), or anything at all (sometimes)."""
    if "enum" in schema:
        shaped: st.SearchStrategy[Any] = st.sampled_from(schema["enum"]) | st.text(max_size=20)
    elif schema.get("type") == "object":
        props = {k: from_schema(v) for k, v in schema.get("properties", {}).items()}
        shaped = st.fixed_dictionaries({}, optional=props) | st.dictionaries(
            st.text(max_size=8), JSON_VALUES, max_size=3
        )
    elif schema.get("type") == "array":
        shaped = st.lists(from_schema(schema.get("items", {})), max_size=4)
    elif schema.get("type") == "integer":
        shaped = st.integers(min_value=-(2**63), max_value=2**63) | st.sampled_from([29900, 0, 100])
    elif schema.get("type") == "string":
        # ... and numbers past Python's int conversion limit (4,300 digits; issue 17)
        shaped = st.text(max_size=40) | st.sampled_from(
            ["", "0.017 0.047 0.936", "35", "1e309", "9" * 4301, "1" + "0" * 9999]
        )
    else:
        shaped = JSON_VALUES
    return shaped | JSON_VALUES if schema.get("type") != "string" else shaped


def path_value(parameter: dict[str, Any]) -> st.SearchStrategy[str]:
    examples = [e["value"] for e in parameter.get("examples", {}).values()]
    slug = st.from_regex(r"[a-z0-9-]{1,30}", fullmatch=True)
    return st.sampled_from(examples) | slug if examples else slug


def request_for(path: str, op: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    params = {p["name"]: path_value(p) for p in op.get("parameters", []) if p["in"] == "path"}
    content = op.get("requestBody", {}).get("content", {})
    (media_type, media), *_ = content.items()
    body = from_schema(media.get("schema", {}))
    return st.fixed_dictionaries(
        {"params": st.fixed_dictionaries(params), "body": body, "raw": st.booleans()}
    ).map(lambda r: {**r, "media_type": media_type})


def _form(body: Any) -> dict[str, Any]:
    if not isinstance(body, dict):
        return {"answer": [json.dumps(body)]}
    return {str(k): [json.dumps(x) if not isinstance(x, str) else x for x in v]
            if isinstance(v, list) else (v if isinstance(v, str) else json.dumps(v))
            for k, v in body.items()}  # fmt: skip


def _call(client: Client, path: str, op: dict[str, Any], request: dict[str, Any]) -> Any:
    url = path.format(**request["params"])
    headers = {"Accept": "application/json"}
    if request["media_type"] == "application/json":
        data = json.dumps(request["body"]).encode()
        if request["raw"]:
            data = data[: len(data) // 2]  # not JSON at all
        if op.get("x-fuzz-sign"):
            from mathmachine.billing.providers.base import hmac_sha256_hex
            from mathmachine.billing.providers.testmode import TestModeProvider

            secret = TestModeProvider.from_settings().webhook_secret
            headers["X-Razorpay-Signature"] = hmac_sha256_hex(secret, data)
        return client.post(url, data=data, content_type="application/json", headers=headers)
    return client.post(url, _form(request["body"]), headers=headers)


def _buyer() -> Any:
    """A signed-in learner who bought Unit 18 (x-fuzz-buyer)."""
    from django.contrib.auth import get_user_model
    from support import paid_order_create

    from mathmachine.billing.models import Product

    user = get_user_model().objects.create_user(
        username="fuzz@example.com", email="fuzz@example.com"
    )
    paid_order_create(user, Product.objects.get(code="unit-18"))
    return user


@pytest.mark.django_db
@pytest.mark.parametrize(("path", "method", "op"), OPERATIONS, ids=[p for p, _, _ in OPERATIONS])
def test_no_server_error(path: str, method: str, op: dict[str, Any]) -> None:
    assert method == "post"
    client = Client(raise_request_exception=False)
    if op.get("x-fuzz-buyer"):
        client.force_login(_buyer())

    @settings(
        max_examples=100,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    @given(request=request_for(path, op))
    def fuzz(request: dict[str, Any]) -> None:
        response = _call(client, path, op, request)
        assert response.status_code < 500, (request, response.content[:500])
        declared = {int(code) for code in op["responses"]}
        assert response.status_code in declared, (response.status_code, request)
        if response.status_code != 404:
            assert response["Content-Type"].startswith("application/json"), request
            json.loads(response.content)

    fuzz()
