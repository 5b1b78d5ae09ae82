"""'Show me the worked answer' only where the page offers it (issue 17, item 5).

Before, the reveal endpoint sent the worked answer, key included, for a check never answered
(the page offers it only after a wrong answer), and a right answer after it counted as right at
the first try. Now the server refuses a reveal the page does not offer (a check: after a wrong
answer on the numbers shown; a practice problem: at any time, as its page offers), stores
nothing for it, and an answer given after a reveal is never a first try.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.contrib.sessions.models import Session
from django.test import Client
from support import paid_order_create

from mathmachine.billing.models import Product
from mathmachine.coursebook.model import CheckDef, CompiledUnit
from mathmachine.coursebook.variants import variant_check
from mathmachine.learning.models import CheckAnswer

from .conftest import C1, C2, JSON, SECTION_1, check_url

pytestmark = pytest.mark.django_db
RIGHT_C1 = ["(0.017, 0.047, 0.936)"]
P1 = "p15-soft-weights"


def reveal(client: Client, check_id: str, json: bool = True, **data: Any) -> Any:
    return client.post(f"{check_url(check_id)}show-me/", data, **(JSON if json else {}))


@pytest.mark.parametrize("check_id", [C1, C2])
def test_a_check_never_answered_gets_no_worked_answer(
    client: Client, unit18: CompiledUnit, check_id: str
) -> None:
    check = unit18.check(check_id)
    response = reveal(client, check_id)
    assert response.status_code == 409
    body = response.json()
    assert set(body) == {"error"} and "after a wrong answer" in body["error"]
    assert check.solution_html not in response.content.decode()
    assert check.fields[0].answer_text not in response.content.decode()
    assert CheckAnswer.objects.count() == 0 and Session.objects.count() == 0
    # Without JavaScript: sent back to the check, nothing recorded, the solution not on the page.
    form = reveal(client, check_id, json=False)
    assert form.status_code == 302 and form["Location"].endswith(f"#check-{check_id}")
    assert check.solution_html not in client.get(SECTION_1).content.decode()
    assert CheckAnswer.objects.count() == 0


def test_a_right_answer_then_show_me_is_refused_as_the_page_offers_none(
    client: Client, check1: CheckDef
) -> None:
    client.post(check_url(C1), {"answer": RIGHT_C1}, **JSON)
    page = client.get(SECTION_1).content.decode()
    assert "Show me the worked answer" not in page.split(f'id="check-{C2}"')[0]
    assert reveal(client, C1).status_code == 409
    assert CheckAnswer.objects.get().revealed_at is None


def test_after_a_wrong_answer_the_worked_answer_is_given(client: Client, check1: CheckDef) -> None:
    wrong = client.post(check_url(C1), {"answer": ["0.2 0.3 0.5"]}, **JSON).json()
    assert "Show me the worked answer" in wrong["html"]  # what the page offers...
    shown = reveal(client, C1)
    assert shown.status_code == 200 and check1.solution_html in shown.json()["html"]  # ...given
    client.post(check_url(C1), {"answer": RIGHT_C1}, **JSON)
    row = CheckAnswer.objects.get()
    assert row.revealed_at is not None and row.correct and not row.first_try_correct


@pytest.fixture
def buyer(client: Client) -> Any:
    user = get_user_model().objects.create_user("leela@example.com", "leela@example.com", "pw")
    paid_order_create(user, Product.objects.get(code="unit-18"))
    client.force_login(user)
    return user


def test_a_problem_offers_its_solution_at_once_and_an_answer_after_it_is_not_a_first_try(
    client: Client, buyer: Any, unit18: CompiledUnit
) -> None:
    problem = variant_check(unit18, unit18.check(P1), 1)
    shown = reveal(client, P1, seed="1")
    assert shown.status_code == 200 and problem.solution_html in shown.json()["html"]
    key = [f.answer_text for f in problem.fields]
    right = client.post(check_url(P1), {"answer": key, "seed": "1"}, **JSON).json()
    assert right["correct"] is True
    row = CheckAnswer.objects.get(check_id=P1)
    assert row.attempts == 1 and row.correct and not row.first_try_correct
    assert row.first_try_variants == []
