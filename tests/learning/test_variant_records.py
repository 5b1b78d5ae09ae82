"""Proficient only by solving (issue 17, item 4).

Before, the answer row held one variant at a time: moving it to another seed reset its reveal
flag and wrong-try count, so a reveal or wrong tries on a seed were forgotten once the learner
touched another one; proficiency counted seeds, and two seeds can draw the same numbers; the
"fresh numbers" link followed a hash of the seed and came back to numbers already shown; and a
right answer on one seed was no longer shown on its page after a wrong one on another.

Now every (learner, problem, seed) has its own record (VariantRecord), proficiency counts the
numbers (variants.numbers_of), the link walks numbers the learner has not seen, and each seed's
page shows that seed's record. The migration keeps existing learners' progress.
"""

from __future__ import annotations

import re
import uuid
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.test import Client
from support import paid_order_create

from mathmachine.billing.models import Product
from mathmachine.coursebook.model import CompiledUnit
from mathmachine.coursebook.variants import numbers_of, variant_check
from mathmachine.learning import selectors
from mathmachine.learning.learners import Learner
from mathmachine.learning.models import CheckAnswer, VariantRecord
from mathmachine.learning.services import learner_progress_claim

from .conftest import JSON, check_url, section_url

pytestmark = pytest.mark.django_db
ARENA = section_url(15)
P1 = "p15-soft-weights"
LAYER = "p15-layer-weights"


@pytest.fixture
def buyer(client: Client) -> Any:
    user = get_user_model().objects.create_user("asha@example.com", "asha@example.com", "pw")
    paid_order_create(user, Product.objects.get(code="unit-18"))
    client.force_login(user)
    return user


def key(unit: CompiledUnit, check_id: str, seed: int) -> list[str]:
    return [f.answer_text for f in variant_check(unit, unit.check(check_id), seed).fields]


def wrong(unit: CompiledUnit, check_id: str, seed: int) -> list[str]:
    """A readable wrong answer for the variant: its key with the first number changed."""
    text = key(unit, check_id, seed)
    first = text[0]
    number = re.search(r"-?\d+(\.\d+)?", first)
    assert number is not None
    changed = str(float(number.group()) + 7)
    return [first[: number.start()] + changed + first[number.end() :], *text[1:]]


def post(client: Client, check_id: str, seed: int, raw: list[str]) -> Any:
    response = client.post(check_url(check_id), {"answer": raw, "seed": seed}, **JSON)
    assert response.status_code == 200, response.content
    return response.json()


def reveal(client: Client, check_id: str, seed: int) -> None:
    response = client.post(f"{check_url(check_id)}show-me/", {"seed": seed}, **JSON)
    assert response.status_code == 200, response.content


def level(user: Any, unit: CompiledUnit, check_id: str) -> str:
    learner = Learner(user_id=user.pk, anon_token=None)
    found = {
        m.problem.id: m.level
        for m in selectors.problem_mastery(user=user, learner=learner, unit=unit)
    }
    return found[check_id]


def prompt(page: str, check_id: str) -> str:
    m = re.search(rf'id="check-{check_id}".*?<div class="check-prompt">(.*?)</div>', page, re.S)
    assert m, check_id
    return m.group(1)


def fresh_link(page: str, check_id: str) -> int:
    m = re.search(rf'href="\?seed-{check_id}=(\d+)#check-{check_id}"', page)
    assert m, f"no fresh-numbers link for {check_id}"
    return int(m.group(1))


def test_a_reveal_is_never_forgotten_by_moving_between_seeds(
    client: Client, buyer: Any, unit18: CompiledUnit
) -> None:
    # The sequence: reveal 505 and answer it, reveal 506, answer 505 again, then 506.
    reveal(client, P1, 505)
    post(client, P1, 505, key(unit18, P1, 505))
    reveal(client, P1, 506)
    post(client, P1, 505, key(unit18, P1, 505))
    post(client, P1, 506, key(unit18, P1, 506))
    row = CheckAnswer.objects.get(check_id=P1)
    assert row.first_try_variants == [] and row.first_try_numbers == []
    assert level(buyer, unit18, P1) == "familiar"  # solved, never at the first try
    records = {r.seed: r for r in VariantRecord.objects.filter(check_id=P1)}
    assert set(records) == {505, 506}
    assert all(r.revealed_at is not None and not r.first_try_correct for r in records.values())
    assert (records[505].attempts, records[506].attempts) == (2, 1)


