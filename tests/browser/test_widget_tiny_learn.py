"""Widget 17 (§13, "Watch it learn") in real Chromium at 360 px, as staff while §13 is a draft (a
buyer once it is published): the Try box by keyboard alone (the step slider from 0 to 600: the
map, what the model writes and the score follow the history; the held-out sentence; each run:
the plot shows it beside the full model, its card its order test), axe clean. Without
JavaScript: the plot, the full model's map at every saved step and the scores."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from mathmachine.coursebook import load_unit
from mathmachine.engine.tiny.training import HISTORY_PATH

from .conftest import UNIT, tab_to

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

OpenPage = Callable[..., Any]
Axe = Callable[..., list[dict[str, Any]]]
SECTION = f"/units/{UNIT}/13/"
W = "#w17"
DRAFT = any(d.number == 13 for d in load_unit(UNIT).drafts)
HIST = json.loads(HISTORY_PATH.read_text(encoding="utf-8"))
NO_POS = json.loads((HISTORY_PATH.parent / "ablations" / "no-positions.json").read_text("utf-8"))


def _open(open_page: OpenPage, **kw: Any) -> Any:
    return open_page(SECTION, buyer=not DRAFT, staff=DRAFT, **kw)


def text(page: Any, name: str) -> str:
    return page.locator(f'{W} [data-target="{name}"]').first.inner_text().strip()


def map_numbers(page: Any) -> list[list[float]]:
    return page.locator(f"{W} .tl2-map table tbody tr").evaluate_all(
        "rows => rows.map(r => [...r.querySelectorAll('td')].map(td => Number(td.textContent)))"
    )


def test_the_try_walk_by_keyboard(open_page: OpenPage, axe: Axe) -> None:
    page = _open(open_page, reduced_motion="reduce").page
    slider = page.locator(f'{W} [data-target="step"]')
    tab_to(page, f'{W} [data-target="step"]')
    page.keyboard.press("Home")
    for k, cp in enumerate(HIST["checkpoints"]):
        if k:
            page.keyboard.press("ArrowRight")
        assert slider.input_value() == str(k)
        assert text(page, "step-value") == str(cp["step"])
        run = cp["sentences"][0]
        assert text(page, "written") == " ".join(run["greedy_output"])
        want = [[round(v, 3) for v in r] for r in run["cross_attention"]]
        got = map_numbers(page)
        assert all(
            abs(a - b) <= 6e-4
            for ra, rb in zip(got, want, strict=True)
            for a, b in zip(ra, rb, strict=True)
        )
        assert f"step {cp['step']}" in (slider.get_attribute("aria-valuetext") or "")
        ring = page.locator(f"{W} .tl2-plot circle[data-on]")
        assert ring.count() == 1 and ring.get_attribute("data-s") == "0"
    assert text(page, "held") == "100%"
    # the held-out sentence
    tab_to(page, f'{W} [data-target="sentence"][data-k="1"]')
    page.keyboard.press("Enter")
    assert text(page, "written") == "लड़की कहानियाँ लिखती है"
    # each run: the plot holds the full model and that run; its card says what it writes
    tab_to(page, f'{W} [data-target="run"][data-k="1"]', backwards=True)
    page.keyboard.press("Enter")
    legend = page.locator(f"{W} .tl2-plot .wk-plot-labels text").evaluate_all(
        "els => els.map(e => e.textContent)"
    )
    assert "the full model" in legend and "without positions" in legend
    assert page.locator(f"{W} .tl2-plot polyline").count() == 2
    order = " ".join(NO_POS["order_test"][1]["written"])
    assert f"“tea drink I” → {order}" in text(page, "run-order")
    assert page.locator(f"{W} .tl2-plot circle[data-on]").get_attribute("data-s") == "1"
    assert "Without positions" in page.locator(f'{W} [data-target="status"]').inner_text()
    assert axe(page, W) == []


def test_without_javascript(open_page: OpenPage) -> None:
    page = _open(open_page, js=False).page
    el = page.locator(W)
    assert el.locator(".tl2-plot svg").is_visible()
    captions = el.locator(".tl2-steps caption").all_inner_texts()
    assert [c.split(":")[0] for c in captions] == [f"Step {c['step']}" for c in HIST["checkpoints"]]
    assert el.locator(".tl2-scores").is_visible()
    assert el.locator('[data-target="step"]').is_hidden()
