"""Answers sent with an id made on the device (issue 19: answers given offline, queued on the
phone and sent when the connection returns; docs/offline.md). The server takes each id once per
learner: the same answer sent again is answered with the first verdict and feedback, and counts
no second attempt; another learner's id is theirs; a bad id, an id reused for another check and
an answer queued by another learner get a clear 4xx, never a 500."""

from __future__ import annotations

import json
import uuid
from datetime import timedelta
from io import StringIO
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.test import Client
from django.utils import timezone
from support import paid_order_create

from mathmachine.billing.models import Product
from mathmachine.coursebook.model import CompiledUnit
from mathmachine.coursebook.variants import variant_check
from mathmachine.learning import services
from mathmachine.learning.models import CheckAnswer, ReceivedAnswer, VariantRecord
from mathmachine.learning.offline import owner_key

from .conftest import C1, C2, JSON, check_url

pytestmark = pytest.mark.django_db

RIGHT = {"answer": ["0.017 0.047 0.936"]}
WRONG = {"answer": ["0.1, 0.164, 0.736"]}  # the old weights: a named mistake
P1 = "p15-soft-weights"  # the arena's first problem (§15)


def _send(client: Client, fields: dict[str, Any], answer_id: str, check: str = C1) -> Any:
    return client.post(check_url(check), {**fields, "client_answer_id": answer_id}, **JSON)


def _buyer(email: str) -> Any:
    user = get_user_model().objects.create_user(email, email, "a long test password 42")
    paid_order_create(user, Product.objects.get(code="unit-18"))
    return user


def test_the_same_id_twice_is_one_stored_answer_with_the_same_verdict(client: Client) -> None:
    answer_id = str(uuid.uuid4())
    first = _send(client, WRONG, answer_id)
    again = _send(client, WRONG, answer_id)
    assert first.status_code == again.status_code == 200
    one, two = first.json(), again.json()
    assert one["again"] is False and two["again"] is True
    for key in ("ok", "correct", "message", "attempts"):
        assert one[key] == two[key], key
    assert one["correct"] is False and one["attempts"] == 1
    assert "These are the old weights" in one["html"] and "These are the old weights" in two["html"]
    row = CheckAnswer.objects.get(check_id=C1)
    assert (row.attempts, row.wrong_attempts, row.correct) == (1, 1, False)
    assert ReceivedAnswer.objects.count() == 1


def test_a_repeat_changes_nothing_even_after_a_later_answer(client: Client) -> None:
    """Wrong (id a), then right (id b), then a sent again: still two attempts, still right,
    and a is answered as it was (wrong)."""
    a, b = uuid.uuid4().hex, uuid.uuid4().hex
    _send(client, WRONG, a)
    assert _send(client, RIGHT, b).json()["correct"] is True
    again = _send(client, WRONG, a).json()
    assert again["again"] is True and again["correct"] is False and again["attempts"] == 1
    row = CheckAnswer.objects.get(check_id=C1)
    assert (row.attempts, row.correct, row.first_try_correct) == (2, True, False)


def test_a_repeat_carries_this_responses_csrf_token(client: Client) -> None:
    answer_id = str(uuid.uuid4())
    _send(client, WRONG, answer_id)
    html = _send(client, WRONG, answer_id).json()["html"]
    token = client.cookies["csrftoken"].value
    assert 'name="csrfmiddlewaretoken"' in html
    # The masked token in the form is valid for this browser's cookie: a form post succeeds.
    strict = Client(enforce_csrf_checks=True)
    strict.cookies = client.cookies
    masked = html.split('name="csrfmiddlewaretoken" value="')[1].split('"')[0]
    assert masked and masked != token
    sent = strict.post(check_url(C1), {**RIGHT, "csrfmiddlewaretoken": masked}, **JSON)
    assert sent.status_code == 200


def test_two_learners_with_the_same_id_are_independent() -> None:
    answer_id = str(uuid.uuid4())
    meera, ravi = Client(), Client()
    meera.force_login(_buyer("meera@example.com"))
    ravi.force_login(_buyer("ravi@example.com"))
    assert _send(meera, WRONG, answer_id).json()["again"] is False
    assert _send(ravi, RIGHT, answer_id).json() | {"html": ""} == {
        "ok": True,
        "correct": True,
        "message": "",
        "attempts": 1,
        "html": "",
        "again": False,
    }
    anonymous = Client()
    assert _send(anonymous, RIGHT, answer_id).json()["again"] is False
    assert CheckAnswer.objects.filter(check_id=C1).count() == 3
    assert ReceivedAnswer.objects.filter(client_answer_id=answer_id).count() == 3
    assert not CheckAnswer.objects.get(user__email="meera@example.com").correct


@pytest.mark.parametrize(
    "bad",
    [
        "",
        "short",
        "x" * 65,
        "not an id!",
        "../../etc/passwd",
        "आईडी-आईडी-आईडी",
        "a\nbcdefghij",
        "0" * 10_000,
    ],
)
def test_a_bad_id_is_a_clear_400_and_stores_nothing(client: Client, bad: str) -> None:
    response = _send(client, RIGHT, bad)
    assert response.status_code == 400
    assert response.json() == {
        "error": services.CLIENT_ANSWER_ID_MESSAGE,
        "field": "client_answer_id",
    }
    plain = client.post(check_url(C1), {**RIGHT, "client_answer_id": bad})
    assert plain.status_code == 400
    assert plain.content.decode() == services.CLIENT_ANSWER_ID_MESSAGE
    assert not CheckAnswer.objects.exists() and not ReceivedAnswer.objects.exists()


