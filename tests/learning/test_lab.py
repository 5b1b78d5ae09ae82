"""The attention lab's JSON API and its page without JavaScript (mathmachine/learning/lab.py).

Gated like §6 (anonymous, signed-in non-buyer, buyer, after a refund); its numbers are the
engine's for the same text; bad input is a 400 that names the problem; 20 requests at once.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterator

import numpy as np
import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.test import Client
from support import in_parallel, products_restore

from mathmachine.billing import services as billing
from mathmachine.billing.models import Order, Product
from mathmachine.engine import shares_rounded
from mathmachine.engine.pretrained import load_minilm
from mathmachine.learning import lab, route_limits
from mathmachine.learning.models import CheckAnswer, SectionVisit

UNIT = "attention-and-transformers"
API = f"/units/{UNIT}/lab/attention/"
PAGE = f"/units/{UNIT}/lab/"
TEXT = "The bank of the river was muddy after the rain."

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fresh_caches() -> None:
    lab.clear_caches()
    cache.clear()


def _user(email: str) -> object:
    return get_user_model().objects.create_user(
        username=email, email=email, password="a long test password 42"
    )


def _buy(user: object) -> Order:
    order = billing.order_create(user=user, product=Product.objects.get(code="unit-18"))
    outcome = billing.payment_record_captured(
        order=order,
        payment_id=f"pay_lab{user.pk:06d}",  # type: ignore[attr-defined]
        amount_paise=order.amount_paise,
        currency=order.currency,
        source="test",
    )
    assert outcome.granted
    return order


@pytest.fixture
def buyer() -> Client:
    user = _user("buyer@example.com")
    _buy(user)
    client = Client()
    client.force_login(user)
    return client


def _post(client: Client, **data: str) -> object:
    return client.post(API, {"text": TEXT, **data}, HTTP_ACCEPT="application/json")


def _no_numbers(response: object) -> None:
    assert response.status_code == 403  # type: ignore[attr-defined]
    body = response.json()  # type: ignore[attr-defined]
    assert set(body) == {"error"} and "§6" in body["error"]
    assert "private" in response["Cache-Control"]  # type: ignore[index]


@pytest.mark.parametrize("view", ["head", "heads", "neuron"])
def test_the_gate_anonymous_non_buyer_buyer_and_after_refund(view: str) -> None:
    extra = {"view": view, "layer": "2", "head": "3", "query": "1", "key": "2"}
    _no_numbers(_post(Client(), **extra))
    someone = Client()
    someone.force_login(_user("ravi@example.com"))
    _no_numbers(_post(someone, **extra))
    asha = _user("asha@example.com")
    client = Client()
    client.force_login(asha)
    order = _buy(asha)
    ok = _post(client, **extra)
    assert ok.status_code == 200 and "tokens" in ok.json()
    billing.refund_request(order=order, requested_by=asha)
    order.refresh_from_db()
    assert order.state == Order.State.REFUNDED
    _no_numbers(_post(client, **extra))
    # the page without JavaScript is gated the same way: the locked page, no table
    page = client.get(PAGE, {"text": TEXT, "layer": "2", "head": "3"})
    assert page.status_code == 403 and b"wk-hm-svg" not in page.content
    assert b"unlock" in page.content.lower()


def test_bad_input_before_the_gate_still_gets_no_numbers() -> None:
    _no_numbers(Client().post(API, {"text": "\x00"}))


def test_one_head_is_the_engines_rounded_and_each_row_sums_to_1(buyer: Client) -> None:
    got = _post(buyer, layer="5", head="7").json()
    run = load_minilm().run(TEXT)
    assert (
        got["tokens"] == run.tokens and got["tokens"][0] == "[CLS]" and got["n"] == len(run.tokens)
    )
    w = np.array(got["weights"])
    assert w.shape == (got["n"], got["n"])  # one head, never [6, 12, n, n]
    assert np.max(np.abs(w - run.attention[4, 6])) <= 10 ** -got["places"]
    units = np.rint(w * 10 ** got["places"]).astype(int)
    assert (units.sum(axis=1) == 10 ** got["places"]).all()  # exactly 1.000 at the precision sent
    assert np.allclose(w.sum(axis=1), 1.0, atol=1e-9)
    assert got["sink"] == pytest.approx(
        float((run.attention[4, 6][:, 0] + run.attention[4, 6][:, -1]).mean()), abs=0.005
    )


def test_the_thumbnails_are_72_heads_at_one_digit(buyer: Client) -> None:
    got = _post(buyer, view="heads").json()
    att = load_minilm().run(TEXT).attention
    n = got["n"]
    assert len(got["thumbnails"]) == 72 and "weights" not in got
    for t in got["thumbnails"]:
        cells = np.array([int(c) for c in t["cells"]]).reshape(n, n)
        exact = att[t["layer"] - 1, t["head"] - 1] * got["levels"]
        assert np.max(np.abs(cells - exact)) <= 0.5 + 1e-6


def test_the_neuron_view_is_the_engines(buyer: Client) -> None:
    got = _post(buyer, view="neuron", layer="6", head="1", query="3", key="0").json()
    model = load_minilm()
    view = model.neuron_view(model.run(TEXT), 5, 0, 3, 0)
    assert got["d_k"] == 32 and len(got["q"]) == len(got["k"]) == len(got["products"]) == 32
    assert np.allclose(got["q"], view.q, atol=5e-4) and np.allclose(got["k"], view.k, atol=5e-4)
    assert np.allclose(got["products"], view.products, atol=5e-4)
    assert got["score"] == pytest.approx(view.score, abs=5e-4)
    assert got["sqrt_d"] == pytest.approx(5.657, abs=5e-4)
    assert got["scaled"] == pytest.approx(view.scaled, abs=5e-4)
    assert np.allclose(got["row"], view.row, atol=5e-4)
    assert np.allclose(got["weights"], view.weights, atol=1e-3)
    assert sum(round(x * 1000) for x in got["weights"]) == 1000
    assert got["weight"] == pytest.approx(float(model.run(TEXT).attention[5, 0, 3, 0]), abs=5e-4)


@pytest.mark.parametrize(
    ("data", "field", "words"),
    [
        ({"text": ""}, "text", "box is empty"),
        ({"text": "   "}, "text", "box is empty"),
        ({"text": "x" * 251}, "text", "251 characters long; the lab takes at most 250"),
        ({"text": "tea " * 47}, "text", "49 tokens long (counting [CLS] and [SEP]); the lab"),
        ({"text": "tea\x00time"}, "text", "control character (character 4, U+0000, NUL)"),
        ({"text": "tea\ttime"}, "text", "control character"),
        ({"text": "I drink tea 🍵"}, "text", "emoji"),
        ({"text": "I <b>drink</b> tea"}, "text", "markup (“<b”)"),
        ({"text": "I drink &amp; eat"}, "text", "markup (“&amp;”)"),
        ({"text": "tea\u202etime"}, "text", "invisible formatting character"),
        ({"text": "tea\ue000"}, "text", "cannot read"),
        ({"text": TEXT, "layer": "7"}, "layer", "layer from 1 to 6"),
        ({"text": TEXT, "layer": "one"}, "layer", "layer from 1 to 6"),
        ({"text": TEXT, "head": "0"}, "head", "head from 1 to 12"),
        ({"text": TEXT, "head": "١"}, "head", "head from 1 to 12"),
        ({"text": TEXT, "view": "all"}, "view", "head, heads or neuron"),
        ({"text": TEXT, "view": "neuron", "query": "99", "key": "0"}, "query", "0 ([CLS]) to 12"),
        ({"text": TEXT, "view": "neuron", "query": "1"}, "key", "place"),
    ],
)
def test_bad_input_is_a_400_that_says_why(
    buyer: Client, data: dict[str, str], field: str, words: str
) -> None:
    response = buyer.post(API, data, HTTP_ACCEPT="application/json")
    assert response.status_code == 400
    body = response.json()
    assert body["field"] == field and words in body["error"], body
    assert set(body) == {"error", "field"}


def test_the_limit_fits_exactly(buyer: Client) -> None:
    assert _post(buyer, text="tea " * 46).json()["n"] == lab.MAX_TOKENS
    assert _post(buyer, text="t" * 250).status_code == 200  # one long word: pieces, not 250


def test_devanagari_is_read_and_the_notes_say_what_the_model_does_with_it(buyer: Client) -> None:
    got = _post(buyer, text="मैं चाय पीता हूँ").json()
    assert got["tokens"][:3] == ["[CLS]", "म", "च"] and got["tokens"][-1] == "[SEP]"
    notes = " ".join(got["notes"])
    assert "drops combining marks" in notes and "◌ै" in notes and "letter by letter" in notes
    unknown = _post(buyer, text="你好 tea").json()
    assert unknown["tokens"].count("[UNK]") == 2 and "2 of the 3 pieces are [UNK]" in " ".join(
        unknown["notes"]
    )


def test_nothing_typed_is_stored(buyer: Client) -> None:
    _post(buyer, text="A secret sentence about chai.")
    buyer.get(PAGE, {"text": "A secret sentence about chai."})
    assert CheckAnswer.objects.count() == 0 and SectionVisit.objects.count() == 0
    assert "chai" not in str(dict(buyer.session))


@pytest.fixture
def _products_back(django_db_blocker) -> Iterator[None]:
    """Requested before ``transactional_db``: the products are there when the test starts (pytest-
    django runs transactional tests last, and the one before may have flushed them: on PostgreSQL,
    tests/billing/test_concurrency_postgres.py), and are put back after this test's flush."""
    products_restore(django_db_blocker)
    yield
    products_restore(django_db_blocker)


