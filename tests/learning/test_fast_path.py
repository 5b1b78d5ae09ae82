"""Every written section, as an anonymous reader, a signed-in learner who has not bought the unit
and a buyer with answers sees it, is the same page whether it comes from what the process keeps
(the units, the offer, the kept fragments and checks) or from a fresh render with everything
forgotten (CSRF tokens and CSP nonces aside)."""

from __future__ import annotations

import gzip
import re
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.template.loader import render_to_string
from django.test import Client
from django.utils.autoreload import file_changed
from django.utils.safestring import mark_safe
from support import bought_order_create, paid_order_create

from mathmachine import printing
from mathmachine.billing import selectors as billing
from mathmachine.billing import services as billing_services
from mathmachine.billing.models import Product
from mathmachine.coursebook import cache
from mathmachine.coursebook.model import CompiledUnit
from mathmachine.learning import rendering, views
from mathmachine.learning.offline import KEEP_HEADER, OWNER_HEADER
from mathmachine.web import compression
from mathmachine.web.compression import Deflated

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


def plain_render(
    request: Any, template: str, context: dict[str, Any], *, body: bytes, **kept: Any
) -> Deflated:
    """rendering.page_html as the page was made before it kept pages: the template rendered
    with the body it is given (rendering.section_html), nothing deflated before."""
    html = render_to_string(
        template, {**context, "body": mark_safe(body.decode())}, request=request
    )
    return Deflated(html.encode(), list)


def response_of(client: Client, path: str) -> tuple[str, dict[str, str]]:
    response = client.get(path)
    assert response.status_code == 200, path
    heads = {
        name: response.get(name, "")
        for name in ("Content-Type", "Cache-Control", "Vary", OWNER_HEADER, KEEP_HEADER)
    }
    return RANDOM.sub(r"\1-", response.content.decode()), heads


