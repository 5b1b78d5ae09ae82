"""Widget 18 (§14, "The formula map") in real Chromium at 360 px, as staff while §14 is a draft
(a buyer once it is published): the chain walked by keyboard (the slider moves the card, the
marked box and the marked list item together), a box pressed, every link the compiled unit's;
axe clean. Without JavaScript the map and the list with its links are the widget."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from mathmachine.coursebook import load_unit

from .conftest import UNIT, tab_to

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

OpenPage = Callable[..., Any]
Axe = Callable[..., list[dict[str, Any]]]
SECTION = f"/units/{UNIT}/14/"
W = "#w18"
DRAFT = any(d.number == 14 for d in load_unit(UNIT).drafts)


def _open(open_page: OpenPage, **kw: Any) -> Any:
    return open_page(SECTION, buyer=not DRAFT, staff=DRAFT, **kw)


def item_links(page: Any) -> list[list[str]]:
    return page.locator(f"{W} .fm-item").evaluate_all(
        "items => items.map(li => [...li.querySelectorAll('a')].map(a => a.getAttribute('href')))"
    )


def card(page: Any) -> dict[str, Any]:
    return page.locator(f"{W} .fm-card").evaluate(
        """c => ({name: c.querySelector('[data-target=card-name]').textContent,
                  sec: c.querySelector('[data-target=card-sec]').getAttribute('href'),
                  widget: c.querySelector('[data-target=card-widget]').getAttribute('href')})"""
    )


def marked(page: Any) -> tuple[list[str], list[str]]:
    boxes = page.locator(f"{W} .fm-node.fm-on").evaluate_all("els => els.map(e => e.dataset.k)")
    items = page.locator(f"{W} .fm-item[aria-current]").evaluate_all(
        "els => els.map(e => e.dataset.k)"
    )
    return boxes, items


def test_the_chain_by_keyboard(open_page: OpenPage, axe: Axe) -> None:
    page = _open(open_page, reduced_motion="reduce").page
    links = item_links(page)
    labels = page.locator(f"{W} .fm-item .fm-name").all_inner_texts()
    assert len(labels) >= 12 and marked(page) == (["0"], ["0"])
    tab_to(page, f'{W} [data-target="node"]')
    for k in range(1, len(labels)):
        page.keyboard.press("ArrowRight")
        assert marked(page) == ([str(k)], [str(k)])
        c = card(page)
        assert c["name"] == labels[k]
        want = links[k] + [None, None]
        assert [c["sec"], c["widget"]] == want[:2]  # the list's links, or none while unwritten
    slider = page.locator(f'{W} [data-target="node"]')
    assert slider.get_attribute("aria-valuetext") == f"{len(labels)} of {len(labels)}: {labels[-1]}"
    page.locator(f'{W} .fm-node[data-k="2"]').click()
    assert marked(page) == (["2"], ["2"]) and slider.input_value() == "3"
    assert f"{labels[2]}, built in §" in page.locator(f"{W} [data-target='status']").inner_text()
    assert axe(page, W) == []


def test_the_links_are_the_compiled_units(open_page: OpenPage) -> None:
    unit = load_unit(UNIT)
    published = {s.number: s for s in unit.sections if s.published}
    site = _open(open_page)
    page = site.page
    links = item_links(page)
    for i, hrefs in enumerate(links):
        for href in hrefs:
            path, _, anchor = href.partition("#")
            number = int(path.rstrip("/").rsplit("/", 1)[1])
            assert number in published, (i, href)
            if anchor:
                assert anchor in {w.id for w in published[number].widgets}
    first = links[0]
    site.goto(first[1])  # the widget link of the first node opens its section at the widget
    assert page.locator(f"#{first[1].split('#')[1]}").count() == 1


def test_without_javascript_the_map_and_the_list(open_page: OpenPage) -> None:
    page = _open(open_page, js=False).page
    assert page.locator(f"{W} .fm-figure svg").is_visible()
    assert not page.locator(f'{W} [data-target="node"]').is_visible()
    items = page.locator(f"{W} .fm-item")
    assert items.count() >= 12 and items.first.is_visible()
    assert page.locator(f"{W} .fm-item a").first.is_visible()
