"""The kit's server route (mathmachine/learning/widget_api.py, views.widget_api), tested once for
every widget that uses it: the gate of the sections that use the widget, errors as JSON, private
answers, no CSRF token needed. Routes are swapped for small answer functions here (the lab's own
numbers are tests/learning/test_lab.py's), and every real route is checked to answer."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from support import paid_order_create

from mathmachine.billing import services as billing
from mathmachine.billing.models import Order, Product
from mathmachine.learning import selectors, widget_api
from mathmachine.learning.widget_api import ROUTES, Route, WidgetInputError

UNIT = "attention-and-transformers"
pytestmark = pytest.mark.django_db

CALLS: list[dict[str, Any]] = []


def echo(data: Any) -> dict[str, Any]:
    """A route's answer function: the text back, or WidgetInputError for "bad"."""
    CALLS.append(dict(data.items()))
    if data.get("text") == "bad":
        raise WidgetInputError("That text cannot be answered.", field="text")
    if data.get("layer") == "0":
        raise WidgetInputError("Choose a layer from 1 to 6.", field="layer")
    return {"echo": data.get("text", ""), "n": 3}


@pytest.fixture(autouse=True)
def routes(monkeypatch: pytest.MonkeyPatch) -> None:
    """A route for a widget of a paid section (two-heads, §7) and one of a free section
    (translate-lookback, §1), answered by echo()."""
    CALLS.clear()
    monkeypatch.setitem(ROUTES, "two-heads", Route("The two heads", f"{__name__}:echo"))
    monkeypatch.setitem(ROUTES, "translate-lookback", Route("The look back", f"{__name__}:echo"))


def url(widget: str) -> str:
    return f"/units/{UNIT}/widgets/{widget}/"


def _user(email: str) -> Any:
    return get_user_model().objects.create_user(
        username=email, email=email, password="a long test password 42"
    )


def _client(user: Any = None) -> Client:
    client = Client(enforce_csrf_checks=True)  # the route needs no CSRF token
    if user is not None:
        client.force_login(user)
    return client


def _private(response: Any) -> None:
    assert "private" in response["Cache-Control"] and "no-store" in response["Cache-Control"]
    assert "Cookie" in response["Vary"]


def _locked(response: Any, number: int) -> None:
    assert response.status_code == 403
    body = response.json()
    assert set(body) == {"error"} and f"§{number}" in body["error"]
    assert "unlock" in body["error"]
    _private(response)


def test_the_gate_anonymous_non_buyer_buyer_and_after_refund() -> None:
    _locked(_client().post(url("two-heads"), {"text": "tea"}), 7)
    _locked(_client(_user("ravi@example.com")).post(url("two-heads"), {"text": "tea"}), 7)
    asha = _user("asha@example.com")
    client = _client(asha)
    order = billing.order_create(user=asha, product=Product.objects.get(code="unit-18"))
    billing.payment_record_captured(
        order=order, payment_id="pay_route0001", amount_paise=order.amount_paise,
        currency=order.currency, source="test",
    )  # fmt: skip
    ok = client.post(url("two-heads"), {"text": "tea"})
    assert ok.status_code == 200 and ok.json() == {"echo": "tea", "n": 3}
    _private(ok)
    billing.refund_request(order=order, requested_by=asha)
    order.refresh_from_db()
    assert order.state == Order.State.REFUNDED
    _locked(client.post(url("two-heads"), {"text": "tea"}), 7)
    assert [c["text"] for c in CALLS] == ["tea"]  # answered only for the buyer


def test_a_widget_of_a_free_section_answers_everyone() -> None:
    got = _client().post(url("translate-lookback"), {"text": "chai"})
    assert got.status_code == 200 and got.json()["echo"] == "chai"
    _private(got)


def test_bad_input_is_a_400_that_names_the_field_and_before_the_gate_nothing_is_answered() -> None:
    user = _user("buyer@example.com")
    paid_order_create(user, Product.objects.get(code="unit-18"))
    client = _client(user)
    for data, field in (({"text": "bad"}, "text"), ({"text": "x", "layer": "0"}, "layer")):
        got = client.post(url("two-heads"), data)
        assert got.status_code == 400 and set(got.json()) == {"error", "field"}
        assert got.json()["field"] == field
        _private(got)
    CALLS.clear()
    _locked(_client().post(url("two-heads"), {"text": "bad"}), 7)
    assert CALLS == []


def test_what_is_not_there_is_a_json_404_and_only_post_is_answered() -> None:
    for path in (
        url("no-such-widget"),
        url("soft-dictionary"),  # a widget with no route
        "/units/no-such-unit/widgets/two-heads/",
    ):
        got = _client().post(path, {"text": "tea"})
        assert got.status_code == 404 and set(got.json()) == {"error"}, path
    got = _client().get(url("translate-lookback"), {"text": "chai"})
    assert got.status_code == 405 and got["Allow"] == "POST" and set(got.json()) == {"error"}
    assert CALLS == []


def test_a_route_for_a_widget_no_section_uses_is_a_404(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(ROUTES, "unused-widget", Route("Nothing", f"{__name__}:echo"))
    got = _client().post(url("unused-widget"), {"text": "tea"})
    assert got.status_code == 404 and CALLS == []


def test_the_lab_answers_at_its_first_address_through_the_same_view() -> None:
    from django.urls import resolve

    first = resolve(f"/units/{UNIT}/lab/attention/")
    generic = resolve(url("attention-lab"))
    assert first.func is generic.func
    assert first.kwargs == {"unit_slug": UNIT, "widget": "attention-lab"}
    _locked(_client().post(f"/units/{UNIT}/lab/attention/", {"text": "tea"}), 6)
    _locked(_client().post(url("attention-lab"), {"text": "tea"}), 6)


@pytest.mark.parametrize("widget", sorted(ROUTES))
def test_every_real_route_is_used_by_a_section_and_its_answer_function_imports(
    widget: str,
) -> None:
    route = widget_api.ROUTES[widget]
    assert callable(route.answer())
    unit = selectors.unit_get(UNIT).with_drafts()  # a draft's widget counts as used (staff)
    assert widget_api.sections_using(unit, widget), f"no section uses {widget}"
