"""The learning views through Django's test client: pages, the gate's locked page, answering
checks (JSON for the page's script, redirects for plain forms), status codes and headers."""

from __future__ import annotations

import gzip
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from mathmachine.coursebook.model import CheckDef, CompiledUnit
from mathmachine.learning import selectors
from mathmachine.learning.learners import SESSION_KEY
from mathmachine.learning.models import CheckAnswer, SectionVisit

from .conftest import (
    C1,
    C2,
    HOME,
    PRICING,
    SECTION_1,
    UNIT,
    UNIT_PAGE,
    check_url,
    section_url,
)

pytestmark = pytest.mark.django_db

UNREADABLE = "Type 3 numbers in order, like (0.1, 0.2, 0.3)."  # check 1's, a vector of 3


def text(response: Any) -> str:
    return response.content.decode()


# Pages ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", [HOME, UNIT_PAGE, SECTION_1, PRICING])
def test_pages_answer_200_with_html(client: Client, path: str) -> None:
    response = client.get(path)
    assert response.status_code == 200
    assert response["Content-Type"] == "text/html; charset=utf-8"
    assert text(response).startswith("<!doctype html>")


def test_home_lists_unit_18_and_links_its_free_preview(client: Client) -> None:
    page = text(client.get(HOME))
    assert "Attention and Transformers" in page
    assert f'href="{UNIT_PAGE}"' in page
    assert f'href="{SECTION_1}"' in page


def test_unit_page_lists_all_15_sections_with_2_to_15_locked(
    client: Client, unit18: CompiledUnit
) -> None:
    response = client.get(UNIT_PAGE)
    page = text(response)
    assert [item["section"].number for item in response.context["toc"]] == list(range(1, 16))
    assert [item["open"] for item in response.context["toc"]] == [True] + [False] * 14
    for section in unit18.sections:
        assert section.title.replace("'", "&#x27;") in page
    assert page.count("badge-locked") == 14
    assert f'href="{section_url(1)}"' in page
    assert f'href="{section_url(2)}"' not in page  # locked sections are not links
    assert "Unlock Unit 18" in page and f'href="{PRICING}"' in page


def test_section_1_has_the_widget_both_checks_and_no_answer_key(
    client: Client, check1: CheckDef, check2: CheckDef
) -> None:
    response = client.get(SECTION_1)
    page = text(response)
    assert "<translate-lookback" in page
    assert "<math" in page and "$$" not in page  # MathML rendered on the server
    for check in (check1, check2):
        assert f'action="{check_url(check.id)}"' in page
        # The key (answers, feedback, hints) is not in the page before answering.
        assert check.feedback_correct_html not in page
        assert check.solution_html not in page
        for hint in check.hints_html:
            assert hint not in page
        for mistake in check.mistakes:
            assert mistake.html not in page
    assert page.count('name="csrfmiddlewaretoken"') >= 2
    assert 'class="check-feedback" id="check-s1-sharpen-feedback" role="status"' in page
    assert "verdict-" not in page  # nothing graded yet


@pytest.mark.parametrize("number", range(2, 16))
def test_a_locked_section_shows_the_offer_and_none_of_its_content(
    client: Client, unit18: CompiledUnit, number: int
) -> None:
    response = client.get(section_url(number))
    assert response.status_code == 200
    assert response.templates[0].name == "learning/locked.html"
    page = text(response)
    section = unit18.sections[number - 1]
    assert section.title.replace("'", "&#x27;") in page
    assert "Unlock Unit 18" in page and f'href="{PRICING}"' in page
    assert "section-body" not in page
    assert "check-form" not in page and "<translate-lookback" not in page
    assert "body" not in response.context
    # Reading a locked page records no visit and makes no learner.
    assert SectionVisit.objects.count() == 0
    assert SESSION_KEY not in client.session


@pytest.mark.parametrize(
    "path",
    [
        "/units/no-such-unit/",
        "/units/no-such-unit/1/",
        f"/units/{UNIT}/16/",
        f"/units/{UNIT}/0/",
        f"/units/{UNIT}/not-a-number/",
    ],
)
def test_unknown_unit_or_section_is_404(client: Client, path: str) -> None:
    assert client.get(path).status_code == 404


