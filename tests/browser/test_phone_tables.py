"""Tables on a phone (360 px): every table fits its page, or scrolls sideways inside a labelled,
focusable region that shows it scrolls (a shadow at the edge where more is hidden); on "Your
orders" each order stacks into a card, so its Refund button is on the screen.

Every written section is walked (as a buyer, so the paid ones open), with JavaScript on and off,
with every <details> opened so the tables inside are measured too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.conf import settings

from mathmachine import coursebook

from .conftest import SECTION_1, UNIT

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

OpenPage = Callable[..., Any]
WIDTH = 360

# For each table drawn: its size, the page's, and the box that scrolls it, if any.
_TABLES = """() => {
  document.querySelectorAll('details').forEach(d => { d.open = true; });
  const page = document.documentElement.clientWidth;
  return [...document.querySelectorAll('table')].filter(t => t.getClientRects().length > 0)
    .map(t => {
      let box = t.parentElement;
      while (box && box !== document.body && !/(auto|scroll)/.test(getComputedStyle(box).overflowX))
        box = box.parentElement;
      const scroller = box && box !== document.body ? box : null;
      const r = t.getBoundingClientRect();
      const named = scroller && document.getElementById(scroller.getAttribute('aria-labelledby'));
      const label = scroller && (scroller.getAttribute('aria-label') ||
        (named ? named.textContent : ''));
      return {
        table: (t.caption ? t.caption.textContent : t.className || t.id)
          .trim().slice(0, 60),
        width: Math.round(r.width), left: Math.round(r.left), page,
        scroller: scroller && {
          role: scroller.getAttribute('role'), label: (label || '').trim(),
          tabindex: scroller.getAttribute('tabindex'),
          left: Math.round(scroller.getBoundingClientRect().left),
          right: Math.round(scroller.getBoundingClientRect().right),
          overflows: scroller.scrollWidth > scroller.clientWidth + 1,
          shadow: getComputedStyle(scroller).backgroundImage,
        },
      };
    });
}"""


def _written_sections() -> list[int]:
    """Every written section, drafts too (opened by a staff buyer)."""
    unit = coursebook.load_unit(UNIT, root=settings.CONTENT_DIR).with_drafts()
    return [s.number for s in unit.sections if s.written]


def _problems(site: Any, path: str) -> list[str]:
    problems = []
    if site.scroll_width() > WIDTH:
        problems.append(f"{path}: the page is {site.scroll_width()} px wide")
    for t in site.page.evaluate(_TABLES):
        fits = t["left"] >= 0 and t["left"] + t["width"] <= t["page"]
        s = t["scroller"]
        if s is None:
            if not fits:
                problems.append(
                    f"{path}: {t['table']!r} ({t['width']} px) overflows, no scroll box"
                )
            continue
        if s["left"] < 0 or s["right"] > t["page"]:
            problems.append(f"{path}: the scroll box of {t['table']!r} is wider than the page")
        if s["overflows"] or not fits:
            if s["role"] != "region" or not s["label"] or s["tabindex"] != "0":
                problems.append(f"{path}: {t['table']!r} scrolls in an unlabelled box: {s}")
            if s["shadow"].count("gradient(") < 2:
                problems.append(f"{path}: {t['table']!r} scrolls with no sign of it: {s}")
    return problems


@pytest.mark.parametrize("js", [True, False], ids=["js", "nojs"])
def test_every_table_of_every_written_section_is_readable_at_360px(
    open_page: OpenPage, js: bool
) -> None:
    site = open_page(None, width=WIDTH, js=js, buyer=True, staff=True)
    problems: list[str] = []
    scrolling = 0
    for number in _written_sections():
        path = f"/units/{UNIT}/{number}/"
        site.goto(path)
        problems += _problems(site, path)
        scrolling += sum(
            1 for t in site.page.evaluate(_TABLES) if t["scroller"] and t["scroller"]["overflows"]
        )
    assert problems == []
    assert scrolling >= 1  # section 1's three scores table does scroll at 360 px: it was measured


def test_section_1_scores_table_scrolls_in_a_region_named_by_its_caption(
    open_page: OpenPage,
) -> None:
    page = open_page(SECTION_1, width=WIDTH).page
    region = page.get_by_role("region", name="The three classic scores")
    assert region.count() == 1
    assert region.evaluate("e => e.scrollWidth > e.clientWidth")  # it does scroll here
    region.focus()
    page.keyboard.press("ArrowRight")
    page.wait_for_function(
        "() => document.activeElement.scrollLeft > 0", timeout=2000
    )  # a keyboard scrolls it


def test_your_orders_stacks_and_refund_is_on_the_screen_at_360px(
    open_page: OpenPage, axe: Callable[..., list[dict[str, Any]]]
) -> None:
    site = open_page(None, width=WIDTH, buyer=True)
    for path in ("/billing/orders/", "/your-learning/", "/pricing/"):
        site.goto(path)
        assert _problems(site, path) == []
    site.goto("/billing/orders/")
    page = site.page
    refund = page.get_by_role("link", name="Refund ₹299…")
    box = refund.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= WIDTH
    # Each cell shows its column's name on the phone (hidden from screen readers, whose table
    # keeps its column headers).
    assert page.locator("td .cell-label").first.is_visible()
    assert page.get_by_role("columnheader", name="Refund").count() == 1
    assert page.get_by_role("cell").count() >= 5
    assert axe(page) == []
    # The confirmation page and the receipt fit the phone too, their buttons on the screen.
    refund.click()
    page.wait_for_url("**/refund/")
    assert _problems(site, page.url) == []
    assert axe(page) == []
    confirm = page.get_by_role("button", name="Yes, refund ₹299 and lock Unit 18")
    box = confirm.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= WIDTH
    page.get_by_role("link", name="No, keep it").click()
    assert _problems(site, page.url) == []


def test_orders_on_a_desktop_stay_one_table(open_page: OpenPage) -> None:
    site = open_page(None, width=1100, buyer=True)
    site.goto("/billing/orders/")
    page = site.page
    assert not page.locator("td .cell-label").first.is_visible()
    assert page.locator("thead").first.is_visible()
