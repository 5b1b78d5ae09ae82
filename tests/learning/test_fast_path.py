"""Every written section, as an anonymous reader, a signed-in learner who has not bought the unit
and a buyer with answers sees it, is the same page whether it comes from what the process keeps
(the units, the offer, the kept fragments and checks) or from a fresh render with everything
forgotten (CSRF tokens and CSP nonces aside)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from support import paid_order_create

from mathmachine.billing import selectors as billing
from mathmachine.billing.models import Product
from mathmachine.coursebook import cache
from mathmachine.coursebook.model import CompiledUnit
from mathmachine.learning import rendering

from .conftest import JSON, check_url, section_url

RANDOM = re.compile(r'((?:name="csrfmiddlewaretoken" value|nonce)=")[^"]*')

pytestmark = pytest.mark.django_db


def forget_everything() -> None:
    cache.clear_memo()
    billing.forget_kept()
    rendering.clear_memos()


def page(client: Client, path: str) -> str:
    response = client.get(path)
    assert response.status_code == 200, path
    return RANDOM.sub(r"\1-", response.content.decode())


def answer_some(client: Client, unit: CompiledUnit, *, paid: bool) -> None:
    """Right, wrong and right-after-wrong answers across the sections the learner may open."""
    for section in unit.sections:
        if not section.written or (not section.free and not paid):
            continue
        for i, check in enumerate(section.gradables):
            right = {f"answer-{n}": f.answer_text for n, f in enumerate(check.fields)}
            wrong = {f"answer-{n}": "0" for n in range(len(check.fields))}
            seed = {"seed": check.variant.seed} if check.variant else {}
            for data in ([right], [wrong], [wrong, right])[i % 3]:
                client.post(check_url(check.id), {**seed, **data}, **JSON)


def learners(unit: CompiledUnit) -> dict[str, Client]:
    users = get_user_model().objects
    reader, buyer = Client(), Client()
    reader.force_login(users.create_user("rd@example.com", "rd@example.com", "x" * 12))
    buyer_user = users.create_user("by@example.com", "by@example.com", "x" * 12)
    paid_order_create(buyer_user, Product.objects.get(code="unit-18"))
    buyer.force_login(buyer_user)
    answer_some(reader, unit, paid=False)
    answer_some(buyer, unit, paid=True)
    return {"anonymous": Client(), "reader": reader, "buyer": buyer}


def test_every_section_from_the_fast_path_is_a_fresh_render(unit18: CompiledUnit) -> None:
    who = learners(unit18)
    paths = ["/", "/pricing/", f"/units/{unit18.slug}/"]
    paths += [section_url(s.number) for s in unit18.sections]
    for name, client in who.items():
        for path in paths:
            forget_everything()
            fresh = page(client, path)
            kept = page(client, path)
            again = page(client, path)
            assert kept == fresh == again, (name, path)


def test_the_section_pages_do_show_answers_and_offers(unit18: CompiledUnit) -> None:
    """The comparison above is of pages that hold what the fast paths keep."""
    who: dict[str, Any] = learners(unit18)
    first = section_url(1)
    assert 'class="offer"' in page(who["anonymous"], first)
    assert 'class="offer"' in page(who["reader"], first)
    buyer_pages = "".join(page(who["buyer"], section_url(s.number)) for s in unit18.sections)
    assert "verdict-right" in buyer_pages and "verdict-wrong" in buyer_pages
