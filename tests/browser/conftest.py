"""Shared Playwright fixtures for browser tests of the real site (served by pytest-django's
live_server, static files through Django's staticfiles handler).

- ``chromium``: one headless Debian Chromium, shared by every test that uses it (contexts are
  per test; see _Chromium for why it stops before tests that start their own).
- ``open_page``: open a path of the live site in a fresh context (viewport, reduced motion,
  JavaScript on/off). Every page opened records console errors and warnings, uncaught page
  errors, CSP violations, failed requests, HTTP error responses and requests to any other host;
  the test fails at teardown if there were any (``SitePage.allow`` lets a test expect one).
- ``axe``: run axe-core (node_modules/axe-core, installed by ``npm ci``) with the WCAG 2.1 A/AA
  tags and get the violations back.
- ``billing_products``: the two products of the offer (the pricing page lists them; a
  transactional test database is flushed after each test, losing the migration's rows), and
  ``migration_data_kept`` (``open_page`` uses it): after the test's flush the migrations' data is
  put back, so later tests find the database as the migrations left it.

Fixture names avoid test_widget_translate.py's module fixtures (``browser``, ``opened``).
"""

from __future__ import annotations

import importlib
import json
import os
import re
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from django.conf import settings
from pytest_django.plugin import blocking_manager_key
from support import CHROMIUM, CHROMIUM_ARGS
from unit_states import complete_content, unit_state  # noqa: F401 (fixtures)

playwright_api = pytest.importorskip("playwright.sync_api")

REPO = Path(__file__).resolve().parents[2]
AXE_JS = REPO / "node_modules" / "axe-core" / "axe.min.js"
WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]

UNIT = "attention-and-transformers"
HOME = "/"
PRICING = "/pricing/"
UNIT_PAGE = f"/units/{UNIT}/"
SECTION_1 = f"/units/{UNIT}/1/"
SECTION_2 = f"/units/{UNIT}/2/"

# Recorded in every JavaScript-enabled page before its own scripts run.
_INIT_SCRIPT = """
window.__csp = [];
window.__updates = [];
document.addEventListener('securitypolicyviolation',
  e => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI));
document.addEventListener('translate-lookback:update', e => window.__updates.push(e.detail));
"""


class _Chromium:
    """One Playwright driver and one Chromium, started on first use.

    Playwright's sync API runs an asyncio loop in the test thread while it is started, so a second
    sync_playwright() (other modules here start their own) would fail, and Django would refuse
    ORM calls (SynchronousOnlyOperation) in later tests. So the browser is shared by consecutive
    tests that use it and stopped before the first test that does not (pytest_runtest_teardown);
    while it runs, DJANGO_ALLOW_ASYNC_UNSAFE is set (the test code is synchronous).
    """

    ENV = "DJANGO_ALLOW_ASYNC_UNSAFE"

    def __init__(self) -> None:
        self._playwright: Any = None
        self._browser: Any = None
        self._env: str | None = None

    def get(self) -> Any:
        if self._browser is None:
            self._env = os.environ.get(self.ENV)
            os.environ[self.ENV] = "true"
            self._playwright = playwright_api.sync_playwright().start()
            self._browser = self._playwright.chromium.launch(
                executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
            )
        return self._browser

    def stop(self) -> None:
        if self._playwright is None:
            return
        try:
            if self._browser is not None:
                self._browser.close()
        finally:
            self._playwright.stop()
            self._playwright = self._browser = None
            if self._env is None:
                os.environ.pop(self.ENV, None)
            else:
                os.environ[self.ENV] = self._env


_CHROMIUM = _Chromium()


@pytest.fixture
def chromium() -> Any:
    """The shared headless Chromium (Debian's, driven by Playwright); contexts are per test."""
    if not CHROMIUM.exists():
        pytest.skip("needs Debian's chromium at /usr/bin/chromium (apt-get install chromium)")
    return _CHROMIUM.get()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    yield  # the test's fixtures (contexts, database flush) are torn down first
    # After the session's last test the test database is already gone (its session fixture was
    # torn down too): nothing is put back then.
    if nextitem is not None and "migration_data_kept" in getattr(item, "fixturenames", ()):
        # A transactional test database is emptied (flushed) after each test; put back what the
        # migrations created, so later tests (here or in other modules) find the database as
        # migrations left it, whatever order they run in.
        with item.config.stash[blocking_manager_key].unblock():
            _create_migration_data()
    if nextitem is None or "chromium" not in getattr(nextitem, "fixturenames", ()):
        _CHROMIUM.stop()


def pytest_sessionfinish(session: pytest.Session) -> None:
    _CHROMIUM.stop()


