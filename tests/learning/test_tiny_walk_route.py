"""Widget 16's server step through the kit's route (POST /units/<unit>/widgets/tiny-walk/): the
walk of the sentence sent, every number the engine's (walk_numbers); a bad sentence a 400 that
names the field, with the words the model knows; the gate: while §13 is a draft only staff are
answered (learners get the 404 of a widget no published section uses, and no numbers); once it
is published, a buyer is answered and a non-buyer gets 403 with no numbers."""

from __future__ import annotations

import json

import pytest
from django.test import Client
from support import paid_order_create

from mathmachine.billing.models import Product
from mathmachine.coursebook import load_unit
from mathmachine.coursebook.widgets.tiny_walk import walk_numbers

pytestmark = pytest.mark.django_db

UNIT = "attention-and-transformers"
URL = f"/units/{UNIT}/widgets/tiny-walk/"
DRAFT = any(d.number == 13 for d in load_unit(UNIT).drafts)


def _client(*, buyer: bool = False, staff: bool = False, email: str = "") -> Client:
    from django.contrib.auth import get_user_model

    c = Client()
    if buyer or staff or email:
        email = email or ("staff@example.com" if staff else "buyer@example.com")
        user = get_user_model().objects.create_user(
            email, email, "a long password 42", is_staff=staff
        )
        if buyer:
            paid_order_create(user, Product.objects.get(code="unit-18"))
        c.force_login(user)
    return c


def _reader() -> Client:
    """Who may use the walk today: staff while §13 is a draft, a buyer once it is published."""
    return _client(staff=True) if DRAFT else _client(buyer=True)


def test_the_walk_of_a_sentence_is_the_engines() -> None:
    r = _reader().post(URL, {"text": "The girl writes stories."})
    assert r.status_code == 200, r.content
    assert r["Cache-Control"] == "private, no-store"
    body = json.loads(r.content)
    assert body == json.loads(json.dumps(walk_numbers("the girl writes stories")))
    assert body["where"] == "held out" and body["written"] == ["लड़की", "कहानियाँ", "लिखती", "है"]


@pytest.mark.parametrize(
    ("text", "message"),
    [("", "Type an English sentence"), ("I drink coffee", "It knows only these 44 English words")],
)
def test_a_bad_sentence_is_a_400_naming_the_field(text: str, message: str) -> None:
    r = _reader().post(URL, {"text": text})
    assert r.status_code == 400
    body = json.loads(r.content)
    assert body["field"] == "text" and message in body["error"] and "encoder" not in body


def test_the_gate() -> None:
    """No numbers for anyone who may not read §13, whatever they send."""
    if DRAFT:  # learners, buyers included, are not served a draft's widget
        locked = [(_client(), 404), (_client(buyer=True, email="b2@example.com"), 404)]
    else:  # published: the unit's gate
        locked = [(_client(), 403), (_client(email="nobuy@example.com", staff=False), 403)]
    for client, status in locked:
        for text in ("I drink tea", "I drink coffee", ""):
            r = client.post(URL, {"text": text})
            assert r.status_code == status
            assert set(json.loads(r.content)) == {"error"}
    assert _client().get(URL).status_code == 405
