"""Issue 7, "an honest shop while the unit is being written", and issue 15, "the unit
complete": every page that offers the unit says, before payment, what is written today (read
from the compiled unit), which sections are still being written, and shows the finished unit's
totals only as the plan; once every section and problem is written it says the unit is whole,
with no plan and no "being written". Owners are never offered what they own; "Continue" never
leads to a placeholder.

Every test that takes ``unit18`` runs twice (tests/learning/conftest.py's unit_state): on the
unit as it is today and on a complete copy of it (tests/complete_content.py), so the tests hold
while the unit is written and after. No number of the unit is typed here: each is counted from
the compiled unit, and one test lands a section to see every page follow.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from support import paid_order_create

from mathmachine import units
from mathmachine.billing.models import Product
from mathmachine.coursebook.model import CompiledUnit, number_ranges
from mathmachine.learning import rendering

from .conftest import HOME, PRICING, SECTION_1, UNIT_PAGE, section_url

pytestmark = pytest.mark.django_db

OLD_PROMISES = (
    "14 more sections",
    "every section, widget, check and the practice arena",
    "18 widgets, 31 checks and the practice arena",
)


def text(response: Any) -> str:
    assert response.status_code == 200
    return re.sub(r"\s+", " ", response.content.decode())


@pytest.fixture
def unit18(unit_state: CompiledUnit) -> CompiledUnit:
    """The unit the site serves: today's, then the complete copy."""
    return unit_state


def written_facts(unit: CompiledUnit) -> dict[str, Any]:
    """What the pages must say, counted from the sections themselves."""
    written = [s for s in unit.sections if s.written]
    unwritten = [s.number for s in unit.sections if not s.written]
    return {
        "written": f"{len(written)} of {len(unit.sections)} sections "
        f"({number_ranges(tuple(s.number for s in written))})",
        "widgets": sum(len(s.widgets) for s in written),
        "checks": sum(len(s.checks) for s in written),
        "problems": sum(len(s.problems) for s in written),
        "unwritten": number_ranges(tuple(unwritten)) if unwritten else "",
    }


def words(page: str) -> str:
    """The page's text, tags removed (what a reader reads)."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", page))


def plan(unit: CompiledUnit) -> str:
    c = unit.contents
    return (
        f"The plan for the finished unit: {c.sections} sections, {c.planned_widgets} widgets, "
        f"{c.planned_checks} checks and {c.planned_problems} practice problems."
    )


def assert_says_what_is_written(page: str, unit: CompiledUnit) -> None:
    page = words(page)
    facts = written_facts(unit)
    c = unit.contents
    if c.complete:
        assert (
            f"The whole unit is written: all {c.sections} sections, with {facts['widgets']} "
            f"interactive widgets, {facts['checks']} checks and {facts['problems']} practice "
            "problems, each solved in full." in page
        )
        for gone in ("Written so far", "Still being written", "The plan for the finished unit"):
            assert gone not in page
    else:
        if c.unwritten:
            assert (
                f"Written so far: {facts['written']}, with {facts['widgets']} interactive" in page
            )
            many = "s" if len(c.unwritten) > 1 else ""
            assert f"Still being written: section{many} {facts['unwritten']}." in page
        problems = (
            f"{facts['problems']} of the {c.planned_problems} practice problems"
            if facts["problems"] < c.planned_problems
            else f"{facts['problems']} practice problems"
        )
        assert f"{facts['checks']} checks and {problems}" in page
        assert plan(unit) in page
    for promise in OLD_PROMISES:
        assert promise not in page


@pytest.fixture
def owner_client() -> Client:
    user = get_user_model().objects.create_user("owner", "owner@example.com", "pw long enough 1")
    paid_order_create(user, Product.objects.get(code="unit-18"))
    client = Client()
    client.force_login(user)
    return client


def test_the_two_units_the_tests_run_on(unit18: CompiledUnit) -> None:
    """Today's unit is complete or it is not; the copy is, with every count its plan."""
    c = unit18.contents
    finished = (c.widgets, c.checks, c.problems) == (
        c.planned_widgets,
        c.planned_checks,
        c.planned_problems,
    )
    assert c.complete == (not c.unwritten and not c.partial) == finished


@pytest.mark.parametrize("path", [UNIT_PAGE, SECTION_1, PRICING])
def test_before_payment_the_offer_says_what_is_written(
    client: Client, unit18: CompiledUnit, path: str
) -> None:
    assert_says_what_is_written(text(client.get(path)), unit18)


def test_every_locked_section_says_what_it_holds_or_that_it_is_being_written(
    client: Client, unit18: CompiledUnit
) -> None:
    for section in unit18.sections[1:]:
        page = text(client.get(section_url(section.number)))
        assert "Unlock Unit 18" in page
        assert_says_what_is_written(page, unit18)
        if section.written:
            assert "This section is part of the paid unit; it holds " in page
            assert "still being written" not in page.split("Unlock Unit 18")[0]
        else:
            assert (
                "This section is still being written: buying the unit today does not open it"
                in page
            )


def test_the_end_of_the_preview_names_the_written_sections(
    client: Client, unit18: CompiledUnit
) -> None:
    page = text(client.get(SECTION_1))
    paid = number_ranges(unit18.contents.paid_written)
    if unit18.contents.unwritten:
        assert f"as far as it is written: today that is sections {paid}." in page
    else:
        assert "The rest of Unit 18 opens when you unlock it." in page
        assert "as far as it is written" not in page