def test_wrong_tries_on_a_seed_are_never_forgotten(
    client: Client, buyer: Any, unit18: CompiledUnit
) -> None:
    # Answer seed 31 wrong twice, touch 32, answer 31 right: not a first try.
    post(client, P1, 31, wrong(unit18, P1, 31))
    post(client, P1, 31, wrong(unit18, P1, 31))
    post(client, P1, 32, wrong(unit18, P1, 32))
    data = post(client, P1, 31, key(unit18, P1, 31))
    assert data["correct"] is True
    row = CheckAnswer.objects.get(check_id=P1)
    assert row.first_try_variants == [] and row.first_try_numbers == []
    record = VariantRecord.objects.get(check_id=P1, seed=31)
    assert (record.attempts, record.wrong_attempts, record.correct) == (3, 2, True)
    # Seed 32 keeps its own wrong try too: right now is not its first try either.
    post(client, P1, 32, key(unit18, P1, 32))
    assert CheckAnswer.objects.get(check_id=P1).first_try_numbers == []
    assert level(buyer, unit18, P1) == "familiar"


def test_two_seeds_with_the_same_numbers_are_one_set_of_numbers(
    client: Client, buyer: Any, unit18: CompiledUnit
) -> None:
    problem = unit18.check(P1)
    one, other = variant_check(unit18, problem, 1), variant_check(unit18, problem, 457)
    assert numbers_of(one) == numbers_of(other)  # the pair: the same numbers
    post(client, P1, 1, key(unit18, P1, 1))
    post(client, P1, 457, key(unit18, P1, 457))
    row = CheckAnswer.objects.get(check_id=P1)
    assert sorted(row.first_try_variants) == [1, 457] and len(row.first_try_numbers) == 1
    assert level(buyer, unit18, P1) == "familiar"
    # Different numbers, solved at the first try: proficient.
    seed = next(
        s for s in range(2, 400) if numbers_of(variant_check(unit18, problem, s)) != numbers_of(one)
    )
    post(client, P1, seed, key(unit18, P1, seed))
    assert level(buyer, unit18, P1) == "proficient"


def test_fresh_numbers_links_never_repeat_numbers_already_shown(
    client: Client, buyer: Any, unit18: CompiledUnit
) -> None:
    # Layer weights draws few different problems (244 in seeds 1-3,000); before, the link came
    # back to numbers already shown within 16 clicks.
    page = client.get(ARENA).content.decode()
    prompts = [prompt(page, LAYER)]
    for _ in range(40):
        seed = fresh_link(page, LAYER)
        page = client.get(f"{ARENA}?seed-{LAYER}={seed}").content.decode()
        prompts.append(prompt(page, LAYER))
    assert len(set(prompts)) == len(prompts)


def test_fresh_numbers_skip_numbers_the_learner_has_worked_on(
    client: Client, buyer: Any, unit18: CompiledUnit
) -> None:
    problem = unit18.check(P1)
    first = fresh_link(client.get(ARENA).content.decode(), P1)
    # The learner works on those numbers by another seed's address, then comes back.
    post(client, P1, first, wrong(unit18, P1, first))
    page = client.get(f"{ARENA}?seed-{P1}=1").content.decode()
    offered = fresh_link(page, P1)
    numbers = {numbers_of(variant_check(unit18, problem, s)) for s in (1, first)}
    assert numbers_of(variant_check(unit18, problem, offered)) not in numbers
    # Sent back after an answer (the page's script swaps the check in), the link skips them too.
    data = post(client, P1, 1, wrong(unit18, P1, 1))
    again = fresh_link(data["html"], P1)
    assert numbers_of(variant_check(unit18, problem, again)) not in numbers


