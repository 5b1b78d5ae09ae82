"""The gate: one server-side decision (learning.selectors.section_access), answers, headers."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import AnonymousUser
from django.test import Client
from sentinel import OTHER_CHECK, SECRET_CHECK, SENTINEL_ANSWER, SLUG

from mathmachine.learning import selectors
from mathmachine.learning.learners import SESSION_KEY
from mathmachine.learning.models import CheckAnswer, SectionVisit

pytestmark = pytest.mark.django_db


def _access(user, number: int) -> bool:
    unit = selectors.unit_get(SLUG)
    return selectors.section_access(user=user, unit=unit, section=unit.section(number))


def test_section_access_decides_by_free_flag_then_entitlement(
    gated_site, make_user, grant, revoke
) -> None:
    asha = make_user("asha@example.com")
    assert _access(AnonymousUser(), 1) is True
    assert _access(asha, 1) is True
    for number in range(2, 16):
        assert _access(AnonymousUser(), number) is False
        assert _access(asha, number) is False
    order = grant(asha, "unit-18")
    assert all(_access(asha, n) for n in range(1, 16))
    assert _access(make_user("ravi@example.com"), 2) is False  # only the buyer
    revoke(order)
    assert _access(asha, 2) is False
    grant(asha, "all-paid-units")
    assert _access(asha, 15) is True


def test_a_locked_check_answers_403_json_and_stores_nothing(gated_site) -> None:
    client = Client()
    url = f"/units/{SLUG}/checks/{SECRET_CHECK}/"
    response = client.post(url, {"answer": SENTINEL_ANSWER}, HTTP_ACCEPT="application/json")
    assert response.status_code == 403
    assert response.json() == {"error": "This check is in a locked section."}
    assert "no-store" in response["Cache-Control"] and "private" in response["Cache-Control"]
    shown = client.post(f"{url}show-me/", HTTP_ACCEPT="application/json")
    assert shown.status_code == 403 and SENTINEL_ANSWER not in shown.content.decode()
    assert CheckAnswer.objects.count() == 0
    assert SectionVisit.objects.count() == 0
    assert SESSION_KEY not in client.session  # not even an anonymous learner was made


def test_a_locked_check_posted_as_a_form_redirects_to_the_locked_page(
    gated_site, make_user, client_of
) -> None:
    client = client_of(make_user("ravi@example.com"))
    response = client.post(f"/units/{SLUG}/checks/{OTHER_CHECK}/", {"answer": ["4", "3"]})
    assert response.status_code == 302
    assert response["Location"] == f"/units/{SLUG}/2/"
    assert CheckAnswer.objects.count() == 0


def test_the_free_check_still_works_for_everyone(gated_site) -> None:
    client = Client()
    response = client.post(
        f"/units/{SLUG}/checks/s1-count/", {"answer": ["1", "1"]}, HTTP_ACCEPT="application/json"
    )
    assert response.status_code == 200
    assert response.json()["correct"] is False
    assert CheckAnswer.objects.get().anon_token is not None


@pytest.mark.parametrize(
    "path",
    [f"/units/{SLUG}/", f"/units/{SLUG}/1/", f"/units/{SLUG}/2/", f"/units/{SLUG}/15/"],
)
@pytest.mark.parametrize("who", ["anonymous", "learner", "buyer"])
def test_gated_pages_are_never_stored_by_shared_caches(
    gated_site, make_user, client_of, grant, path: str, who: str
) -> None:
    user = None if who == "anonymous" else make_user(f"{who}@example.com")
    if who == "buyer":
        grant(user)
    response = client_of(user).get(path)
    assert response.status_code == 200
    cache_control = {p.strip() for p in response["Cache-Control"].split(",")}
    assert "private" in cache_control and "public" not in cache_control
    assert "Cookie" in {v.strip() for v in response["Vary"].split(",")}
    # A page its reader may keep on their phone (docs/offline.md) is asked of the server every
    # time (no-cache); every other one, the locked page above all, is never stored at all.
    unit_page = path == f"/units/{SLUG}/"
    keepable = (who == "buyer") if unit_page else (path.endswith("/1/") or who == "buyer")
    assert ("no-cache" if keepable else "no-store") in cache_control
    assert ("no-store" if keepable else "no-cache") not in cache_control


def test_check_answers_json_is_private(gated_site, make_user, client_of, grant) -> None:
    buyer = make_user("asha@example.com")
    grant(buyer)
    response = client_of(buyer).post(
        f"/units/{SLUG}/checks/{SECRET_CHECK}/",
        {"answer": SENTINEL_ANSWER},
        HTTP_ACCEPT="application/json",
    )
    assert response.status_code == 200
    assert "no-store" in response["Cache-Control"]
    assert "Cookie" in response["Vary"]


def test_csrf_is_enforced_on_learner_posts(gated_site, make_user) -> None:
    user = make_user("asha@example.com")
    client = Client(enforce_csrf_checks=True)
    for url, data in [
        (f"/units/{SLUG}/checks/s1-count/", {"answer": ["35", "1050"]}),
        ("/accounts/signup/", {"email": "x@example.com", "password1": "p", "password2": "p"}),
        ("/accounts/login/", {"login": "asha@example.com", "password": "x"}),
        ("/accounts/password/reset/", {"email": "asha@example.com"}),
    ]:
        assert client.post(url, data).status_code == 403, url
    client.force_login(user)
    assert client.post("/accounts/logout/").status_code == 403
    assert client.post("/accounts/password/change/", {}).status_code == 403
    assert CheckAnswer.objects.count() == 0