@pytest.mark.parametrize("url", [check_url("no-such-check"), check_url(C1, unit="no-such-unit")])
def test_unknown_check_is_404_and_stores_nothing(client: Client, url: str) -> None:
    assert client.post(url, {"answer": ["1"]}).status_code == 404
    assert client.post(url, {"answer": ["1"]}, HTTP_ACCEPT="application/json").status_code == 404
    assert CheckAnswer.objects.count() == 0


@pytest.mark.parametrize("method", ["get", "put", "delete"])
def test_the_check_url_takes_only_post(client: Client, method: str) -> None:
    response = getattr(client, method)(check_url(C1))
    assert response.status_code == 405
    assert response["Allow"] == "POST"


def test_pages_take_only_get(client: Client) -> None:
    for path in (HOME, UNIT_PAGE, SECTION_1, PRICING):
        response = client.post(path)
        assert response.status_code == 405, path
        assert "GET" in response["Allow"]


# Headers ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", [UNIT_PAGE, section_url(2), PRICING])
def test_learner_pages_are_private_and_never_stored(client: Client, path: str) -> None:
    response = client.get(path)
    cache_control = {p.strip() for p in response["Cache-Control"].split(",")}
    assert {"private", "no-store"} <= cache_control
    assert "Cookie" in response["Vary"]


def test_an_open_section_is_private_and_always_asked_again(client: Client) -> None:
    """The free section may be kept on a phone with its unit (docs/offline.md): never in a
    shared cache (private, Vary: Cookie) and revalidated every time (no-cache), not no-store."""
    response = client.get(SECTION_1)
    cache_control = {p.strip() for p in response["Cache-Control"].split(",")}
    assert {"private", "no-cache"} <= cache_control and "no-store" not in cache_control
    assert "Cookie" in response["Vary"]


def test_check_answers_are_private_too(client: Client) -> None:
    response = client.post(
        check_url(C1), {"answer": ["0.1 0.2 0.7"]}, HTTP_ACCEPT="application/json"
    )
    assert {"private", "no-store"} <= {p.strip() for p in response["Cache-Control"].split(",")}


def test_html_is_gzipped_when_the_browser_accepts_it(client: Client) -> None:
    plain = client.get(SECTION_1)
    assert not plain.has_header("Content-Encoding")
    zipped = client.get(SECTION_1, HTTP_ACCEPT_ENCODING="gzip, deflate, br")
    assert zipped["Content-Encoding"] == "gzip"
    assert "Accept-Encoding" in zipped["Vary"]
    html = gzip.decompress(zipped.content).decode()
    assert "<translate-lookback" in html
    assert len(zipped.content) < len(plain.content) / 3


# Answering checks: the page's script (JSON) --------------------------------------------------


def test_json_answer_wrong_then_right(
    client: Client, answer: Callable[..., Any], check1: CheckDef
) -> None:
    client.get(SECTION_1)
    wrong = answer(C1, "0.1, 0.164, 0.736")
    assert wrong.status_code == 200
    assert wrong["Content-Type"] == "application/json"
    data = wrong.json()
    assert data["ok"] is True and data["correct"] is False and data["attempts"] == 1
    assert check1.mistakes[0].html in data["html"]  # "these are the old weights"
    assert 'value="0.1, 0.164, 0.736"' in data["html"]
    assert "verdict-wrong" in data["html"] and check1.feedback_correct_html not in data["html"]

    right = answer(C1, "1.7%, 4.7%, 93.6%")
    data = right.json()
    assert data == {**data, "ok": True, "correct": True, "attempts": 2, "message": ""}
    assert check1.feedback_correct_html in data["html"]
    assert "Right (after 2 tries)." in data["html"]
    assert data["html"].startswith('<section class="check" id="check-s1-sharpen"')


@pytest.mark.parametrize(
    ("fields", "correct"),
    [
        (["35", "1,050"], True),
        (["35", "1050"], True),
        (["३५", "१०५०"], True),
        (["1", "1050"], False),
        (["35", "900"], False),
    ],
)
def test_json_answer_to_the_two_field_check(
    client: Client, answer: Callable[..., Any], fields: list[str], correct: bool
) -> None:
    data = answer(C2, *fields).json()
    assert data["ok"] is True and data["correct"] is correct
    row = CheckAnswer.objects.get(check_id=C2)
    assert row.last_answer == fields and row.correct is correct