def test_a_right_answer_stays_on_its_seeds_page_after_a_wrong_one_elsewhere(
    client: Client, buyer: Any, unit18: CompiledUnit
) -> None:
    post(client, P1, 40, key(unit18, P1, 40))
    post(client, P1, 41, wrong(unit18, P1, 41))
    page = client.get(f"{ARENA}?seed-{P1}=40").content.decode()
    block = page.split(f'id="check-{P1}"')[1].split('id="check-p15-soft-output"')[0]
    assert "verdict-right" in block and "verdict-wrong" not in block
    assert key(unit18, P1, 40)[0] in block  # the answer they typed, in its box
    other = client.get(f"{ARENA}?seed-{P1}=41").content.decode()
    block = other.split(f'id="check-{P1}"')[1].split('id="check-p15-soft-output"')[0]
    assert "verdict-right" not in block
    # Without a seed in the address: the seed answered last, as before.
    assert 'name="seed" value="41"' in client.get(ARENA).content.decode()


def test_signing_in_keeps_each_seeds_record() -> None:
    user = get_user_model().objects.create_user("ravi@example.com", "ravi@example.com", "pw")
    token = uuid.uuid4()
    slug = "attention-and-transformers"
    common = {"unit_slug": slug, "check_id": P1}
    CheckAnswer.objects.create(anon_token=token, attempts=3, variant=78, **common)
    CheckAnswer.objects.create(user=user, attempts=1, variant=77, **common)
    VariantRecord.objects.create(user=user, seed=77, attempts=1, numbers="x", **common)
    VariantRecord.objects.create(
        anon_token=token, seed=77, attempts=2, wrong_attempts=2, numbers="x", **common
    )
    VariantRecord.objects.create(
        anon_token=token,
        seed=78,
        attempts=1,
        revealed_at="2026-11-01T10:00:00Z",
        numbers="y",
        **common,
    )
    learner_progress_claim(user=user, anon_token=token)
    mine = {r.seed: r for r in VariantRecord.objects.filter(user=user, check_id=P1)}
    assert set(mine) == {77, 78} and not VariantRecord.objects.filter(anon_token=token).exists()
    assert (mine[77].attempts, mine[77].wrong_attempts) == (3, 2)
    assert mine[78].revealed_at is not None


@pytest.mark.django_db(transaction=True)
def test_the_migration_keeps_existing_learners_progress() -> None:
    executor = MigrationExecutor(connection)
    before = [("learning", "0002_verdicts_variants_and_reveals")]
    after = [("learning", "0003_variant_records")]
    executor.migrate(before)
    old = executor.loader.project_state(before).apps
    User = old.get_model("accounts", "User") if _has_accounts_user(old) else None
    Answer = old.get_model("learning", "CheckAnswer")
    owner: dict[str, Any] = {"anon_token": uuid.uuid4()}
    if User is not None:
        owner = {"user_id": User.objects.create(username="old", email="old@example.com").pk}
    unit = "attention-and-transformers"
    Answer.objects.create(
        unit_slug=unit,
        check_id=P1,
        attempts=5,
        variant=9,
        variant_attempts=2,
        wrong_attempts=1,
        correct=True,
        last_answer=["(0.1, 0.2, 0.7)"],
        first_try_variants=[3, 4],
        solved_at="2026-11-01T10:00:00Z",
        **owner,
    )
    Answer.objects.create(unit_slug=unit, check_id="s1-sharpen", attempts=1, **owner)
    executor = MigrationExecutor(connection)
    executor.migrate(after)
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())
    row = CheckAnswer.objects.get(check_id=P1)
    assert len(set(row.first_try_numbers)) == 2  # still proficient: seeds 3 and 4
    assert selectors.mastery_level(row) == "proficient"
    records = {r.seed: r for r in VariantRecord.objects.filter(check_id=P1)}
    assert set(records) == {3, 4, 9}
    nine = records[9]
    assert (nine.attempts, nine.wrong_attempts, nine.correct) == (2, 1, True)
    assert nine.last_answer == ["(0.1, 0.2, 0.7)"] and not nine.first_try_correct
    assert records[3].first_try_correct and records[4].first_try_correct
    assert not VariantRecord.objects.filter(check_id="s1-sharpen").exists()


def _has_accounts_user(apps: Any) -> bool:
    try:
        apps.get_model("accounts", "User")
    except LookupError:
        return False
    return True