def test_twenty_requests_at_once_get_the_same_numbers(
    _products_back, transactional_db, buyer: Client, monkeypatch
) -> None:
    """20 threads, each its own connection (committed rows: transactional_db), released at once.
    The process's pool is opened wide for it (route_limits: its own test refuses beyond it),
    so twenty runs share the kept runs at once."""
    monkeypatch.setattr(route_limits, "SLOTS", route_limits.Slots(20, 0, 0.0))
    monkeypatch.setattr(route_limits, "IN_FLIGHT", 20)  # one learner's twenty at once, here
    texts = [TEXT, "I drink tea", "मैं चाय पीता हूँ", "She reads a book on the train."]
    alone = {t: _post(buyer, text=t, layer="4", head="9").json()["weights"] for t in texts}
    lab.clear_caches()
    got: list[tuple[str, int, object]] = []
    lock = threading.Lock()
    cookies = buyer.cookies

    def job(i: int) -> Callable[[], None]:
        def call() -> None:
            client = Client()
            client.cookies = cookies
            text = texts[i % len(texts)]
            r = _post(client, text=text, layer="4", head="9")
            with lock:
                got.append((text, r.status_code, r.json().get("weights")))

        return call

    errors = in_parallel(*[job(i) for i in range(20)])
    assert errors == []
    assert len(got) == 20
    for text, status, weights in got:
        assert status == 200 and weights == alone[text]


