"""Answers given offline (issue 19; docs/offline.md, "Answers given offline"), in Chromium.

A buyer keeps §2 (test_offline_app's helper: the worker in control, the kept cache seeded as the
keep script does), goes offline (Playwright's ``context.set_offline(True)``) and answers a check:
the page says the answer is saved on this phone and the server has nothing. Back online, the
answer is sent (the browser's "online" event), graded once, and the verdict shows; reloading
twice, or the same queued answer found again (as when the first reply was lost), stores nothing
more. An answer queued by a learner who then signs out is sent as no one: it waits on the phone
until that learner signs in again.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings

from .test_offline_app import (
    SECTION_2,
    UNIT_PAGE,
    _a_buyer_keeping_section_2,
    _buyer,
    _controlled,
    _keep,
    _offline_goto,
    _sign_in,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

OpenPage = Callable[..., Any]
CHECK = "s2-anything"  # §2's first check: one number, 26
BOX = f"#check-{CHECK}-0"
FEEDBACK = f"#check-{CHECK} .check-feedback"
SAVED = "Saved on this phone, will be checked when you are online."
ARENA = "/units/attention-and-transformers/15/"
PROBLEM = "p15-soft-weights"  # seed 1: the weights (0.140, 0.231, 0.629)
OFFLINE_FAILURES = r"ERR_INTERNET_DISCONNECTED|net::ERR_FAILED"

_QUEUED = """() => Object.keys(localStorage).filter(k => k.startsWith('mm-queued:'))"""


def _queued(site: Any) -> list[str]:
    return site.page.evaluate(_QUEUED)


def _stored(user: Any) -> list[tuple[int, bool]]:
    from mathmachine.learning.models import CheckAnswer

    return list(
        CheckAnswer.objects.filter(user=user, check_id=CHECK).values_list("attempts", "correct")
    )


def _received(user: Any) -> int:
    from mathmachine.learning.models import ReceivedAnswer

    return ReceivedAnswer.objects.filter(user=user, check_id=CHECK).count()


def _keep_with_the_queue(site: Any, pages: list[str]) -> None:
    """Keep ``pages`` and the queue module, found in the unit's keep list as the keep script
    finds it (checks.js imports it only when an answer waits, so no page load cached it)."""
    listed = site.page.evaluate(
        "async () => (await (await fetch('/units/attention-and-transformers/keep/')).json()).urls"
    )
    module = [url for url in listed if url.endswith("/answer-queue.js")]
    assert len(module) == 1, listed
    _keep(site, [*pages, *module])


def _answer(site: Any, text: str) -> None:
    site.page.fill(BOX, text)
    site.page.press(BOX, "Enter")


def _wait_text(site: Any, selector: str, text: str) -> None:
    site.page.wait_for_function(
        "([selector, text]) => document.querySelector(selector)?.textContent.includes(text)",
        arg=[selector, text],
        timeout=10000,
    )


def test_an_answer_given_offline_is_saved_then_graded_once_when_online(
    open_page: OpenPage,
) -> None:
    user, _, site, _ = _a_buyer_keeping_section_2(open_page)
    site.allow(OFFLINE_FAILURES)
    page = site.page
    site.context.set_offline(True)
    _answer(site, "26")
    _wait_text(site, FEEDBACK, SAVED)
    # The live region says so, and has the focus (as a verdict would): it is heard.
    region = page.locator(FEEDBACK)
    assert region.get_attribute("role") == "status" and region.get_attribute("aria-live")
    assert page.evaluate("() => document.activeElement.classList.contains('check-feedback')")
    assert page.input_value(BOX) == "26"  # what was typed stays in the box
    assert len(_queued(site)) == 1
    assert _stored(user) == [] and _received(user) == 0  # nothing reached the server

    site.context.set_offline(False)  # the browser says it is online: the answer goes
    _wait_text(site, FEEDBACK, "Right")
    assert "✓ Right." in page.inner_text(FEEDBACK)
    assert _queued(site) == []
    assert _stored(user) == [(1, True)] and _received(user) == 1

    for _ in range(2):  # reloaded twice: nothing is sent again
        site.goto(SECTION_2)
        assert "✓ Right." in page.inner_text(FEEDBACK)
    assert _stored(user) == [(1, True)] and _received(user) == 1


def test_an_answer_sent_again_after_a_lost_reply_counts_once(open_page: OpenPage) -> None:
    """The server took the answer but the reply never came (the connection dropped on the way
    back): the phone keeps it and sends it again with its id; the server answers as the first
    time and stores nothing more."""
    user, _, site, _ = _a_buyer_keeping_section_2(open_page)
    site.allow(OFFLINE_FAILURES)
    page = site.page

    def lose_the_reply(route: Any) -> None:
        route.fetch()  # the server grades and stores it ...
        route.abort("internetdisconnected")  # ... and the page gets no answer

    page.route(f"**/checks/{CHECK}/", lose_the_reply)
    _answer(site, "25")
    _wait_text(site, FEEDBACK, SAVED)
    assert _stored(user) == [(1, False)] and len(_queued(site)) == 1
    page.unroute(f"**/checks/{CHECK}/")
    site.goto(SECTION_2)  # the next page load sends it: answered as before, nothing counted
    _wait_text(site, FEEDBACK, "Not quite")
    assert _queued(site) == []
    assert _stored(user) == [(1, False)] and _received(user) == 1
    site.goto(SECTION_2)
    assert _stored(user) == [(1, False)]


def test_a_kept_page_opened_offline_shows_the_answer_still_waiting(open_page: OpenPage) -> None:
    """A right answer online, then a wrong one offline; the kept §2 opened again offline says
    the second is still saved on this phone, with it in the box; online, it is graded (the
    right one is kept). The queue module is kept with the unit, as the keep list says."""
    user, _, cookie = _buyer()
    site = open_page()
    _sign_in(site, cookie)
    _controlled(site, SECTION_2)
    _keep_with_the_queue(site, [UNIT_PAGE, SECTION_2])
    site.allow(OFFLINE_FAILURES)
    _answer(site, "26")
    _wait_text(site, FEEDBACK, "Right")
    site.context.set_offline(True)
    _answer(site, "27")
    _wait_text(site, FEEDBACK, SAVED)
    response = site.page.goto(site.url(SECTION_2))  # offline: the kept copy, from the worker
    assert response is not None and response.status == 200
    _wait_text(site, FEEDBACK, SAVED)
    assert site.page.input_value(BOX) == "27"  # the waiting answer, back in its box
    assert _stored(user) == [(1, True)]
    site.context.set_offline(False)
    _wait_text(site, FEEDBACK, "Not quite")
    assert "Your earlier right answer is kept." in site.page.inner_text(FEEDBACK)
    assert _stored(user) == [(2, True)] and _queued(site) == []


def test_an_answer_queued_before_signing_out_waits_for_its_learner(open_page: OpenPage) -> None:
    """Signed out (or another learner signed in), a waiting answer is sent as no one; it is
    kept on the phone, and goes, graded once, when its own learner signs in again."""
    from django.test import Client

    from mathmachine.learning.models import CheckAnswer, ReceivedAnswer

    user, _, site, _ = _a_buyer_keeping_section_2(open_page)
    site.allow(OFFLINE_FAILURES)
    page = site.page
    # No connection for the check's request only (the page stays online, so nothing sends it
    # before the learner signs out).
    page.route(f"**/checks/{CHECK}/", lambda route: route.abort("internetdisconnected"))
    _answer(site, "26")
    _wait_text(site, FEEDBACK, SAVED)
    assert len(_queued(site)) == 1
    page.unroute(f"**/checks/{CHECK}/")
    page.get_by_role("button", name="Sign out").click()
    page.wait_for_url(site.url("/"))
    site.goto(SECTION_2.replace("/2/", "/1/"))
    other, _, other_cookie = _buyer()
    _sign_in(site, other_cookie)  # another learner on the same phone
    site.goto(SECTION_2)
    assert SAVED not in page.inner_text(FEEDBACK)  # not theirs: not shown to them
    site.goto("/")
    assert not CheckAnswer.objects.filter(check_id=CHECK).exists()
    assert not ReceivedAnswer.objects.exists()
    assert len(_queued(site)) == 1  # still waiting for its own learner
    # Offline, the kept §2 is gone with the sign-out: it does not open for anyone.
    assert _offline_goto(site, SECTION_2).headers.get("x-mm-offline") == "1"
    site.context.set_offline(False)

    client = Client()
    client.force_login(user)  # the first learner signs in again
    _sign_in(site, client.cookies[settings.SESSION_COOKIE_NAME].value)
    site.goto(SECTION_2)
    _wait_text(site, FEEDBACK, "Right")
    page.wait_for_function(f"() => ({_QUEUED})().length === 0")
    site.goto(SECTION_2)
    assert _stored(user) == [(1, True)] and _received(user) == 1
    assert not CheckAnswer.objects.filter(user=other).exists()


def test_a_problem_of_the_arena_answered_offline_is_graded_once_at_the_next_page(
    open_page: OpenPage,
) -> None:
    """§15 (fresh numbers, one record per set of numbers): answered offline on the kept arena,
    sent at the next page opened online, solved at the first try, once."""
    from mathmachine.learning.models import CheckAnswer, VariantRecord

    user, _, cookie = _buyer()
    site = open_page()
    site.allow(OFFLINE_FAILURES)
    _sign_in(site, cookie)
    _controlled(site, ARENA)
    _keep_with_the_queue(site, [UNIT_PAGE, ARENA])
    feedback = f"#check-{PROBLEM} .check-feedback"
    site.context.set_offline(True)
    site.page.fill(f"#check-{PROBLEM}-0", "0.140, 0.231, 0.629")
    site.page.click(f"#check-{PROBLEM} .check-form button[type=submit]")
    _wait_text(site, feedback, SAVED)
    assert not CheckAnswer.objects.filter(user=user).exists()
    site.page.goto(site.url(ARENA))  # still offline: the kept arena, the answer still waiting
    _wait_text(site, feedback, SAVED)
    site.context.set_offline(False)
    _wait_text(site, feedback, "Right")
    site.goto(ARENA)
    site.goto(UNIT_PAGE)
    row = CheckAnswer.objects.get(user=user, check_id=PROBLEM)
    record = VariantRecord.objects.get(user=user, check_id=PROBLEM, seed=1)
    assert (row.attempts, row.correct, row.first_try_correct) == (1, True, True)
    assert (record.attempts, record.first_try_correct) == (1, True)


@pytest.mark.slow
def test_under_production_settings_the_queue_module_loads_by_its_hashed_name(
    chromium: Any,
) -> None:
    """The site as production serves it (bench/page_weight.py's production_site: gunicorn,
    the production settings, collectstatic with the manifest storage): a first visit loads no
    queue module; an answer that got no reply is saved, and the next page loads
    answer-queue.<hash>.js (checks.js's import(), rewritten to the hashed name) and sends it."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
    from page_weight import SECTION_1, production_site

    check = "#check-s1-sharpen"
    with production_site(workers=1, threads=2) as base:
        context = chromium.new_context(viewport={"width": 360, "height": 740})
        try:
            page = context.new_page()
            problems: list[str] = []
            page.on("pageerror", lambda e: problems.append(f"pageerror: {e}"))
            page.on(
                "console",
                lambda m: problems.append(m.text) if m.type in ("error", "warning") else None,
            )
            queue: list[tuple[str, int]] = []
            page.on(
                "response",
                lambda r: queue.append((r.url, r.status)) if "answer-queue" in r.url else None,
            )
            page.goto(base + SECTION_1)
            assert queue == []  # not part of a first visit
            page.route("**/checks/s1-sharpen/", lambda route: route.abort("internetdisconnected"))
            page.fill(f"{check}-0", "0.017 0.047 0.936")
            page.press(f"{check}-0", "Enter")
            page.wait_for_function(
                "([s, t]) => document.querySelector(s)?.textContent.includes(t)",
                arg=[f"{check} .check-feedback", SAVED],
            )
            page.unroute("**/checks/s1-sharpen/")
            page.reload()
            page.wait_for_function(
                "([s, t]) => document.querySelector(s)?.textContent.includes(t)",
                arg=[f"{check} .check-feedback", "Right"],
            )
            assert "✓ Right." in page.inner_text(f"{check} .check-feedback")  # one try
            assert len(queue) == 1 and queue[0][1] == 200, queue
            assert re.search(r"/static/site/answer-queue\.[0-9a-f]{12}\.js$", queue[0][0])
            assert page.evaluate(_QUEUED) == []
            unexpected = [p for p in problems if not re.search(OFFLINE_FAILURES, p)]
            assert unexpected == [], unexpected
        finally:
            context.close()