class SitePage:
    """A page of the live site in its own browser context, with its problems recorded."""

    def __init__(
        self,
        browser: Any,
        base_url: str,
        *,
        width: int,
        height: int,
        js: bool,
        reduced_motion: str,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.js = js
        self.origin = urlsplit(self.base_url).netloc
        self.context = browser.new_context(
            viewport={"width": width, "height": height},
            java_script_enabled=js,
            reduced_motion=reduced_motion,
        )
        self.page = self.context.new_page()
        self.problems: list[str] = []
        self._allowed: list[re.Pattern[str]] = []
        page = self.page
        page.on("console", self._on_console)
        page.on("pageerror", lambda e: self.problems.append(f"pageerror: {e}"))
        page.on("requestfailed", self._on_request_failed)
        page.on("response", self._on_response)
        page.on("request", self._on_request)
        if js:
            page.add_init_script(_INIT_SCRIPT)

    # Recording -----------------------------------------------------------------------------
    def _on_console(self, message: Any) -> None:
        if message.type in ("error", "warning"):
            self.problems.append(f"console.{message.type}: {message.text}")

    def _on_request_failed(self, request: Any) -> None:
        if request.failure == "net::ERR_ABORTED":
            return  # cancelled by a navigation (e.g. the favicon of a page left at once)
        self.problems.append(f"request failed: {request.method} {request.url} {request.failure}")

    def _on_response(self, response: Any) -> None:
        if response.status >= 400:
            self.problems.append(
                f"HTTP {response.status}: {response.request.method} {response.url}"
            )

    def _on_request(self, request: Any) -> None:
        netloc = urlsplit(request.url).netloc
        if request.url.startswith(("http:", "https:")) and netloc != self.origin:
            self.problems.append(f"request to another host: {request.url}")

    # Use -----------------------------------------------------------------------------------
    def url(self, path: str) -> str:
        return self.base_url + path

    def goto(self, path: str, *, upgraded: bool = True) -> Any:
        """Load ``path`` (status 200); with JavaScript on, wait for widgets to have upgraded."""
        response = self.page.goto(self.url(path))
        assert response is not None and response.status == 200, (path, response)
        if self.js and upgraded:
            # A widget loads its module (site/widget-loader.js), and a large state of its own
            # (kit.js), when it comes near the screen: bring each to the screen, then go back
            # to the top.
            self.page.evaluate(_BRING_LAZY_WIDGETS)
            # Every widget has upgraded its fallback (kit.js marks it data-upgraded).
            self.page.wait_for_function(
                "() => [...document.querySelectorAll('[data-kit]')]"
                ".every(w => w.hasAttribute('data-upgraded'))"
            )
        return response

    def allow(self, pattern: str) -> None:
        """Expect problems matching ``pattern`` (a regex) in this page: they do not fail it."""
        self._allowed.append(re.compile(pattern))

    def unexpected_problems(self) -> list[str]:
        problems = list(self.problems)
        if self.js and not self.page.is_closed():
            try:
                csp = self.page.evaluate("window.__csp || []")
            except playwright_api.Error:  # the page is navigating: its console has the report
                csp = []
            problems += [f"CSP violation: {c}" for c in csp]
        return [p for p in problems if not any(a.search(p) for a in self._allowed)]

    def scroll_width(self) -> int:
        return int(self.page.evaluate("document.documentElement.scrollWidth"))

    def close(self) -> None:
        self.context.close()


_BRING_LAZY_WIDGETS = """async () => {
  const lazy = [...document.querySelectorAll('[data-kit]')].filter(
    (w) => !w.hasAttribute('data-upgraded'))
  for (const w of lazy) {
    w.scrollIntoView({block: 'center'})
    for (let i = 0; i < 200 && !w.hasAttribute('data-upgraded'); i++) {
      await new Promise((done) => setTimeout(done, 25))
    }
  }
  if (lazy.length) window.scrollTo(0, 0)
}"""


def buyer_session(*, email: str = "", staff: bool = False) -> str:
    """A signed-in learner who has bought Unit 18 (a paid order with its entitlement, written
    directly), on the staff too with ``staff`` (who are served draft sections); returns the
    session cookie's value."""
    from django.contrib.auth import get_user_model
    from django.test import Client
    from support import paid_order_create

    from mathmachine.billing.models import Product

    email = email or f"buyer-{uuid.uuid4().hex[:10]}@example.com"
    user = get_user_model().objects.create_user(
        email, email, "a long test password 42", is_staff=staff
    )
    paid_order_create(user, Product.objects.get(code="unit-18"))
    client = Client()
    client.force_login(user)
    return client.cookies[settings.SESSION_COOKIE_NAME].value


@pytest.fixture
def open_page(
    chromium: Any, live_server: Any, transactional_db: None, migration_data_kept: None
) -> Iterator[Callable[..., SitePage]]:
    """``open_page(path, width=360, height=740, js=True, reduced_motion="no-preference",
    buyer=False, staff=False)``.

    Returns a SitePage already at ``path`` (pass ``path=None`` to navigate later); with
    ``buyer=True`` it is signed in as a learner who bought Unit 18 (locked sections open), with
    ``staff=True`` as a member of staff who bought it (draft sections open too). At
    teardown the test fails if any page opened had an unexpected console error or warning, page
    error, CSP violation, failed request, HTTP error or a request to another host.
    """
    opened: list[SitePage] = []

    def _open(
        path: str | None = None,
        *,
        width: int = 360,
        height: int = 740,
        js: bool = True,
        reduced_motion: str = "no-preference",
        buyer: bool = False,
        staff: bool = False,
    ) -> SitePage:
        site_page = SitePage(
            chromium,
            live_server.url,
            width=width,
            height=height,
            js=js,
            reduced_motion=reduced_motion,
        )
        opened.append(site_page)
        if buyer or staff:
            _create_migration_data()  # idempotent (update_or_create)
            cookie = {"name": settings.SESSION_COOKIE_NAME, "value": buyer_session(staff=staff)}
            site_page.context.add_cookies([{**cookie, "url": live_server.url}])
        if path is not None:
            site_page.goto(path)
        return site_page

    yield _open
    problems = {}
    for site_page in opened:
        found = site_page.unexpected_problems()
        if found:
            problems[site_page.page.url] = found
        site_page.close()
    assert problems == {}, json.dumps(problems, indent=1, ensure_ascii=False)


@pytest.fixture(scope="session")
def axe_source() -> str:
    if not AXE_JS.exists():
        pytest.fail(f"{AXE_JS} is missing: run `npm ci` (make install does)")
    return AXE_JS.read_text(encoding="utf-8")


@pytest.fixture
def axe(axe_source: str) -> Callable[..., list[dict[str, Any]]]:
    """``axe(page, include=None)`` -> axe-core violations (WCAG 2.1 A and AA rules), each
    summarised as {id, impact, help, nodes: [{target, html, summary}]}.

    axe is evaluated through the DevTools protocol, which the page's CSP does not govern (an
    injected <script> would be refused, as it should be).
    """

    def run(page: Any, include: str | None = None) -> list[dict[str, Any]]:
        if not page.evaluate("typeof window.axe === 'object'"):
            page.evaluate(axe_source)
        return page.evaluate(
            """async ([tags, include]) => {
              const result = await axe.run(include ? {include: [include]} : document,
                                           {runOnly: {type: 'tag', values: tags},
                                            resultTypes: ['violations']})
              return result.violations.map(v => ({
                id: v.id, impact: v.impact, help: v.help,
                nodes: v.nodes.map(n => ({target: n.target.join(' '), html: n.html.slice(0, 300),
                                          summary: n.failureSummary}))
              }))
            }""",
            [WCAG_TAGS, include],
        )

    return run


def _create_migration_data() -> None:
    """What data migrations put in a fresh database: billing's two products (Unit 18, bundle)."""
    from django.apps import apps

    migration = importlib.import_module("mathmachine.billing.migrations.0002_products")
    migration.create_products(apps, None)


@pytest.fixture
def migration_data_kept() -> None:
    """Ask for this in a transactional test: after the test's database flush, the data the
    migrations create is put back (by pytest_runtest_teardown, which runs after every fixture's
    teardown, the flush included), so later tests find the database as migrations left it."""


@pytest.fixture
def billing_products(transactional_db: None) -> None:
    """The products the billing migration creates (the pricing page lists them)."""
    _create_migration_data()


def tab_to(page: Any, selector: str, *, limit: int = 150, backwards: bool = False) -> None:
    """Press Tab (or Shift+Tab) until the element matching ``selector`` has focus."""
    key = "Shift+Tab" if backwards else "Tab"
    for _ in range(limit):
        page.keyboard.press(key)
        if page.evaluate("(sel) => document.activeElement?.matches(sel) ?? false", selector):
            return
    raise AssertionError(f"{key} never reached {selector} in {limit} presses")


def sign_up_and_confirm(
    page: Any, email: str, password: str, *, goto: Callable[[str], Any] | None = None
) -> None:
    """Sign up from the page's "Sign up" link, then open the confirmation link of the email
    (verification is mandatory; the link signs the learner in): ends back on the page it
    started from (the link's ``next``, kept through the confirmation). ``goto`` opens a path on
    the live site (the page's own ``goto`` when its context has a base URL)."""
    from django.core import mail

    expect = playwright_api.expect
    start = urlsplit(page.url)
    back = start.path + (f"?{start.query}" if start.query else "")
    page.get_by_role("link", name="Sign up").click()
    page.get_by_label("Email").fill(email)
    page.get_by_label("Password", exact=True).fill(password)
    page.get_by_label("Password (again)").fill(password)
    page.get_by_role("button", name="Create account").click()
    expect(page.get_by_role("heading", name="Confirm your email address")).to_be_visible()
    (message,) = [m for m in mail.outbox if m.to == [email]]
    link = re.search(r"https?://[^/\s]+(/accounts/confirm-email/\S+)", message.body)
    assert link, message.body
    (goto or page.goto)(link.group(1))
    page.get_by_role("button", name="Yes, confirm it").click()
    expect(page).to_have_url(re.compile(re.escape(back) + "$"))


def focused(page: Any) -> str:
    """A short description of the focused element (id, or tag and class), for assertions."""
    return page.evaluate(
        "() => { const e = document.activeElement;"
        " return e ? (e.id ? '#' + e.id : e.tagName.toLowerCase() + '.' + e.className) : '' }"
    )
