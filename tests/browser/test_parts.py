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


def test_a_line_plot_fits_redraws_as_the_server_drew_it_and_marks_a_point(
    open_page: OpenPage,
) -> None:
    """No written section draws a line plot yet (§12 and §13 will): the server's plot, put into
    a page with plots.css, keeps its labels inside its SVG on linear and log axes, and plot.js's
    drawLinePlot redraws it element for element."""
    from mathmachine.coursebook.widgets import parts

    ns = [2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096]
    lines = [
        parts.Series("n²", ns, [n * n for n in ns], fmt=None),
        parts.Series("n", ns, ns, fmt=None),
    ]
    plots = [
        parts.line_plot(lines, uid=f"plot-{log}", title="Scores against n", desc="n² outgrows n",
                        caption="The price", x_label="n", y_label="scores", x_log=log, y_log=log)
        for log in (False, True)
    ]  # fmt: skip
    site = open_page(f"/units/{UNIT}/1/")
    page = site.page
    page.evaluate(
        """(html) => { const link = document.createElement('link'); link.rel = 'stylesheet'
          link.href = '/static/widgets/plots.css'; document.head.append(link)
          const box = document.createElement('div'); box.id = 'plots'
          box.insertAdjacentHTML('beforeend', html); document.querySelector('main').prepend(box)
          return new Promise((ok) => link.addEventListener('load', ok)) }""",
        "".join(plots),
    )
    outside = page.evaluate(
        """() => [...document.querySelectorAll('#plots svg')].flatMap((svg) => {
          const box = svg.getBoundingClientRect()
          return [...svg.querySelectorAll('text')].filter((t) => {
            const r = t.getBoundingClientRect()
            return r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 ||
                   r.bottom > box.bottom + 1 }).map((t) => t.textContent) })"""
    )
    assert outside == []
    assert site.scroll_width() <= 360
    for log in (False, True):
        fig = page.locator(f"#plot-{log}")
        before = fig.evaluate(SNAPSHOT)
        after = fig.evaluate(
            """async (fig, series) => {
              const {drawLinePlot, markPoint} = await import('/static/widgets/plot.js')
              drawLinePlot(fig, {series, title: 'Scores against n', desc: 'n² outgrows n'})
              markPoint(fig, 0, 3)
              const on = [...fig.querySelectorAll('circle[data-on]')].map((c) => c.dataset.i)
              fig.querySelector('circle[data-on]').removeAttribute('data-on')
              return [on, [...fig.querySelector('svg').querySelectorAll('*')].map((el) =>
                [el.localName, [...el.attributes].map((a) => `${a.name}=${a.value}`).join(' '),
                 el.children.length ? '' : el.textContent])]
            }""",
            [{"name": s.name, "x": list(s.x), "y": list(s.y), "places": None} for s in lines],
        )
        assert after[0] == ["3"]
        assert after[1] == before, log
        assert fig.locator("table.wk-plot-table tbody tr").count() == len(ns)
