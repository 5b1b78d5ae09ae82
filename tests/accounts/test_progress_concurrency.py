"""Progress is never lost under concurrency: real parallel transactions on PostgreSQL.

SQLite serialises writers (BEGIN IMMEDIATE), so these run only when DATABASE_URL is PostgreSQL.
"""

from __future__ import annotations

import importlib
import uuid
from collections.abc import Iterator

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from support import in_parallel

from mathmachine.coursebook.kinds import KINDS, FieldSpec
from mathmachine.coursebook.model import CheckDef, Field
from mathmachine.learning.learners import Learner
from mathmachine.learning.models import CheckAnswer
from mathmachine.learning.services import check_answer_submit, learner_progress_claim

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.skipif(
        settings.DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql",
        reason="needs DATABASE_URL pointing at PostgreSQL",
    ),
]


@pytest.fixture
def _products_back(django_db_blocker) -> Iterator[None]:
    """Requested before ``transactional_db``, so torn down after its flush: puts billing's
    products (a data migration) back for the tests that run later."""
    yield
    from django.apps import apps

    migration = importlib.import_module("mathmachine.billing.migrations.0002_products")
    with django_db_blocker.unblock():
        migration.create_products(apps, None)


UNIT = "attention-and-transformers"
CHECK = CheckDef(
    id="s1-count",
    section=1,
    prompt_html="<p>How many?</p>",
    fields=(
        Field(
            label="answer",
            kind="integer",
            key=KINDS["integer"].key("12", FieldSpec({})),
            answer_text="12",
        ),
    ),
    feedback_correct_html="<p>Right.</p>",
    feedback_wrong_html="<p>Not quite.</p>",
)


@pytest.mark.parametrize("owner", ["user", "anonymous"])
def test_double_submit_of_one_check_gives_one_row_with_two_attempts(
    _products_back, transactional_db, owner: str
) -> None:
    if owner == "user":
        user = get_user_model().objects.create_user(username="asha", email="asha@example.com")
        learner = Learner(user_id=user.pk, anon_token=None)
    else:
        learner = Learner(user_id=None, anon_token=uuid.uuid4())
    for _ in range(3):  # a few rounds: the race is on the first answer (the row's creation)
        CheckAnswer.objects.all().delete()
        errors = in_parallel(
            lambda: check_answer_submit(learner=learner, unit_slug=UNIT, check=CHECK, raw=["12"]),
            lambda: check_answer_submit(learner=learner, unit_slug=UNIT, check=CHECK, raw=["7"]),
        )
        assert errors == []
        rows = list(CheckAnswer.objects.filter(unit_slug=UNIT, check_id=CHECK.id))
        assert len(rows) == 1
        assert rows[0].attempts == 2
        # Whichever came second, the right answer given in one of them is on record.
        assert rows[0].solved_at is not None


def test_two_sign_ins_claiming_one_browsers_progress_at_once(
    _products_back, transactional_db
) -> None:
    user = get_user_model().objects.create_user(username="asha", email="asha@example.com")
    token = uuid.uuid4()
    anon = Learner(user_id=None, anon_token=token)
    mine = Learner(user_id=user.pk, anon_token=None)
    check_answer_submit(learner=anon, unit_slug=UNIT, check=CHECK, raw=["12"])
    check_answer_submit(learner=mine, unit_slug=UNIT, check=CHECK, raw=["3"])
    other = CheckDef(**{**CHECK.__dict__, "id": "s1-sharpen"})
    check_answer_submit(learner=anon, unit_slug=UNIT, check=other, raw=["1"])

    errors = in_parallel(
        lambda: learner_progress_claim(user=user, anon_token=token),
        lambda: learner_progress_claim(user=user, anon_token=token),
    )

    assert errors == []
    rows = {r.check_id: r for r in CheckAnswer.objects.all()}
    assert set(rows) == {"s1-count", "s1-sharpen"}
    assert all(r.user_id == user.pk and r.anon_token is None for r in rows.values())
    assert rows["s1-count"].attempts == 2  # merged once, not twice
    assert rows["s1-count"].correct is True
    assert rows["s1-sharpen"].attempts == 1


def test_claim_while_the_user_answers_in_another_tab(_products_back, transactional_db) -> None:
    user = get_user_model().objects.create_user(username="asha", email="asha@example.com")
    for _ in range(3):
        CheckAnswer.objects.all().delete()
        token = uuid.uuid4()
        anon = Learner(user_id=None, anon_token=token)
        mine = Learner(user_id=user.pk, anon_token=None)
        check_answer_submit(learner=anon, unit_slug=UNIT, check=CHECK, raw=["12"])

        errors = in_parallel(
            lambda token=token: learner_progress_claim(user=user, anon_token=token),
            lambda mine=mine: check_answer_submit(
                learner=mine, unit_slug=UNIT, check=CHECK, raw=["5"]
            ),
        )

        assert errors == []
        rows = list(CheckAnswer.objects.all())
        assert len(rows) == 1
        assert rows[0].user_id == user.pk
        assert rows[0].attempts == 2
        assert rows[0].solved_at is not None  # the anonymous right answer was not lost