def test_an_id_used_for_another_check_is_refused(client: Client) -> None:
    answer_id = str(uuid.uuid4())
    _send(client, RIGHT, answer_id)
    response = _send(client, {"answer": ["35", "1050"]}, answer_id, check=C2)
    assert response.status_code == 409
    assert response.json()["error"] == services.AnswerIdReused.MESSAGE
    assert not CheckAnswer.objects.filter(check_id=C2).exists()


def test_an_unreadable_answer_with_an_id_is_read_again_and_keeps_nothing(client: Client) -> None:
    answer_id = str(uuid.uuid4())
    for _ in range(2):
        response = _send(client, {"answer": ["lots"]}, answer_id)
        assert response.status_code == 400 and response.json()["ok"] is False
    assert not ReceivedAnswer.objects.exists() and not CheckAnswer.objects.exists()
    # the same id then carries the answer once it can be read
    assert _send(client, RIGHT, answer_id).json()["again"] is False


def test_a_queued_answer_is_taken_only_from_the_learner_who_gave_it() -> None:
    """``client_owner``: the page's mm-owner when the answer was given. After a sign-out (or
    with another learner signed in) the server refuses it: it is never stored as anyone."""
    meera = _buyer("meera@example.com")
    client = Client()
    client.force_login(meera)
    given = {**RIGHT, "client_owner": owner_key(meera.pk)}
    assert _send(client, given, uuid.uuid4().hex).status_code == 200
    client.logout()
    refused = _send(client, given, uuid.uuid4().hex)
    assert refused.status_code == 409 and refused.json()["code"] == "other-learner"
    ravi = Client()
    ravi.force_login(_buyer("ravi@example.com"))
    assert _send(ravi, given, uuid.uuid4().hex).status_code == 409
    assert CheckAnswer.objects.count() == 1 and ReceivedAnswer.objects.count() == 1
    # An anonymous reader's own queued answer says "" and is taken from them.
    anonymous = Client()
    assert _send(anonymous, {**RIGHT, "client_owner": ""}, uuid.uuid4().hex).status_code == 200


def test_a_problem_of_the_arena_is_taken_once_too(unit18: CompiledUnit) -> None:
    """§15's problems (fresh numbers, a variant record per seed): sent twice, one attempt on
    the seed, in the row and in the seed's record."""
    client = Client()
    client.force_login(_buyer("meera@example.com"))
    problem = variant_check(unit18, unit18.check(P1), 3)
    fields = {f"answer-{i}": f.answer_text for i, f in enumerate(problem.fields)} | {"seed": "3"}
    answer_id = str(uuid.uuid4())
    first = _send(client, fields, answer_id, check=P1)
    again = _send(client, fields, answer_id, check=P1)
    assert first.status_code == again.status_code == 200
    assert first.json()["correct"] is again.json()["correct"] is True
    row = CheckAnswer.objects.get(check_id=P1)
    record = VariantRecord.objects.get(check_id=P1, seed=3)
    assert (row.attempts, record.attempts, row.first_try_correct) == (1, 1, True)


def test_a_locked_check_with_an_id_stays_locked() -> None:
    response = _send(Client(), {"answer": ["1"]}, uuid.uuid4().hex, check=P1)
    assert response.status_code == 403 and "locked" in response.json()["error"]
    assert not ReceivedAnswer.objects.exists()


def test_a_form_post_with_an_id_taken_twice_redirects_and_stores_once(client: Client) -> None:
    answer_id = str(uuid.uuid4())
    for _ in range(2):
        response = client.post(check_url(C1), {**WRONG, "client_answer_id": answer_id})
        assert response.status_code == 302 and f"#check-{C1}" in response["Location"]
    assert CheckAnswer.objects.get(check_id=C1).attempts == 1


def test_answers_received_prune_forgets_ids_older_than_90_days(client: Client) -> None:
    old, recent = uuid.uuid4().hex, uuid.uuid4().hex
    _send(client, WRONG, old)
    _send(client, WRONG, recent)
    ReceivedAnswer.objects.filter(client_answer_id=old).update(
        created_at=timezone.now() - timedelta(days=91)
    )
    out = StringIO()
    call_command("answers_received_prune", stdout=out)
    assert out.getvalue().strip() == "received answers: 1 older than 90 days deleted"
    assert list(ReceivedAnswer.objects.values_list("client_answer_id", flat=True)) == [recent]
    with pytest.raises(CommandError, match="at least a day"):
        call_command("answers_received_prune", "--days", "0")


def test_the_received_answer_keeps_the_first_json(client: Client) -> None:
    answer_id = str(uuid.uuid4())
    first = _send(client, WRONG, answer_id).json()
    kept = ReceivedAnswer.objects.get()
    assert kept.status == 200 and kept.check_id == C1
    assert json.loads(json.dumps(kept.payload)) == {k: v for k, v in first.items() if k != "again"}


def test_a_kept_unit_holds_the_answer_queue_so_it_loads_offline() -> None:
    """checks.js imports answer-queue.js only when an answer waits; the kept unit's list
    (learning/keeping.py follows import()) holds it, so a kept page opened offline has it."""
    client = Client()
    client.force_login(_buyer("meera@example.com"))
    urls = client.get("/units/attention-and-transformers/keep/").json()["urls"]
    site = [u for u in urls if "/site/" in u]
    assert "/static/site/checks.js" in site and "/static/site/answer-queue.js" in site, site
