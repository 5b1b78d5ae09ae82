"""What rendering.py keeps in-process (the body cut at its check markers, tables of contents,
unanswered check forms) is exactly what a fresh render gives, is never personal, follows the
content and the script prefix, and every response still gets its own CSRF token."""

from __future__ import annotations

import dataclasses
import re
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.middleware.csrf import _unmask_cipher_token
from django.template.loader import render_to_string
from django.test import Client, RequestFactory
from django.urls import set_script_prefix
from django.utils import timezone
from support import paid_order_create

from mathmachine.billing.models import Product
from mathmachine.coursebook.grading import grade
from mathmachine.coursebook.kinds import KINDS
from mathmachine.coursebook.model import CheckDef, CompiledUnit
from mathmachine.learning import rendering, selectors
from mathmachine.learning.models import CheckAnswer
from mathmachine.learning.rendering import CHECK_MARKER, check_html, section_html, toc_html

from .conftest import C1, C2, SECTION_1, UNIT_PAGE, check_url, section_url

TOKEN = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


@pytest.fixture(autouse=True)
def fresh_memos() -> Iterator[None]:
    rendering.clear_memos()
    yield
    rendering.clear_memos()


def text(response: Any) -> str:
    return response.content.decode()


def tokens(html: str) -> list[str]:
    return TOKEN.findall(html)


def secrets_of(html: str) -> set[str]:
    """The CSRF secrets behind the (masked, so each one different) tokens in ``html``."""
    return {_unmask_cipher_token(token) for token in tokens(html)}


def without_tokens(html: str) -> str:
    return TOKEN.sub('name="csrfmiddlewaretoken" value="-"', html)


def a_request() -> Any:
    return RequestFactory().get(SECTION_1)


def fresh_check(request: Any, unit: CompiledUnit, check: CheckDef, **kw: Any) -> str:
    """The check rendered from its template, as before anything was kept (with the page's other
    problems' seeds put in, as check_html does)."""
    context = rendering._check_context(
        unit=unit, check=check, answer=kw.get("answer"), message=kw.get("message", "")
    )
    html = render_to_string("learning/_check.html", context, request=request)
    return html.replace(rendering.PAGE_SEEDS, rendering.page_seeds(request, check))


def all_checks(unit: CompiledUnit) -> list[CheckDef]:
    return [c for s in unit.sections for c in s.checks]


def entitle(user: Any) -> None:
    """A paid order of Unit 18 with its entitlement, written directly (a read test)."""
    paid_order_create(user, Product.objects.get(code="unit-18"))


@pytest.fixture
def user_client(db: None) -> Callable[[bool], Client]:
    def make(entitled: bool) -> Client:
        email = f"r-{uuid.uuid4().hex[:8]}@example.com"
        user = get_user_model().objects.create_user(email, email, "a long test password 42")
        if entitled:
            entitle(user)
        browser = Client()
        browser.force_login(user)
        return browser

    return make


# Checks -----------------------------------------------------------------------------------------


def test_every_kept_unanswered_check_is_the_templates_own_output(unit18: CompiledUnit) -> None:
    checks = all_checks(unit18)
    assert len(checks) >= 2
    for check in checks:
        for _ in range(2):  # the first call fills the memo, the second reads it
            request = a_request()
            kept = check_html(request=request, unit=unit18, check=check, answer=None)
            assert len(tokens(kept)) == 1
            assert secrets_of(kept) == {request.META["CSRF_COOKIE"]}
            assert without_tokens(kept) == without_tokens(fresh_check(request, unit18, check))


def answered(unit: CompiledUnit, check: CheckDef, typed: list[str], **extra: Any) -> CheckAnswer:
    """A learner's row after answering ``typed`` (graded for real), not saved."""
    verdict = grade(check, typed)
    row = CheckAnswer(
        unit_slug=unit.slug,
        check_id=check.id,
        last_answer=typed,
        correct=verdict.correct,
        mistakes=list(verdict.mistakes),
        fields_right=list(verdict.fields_right),
        variant=check.variant.seed if check.variant else None,
        check_version=check.version,
    )
    row.attempts = row.variant_attempts = extra.pop("tries", 1)
    row.wrong_attempts = 0 if verdict.correct else row.variant_attempts
    for name, value in extra.items():
        setattr(row, name, value)
    return row


