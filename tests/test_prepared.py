"""mathmachine/prepared.py: a read compiled once gives what the queryset gives, for every value."""

from __future__ import annotations

import uuid

import pytest
from django.contrib.auth import get_user_model

from mathmachine.learning import selectors
from mathmachine.learning.learners import Learner
from mathmachine.learning.models import CheckAnswer
from mathmachine.prepared import Prepared

pytestmark = pytest.mark.django_db

FIELDS = [f.attname for f in CheckAnswer._meta.concrete_fields]


def rows_of(*answers: CheckAnswer) -> list[tuple[object, ...]]:
    return sorted(tuple(getattr(a, f) for f in FIELDS) for a in answers)


def make_answers() -> tuple[object, uuid.UUID]:
    user = get_user_model().objects.create_user("p@example.com", "p@example.com", "x" * 12)
    token = uuid.uuid4()
    for owner in ({"user": user}, {"anon_token": token}):
        for i, check in enumerate(("a", "b", "c")):
            CheckAnswer.objects.create(
                unit_slug="u",
                check_id=check,
                last_answer=[f"{i}", "<&>"],
                mistakes=["m"] if i else [],
                fields_right=[True, False],
                attempts=i + 1,
                **owner,
            )
    CheckAnswer.objects.create(unit_slug="other", check_id="a", user=user)
    return user, token


def test_objects_and_rows_are_the_querysets_own() -> None:
    user, token = make_answers()

    def by_user(slug: str, user_id: int) -> object:
        return CheckAnswer.objects.filter(unit_slug=slug, user_id=user_id, attempts__gte=2)

    read = Prepared(CheckAnswer, by_user, "stand-in", 2_000_000_123)
    for slug, who in (("u", user.pk), ("other", user.pk), ("u", user.pk + 99)):
        assert rows_of(*read.objects(slug, who)) == rows_of(*by_user(slug, who))
    ids = Prepared(
        CheckAnswer,
        lambda t: (
            CheckAnswer.objects.filter(anon_token=t)
            .order_by("check_id")
            .values_list("check_id", "attempts")
        ),
        uuid.UUID(int=7),
    )
    assert ids.rows(token) == [("a", 1), ("b", 2), ("c", 3)]
    assert ids.rows(uuid.uuid4()) == []


def test_a_stand_in_the_query_drops_is_refused() -> None:
    # attempts is a positive field: Django turns "attempts = -5" into no comparison at all.
    read = Prepared(CheckAnswer, lambda n: CheckAnswer.objects.filter(attempts=n), -5)
    with pytest.raises(ValueError, match="stand-in"):
        read.objects(3)
    with pytest.raises(TypeError):
        Prepared(CheckAnswer, lambda n: CheckAnswer.objects.filter(attempts=n), 5).objects()


def test_a_section_pages_answers_are_the_units_own_for_its_checks() -> None:
    user, token = make_answers()
    for learner in (Learner(user.pk, None), Learner(None, token), Learner(None, uuid.uuid4())):
        every = selectors.answers_for(learner=learner, unit_slug="u")
        for ids in (["a"], ["c", "a"], ["b", "x", "c"], []):
            some = selectors.answers_for(learner=learner, unit_slug="u", check_ids=ids)
            assert sorted(some) == sorted(i for i in ids if i in every)
            assert rows_of(*some.values()) == rows_of(*(every[i] for i in some))


def test_the_drivers_path_gives_what_djangos_cursor_gives_and_is_counted_when_watched() -> None:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    _, token = make_answers()
    read = Prepared(
        CheckAnswer,
        lambda t: CheckAnswer.objects.filter(anon_token=t).order_by("check_id"),
        uuid.UUID(int=7),
    )
    fast = rows_of(*read.objects(token))  # nothing watches: straight to the driver
    with CaptureQueriesContext(connection) as watched:
        logged = rows_of(*read.objects(token))  # Django's cursor, so the query is counted
    assert fast == logged == rows_of(*CheckAnswer.objects.filter(anon_token=token))
    assert len(fast) == 3 and len(watched) == 1 and str(token.hex) in watched[0]["sql"]


def test_a_database_error_on_the_drivers_path_is_djangos_and_a_broken_transaction_stops_it() -> (
    None
):
    from django.db import DatabaseError, connection, transaction
    from django.db.transaction import TransactionManagementError

    read = Prepared(CheckAnswer, lambda n: CheckAnswer.objects.filter(attempts=n), 5)
    read._compiled[connection.alias] = (
        "SELECT nothing FROM no_such_table WHERE 1 = %s",
        (("as is", 0, int),),
    )
    with pytest.raises(DatabaseError), transaction.atomic():  # Django's class, not the driver's
        read.rows(5)
    ok = Prepared(CheckAnswer, lambda n: CheckAnswer.objects.filter(attempts=n), 5)
    with transaction.atomic():
        connection.set_rollback(True)  # as after an error caught inside the block
        with pytest.raises(TransactionManagementError):
            ok.rows(5)
