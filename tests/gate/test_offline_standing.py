"""What every page tells the service worker (learning/offline.py, docs/offline.md): who reads
(X-MM-Owner, an opaque key) and which units they may keep (X-MM-Keep), in the headers and in the
page's meta tags alike; and Clear-Site-Data on sign-out. The worker deletes kept copies by it,
so a wrong word here would keep a refunded unit, or another learner's, on a phone."""

from __future__ import annotations

import re

import pytest
from sentinel import SLUG

from mathmachine.learning.offline import owner_key

pytestmark = pytest.mark.django_db

PAGES = ("/", f"/units/{SLUG}/", f"/units/{SLUG}/1/", f"/units/{SLUG}/2/", "/pricing/")


def _meta(html: str, name: str) -> str:
    found = re.search(rf'<meta name="{name}" content="([^"]*)">', html)
    assert found, name
    return found.group(1)


def _standing(response) -> tuple[str, str]:
    html = response.content.decode("utf-8")
    header = (response["X-MM-Owner"], response["X-MM-Keep"])
    assert header == (_meta(html, "mm-owner"), _meta(html, "mm-keep"))  # the page agrees
    return header


@pytest.mark.parametrize("path", PAGES)
def test_nobody_signed_in_owns_nothing(gated_site, client_of, path: str) -> None:
    assert _standing(client_of(None).get(path)) == ("", "")


@pytest.mark.parametrize("path", PAGES)
def test_a_learner_has_a_key_and_keeps_only_what_they_own(
    gated_site, make_user, client_of, grant, revoke, path: str
) -> None:
    asha = make_user("asha@example.com")
    client = client_of(asha)
    owner, keep = _standing(client.get(path))
    assert re.fullmatch(r"[0-9a-f]{20}", owner) and keep == ""
    order = grant(asha)
    assert _standing(client.get(path)) == (owner, SLUG)
    revoke(order)  # refunded: the unit is no longer listed, at once
    assert _standing(client.get(path)) == (owner, "")


def test_the_bundle_lists_the_published_paid_units(gated_site, make_user, client_of, grant) -> None:
    ravi = make_user("ravi@example.com")
    grant(ravi, "all-paid-units")
    assert _standing(client_of(ravi).get("/"))[1] == SLUG


def test_keys_are_stable_opaque_and_differ_between_learners(
    gated_site, make_user, client_of, settings
) -> None:
    asha, ravi = make_user("asha@example.com"), make_user("ravi@example.com")
    a = _standing(client_of(asha).get("/"))[0]
    assert a == _standing(client_of(asha).get("/pricing/"))[0] == owner_key(asha.pk)
    assert a != _standing(client_of(ravi).get("/"))[0]
    assert str(asha.pk) not in a and "asha" not in a
    settings.SECRET_KEY = "another-site-entirely"
    assert owner_key(asha.pk) != a  # from the site's secret: not guessable from the id


def test_json_answers_and_redirects_carry_no_standing(
    gated_site, make_user, client_of, grant
) -> None:
    asha = make_user("asha@example.com")
    grant(asha)
    client = client_of(asha)
    answer = client.post(
        f"/units/{SLUG}/checks/s1-count/", {"answer": ["1", "1"]}, HTTP_ACCEPT="application/json"
    )
    assert answer["Content-Type"].startswith("application/json")
    assert not answer.has_header("X-MM-Owner")
    redirect = client.get("/accounts/login/")
    assert redirect.status_code == 302 and not redirect.has_header("X-MM-Owner")


def test_signing_out_sends_clear_site_data_and_nothing_else_does(
    gated_site, make_user, client_of, grant
) -> None:
    asha = make_user("asha@example.com")
    grant(asha)
    client = client_of(asha)
    assert not client.get(f"/units/{SLUG}/2/").has_header("Clear-Site-Data")
    out = client.post("/accounts/logout/")
    assert out.status_code == 302
    assert out["Clear-Site-Data"] == '"cache"'
    after = client.get(out["Location"])
    assert _standing(after) == ("", "") and not after.has_header("Clear-Site-Data")


def test_the_gates_answers_kept_for_the_page_are_forgotten_when_access_changes(
    gated_site, make_user, grant, revoke
) -> None:
    from mathmachine.billing import selectors as billing

    asha = make_user("asha@example.com")
    assert billing.access_answered(user=asha, unit_number=18) is None  # outside a request
    with billing.access_answers_kept():
        assert billing.has_unit_access(user=asha, unit_number=18) is False
        assert billing.access_answered(user=asha, unit_number=18) is False
        order = grant(asha)
        assert billing.access_answered(user=asha, unit_number=18) is None  # granted: forgotten
        assert billing.has_unit_access(user=asha, unit_number=18) is True
        revoke(order)
        assert billing.access_answered(user=asha, unit_number=18) is None  # refunded: forgotten
        assert billing.has_unit_access(user=asha, unit_number=18) is False
    assert billing.access_answered(user=asha, unit_number=18) is None