def test_a_kept_section_page_is_the_template_rendered(
    unit18: CompiledUnit, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every section page, kept (rendering.page_html: the page cut at its slots) and filled in
    for each response, is the page the template renders for the same request, with the same
    headers (the offline owner and keep list among them), cold and warm."""
    who = learners(unit18)
    paths = [section_url(s.number) for s in unit18.sections]
    paths += [f"{section_url(s.number)}?seed-x=3" for s in unit18.sections[:2]]
    for name, client in who.items():
        for path in paths:
            forget_everything()
            with monkeypatch.context() as patched:
                patched.setattr(views, "page_html", plain_render)
                rendered = response_of(client, path)
            cold = response_of(client, path)
            warm = response_of(client, path)
            assert cold == rendered == warm, (name, path)


def test_a_kept_page_follows_a_price_a_purchase_and_a_refund(unit18: CompiledUnit) -> None:
    """The page kept for a key is never shown once what the key names changed: the price at the
    end of the free preview, the sections a purchase opens and a refund closes again."""
    forget_everything()
    users = get_user_model().objects
    user = users.create_user("pr@example.com", "pr@example.com", "x" * 12)
    client = Client()
    client.force_login(user)
    first, paid = section_url(1), section_url(unit18.sections[-1].number)
    product = Product.objects.get(code="unit-18")
    assert printing.paise(product.price_paise) in page(client, first)
    Product.objects.filter(pk=product.pk).update(price_paise=product.price_paise + 10_000)
    assert printing.paise(product.price_paise + 10_000) in page(client, first)
    assert 'class="offer"' in page(client, first)
    assert client.get(paid).status_code == 200 and "section-body" not in page(client, paid)
    order = bought_order_create(user)
    assert 'class="offer"' not in page(client, first)
    assert 'class="section-body"' in page(client, paid)
    billing_services.refund_request(order=order, requested_by=user)  # test mode: at once
    assert 'class="offer"' in page(client, first)
    assert 'class="section-body"' not in page(client, paid)


def test_a_kept_page_shows_a_new_answer_and_a_message(unit18: CompiledUnit) -> None:
    """What the learner just did shows on the next page: the answer (never kept with the page)
    and a message of the site's own (a page with one is rendered, not kept), once."""
    forget_everything()
    client = Client()
    check = unit18.sections[0].gradables[0]
    before = page(client, section_url(1))
    right = {f"answer-{n}": f.answer_text for n, f in enumerate(check.fields)}
    client.post(check_url(check.id), right, **JSON)
    after = page(client, section_url(1))
    assert "verdict-right" not in before and "verdict-right" in after
    user = get_user_model().objects.create_user("ms@example.com", "ms@example.com", "x" * 12)
    bought_order_create(user)
    client.force_login(user)
    page(client, section_url(1))
    client.post("/billing/buy/unit-18/")  # already theirs: a message, back to pricing
    shown = page(client, section_url(1))
    assert 'class="flash flash-error"' in shown
    assert 'class="flash' not in page(client, section_url(1))


def test_the_csrf_token_of_a_kept_page_is_this_response_s(unit18: CompiledUnit) -> None:
    """A kept page carries a token for its own response: the form sent with it is taken, on a
    client that enforces CSRF, and the next response's token differs."""
    forget_everything()
    client = Client(enforce_csrf_checks=True)
    check = unit18.sections[0].gradables[0]
    tokens = []
    for _ in range(2):
        html = client.get(section_url(1)).content.decode()
        tokens.append(re.findall(r'name="csrfmiddlewaretoken" value="([^"]+)"', html))
    assert tokens[0] and tokens[1] and set(tokens[0]).isdisjoint(tokens[1])
    right = {f"answer-{n}": f.answer_text for n, f in enumerate(check.fields)}
    sent = client.post(check_url(check.id), {**right, "csrfmiddlewaretoken": tokens[1][0]}, **JSON)
    assert sent.status_code == 200
    refused = client.post(check_url(check.id), {**right, "csrfmiddlewaretoken": "x" * 64}, **JSON)
    assert refused.status_code == 403


def test_a_template_edited_under_runserver_forgets_the_kept_pages(unit18: CompiledUnit) -> None:
    """runserver's reloader reads an edited template again without a restart; the pages kept
    from the old one go with it (a Python file edited restarts the process anyway)."""
    forget_everything()
    page(Client(), section_url(1))
    assert rendering._PAGES._data
    file_changed.send(sender=None, file_path=Path("notes.py"))
    assert rendering._PAGES._data
    file_changed.send(sender=None, file_path=Path("mathmachine/templates/base.html"))
    assert not rendering._PAGES._data


def test_a_section_page_gzipped_from_its_runs_reads_back_as_the_page(
    unit18: CompiledUnit, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every section page as gzip (web/compression.py: its fixed runs deflated once, the rest
    per response) decompresses to the page sent without gzip, cold and warm, for each learner;
    it uses the runs, and weighs at most 2 % more than the page compressed whole."""
    used: list[int] = []
    with_runs = compression.gzip_with_runs

    def counted(page: bytes, runs: Any, **how: Any) -> bytes:
        used.append(len(runs))
        return with_runs(page, runs, **how)

    monkeypatch.setattr(compression, "gzip_with_runs", counted)
    who = learners(unit18)
    for name, client in who.items():
        for section in unit18.sections:
            path = section_url(section.number)
            forget_everything()
            for _ in range(2):
                plain = client.get(path)
                zipped = client.get(path, HTTP_ACCEPT_ENCODING="gzip")
                assert zipped["Content-Encoding"] == "gzip", (name, path)
                html = gzip.decompress(zipped.content)
                assert RANDOM.sub(r"\1-", html.decode()) == RANDOM.sub(
                    r"\1-", plain.content.decode()
                ), (name, path)
                whole = compression.compress_string(html, level=compression.COMPRESSLEVEL)
                assert len(zipped.content) <= 1.02 * len(whole) + 100, (name, path)
    assert used and sum(used) > 0
