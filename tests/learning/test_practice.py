"""The practice arena through Django's test client, for a buyer: every problem, fresh numbers
by seed in the URL, answers graded against the variant shown and stored with it, the solution
after a right answer or on request, hints on request, and mastery per problem on the page and
on the dashboard."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from support import paid_order_create

from mathmachine.billing.models import Product
from mathmachine.coursebook.model import CompiledUnit
from mathmachine.coursebook.variants import fresh_seed, next_seed, variant_check
from mathmachine.learning import selectors
from mathmachine.learning.models import CheckAnswer

from .conftest import JSON, check_url, section_url

pytestmark = pytest.mark.django_db
ARENA = section_url(15)
P1 = "p15-soft-weights"


@pytest.fixture
def buyer(client: Client) -> Any:
    user = get_user_model().objects.create_user("meera@example.com", "meera@example.com", "pw")
    paid_order_create(user, Product.objects.get(code="unit-18"))
    client.force_login(user)
    return user


def key_of(unit18: CompiledUnit, check_id: str, seed: int) -> list[str]:
    check = variant_check(unit18, unit18.check(check_id), seed)
    return [f.answer_text for f in check.fields]


def prompt_of(page: str, check_id: str) -> str:
    m = re.search(rf'id="check-{check_id}".*?<div class="check-prompt">(.*?)</div>', page, re.S)
    assert m, check_id
    return m.group(1)


def test_the_arena_shows_every_problem_each_with_fresh_numbers(
    client: Client, buyer: Any, unit18: CompiledUnit
) -> None:
    page = client.get(ARENA).content.decode()
    problems = unit18.section(15).problems
    n = len(problems)
    assert n >= 1
    numbers = []
    for problem in problems:
        # each problem keeps the number the unit's plan gives it (the arena is written a few
        # problems at a time, by the sections they practise: numbers may skip until it is whole)
        m = re.match(r"Problem (\d+) · ", problem.title)
        assert m, problem.title
        numbers.append(int(m.group(1)))
        assert f'id="check-{problem.id}"' in page and f"Problem {m.group(1)} ·" in page
        fresh = fresh_seed(unit18, problem, 1)  # the first step of its distinct walk
        assert f'href="?seed-{problem.id}={fresh}#check-{problem.id}"' in page
        assert problem.solution_html not in page and problem.feedback_correct_html not in page
    assert numbers == sorted(set(numbers)) and numbers[0] == 1  # in order, each once
    assert max(numbers) <= unit18.section(15).planned_problems  # within the plan
    assert page.count('name="seed" value="1"') == 2 * n  # the answer form and "show me"
    assert page.count("Need a hint?") == n and page.count("Another hint") == n
    assert page.count("Show me the worked answer") == n


def test_fresh_numbers_are_graded_stored_and_shown_again(
    client: Client, buyer: Any, unit18: CompiledUnit
) -> None:
    seed = next_seed(P1, 1)
    fresh = client.get(f"{ARENA}?seed-{P1}={seed}").content.decode()
    first = client.get(ARENA).content.decode()
    assert prompt_of(fresh, P1) != prompt_of(first, P1)
    assert f'name="seed" value="{seed}"' in fresh
    # The key of seed 1 is wrong for this variant; its own key is right.
    response = client.post(
        check_url(P1), {"answer": key_of(unit18, P1, seed), "seed": seed}, **JSON
    )
    data = response.json()
    assert (
        data["correct"] is True and "The worked answer" in data["html"]
    )  # shown after a right answer
    row = CheckAnswer.objects.get(check_id=P1)
    assert (row.variant, row.correct, row.first_try_variants) == (seed, True, [seed])
    # Without a seed in the URL the page shows the learner's own variant, answered.
    again = client.get(ARENA).content.decode()
    assert prompt_of(again, P1) == prompt_of(fresh, P1) and "verdict-right" in again
    # Without JavaScript the form sends the seed and is sent back to the same variant.
    other = next_seed(P1, seed)
    sent = client.post(check_url(P1), {"answer": key_of(unit18, P1, seed), "seed": other})
    assert sent["Location"] == f"{ARENA}?seed-{P1}={other}#check-{P1}"
    row.refresh_from_db()
    assert row.variant == other and not row.correct and row.solved_at is not None


@pytest.mark.parametrize("bad", ["abc", "0", "-3", "9999999", "1e3", "٣"])
def test_a_bad_seed_shows_the_compiled_problem(client: Client, buyer: Any, bad: str) -> None:
    page = client.get(f"{ARENA}?seed-{P1}={bad}").content.decode()
    assert prompt_of(page, P1) == prompt_of(client.get(ARENA).content.decode(), P1)
    response = client.post(check_url(P1), {"answer": ["(0.1, 0.2, 0.7)"], "seed": bad}, **JSON)
    assert response.status_code == 200
    assert CheckAnswer.objects.get(check_id=P1).variant == 1


def test_mastery_attempted_familiar_proficient(
    client: Client, buyer: Any, unit18: CompiledUnit
) -> None:
    def level() -> str:
        learner = selectors.Learner(user_id=buyer.pk, anon_token=None)
        found = {
            m.problem.id: m.level
            for m in selectors.problem_mastery(user=buyer, learner=learner, unit=unit18)
        }
        assert set(found) == {p.id for p in unit18.section(15).problems}
        return found[P1]

    assert level() == "new"
    client.post(check_url(P1), {"answer": ["(0.3, 0.3, 0.4)"], "seed": 1}, **JSON)
    assert level() == "attempted"
    client.post(check_url(P1), {"answer": key_of(unit18, P1, 1), "seed": 1}, **JSON)
    assert level() == "familiar"  # solved, but not at the first try
    seed = next_seed(P1, 1)
    client.post(check_url(P1), {"answer": key_of(unit18, P1, seed), "seed": seed}, **JSON)
    assert level() == "familiar"  # one variant at the first try
    third = next_seed(P1, seed)
    client.post(f"{check_url(P1)}show-me/", {"seed": third}, **JSON)
    client.post(check_url(P1), {"answer": key_of(unit18, P1, third), "seed": third}, **JSON)
    assert level() == "familiar"  # the solution was opened first: not a first try
    fourth = next_seed(P1, third)
    client.post(check_url(P1), {"answer": key_of(unit18, P1, fourth), "seed": fourth}, **JSON)
    assert level() == "proficient"
    page = client.get(ARENA).content.decode()
    assert "Your progress: proficient (solved first try on two sets of numbers)" in page
    dashboard = client.get(reverse("accounts:dashboard")).content.decode()
    n = len(unit18.section(15).problems)
    assert f"Practice problems: 1 of {n} solved, 1 proficient" in dashboard
    assert (
        'Problem 1 · Soft-lookup weights</a>: <span class="mastery mastery-proficient">'
        in dashboard
    )


def test_without_javascript_one_problem_keeps_the_others_fresh_numbers(
    client: Client, buyer: Any, unit18: CompiledUnit
) -> None:
    """Answering or revealing one problem without JavaScript sends the learner back with the
    fresh numbers the page showed for the other problems still in the address (issue 16: "Show
    me the worked answer" once reset another problem's numbers)."""
    p1, p2 = (p.id for p in unit18.section(15).problems[:2])
    s1, s2 = next_seed(p1, 1), next_seed(p2, 1)
    page = client.get(f"{ARENA}?seed-{p1}={s1}&seed-{p2}={s2}&seed-x=abc").content.decode()
    form = re.search(rf'id="check-{p2}".*?</form>', page, re.S)
    assert form and f'name="keep-seed-{p1}" value="{s1}"' in form.group(0)
    assert "keep-seed-x" not in page and f'name="keep-seed-{p2}"' not in form.group(0)
    kept = {f"keep-seed-{p1}": str(s1), "keep-seed-nope": "5", f"keep-seed-{p2}": "7"}
    wrong = ["0"] * len(unit18.check(p2).fields)
    sent = client.post(check_url(p2), {"answer": wrong, "seed": s2, **kept})
    assert sent["Location"] == f"{ARENA}?seed-{p2}={s2}&seed-{p1}={s1}#check-{p2}"
    reveal = reverse("learning:check_reveal", args=[unit18.slug, p2])
    shown = client.post(reveal, {"seed": s2, **kept})
    assert shown["Location"] == f"{ARENA}?seed-{p2}={s2}&seed-{p1}={s1}#check-{p2}"
    back = client.get(shown["Location"].split("#")[0]).content.decode()
    assert prompt_of(back, p1) == prompt_of(page, p1)  # p1's fresh numbers, still on show
    # the line under a problem: the set shown, and whether the address keeps it
    assert f"you are on set {s2} of this problem's numbers: this page's address keeps it" in back
    plain = client.get(ARENA).content.decode()
    assert "you are on set 1 of this problem's numbers</span>" in plain