def test_the_table_of_contents_marks_what_is_being_written(
    client: Client, unit18: CompiledUnit
) -> None:
    page = text(client.get(UNIT_PAGE))
    items = re.findall(r'<li class="toc-item[^"]*"[^>]*>.*?</li>', page)
    assert len(items) == len(unit18.sections)
    for item, section in zip(items, unit18.sections, strict=True):
        assert ("being written" in item) == (not section.written), item
    arena = unit18.section(15)
    if len(arena.problems) < arena.planned_problems:
        assert f"{len(arena.problems)} of 16 problems so far" in items[14]
    else:
        assert "problems so far" not in items[14]
    if unit18.contents.complete:
        assert "badge-unwritten" not in page


def test_the_bundle_says_which_paid_units_exist(client: Client, unit18: CompiledUnit) -> None:
    for path in (UNIT_PAGE, PRICING):
        page = text(client.get(path))
        assert (
            "Unit 18, Attention and Transformers, is the only one published so far; the other "
            "six are still being written" in page
        )


def test_progress_counts_the_checks_that_exist(client: Client, unit18: CompiledUnit) -> None:
    client.get(SECTION_1)
    client.post(
        "/units/attention-and-transformers/checks/s1-count/",
        {"answer": ["35", "1050"]},
        HTTP_ACCEPT="application/json",
    )
    checks = written_facts(unit18)["checks"]
    page = text(client.get(UNIT_PAGE))
    if unit18.contents.unwritten:
        assert f"You have answered 1 of the {checks} checks written so far (1 right)." in page
        assert f"of {unit18.contents.planned_checks}" not in page
    else:
        assert checks == unit18.contents.planned_checks
        assert f"You have answered 1 of {checks} checks (1 right)." in page


def test_a_newcomer_is_invited_to_the_free_preview_a_returning_learner_to_continue(
    client: Client,
) -> None:
    for path in (HOME, UNIT_PAGE):
        assert f'href="{SECTION_1}">Start the free preview<' in text(client.get(path))
    client.post(
        "/units/attention-and-transformers/checks/s1-count/",
        {"answer": ["35", "1050"]},
        HTTP_ACCEPT="application/json",
    )
    for path in (HOME, UNIT_PAGE):
        page = text(client.get(path))
        assert "Start the free preview" not in page
        assert f'href="{SECTION_1}">Continue at §1<' in page  # s1-sharpen is unanswered


def test_an_owner_is_not_offered_the_unit(owner_client: Client, unit18: CompiledUnit) -> None:
    page = text(owner_client.get(UNIT_PAGE))
    assert "Unlock Unit 18" not in page and "₹299" not in page
    assert "Unit 18 is yours" in page
    assert_says_what_is_written(page, unit18)  # what they own, and what is still to come
    assert f'href="{SECTION_1}">Start at §1<' in page
    assert "Start the free preview" not in text(owner_client.get(HOME))
    if unit18.contents.unwritten:
        assert "Everything written is open to you." in page
        # An unwritten section they open says so, and offers nothing.
        unwritten = unit18.contents.unwritten[0]
        page = text(owner_client.get(section_url(unwritten)))
        assert "This section is still being written" in page and "Unlock Unit 18" not in page
    else:
        assert "Every section is open to you." in page
        for section in unit18.sections:
            page = text(owner_client.get(section_url(section.number)))
            assert "still being written" not in page and "Unlock Unit 18" not in page


def test_a_landed_section_updates_every_promise(
    client: Client, unit18: CompiledUnit, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another section lands (here: the first unwritten one, compiled with §2's widget and
    checks): the offer, the table of contents and progress follow without a code change. On a
    complete unit, §12 is first taken back to unwritten, so that it can land again."""
    if not unit18.contents.unwritten:
        back = dataclasses.replace(unit18.section(12), written=False, html="", widgets=())
        unit18 = dataclasses.replace(
            unit18, sections=tuple(back if s.number == 12 else s for s in unit18.sections)
        )
        assert not unit18.contents.complete
    number = unit18.contents.unwritten[0]
    donor = unit18.section(2)
    landed = dataclasses.replace(
        unit18.section(number), written=True, html="<p>Landed.</p>", widgets=donor.widgets
    )
    unit = dataclasses.replace(
        unit18,
        sections=tuple(landed if s.number == number else s for s in unit18.sections),
        source_hash=unit18.source_hash + "-landed",
    )
    monkeypatch.setattr(units, "unit", lambda slug: unit)  # what every app reads the units from
    rendering.clear_memos()
    before, after = written_facts(unit18), written_facts(unit)
    assert after["widgets"] == before["widgets"] + len(donor.widgets)
    for path in (UNIT_PAGE, SECTION_1, PRICING, section_url(number + 1)):
        assert_says_what_is_written(text(client.get(path)), unit)
    page = text(client.get(section_url(number)))
    assert "This section is part of the paid unit; it holds 1 interactive widget" in page
    rendering.clear_memos()


def test_no_page_repeats_the_old_promises_to_owners_either(
    owner_client: Client, unit18: CompiledUnit
) -> None:
    for path in (HOME, UNIT_PAGE, SECTION_1, PRICING, "/your-learning/"):
        page = text(owner_client.get(path))
        for promise in OLD_PROMISES:
            assert promise not in page