@pytest.mark.parametrize(
    ("check_id", "fields", "message"),
    [
        (C1, ["about a third each"], UNREADABLE),
        (C1, [""], UNREADABLE),
        (C1, ["0.1, 0.2"], "This answer is a list of 3 numbers"),
        (C1, ["0.1", "0.2"], "This check takes one answer; got 2."),
        (C1, [], "This check takes one answer; got 0."),
        (C2, ["35"], "This check takes 2 answers; got 1."),
        (C2, ["35", "lots"], "Numbers in the map: “lots” is not a number. Type a whole number"),
        (C2, ["35", "1" * 201], "too long"),
        (C2, ["35", "1050.5"], "Numbers in the map: This answer is a whole number."),
        (C1, ["0,017, 0,047, 0,936"], "Use a point for decimals, as in 0.017, 0.047, 0.936"),
        (C1, ["0.02 0.05 0.94"], "Nearly there: give each number to three decimal places."),
    ],
)
def test_an_unreadable_answer_is_400_with_a_message_and_stores_nothing(
    client: Client, answer: Callable[..., Any], check_id: str, fields: list[str], message: str
) -> None:
    response = answer(check_id, *fields)
    assert response.status_code == 400
    data = response.json()
    assert data["ok"] is False and data["correct"] is None and data["attempts"] is None
    assert message in data["message"]
    assert message in data["html"] and 'aria-invalid="true"' in data["html"]
    assert CheckAnswer.objects.count() == 0


def test_an_unreadable_answer_leaves_an_earlier_answer_as_it_was(
    client: Client, answer: Callable[..., Any]
) -> None:
    answer(C1, "0.017 0.047 0.936")
    before = CheckAnswer.objects.values().get()
    assert answer(C1, "no idea").status_code == 400
    assert CheckAnswer.objects.values().get() == before
    # The page still shows the earlier answer and its feedback.
    page = text(client.get(SECTION_1))
    assert 'value="0.017 0.047 0.936"' in page and "verdict-right" in page


# Answering checks: plain forms (no JavaScript) -----------------------------------------------


def test_form_answer_redirects_back_to_the_check_and_shows_feedback(
    client: Client, answer: Callable[..., Any], check2: CheckDef
) -> None:
    response = answer(C2, "35", "1,050", json=False)
    assert response.status_code == 302
    assert response["Location"] == f"{SECTION_1}#check-{C2}"
    page = text(client.get(SECTION_1))
    assert check2.feedback_correct_html in page
    assert 'value="1,050"' in page and "verdict-right" in page


def test_form_unreadable_answer_shows_its_message_once_and_stores_nothing(
    client: Client, answer: Callable[..., Any]
) -> None:
    response = answer(C1, "0,936", json=False)
    assert response.status_code == 302
    assert CheckAnswer.objects.count() == 0
    page = text(client.get(SECTION_1))
    assert "This answer is a list of 3 numbers" in page
    assert 'value="0,936"' in page  # what was typed stays in the box
    assert page.count('aria-invalid="true"') == 1  # on check 1's field only
    assert "flash" not in page  # shown at the check, not as a site-wide message
    again = text(client.get(SECTION_1))
    assert "This answer is a list of 3 numbers" not in again


def test_csrf_is_enforced_on_answers(check1: CheckDef) -> None:
    browser = Client(enforce_csrf_checks=True)
    assert browser.post(check_url(C1), {"answer": ["0.017 0.047 0.936"]}).status_code == 403
    assert CheckAnswer.objects.count() == 0
    page = browser.get(SECTION_1)
    token = page.cookies["csrftoken"].value
    response = browser.post(
        check_url(C1),
        {"answer": ["0.017 0.047 0.936"], "csrfmiddlewaretoken": token},
        HTTP_ACCEPT="application/json",
    )
    assert response.status_code == 200 and response.json()["correct"] is True


# The anonymous learner -------------------------------------------------------------------------


def test_an_anonymous_learner_gets_a_token_at_the_first_answer(
    client: Client, answer: Callable[..., Any]
) -> None:
    client.get(HOME)
    client.get(UNIT_PAGE)
    client.get(SECTION_1)
    assert SESSION_KEY not in client.session  # reading makes no learner (tests/learning/
    assert SectionVisit.objects.count() == 0  # test_anonymous_reads.py)
    answer(C1, "0.017 0.047 0.936")
    token = uuid.UUID(client.session[SESSION_KEY])
    visit = SectionVisit.objects.get()  # the section answered in counts as reached
    assert visit.anon_token == token and visit.user_id is None and visit.section_number == 1
    client.get(SECTION_1)
    assert client.session[SESSION_KEY] == str(token)
    assert SectionVisit.objects.get().visits == 2


