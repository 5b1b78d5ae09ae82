"""The kit's parts in real Chromium at 360 px: every heat map of every written section keeps its
labels inside its SVG (with JavaScript and without: "[SEP]" is not clipped), and a map the script
redraws with heatmap.js is the map the server drew (the same elements, attributes and text)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from .conftest import UNIT

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

OpenPage = Callable[..., Any]
#: Sections whose widgets draw heat maps with parts.heatmap (§6 the lab, §7 two heads).
MAPS = (6, 7)

OUTSIDE = """() => [...document.querySelectorAll('svg.wk-hm-svg')].flatMap((svg) => {
  const box = svg.getBoundingClientRect()
  if (!box.width) return []  // not on show (the other view)
  return [...svg.querySelectorAll('text')].filter((t) => {
    const r = t.getBoundingClientRect()
    return r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 ||
           r.bottom > box.bottom + 1
  }).map((t) => `${svg.closest('figure').id}: ${t.textContent}`)
})"""


@pytest.mark.parametrize("js", [True, False], ids=["js", "nojs"])
@pytest.mark.parametrize("number", MAPS)
def test_every_label_of_every_map_is_inside_its_svg(
    open_page: OpenPage, number: int, js: bool
) -> None:
    site = open_page(f"/units/{UNIT}/{number}/", js=js, buyer=True)
    page = site.page
    assert page.locator("svg.wk-hm-svg").count() >= 1
    assert page.evaluate(OUTSIDE) == []
    if number == 6 and js:  # a longer sentence, redrawn by the script, ends in [SEP] too
        page.fill("#w7-text", "The animal didn't cross the street because it was too tired.")
        page.press("#w7-text", "Enter")
        page.wait_for_function(
            "() => document.querySelector('#w7 [data-target~=status]').textContent"
            ".includes('tokens')",
            timeout=15000,
        )
        labels = page.locator("#w7 svg.wk-hm-svg text").evaluate_all(
            "els => els.map((e) => e.textContent)"
        )
        assert "[SEP]" in labels and "tired" in labels
        assert page.evaluate(OUTSIDE) == []


SNAPSHOT = """(fig) => [...fig.querySelector('svg').querySelectorAll('*')].map((el) =>
  [el.localName, [...el.attributes].map((a) => `${a.name}=${a.value}`).join(' '),
   el.children.length ? '' : el.textContent])"""


def test_a_map_redrawn_by_the_script_is_the_map_the_server_drew(open_page: OpenPage) -> None:
    site = open_page(f"/units/{UNIT}/7/", buyer=True)
    page = site.page
    url = page.evaluate(
        "() => performance.getEntriesByType('resource').map((e) => e.name)"
        ".find((n) => /\\/heatmap(\\.[0-9a-f]+)?\\.js$/.test(n))"
    )
    assert url, "heatmap.js is not loaded by the two-heads page"
    for k in (1, 2):
        fig = page.locator(f"#w8 figure[data-target~='map-{k}']")
        before = fig.evaluate(SNAPSHOT)
        after = fig.evaluate(
            """async (fig, [url, k]) => {
              const {drawHeatmap} = await import(url)
              const host = fig.closest('two-heads')
              const state = JSON.parse(host.querySelector('script[data-state]').textContent)
              const head = state.heads[k - 1]
              const svg = fig.querySelector('svg')
              drawHeatmap(fig, {values: head.weights, rows: state.words, cols: state.words,
                                title: svg.querySelector('title').textContent,
                                desc: svg.querySelector('desc').textContent,
                                highlight: Number(svg.querySelector('.wk-hm-row').dataset.row)})
              return [...svg.querySelectorAll('*')].map((el) =>
                [el.localName, [...el.attributes].map((a) => `${a.name}=${a.value}`).join(' '),
                 el.children.length ? '' : el.textContent])
            }""",
            [url, k],
        )
        assert after == before, k
