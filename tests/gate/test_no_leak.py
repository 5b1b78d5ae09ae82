"""A sentinel in locked content never reaches anyone who may not read it (issue 3, "never leak").

Every response is searched (body and headers) for the sentinel string and for the secret
check's answer: every page of the site that takes no parameters (walked from the URLconf, so
pages added later are covered too), the unit page, every section, every check POST of §2 as JSON
and as a form, and a few conventional feed and sitemap addresses.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver
from sentinel import OTHER_CHECK, PUBLIC_ABSTRACT, SECRET_CHECK, SENTINEL, SENTINEL_ANSWER, SLUG

from mathmachine.billing.models import Order
from mathmachine.learning.models import CheckAnswer

pytestmark = pytest.mark.django_db

FEED_GUESSES = ("/sitemap.xml", "/feed/", "/feeds/", "/rss/", "/atom/", "/robots.txt")
ANSWERS = {SECRET_CHECK: [[SENTINEL_ANSWER], ["7"], ["1"]], OTHER_CHECK: [["4", "3"], ["1", "1"]]}


def _parameterless_paths(resolver: URLResolver | None = None, prefix: str = "") -> Iterator[str]:
    """Every URL of the site with no parameters (the admin aside)."""
    for entry in (resolver or get_resolver()).url_patterns:
        pattern = entry.pattern
        regex = pattern.regex
        route = str(pattern)
        if regex.groups or "<" in route:
            continue
        route = route.removeprefix("^").removesuffix("$").replace("\\", "")
        if isinstance(entry, URLResolver):
            if route.startswith("admin"):
                continue
            yield from _parameterless_paths(entry, prefix + route)
        elif isinstance(entry, URLPattern):
            yield "/" + prefix + route


def _every_response(client: Client) -> Iterator[tuple[str, object]]:
    paths = sorted(set(_parameterless_paths()))
    assert {"/", "/pricing/", "/your-learning/", "/billing/orders/"} <= set(paths)
    for path in (*paths, *FEED_GUESSES, f"/units/{SLUG}/"):
        yield f"GET {path}", client.get(path)
    for number in range(1, 17):
        path = f"/units/{SLUG}/{number}/"
        yield f"GET {path}", client.get(path)
    for check_id, answers in ANSWERS.items():
        url = f"/units/{SLUG}/checks/{check_id}/"
        yield f"GET {url}", client.get(url)
        for answer in answers:
            data = {"answer": answer}
            yield (
                f"POST {url} {answer} json",
                client.post(url, data, HTTP_ACCEPT="application/json"),
            )
            yield f"POST {url} {answer} form", client.post(url, data)
            yield f"POST {url} {answer} follow", client.post(url, data, follow=True)
    for code in ("unit-18", "all-paid-units"):  # the way to buy: checkout pages
        url = f"/billing/buy/{code}/"
        yield f"POST {url} follow", client.post(url, follow=True)
    for order in Order.objects.all():  # receipts (other learners' answer 404)
        for url in (
            f"/billing/orders/{order.public_id}/",
            f"/billing/orders/{order.public_id}/pay/",
        ):
            yield f"GET {url}", client.get(url, follow=True)


def _text(response) -> str:
    body = b"".join(response.streaming_content) if response.streaming else response.content
    headers = "\n".join(f"{k}: {v}" for k, v in response.headers.items())
    return headers + "\n" + body.decode("utf-8", "replace")


def _assert_nothing_leaks(client: Client) -> int:
    seen = 0
    for what, response in _every_response(client):
        text = _text(response)
        assert SENTINEL not in text.lower(), f"{what} leaked the sentinel"
        assert SENTINEL_ANSWER not in text, f"{what} leaked the secret check's answer"
        for tag in re.findall(r"<(?:meta|title|link)\b[^>]*>", text, flags=re.I):
            assert SENTINEL not in tag.lower()
        seen += 1
    assert not CheckAnswer.objects.filter(check_id__in=list(ANSWERS)).exists()
    return seen


def test_anonymous_visitors_never_see_locked_content(gated_site) -> None:
    assert _assert_nothing_leaks(Client()) > 40


def test_signed_in_learners_without_the_unit_never_see_it(gated_site, make_user, client_of):
    _assert_nothing_leaks(client_of(make_user("ravi@example.com")))


def test_the_buyer_sees_it_and_loses_it_again_after_a_refund(
    gated_site, make_user, client_of, grant, revoke
) -> None:
    buyer = make_user("asha@example.com")
    client = client_of(buyer)
    order = grant(buyer, "unit-18")

    page = client.get(f"/units/{SLUG}/2/").content.decode()
    assert "The locked prose of this section says " + SENTINEL in page
    assert f'id="{SENTINEL}-widget"' in page  # the widget's element, by its id
    assert f'"{SENTINEL}"' in page  # the widget's JSON state
    url = f"/units/{SLUG}/checks/{SECRET_CHECK}/"
    right = client.post(url, {"answer": SENTINEL_ANSWER}, HTTP_ACCEPT="application/json")
    assert right.status_code == 200
    assert right.json()["correct"] is True
    assert SENTINEL in right.json()["html"]
    wrong = client.post(url, {"answer": "1"}, HTTP_ACCEPT="application/json")
    assert SENTINEL in wrong.json()["html"] and SENTINEL_ANSWER not in wrong.json()["html"]
    shown = client.post(f"{url}show-me/", HTTP_ACCEPT="application/json")
    assert SENTINEL_ANSWER in shown.json()["html"]  # the worked answer, asked for
    row = CheckAnswer.objects.get(user=buyer, check_id=SECRET_CHECK)
    assert row.attempts == 2 and row.revealed_at is not None

    revoke(order)

    assert SENTINEL not in client.get(f"/units/{SLUG}/2/").content.decode()
    # Progress stays (never lost on refund), but the locked check takes no more answers.
    row.refresh_from_db()
    assert (row.attempts, row.solved_at is not None) == (2, True)
    CheckAnswer.objects.filter(pk=row.pk).delete()  # so the sweep can assert "stores nothing"
    _assert_nothing_leaks(client)


def test_the_bundle_opens_the_unit_too_and_its_refund_closes_it(
    gated_site, make_user, client_of, grant, revoke
) -> None:
    buyer = make_user("meera@example.com")
    client = client_of(buyer)
    order = grant(buyer, "all-paid-units")
    assert SENTINEL in client.get(f"/units/{SLUG}/2/").content.decode()
    revoke(order)
    _assert_nothing_leaks(client)


def test_the_locked_page_shows_title_contents_and_offer_and_no_content(gated_site) -> None:
    response = Client().get(f"/units/{SLUG}/2/")
    assert response.status_code == 200
    page = response.content.decode()
    assert "Attention is a soft lookup" in page  # the title
    assert "Self-attention: every word asks every word" in page  # the table of contents
    assert "₹299" in page and "/pricing/" in page  # the offer
    assert '<article class="section-body"' not in page
    assert "translate-lookback" not in page  # not even the widget's script
    assert PUBLIC_ABSTRACT in page  # the one-sentence summary: the section's public abstract
    title = re.search(r"<title>(.*?)</title>", page, flags=re.S).group(1)
    description = re.search(r'<meta name="description" content="([^"]*)"', page).group(1)
    assert "Attention is a soft lookup" in title
    assert SENTINEL not in title + description
