"""A draft section is served to staff only and counted nowhere (issue 13, part 2).

The site runs on a copy of Unit 18 whose §8 is a draft holding one widget and one check, every
part of it marked with a sentinel (tests/draft_content.py). An anonymous reader, a signed-in
learner who has not bought the unit, and a buyer get no byte of it from any page (every page
without parameters, the unit page, every section, conventional sitemap and feed addresses) nor
from its check's endpoints, and see §8 exactly as a section still being written; the offer,
progress and Continue count it nowhere. Staff (``is_staff``) read it, with a draft note, answer
its check, and still see the published counts.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.test import Client
from draft_content import (
    DRAFT,
    DRAFT_ANSWER,
    DRAFT_CHECK,
    DRAFT_SENTINEL,
    DRAFT_WIDGET,
    build_draft_content,
)
from support import UNIT18
from test_no_leak import FEED_GUESSES, _parameterless_paths

from mathmachine import coursebook
from mathmachine.learning import selectors
from mathmachine.learning.learners import Learner
from mathmachine.learning.models import CheckAnswer, SectionVisit

pytestmark = pytest.mark.django_db

SLUG = "attention-and-transformers"
BEING_WRITTEN = "This section is still being written"


@pytest.fixture(scope="module")
def draft_content(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_draft_content(tmp_path_factory.mktemp("drafts"))


@pytest.fixture
def draft_site(settings, draft_content: Path, monkeypatch) -> Iterator[Path]:
    # The compile cache beside the content, kept for the module's tests (compiled once).
    monkeypatch.setenv("MATHMACHINE_CACHE_DIR", str(draft_content.parent / "coursebook-cache"))
    settings.CONTENT_DIR = draft_content
    coursebook.cache.clear_memo()
    cache.clear()
    yield draft_content
    coursebook.cache.clear_memo()
    cache.clear()  # rate limits (allauth keeps one confirmation email per address a while)


def _user(email: str, *, staff: bool = False) -> object:
    return get_user_model().objects.create_user(
        username=email, email=email, password="a long test password 42", is_staff=staff
    )


def _client(user: object | None) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def _text(response: object) -> str:
    body = getattr(response, "content", b"").decode("utf-8", "replace")
    headers = " ".join(f"{k}: {v}" for k, v in response.headers.items())  # type: ignore[attr-defined]
    return body + headers


def _pages(client: Client) -> Iterator[tuple[str, object]]:
    for path in (*sorted(set(_parameterless_paths())), *FEED_GUESSES, f"/units/{SLUG}/"):
        yield f"GET {path}", client.get(path)
    for number in range(1, 17):
        path = f"/units/{SLUG}/{number}/"
        yield f"GET {path}", client.get(path)


def _answers(client: Client) -> Iterator[tuple[str, object]]:
    check = f"/units/{SLUG}/checks/{DRAFT_CHECK}/"
    for url in (check, f"{check}show-me/"):
        yield f"GET {url}", client.get(url)
        for answer in (DRAFT_ANSWER, "7"):
            data = {"answer-0": answer}
            yield f"POST {url} json", client.post(url, data, HTTP_ACCEPT="application/json")
            yield f"POST {url} form", client.post(url, data)


def _learners(grant) -> dict[str, object | None]:
    buyer = _user("buyer@example.com")
    grant(buyer)
    return {"anonymous": None, "non-buyer": _user("reader@example.com"), "buyer": buyer}


def test_no_learner_gets_a_byte_of_the_draft(draft_site: Path, grant) -> None:
    for who, user in _learners(grant).items():
        client = _client(user)
        for what, response in (*_pages(client), *_answers(client)):
            text = _text(response)
            assert DRAFT_SENTINEL not in text, f"{who}: {what} leaks the draft"
            assert DRAFT_ANSWER not in text, f"{who}: {what} leaks the draft's key"
            assert response.status_code < 500, f"{who}: {what} -> {response.status_code}"
        for url in (f"/units/{SLUG}/checks/{DRAFT_CHECK}/",):
            assert client.post(url, {"answer-0": DRAFT_ANSWER}).status_code == 404, who
    assert not CheckAnswer.objects.filter(check_id=DRAFT_CHECK).exists()


def test_learners_see_the_draft_as_a_section_being_written(draft_site: Path, grant) -> None:
    for who, user in _learners(grant).items():
        client = _client(user)
        page = client.get(f"/units/{SLUG}/{DRAFT}/")
        html = page.content.decode()
        assert page.status_code == 200, who
        if who == "buyer":
            assert BEING_WRITTEN in html, who
        assert "draft" not in html.lower(), f"{who}: the page says draft"
        assert "noindex" not in html, who
        unit_page = client.get(f"/units/{SLUG}/").content.decode()
        item = _toc_item(unit_page, DRAFT)
        assert "being written" in item and "draft" not in item, f"{who}: {item}"


def _toc_item(html: str, number: int) -> str:
    start = html.index(f'value="{number}"')
    return html[start : html.index("</li>", start)]


def test_staff_read_the_draft_and_answer_its_check(draft_site: Path) -> None:
    staff = _user("editor@example.com", staff=True)  # not a buyer: a draft needs no purchase
    client = _client(staff)
    page = client.get(f"/units/{SLUG}/{DRAFT}/")
    html = page.content.decode()
    assert page.status_code == 200
    assert DRAFT_SENTINEL in html and f'id="{DRAFT_WIDGET}"' in html
    assert BEING_WRITTEN not in html
    assert "Draft, shown to staff only." in html and "so far it has 1 widget and 1 check" in html
    assert '<meta name="robots" content="noindex, nofollow">' in html
    assert "widgets/translate-lookback.js" in html  # the draft's widget scripts are loaded
    assert page["Cache-Control"].startswith("private") or "private" in page["Cache-Control"]
    item = _toc_item(client.get(f"/units/{SLUG}/").content.decode(), DRAFT)
    assert "draft, staff only" in item and f'href="/units/{SLUG}/{DRAFT}/"' in item
    # Staff answer the draft's check like any (the JSON the page's script gets).
    url = f"/units/{SLUG}/checks/{DRAFT_CHECK}/"
    wrong = client.post(url, {"answer-0": "7"}, HTTP_ACCEPT="application/json").json()
    right = client.post(url, {"answer-0": DRAFT_ANSWER}, HTTP_ACCEPT="application/json").json()
    assert (wrong["correct"], right["correct"]) == (False, True)
    assert DRAFT_SENTINEL in right["html"]
    # ... and that is counted nowhere: no visit, and no check of their progress.
    assert not SectionVisit.objects.filter(section_number=DRAFT).exists()
    assert CheckAnswer.objects.get(check_id=DRAFT_CHECK, user=staff).correct
    for unit in (selectors.unit_get(SLUG), selectors.unit_get(SLUG).with_drafts()):
        progress = selectors.unit_progress(
            learner=Learner(user_id=staff.pk, anon_token=None), unit=unit
        )
        assert (progress.checks_answered, progress.checks_correct) == (0, 0)


def test_the_offer_and_every_count_leave_the_draft_out(draft_site: Path, grant) -> None:
    unit = selectors.unit_get(SLUG)
    contents = unit.contents
    assert DRAFT in contents.unwritten and DRAFT not in contents.written
    assert unit.with_drafts().contents == contents
    # The same counts as Unit 18 with §8 unwritten (the real one, until §8 is published).
    real = coursebook.cache.build_unit(UNIT18, cache_dir=coursebook.cache.DEFAULT_CACHE_DIR)
    if not real.section(DRAFT).published:
        assert contents == real.contents
    staff = _user("editor@example.com", staff=True)
    buyer = _user("buyer@example.com")
    grant(buyer)
    for user in (None, buyer, staff):
        client = _client(user)
        for path in ("/", f"/units/{SLUG}/", f"/units/{SLUG}/1/", "/pricing/"):
            response = client.get(path)
            seen = response.context.get("contents") if response.context else None
            if seen is not None:
                assert seen == contents, (user, path)
            for standing in [response.context.get("standing")] if response.context else []:
                if standing is not None:
                    assert standing.contents == contents
                    assert DRAFT not in standing.progress.sections_reached
                    assert standing.continue_at != DRAFT


def test_continue_never_leads_to_a_draft(draft_site: Path) -> None:
    """Even in the unit as staff read it, with every published check answered and the draft
    open, Continue goes to a published section."""
    unit = selectors.unit_get(SLUG).with_drafts()
    published = {c.id for s in unit.sections if s.published for c in s.gradables}
    progress = selectors.UnitProgress(
        checks_total=0,
        checks_answered=0,
        checks_correct=0,
        sections_reached=frozenset({DRAFT, 3}),
        answered=frozenset(published),
        reached_latest_first=(DRAFT, 3),
    )
    every = frozenset(s.number for s in unit.sections)
    assert selectors.continue_section(unit=unit, progress=progress, open_numbers=every) == 3
    staff = _user("editor@example.com", staff=True)  # may open every section, drafts too
    mastery = selectors.problem_mastery(
        user=staff, learner=Learner(user_id=None, anon_token=None), unit=unit, answers={}
    )
    assert all(m.section != DRAFT for m in mastery)
