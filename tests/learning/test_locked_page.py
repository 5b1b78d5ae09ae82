"""The locked page (issue 16): what a section holds, without a stray space before the full stop;
what it is about (its one-sentence summary, public); a buy button right there (a form that buys
the unit for a signed-in learner; for anyone else, sign up or sign in and come back); and a
section still being written points to the next written one."""

from __future__ import annotations

import dataclasses
import html as html_lib
import re

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from mathmachine import units
from mathmachine.coursebook.model import CompiledUnit
from mathmachine.learning import rendering

from .conftest import UNIT, section_url

pytestmark = pytest.mark.django_db


def _text(page: str) -> str:
    return re.sub(r"\s+", " ", html_lib.unescape(re.sub(r"<[^>]+>", " ", page)))


def test_a_written_locked_section_says_what_it_holds_and_is_about(
    client: Client, unit18: CompiledUnit
) -> None:
    section = unit18.section(3)
    page = client.get(section_url(3))
    assert page.status_code == 200 and "part of the paid unit" in page.content.decode()
    body = page.content.decode()
    assert re.search(r"it holds [^<]*checks?\.", body), "a space before the full stop"
    assert " ." not in re.search(r'<p class="lede">.*?</p>', body, re.S).group(0)
    assert "What this section is about" in body and section.summary_html.strip() in body
    # anonymous: create an account (or sign in) and come back here
    assert f'href="/accounts/signup/?next=%2Funits%2F{UNIT}%2F3%2F"' in body
    assert "Create an account to buy Unit 18" in body
    assert "/billing/buy/" not in body


def test_a_signed_in_learner_gets_a_buy_button(client: Client) -> None:
    user = get_user_model().objects.create_user("ravi@example.com", "ravi@example.com", "pw")
    client.force_login(user)
    body = client.get(section_url(3)).content.decode()
    form = re.search(r'<form class="offer-buy" method="post" action="([^"]+)">', body)
    assert form and form.group(1).endswith("/unit-18/")
    bought = client.post(form.group(1))
    assert bought.status_code == 302 and bought["Location"].endswith("/pay/")  # its checkout


def test_a_section_being_written_points_to_the_next_written_one(
    client: Client, unit18: CompiledUnit, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a complete unit, §12 is first taken back to unwritten (as the other tests of a unit
    being written do), so that there is one to open."""
    if all(s.written for s in unit18.sections):
        back = dataclasses.replace(unit18.section(12), written=False, html="", widgets=())
        unit18 = dataclasses.replace(
            unit18,
            sections=tuple(back if s.number == 12 else s for s in unit18.sections),
            source_hash=unit18.source_hash + "-12-unwritten",
        )
        unit = unit18
        monkeypatch.setattr(units, "unit", lambda slug: unit)  # what every app reads units from
        rendering.clear_memos()
    unwritten = [s.number for s in unit18.sections if not s.written]
    assert unwritten
    n = unwritten[0]
    following = next(s for s in unit18.sections if s.written and s.number > n)
    body = client.get(section_url(n)).content.decode()
    assert "still being written" in body
    assert f'is <a href="{section_url(following.number)}">§{following.number} ' in body
    assert (
        f"The next section you can read is §{following.number} {following.title}, part of the "
        "paid unit." in _text(body).replace(" ,", ",").replace(" .", ".")
    )
    rendering.clear_memos()


def test_an_anonymous_learner_who_finished_section_1_is_sent_on(
    client: Client, unit18: CompiledUnit
) -> None:
    """Every check of §1 answered, not a buyer: the unit page and the home page send them on to
    §2 (whose page says what it holds, with the offer), not "Continue at §1"."""
    from .conftest import JSON, check_url

    for check in unit18.section(1).gradables:
        answer = [f.answer_text for f in check.fields]
        sent = client.post(check_url(check.id), {"answer": answer}, **JSON)
        assert sent.status_code == 200 and sent.json()["correct"], check.id
    for page in (f"/units/{UNIT}/", "/"):
        body = client.get(page).content.decode()
        assert "Continue at §1" not in body, page
        assert f'href="/units/{UNIT}/2/">Free preview done: on to §2</a>' in body, page


def test_a_friends_fresh_numbers_link_says_what_was_sent(
    client: Client, unit18: CompiledUnit
) -> None:
    problem = unit18.section(15).problems[0]
    body = client.get(f"{section_url(15)}?seed-{problem.id}=4242&seed-nope=3").content.decode()
    assert "This link opens" in body and f"<strong>{problem.title}</strong>" in body
    assert (
        "set 4242 of fresh numbers" in body and "nope" not in body.split("This link opens")[1][:300]
    )
    assert f"next=%2Funits%2F{UNIT}%2F15%2F%3Fseed-{problem.id}%3D4242" in body  # comes back
    assert "This link opens" not in client.get(section_url(15)).content.decode()