def answer_states(unit: CompiledUnit, check: CheckDef) -> list[CheckAnswer]:
    """The states a learner's check is seen in: right (after tries), each named mistake, wrong
    once and three times with text that needs escaping, the worked answer opened, changed since
    answered, and a problem solved on two sets of numbers."""
    right = [f.answer_text for f in check.fields]
    odd = ['<b>1</b> & "2"'] * len(check.fields)
    rows = [answered(unit, check, right), answered(unit, check, right, tries=4)]
    for mistake in check.mistakes:  # typed as the worked answer would print its numbers
        if mistake.answer:
            typed = [
                f.answer_text if a is None else KINDS[f.kind].describe(a)
                for f, a in zip(check.fields, mistake.answer, strict=True)
            ]
            rows.append(answered(unit, check, typed, tries=2))
    rows += [answered(unit, check, odd), answered(unit, check, odd, tries=3)]
    rows.append(answered(unit, check, odd, revealed_at=timezone.now()))
    rows.append(answered(unit, check, right, check_version="an older version"))
    if check.problem:
        rows.append(
            answered(unit, check, right, solved_at=timezone.now(), first_try_variants=[1, 2])
        )
    return rows


@pytest.mark.django_db
def test_every_kept_answered_check_is_the_templates_own_output(unit18: CompiledUnit) -> None:
    """The lasting guard of the fast path: for every check and problem of every written section,
    in every state a learner sees it in, the kept HTML with the learner's own text put in is what
    the template renders afresh (CSRF tokens aside), and the kept copies hold no typed text."""
    checks = [c for s in unit18.sections if s.written for c in s.gradables]
    assert len(checks) >= 10
    states = {check.id: answer_states(unit18, check) for check in checks}
    assert sum(bool(r.mistakes) for rows in states.values() for r in rows) >= 10  # named ones
    for check in checks:
        for row in states[check.id]:
            for _ in range(2):  # the first call fills the memo, the second reads it
                request = a_request()
                kept = check_html(request=request, unit=unit18, check=check, answer=row)
                fresh = fresh_check(request, unit18, check, answer=row)
                assert without_tokens(kept) == without_tokens(fresh), (check.id, row.last_answer)
                assert secrets_of(kept) == {request.META["CSRF_COOKIE"]}
    kept_html = "".join(rendering._ANSWERED_CHECKS._data.values())
    assert "&lt;b&gt;1&lt;/b&gt;" not in kept_html and "<b>1</b>" not in kept_html
    assert len(rendering._ANSWERED_CHECKS._data) > len(checks)


@pytest.mark.django_db
def test_answered_checks_and_messages_are_rendered_per_learner(
    unit18: CompiledUnit, check1: CheckDef
) -> None:
    row = CheckAnswer(unit_slug=unit18.slug, check_id=C1, last_answer=["0.31 0.32 0.37"])
    row.attempts = row.variant_attempts = row.wrong_attempts = 3
    request = a_request()
    mine = check_html(request=request, unit=unit18, check=check1, answer=row)
    assert "0.31 0.32 0.37" in mine and "3 tries so far" in mine
    assert without_tokens(mine) == without_tokens(fresh_check(request, unit18, check1, answer=row))
    flagged = check_html(request=request, unit=unit18, check=check1, answer=None, message="Hm?")
    assert 'aria-invalid="true"' in flagged and "Hm?" in flagged
    blank = check_html(request=a_request(), unit=unit18, check=check1, answer=None)
    for personal in ("0.31 0.32 0.37", "tries", "Hm?", "aria-invalid", "verdict-"):
        assert personal not in blank
    kept = "".join(rendering._BLANK_CHECKS._data.values())
    assert "0.31 0.32 0.37" not in kept and "Hm?" not in kept


def test_each_response_has_its_own_csrf_token_in_the_kept_forms(unit18: CompiledUnit) -> None:
    section = selectors.section_get(unit18, 1)
    seen = []
    for _ in range(3):
        request = a_request()
        body = section_html(
            request=request, unit=unit18, section=section, answers={}, messages_by_check={}
        ).decode()
        assert len(tokens(body)) == len(section.checks)
        assert secrets_of(body) == {request.META["CSRF_COOKIE"]}  # this request's secret
        assert request.META["CSRF_COOKIE_NEEDS_UPDATE"]  # the cookie goes out with the page
        seen.append(request.META["CSRF_COOKIE"])
    assert len(set(seen)) == 3


@pytest.mark.django_db
def test_the_token_in_a_kept_form_is_accepted_when_csrf_is_enforced() -> None:
    browser = Client(enforce_csrf_checks=True)
    for _ in range(2):  # the second page is built from the kept forms
        page = text(browser.get(SECTION_1))
    token = tokens(page)[0]
    assert browser.post(check_url(C1), {"answer": ["0.1 0.2 0.7"]}).status_code == 403
    response = browser.post(
        check_url(C1),
        {"answer": ["0.017 0.047 0.936"], "csrfmiddlewaretoken": token},
        HTTP_ACCEPT="application/json",
    )
    assert response.status_code == 200 and response.json()["correct"] is True


