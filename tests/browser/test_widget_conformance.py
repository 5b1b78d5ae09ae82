"""The kit's conformance test, browser half: every registered widget, on every real section page
that uses it, in Chromium at 360 px (the server half: tests/coursebook/test_widget_conformance.py).

With JavaScript: its tag is defined and the element upgraded; Tab reaches every control it shows;
its main control (declared as ``control=``), operated by keyboard, makes it emit
``<tag>:update``; axe finds no violation in it, before or after; the page stays 360 px wide (a
radio group and a tablist are one Tab stop each). Without JavaScript: its fallback (a captioned
table or figure) shows, no control that needs JavaScript is on show, the page stays 360 px
wide, and axe (run on the page as a reader without JavaScript gets it) finds no violation in
it. Locked sections are opened as a buyer.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from mathmachine.coursebook import widgets
from mathmachine.learning import selectors

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

OpenPage = Callable[..., Any]
Axe = Callable[..., list[dict[str, Any]]]
UNITS = [selectors.unit_get(info.slug).with_drafts() for info in selectors.units_list()]
USES = [
    (unit.slug, section.number, section.free, use.name, use.id)
    for unit in UNITS
    for section in unit.sections
    for use in section.widgets
]
DRAFTS = {(unit.slug, s.number) for unit in UNITS for s in unit.sections if s.draft}
IDS = [f"{name}-§{number}-{uid}" for _, number, _, name, uid in USES]

# Every control a reader can see in the widget, numbered (data-conformance) for the Tab walk.
_CONTROLS = """(id) => {
  const el = document.getElementById(id)
  const all = [...el.querySelectorAll(
    'a[href], button, input, select, textarea, summary, [tabindex]:not([tabindex="-1"])')]
  const shown = all.filter(c => c.checkVisibility() && !c.disabled)
  shown.forEach((c, i) => c.setAttribute('data-conformance', String(i)))
  const lists = [...el.querySelectorAll('[role="tablist"]')]
  return shown.map(c => ({tag: c.tagName.toLowerCase(), type: c.type || '', name: c.name || '',
                          target: c.getAttribute('data-target') || '',
                          tablist: c.getAttribute('role') === 'tab' ?
                            lists.indexOf(c.closest('[role="tablist"]')) : -1}))
}"""

# Start sequential focus just before the widget (a focus anchor), as a reader tabbing into it.
_ANCHOR = """(id) => {
  const a = document.createElement('span')
  a.tabIndex = -1
  document.getElementById(id).before(a)
  a.focus()
}"""


def _report(violations: list[dict[str, Any]]) -> str:
    return json.dumps(violations, indent=1, ensure_ascii=False)


def _url(slug: str, number: int) -> str:
    return f"/units/{slug}/{number}/"


@pytest.mark.parametrize(("slug", "number", "free", "name", "uid"), USES, ids=IDS)
def test_with_javascript(
    open_page: OpenPage, axe: Axe, slug: str, number: int, free: bool, name: str, uid: str
) -> None:
    widget = widgets.get(name)
    assert widget is not None
    draft = (slug, number) in DRAFTS
    site = open_page(_url(slug, number), buyer=not free, staff=draft, reduced_motion="reduce")
    page = site.page
    el = page.locator(f"#{uid}")
    assert page.evaluate("(n) => customElements.get(n) !== undefined", name), f"<{name}> undefined"
    assert el.evaluate("(e, n) => e instanceof customElements.get(n)", name)
    assert el.get_attribute("data-upgraded") == ""
    violations = axe(page, f"#{uid}")
    assert violations == [], _report(violations)

    # Keyboard: Tab from just before the widget reaches every control it shows.
    controls = page.evaluate(_CONTROLS, uid)
    assert controls, f"<{name}> shows no control"
    page.evaluate(_ANCHOR, uid)
    reached: set[int] = set()
    for _ in range(len(controls) + 3):
        page.keyboard.press("Tab")
        index = page.evaluate(
            "(id) => document.getElementById(id).contains(document.activeElement) ?"
            " document.activeElement.getAttribute('data-conformance') : 'out'",
            uid,
        )
        if index == "out":
            break
        if index is not None:
            reached.add(int(index))
    missed = []
    for i, c in enumerate(controls):
        # A radio group is one Tab stop: any of its buttons reached counts for all. So is a
        # tablist (the ARIA tabs pattern: the arrow keys move between its tabs).
        group = [
            k
            for k, o in enumerate(controls)
            if (c["type"] == "radio" and o["name"] == c["name"])
            or (c["tablist"] >= 0 and o["tablist"] == c["tablist"])
        ]
        if i not in reached and not (group and reached & set(group)):
            missed.append(c)
    assert not missed, f"Tab never reaches {missed}"

    # The main control, operated by keyboard, updates the widget (the bench times this).
    control = el.locator(f'[data-target~="{widget.control}"]').first
    assert control.is_visible(), f"the declared control {widget.control!r} is not on show"
    page.evaluate(
        "(n) => { window.__conformance = 0;"
        " document.addEventListener(n + ':update', () => window.__conformance++) }",
        name,
    )
    kind = control.evaluate("c => c.tagName.toLowerCase() + ':' + (c.type || '')")
    control.focus()
    if kind == "input:range":
        at_max = control.evaluate("c => Number(c.value) >= Number(c.max)")
        page.keyboard.press("ArrowLeft" if at_max else "ArrowRight")
    elif kind in ("input:checkbox", "input:radio"):
        page.keyboard.press("Space")
    elif kind.startswith("select:"):
        page.keyboard.press("ArrowDown")
    elif kind.startswith(("input:", "textarea:")):
        page.keyboard.type("a")
    else:
        page.keyboard.press("Enter")
    page.wait_for_function("() => window.__conformance > 0", timeout=5000)
    violations = axe(page, f"#{uid}")
    assert violations == [], _report(violations)
    assert site.scroll_width() <= 360


@pytest.mark.parametrize(("slug", "number", "free", "name", "uid"), USES, ids=IDS)
def test_without_javascript(
    open_page: OpenPage, axe: Axe, slug: str, number: int, free: bool, name: str, uid: str
) -> None:
    site = open_page(_url(slug, number), js=False, buyer=not free, staff=(slug, number) in DRAFTS)
    page = site.page
    el = page.locator(f"#{uid}")
    assert el.is_visible()
    captioned = el.locator("table:has(> caption), figure:has(> figcaption)")
    assert any(c.is_visible() for c in captioned.all()), "no captioned table or figure on show"
    for control in el.locator("button, input, select, textarea").all():
        in_form = control.evaluate("c => !!c.closest('form[action]')")
        assert in_form or control.is_hidden(), control.evaluate("c => c.outerHTML")
    assert site.scroll_width() <= 360

    # axe needs JavaScript: the page as a reader without it gets it (every script answers empty).
    audit = open_page(None, buyer=not free, staff=(slug, number) in DRAFTS)
    audit.page.route(
        "**/*.js", lambda route: route.fulfill(status=200, content_type="text/javascript", body="")
    )
    audit.goto(_url(slug, number), upgraded=False)
    assert audit.page.locator(f"#{uid}").get_attribute("data-upgraded") is None
    # Every SVG label the server wrote is still an SVG <text> inside its figure once Chromium has
    # parsed the page (an HTML element inside one closes the <svg> and spills the labels out).
    written, parsed, html_inside = audit.page.evaluate(
        """async uid => {
          const raw = await (await fetch(location.href)).text()
          const el = document.getElementById(uid)
          const ns = 'http://www.w3.org/2000/svg'
          const inside = [...el.querySelectorAll('svg text *')].filter(e => e.namespaceURI !== ns)
          const own = (raw.split(`id="${uid}"`)[1] || '').split(`</${el.localName}>`)[0]
          return [own.split('<text').length - 1, el.querySelectorAll('svg text').length,
                  inside.length]
        }""",
        uid,
    )
    assert (parsed, html_inside) == (written, 0)
    violations = axe(audit.page, f"#{uid}")
    assert violations == [], _report(violations)
