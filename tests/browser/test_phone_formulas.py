"""Display formulas on a phone (360 px): every display formula and every boxed formula of every
written section of Unit 18 fits its column, so none is cut at the screen's right edge with no
sign that it scrolls, and no page scrolls sideways.

A formula that truly cannot fit (a wide matrix) may instead scroll inside a labelled, focusable
region that shows it scrolls (a shadow at the edges), as a wide table does
(test_phone_tables.py); nothing else that scrolls is accepted.

The sections are read from the compiled unit, so sections written later are walked too, as a
buyer (the paid ones open), with JavaScript on and off, with every <details> opened (proofs,
tables in a details) so the formulas inside are measured too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.conf import settings

from mathmachine import coursebook

from .conftest import UNIT

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

OpenPage = Callable[..., Any]
WIDTH = 360

# For each display formula drawn (a block <math>, a boxed formula): its size, its column's, and
# every box around it (itself included) that scrolls sideways because of it.
_FORMULAS = """() => {
  document.querySelectorAll('details').forEach(d => { d.open = true; });
  const page = document.documentElement.clientWidth;
  const scrolls = e => /(auto|scroll)/.test(getComputedStyle(e).overflowX) &&
    e.scrollWidth > e.clientWidth + 1;
  const region = e => {
    const named = document.getElementById(e.getAttribute('aria-labelledby'));
    return {
      tag: e.tagName.toLowerCase(), role: e.getAttribute('role'),
      label: (e.getAttribute('aria-label') || (named ? named.textContent : '')).trim(),
      tabindex: e.getAttribute('tabindex'),
      shadow: getComputedStyle(e).backgroundImage,
      left: Math.round(e.getBoundingClientRect().left),
      right: Math.round(e.getBoundingClientRect().right),
      scrollWidth: e.scrollWidth, clientWidth: e.clientWidth,
    };
  };
  return [...document.querySelectorAll('math[display="block"], .formula-box')]
    .filter(f => f.getClientRects().length > 0)
    .map(f => {
      const scrollers = [];
      for (let e = f; e && e !== document.body; e = e.parentElement)
        if (scrolls(e)) scrollers.push(region(e));
      const r = f.getBoundingClientRect();
      const column = f.parentElement.getBoundingClientRect();
      return {
        formula: (f.getAttribute('alttext') || f.querySelector('math')?.getAttribute('alttext')
          || f.textContent).replace(/\\s+/g, ' ').trim().slice(0, 80),
        left: Math.round(r.left), right: Math.round(r.right),
        columnLeft: Math.round(column.left), columnRight: Math.round(column.right),
        page, scrollers,
      };
    });
}"""


def _written_sections() -> list[int]:
    """Every written section, drafts too (opened by a staff buyer)."""
    unit = coursebook.load_unit(UNIT, root=settings.CONTENT_DIR).with_drafts()
    return [s.number for s in unit.sections if s.written]


def _accepted(s: dict[str, Any]) -> bool:
    """A box that scrolls a formula: a labelled region in the Tab order with edge shadows,
    inside the page."""
    return (
        s["role"] == "region"
        and bool(s["label"])
        and s["tabindex"] == "0"
        and s["shadow"].count("gradient(") >= 2
        and s["left"] >= 0
        and s["right"] <= WIDTH
    )


def _problems(site: Any, path: str) -> tuple[list[str], int]:
    """What is wrong on the page at ``path``, and how many formulas it measured."""
    problems = []
    if site.scroll_width() > WIDTH:
        problems.append(f"{path}: the page is {site.scroll_width()} px wide")
    formulas = site.page.evaluate(_FORMULAS)
    for f in formulas:
        name = f"{path}: {f['formula']!r}"
        bad = [s for s in f["scrollers"] if not _accepted(s)]
        if bad:
            s = bad[0]
            problems.append(
                f"{name} is {s['scrollWidth']} px wide in a {s['clientWidth']} px "
                f"<{s['tag']}>, which scrolls with no label or sign of it"
            )
        elif not f["scrollers"] and (
            f["left"] < f["columnLeft"] - 1 or f["right"] > f["columnRight"] + 1
        ):
            problems.append(
                f"{name} ({f['left']}..{f['right']} px) sticks out of its column "
                f"({f['columnLeft']}..{f['columnRight']} px)"
            )
    return problems, len(formulas)


@pytest.mark.parametrize("js", [True, False], ids=["js", "nojs"])
def test_every_display_formula_of_every_written_section_fits_at_360px(
    open_page: OpenPage, js: bool
) -> None:
    site = open_page(None, width=WIDTH, js=js, buyer=True, staff=True)
    problems: list[str] = []
    measured = {}
    for number in _written_sections():
        path = f"/units/{UNIT}/{number}/"
        site.goto(path)
        found, count = _problems(site, path)
        problems += found
        measured[number] = count
    assert problems == [], "\n".join(problems)
    # The walk did measure: §3 writes self-attention as a display formula and §7 boxes its
    # MultiHead formula (a page with no formula found would pass above with nothing checked).
    assert measured.get(3, 0) >= 1 and measured.get(7, 0) >= 2, measured


def test_a_formula_too_wide_for_its_column_is_reported(open_page: OpenPage) -> None:
    """The check itself: a long formula set in a page at 360 px is found, and one in a labelled
    region with shadows (a table's scroll box) is accepted."""
    site = open_page(None, width=WIDTH, js=True, buyer=True)
    site.goto(f"/units/{UNIT}/1/")
    wide = site.page.evaluate("""() => {
      const body = document.querySelector('.section-body');
      const long = document.querySelector('math[display="block"]').cloneNode(true);
      long.setAttribute('alttext', 'wide test formula');
      for (let i = 0; i < 40; i++)
        long.append(document.createElementNS('http://www.w3.org/1998/Math/MathML', 'mi'));
      long.querySelectorAll('mi').forEach(mi => { mi.textContent = 'x'; });
      body.prepend(long);
      return long.scrollWidth > long.clientWidth + 1;
    }""")
    assert wide
    problems, _ = _problems(site, "test")
    assert any("wide test formula" in p and "no label" in p for p in problems), problems
    site.page.evaluate("""() => {
      const long = document.querySelector('math[alttext="wide test formula"]');
      const box = document.createElement('div');
      box.className = 'table-scroll';
      box.setAttribute('role', 'region');
      box.setAttribute('aria-label', 'A wide formula');
      box.setAttribute('tabindex', '0');
      long.replaceWith(box);
      box.append(long);
      long.style.overflow = 'visible';
      long.style.maxWidth = 'none';
    }""")
    problems, _ = _problems(site, "test")
    assert not any("wide test formula" in p for p in problems), problems