# The section body -------------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_body_is_the_compiled_html_with_each_marker_filled(unit18: CompiledUnit) -> None:
    section = selectors.section_get(unit18, 1)
    answer = CheckAnswer(unit_slug=unit18.slug, check_id=C2, last_answer=["35", "999"])
    answer.attempts = answer.variant_attempts = answer.wrong_attempts = 1
    answers = {C2: answer}
    request = a_request()
    checks = {c.id: c for c in section.checks}

    def fill(match: re.Match[str]) -> str:
        check = checks[match.group(1)]
        message = "Odd" if check.id == C1 else ""
        return fresh_check(request, unit18, check, answer=answers.get(check.id), message=message)

    expected = CHECK_MARKER.sub(fill, section.html)  # what the page was before anything was kept
    for _ in range(2):
        got = section_html(
            request=request,
            unit=unit18,
            section=section,
            answers=answers,
            messages_by_check={C1: "Odd"},
        ).decode()  # in UTF-8
        assert without_tokens(got) == without_tokens(expected)
    assert "<!--check:" not in got and 'value="999"' in got


def test_a_rebuilt_unit_gets_its_own_fragments(unit18: CompiledUnit) -> None:
    section = selectors.section_get(unit18, 1)
    before = section_html(
        request=a_request(), unit=unit18, section=section, answers={}, messages_by_check={}
    ).decode()
    edited = dataclasses.replace(section, html=f"<p>Rewritten.</p><!--check:{C1}-->")
    rebuilt = dataclasses.replace(
        unit18,
        source_hash="0" * 64,
        sections=tuple(edited if s.number == 1 else s for s in unit18.sections),
    )
    after = section_html(
        request=a_request(), unit=rebuilt, section=edited, answers={}, messages_by_check={}
    ).decode()
    assert after.startswith("<p>Rewritten.</p>") and f'data-check="{C2}"' not in after
    assert "Rewritten" not in before


def test_fragments_follow_the_script_prefix(unit18: CompiledUnit, check1: CheckDef) -> None:
    toc = [{"section": s, "open": True} for s in unit18.sections]
    plain = check_html(request=a_request(), unit=unit18, check=check1, answer=None)
    plain_toc = toc_html(unit=unit18, toc=toc, current=None)
    set_script_prefix("/course/")
    try:
        prefixed = check_html(request=a_request(), unit=unit18, check=check1, answer=None)
        prefixed_toc = toc_html(unit=unit18, toc=toc, current=None)
    finally:
        set_script_prefix("/")
    assert f'action="/course{check_url(C1)}"' in prefixed
    assert f'action="{check_url(C1)}"' in plain
    assert f'href="/course{section_url(2)}"' in prefixed_toc
    assert f'href="{section_url(2)}"' in plain_toc and "/course/" not in plain_toc


# Tables of contents ----------------------------------------------------------------------------


def test_a_kept_table_of_contents_is_the_templates_own_output(unit18: CompiledUnit) -> None:
    patterns = [[True] + [False] * 14, [True] * 15]
    for opened in patterns:
        toc = [{"section": s, "open": o} for s, o in zip(unit18.sections, opened, strict=True)]
        for current in (None, unit18.sections[0], unit18.sections[4]):
            context = {"unit": unit18, "toc": toc, "current": current}
            expected = render_to_string("learning/_toc.html", context)
            assert toc_html(unit=unit18, toc=toc, current=current) == expected
            assert toc_html(unit=unit18, toc=toc, current=current) == expected  # from the memo


@pytest.mark.django_db
def test_each_learner_sees_the_contents_of_their_own_access(
    client: Client, user_client: Callable[[bool], Client]
) -> None:
    locked, owner, anon_again = user_client(False), user_client(True), Client()
    link_2 = f'href="{section_url(2)}"'
    for browser, opens in ((client, False), (owner, True), (locked, False), (anon_again, False)):
        unit_page = text(browser.get(UNIT_PAGE))
        assert (link_2 in unit_page) is opens
        assert ("toc-locked" in unit_page) is not opens
    # Section 1 ends the preview (offer and contents) only for those without access.
    assert "preview-end" in text(client.get(SECTION_1))
    assert "preview-end" not in text(owner.get(SECTION_1))
    locked_page = text(locked.get(section_url(3)))
    assert 'aria-current="page"' not in locked_page  # a locked section is not a link
    assert 'toc-locked toc-current" value="3"' in locked_page


# The memo itself --------------------------------------------------------------------------------


def test_the_memo_is_bounded_and_makes_each_value_once() -> None:
    memo: rendering._Memo[int] = rendering._Memo(3)
    made: list[int] = []

    def maker(n: int) -> Callable[[], int]:
        return lambda: made.append(n) or n

    assert [memo.get(n, maker(n)) for n in (1, 2, 1, 2)] == [1, 2, 1, 2]
    assert made == [1, 2]
    memo.get(3, maker(3))
    memo.get(4, maker(4))  # full: starts afresh
    assert len(memo._data) == 1
    assert memo.get(1, maker(1)) == 1 and made == [1, 2, 3, 4, 1]