def test_the_model_runs_once_per_text(buyer: Client, monkeypatch) -> None:
    model = load_minilm()
    calls = []
    real = model.run
    monkeypatch.setattr(model, "run", lambda text: calls.append(text) or real(text))
    for head in ("1", "2", "3"):
        assert _post(buyer, head=head).status_code == 200
    assert _post(buyer, view="heads").status_code == 200
    assert calls == [TEXT]


def test_the_shared_cache_serves_a_repeat_and_redis_down_only_costs_a_recompute(
    buyer: Client, settings, monkeypatch
) -> None:
    # The lab's own cache (LAB_REDIS_URL; a LocMem stands in for its Redis here).
    settings.LAB_REDIS_URL = "redis://lab.invalid/0"
    settings.CACHES = {
        **settings.CACHES,
        "lab": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "lab"},
    }
    first = _post(buyer, layer="2", head="2").json()
    lab.clear_caches()
    with monkeypatch.context() as m:
        m.setattr(lab, "_run_checked", lambda text: pytest.fail("ran the model again"))
        assert _post(buyer, layer="2", head="2").json() == first  # from the shared cache
    # Redis down (nothing listens on port 1): every cache call is a miss, the lab answers
    from mathmachine.web.cache import ResilientRedisCache

    monkeypatch.setattr(lab, "caches", {"lab": ResilientRedisCache("redis://127.0.0.1:1/0", {})})
    again = _post(buyer, layer="2", head="2")
    assert again.status_code == 200 and again.json() == first


def test_the_page_without_javascript_shows_one_head_as_a_table(buyer: Client) -> None:
    empty = buyer.get(PAGE)
    html = empty.content.decode()
    assert empty.status_code == 200 and 'name="text"' in html and "wk-hm-svg" not in html
    assert "At most 250 characters and 48 tokens" in html
    page = buyer.get(PAGE, {"text": "I drink tea", "layer": "3", "head": "2"})
    html = page.content.decode()
    assert page.status_code == 200 and "<caption>" in html and "Layer 3, head 2" in html
    run = load_minilm().run("I drink tea")
    units = shares_rounded(run.attention[2, 1], 3)
    for i, token in enumerate(run.tokens):
        row = "".join(rf'<td class="wk-h\d+">{u / 1000:.3f}</td>' for u in units[i])
        assert re.search(f'<th scope="row">{re.escape(token)}</th>{row}', html), token
    # the map drawn on the server: one shaded cell per weight, the tokens as its labels
    assert html.count("<rect x=") == len(run.tokens) ** 2 and "wk-hm-svg" in html
    assert 'value="I drink tea"' in html and '<option value="3" selected>' in html


def test_the_page_without_javascript_says_what_is_wrong(buyer: Client) -> None:
    page = buyer.get(PAGE, {"text": "tea\x00time 🍵", "layer": "1", "head": "1"})
    html = page.content.decode()
    assert page.status_code == 400 and 'role="alert"' in html and "control character" in html
    assert "\x00" not in html and "wk-hm-svg" not in html
    bad_layer = buyer.get(PAGE, {"text": "I drink tea", "layer": "9"})
    assert bad_layer.status_code == 400 and "layer from 1 to 6" in bad_layer.content.decode()


def test_shares_rounded_keeps_each_entry_within_one_unit_and_rows_at_exactly_1() -> None:
    rng = np.random.default_rng(7)
    for n in (1, 2, 5, 48):
        w = rng.dirichlet(np.ones(n) * 0.3, size=20)
        units = shares_rounded(w, 3)
        assert (units.sum(axis=1) == 1000).all()
        assert np.max(np.abs(units / 1000 - w)) < 1e-3
        assert (units >= 0).all()