def test_answers_belong_to_the_session_that_gave_them(answer: Callable[..., Any]) -> None:
    answer(C1, "0.017 0.047 0.936")  # the `client` fixture's session
    row = CheckAnswer.objects.get()
    assert row.user_id is None and row.anon_token is not None

    other = Client()
    page = text(other.get(SECTION_1))
    assert "0.017 0.047 0.936" not in page and "verdict-" not in page
    other.post(check_url(C1), {"answer": ["0.1 0.164 0.736"]})
    assert uuid.UUID(other.session[SESSION_KEY]) != row.anon_token
    assert CheckAnswer.objects.count() == 2
    assert CheckAnswer.objects.get(pk=row.pk).attempts == 1


def test_answering_first_makes_the_learner(client: Client, answer: Callable[..., Any]) -> None:
    """A check posted without having opened the page (e.g. a stale tab) still has an owner."""
    answer(C2, "35", "1050")
    token = uuid.UUID(client.session[SESSION_KEY])
    assert CheckAnswer.objects.get().anon_token == token


def test_a_damaged_token_in_the_session_is_replaced(
    client: Client, answer: Callable[..., Any]
) -> None:
    session = client.session
    session[SESSION_KEY] = "not-a-uuid"
    session.save()
    client.get(SECTION_1)  # a read neither uses nor repairs it
    assert SectionVisit.objects.count() == 0
    answer(C1, "0.017 0.047 0.936")
    token = uuid.UUID(client.session[SESSION_KEY])
    assert CheckAnswer.objects.get().anon_token == token
    assert SectionVisit.objects.get().anon_token == token


def test_the_unit_page_offers_to_continue_where_the_learner_was(
    client: Client, answer: Callable[..., Any]
) -> None:
    client.get(SECTION_1)
    answer(C1, "0.017 0.047 0.936")
    page = text(client.get(UNIT_PAGE))
    unit = selectors.unit_get(UNIT)
    written = sum(len(s.checks) for s in unit.sections if s.written)
    if unit.contents.unwritten:
        assert f"You have answered 1 of the {written} checks written so far (1 right)." in page
    else:  # the unit is complete: every check exists
        assert f"You have answered 1 of {written} checks (1 right)." in page
    # One of §1's two checks is unanswered: continue there (never "Start the free preview").
    assert f'href="{SECTION_1}">Continue at §1<' in page
    assert "Start the free preview" not in page


# Rendering is cached -----------------------------------------------------------------------


def test_a_page_request_never_compiles_or_parses_markdown(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    import markdown_it

    from mathmachine.coursebook.passes import assemble

    client.get(SECTION_1)  # warm: the unit is compiled (or read from the disk cache) once

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("a request compiled the unit")

    monkeypatch.setattr(assemble, "compile_unit", refuse)
    monkeypatch.setattr(markdown_it.MarkdownIt, "parse", refuse)
    monkeypatch.setattr(markdown_it.MarkdownIt, "render", refuse)
    for path in (HOME, UNIT_PAGE, SECTION_1, section_url(2)):
        assert client.get(path).status_code == 200
    assert client.post(check_url(C1), {"answer": ["1 2 3"]}).status_code == 302


@pytest.mark.django_db
def test_an_unreadable_answer_keeps_what_was_typed_and_stores_nothing(client):
    url = "/units/attention-and-transformers/checks/s1-count/"
    json_accept = {"HTTP_ACCEPT": "application/json"}
    client.post(url, {"answer": ["35", "1050"]}, **json_accept)
    bad = client.post(url, {"answer": ["35", "lots"]}, **json_accept).json()
    assert bad["ok"] is False
    # What the learner typed stays in the boxes, with the message; the stored answer is kept.
    assert 'value="lots"' in bad["html"] and 'value="1050"' not in bad["html"]
    assert "Numbers in the map: “lots” is not a number." in bad["html"]
    assert CheckAnswer.objects.get(check_id="s1-count").last_answer == ["35", "1050"]
    # Without JavaScript: the same, on the page the form is sent back to, once.
    client.post(url, {"answer": ["35", "lots"]})
    page = client.get("/units/attention-and-transformers/1/").content.decode()
    assert 'value="lots"' in page and "“lots” is not a number" in page
    again = client.get("/units/attention-and-transformers/1/").content.decode()
    assert 'value="1050"' in again and "“lots”" not in again
