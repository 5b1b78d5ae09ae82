"""Every sign-in and sign-up link brings the learner back to the page they were on (issue 16), in
real Chromium at 360 px: the header's links from a locked section, a sign-up from a section with
its query through the email's confirmation link, and a ``next`` that is not a page of this site
ignored (the learner lands on "Your learning" instead)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from .conftest import UNIT, playwright_api, sign_up_and_confirm

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

OpenPage = Callable[..., Any]
PASSWORD = "a long test password 42"


def _learner(email: str) -> None:
    from allauth.account.models import EmailAddress
    from django.contrib.auth import get_user_model

    user = get_user_model().objects.create_user(email, email, PASSWORD)
    EmailAddress.objects.create(user=user, email=email, verified=True, primary=True)


def _sign_in(page: Any, email: str) -> None:
    page.get_by_label("Email").fill(email)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()


def test_the_headers_sign_in_returns_to_the_locked_section(open_page: OpenPage) -> None:
    expect = playwright_api.expect
    _learner("meera@example.com")
    site = open_page(f"/units/{UNIT}/3/")
    page = site.page
    expect(page.get_by_text("This section is part of the paid unit")).to_be_visible()
    page.get_by_role("link", name="Sign in", exact=True).click()
    expect(page).to_have_url(re.compile(r"/accounts/login/\?next=%2Funits%2F"))
    # the login page's own links keep the page to return to
    signup = page.get_by_role("link", name="Create an account").get_attribute("href") or ""
    header = page.get_by_role("link", name="Sign up", exact=True).get_attribute("href") or ""
    assert f"next=%2Funits%2F{UNIT}%2F3%2F" in signup and "next=%2Funits%2F" in header
    _sign_in(page, "meera@example.com")
    expect(page).to_have_url(re.compile(rf"/units/{UNIT}/3/$"))
    expect(page.get_by_role("link", name="Your learning")).to_be_visible()


def test_a_sign_up_returns_through_the_email_confirmation(open_page: OpenPage) -> None:
    site = open_page(f"/units/{UNIT}/2/?v=3")
    page = site.page
    sign_up_and_confirm(page, "kiran@example.com", PASSWORD, goto=site.goto)  # back on /2/?v=3
    assert page.url.endswith(f"/units/{UNIT}/2/?v=3")
    assert page.get_by_role("link", name="Your learning").is_visible()


@pytest.mark.parametrize(
    "hostile", ["https://evil.example/", "//evil.example/x", "/\\evil.example", "javascript:1"]
)
def test_a_next_off_this_site_is_not_followed(open_page: OpenPage, hostile: str) -> None:
    from urllib.parse import quote

    expect = playwright_api.expect
    _learner("asha@example.com")
    site = open_page(None)
    site.goto(f"/accounts/login/?next={quote(hostile, safe='')}")
    header = site.page.get_by_role("link", name="Sign up", exact=True).get_attribute("href")
    assert header == "/accounts/signup/"  # the header does not pass it on
    _sign_in(site.page, "asha@example.com")
    expect(site.page).to_have_url(re.compile(r"/your-learning/$"))


def test_the_signed_in_header_at_360_px(open_page: OpenPage) -> None:
    """Signed in, the header is two short lines at 360 px: "Your learning" on one line, and
    "Sign out" the quietest item (it was the header's loudest button, the header ~130 px)."""
    site = open_page(f"/units/{UNIT}/1/", buyer=True)
    page = site.page
    header = page.locator("header.site-header").bounding_box()
    assert header is not None and header["height"] < 112, header
    mine = page.get_by_role("link", name="Your learning")
    line = mine.evaluate("a => parseFloat(getComputedStyle(a).lineHeight)")
    assert mine.bounding_box()["height"] < 44 + line / 2  # one line (44 px tall to tap)
    out = page.get_by_role("button", name="Sign out")
    assert out.evaluate("b => getComputedStyle(b).backgroundColor") == "rgba(0, 0, 0, 0)"
    assert out.bounding_box()["height"] >= 44
    assert site.scroll_width() <= 360
