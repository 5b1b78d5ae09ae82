"""Widget 12 (§9, "Inside one block") in real Chromium at 360 px, opened as staff while §9 is a
draft (as a buyer once it is published): the Try box walked by keyboard alone with reduced motion
asked for: Next through every stage of "tea" (post-LN, as trained), every number shown against
the engine's block walk recomputed here; pick "drink"; the pre-LN switch (the same weights with
LayerNorm before each part); the weight counter's slider and its switch against counts made
here matrix by matrix. axe clean after the walk; nothing wider than the phone. Without
JavaScript: every stage of "tea" as a table with the engine's numbers, the counts at every
width, and the Try box's words for a reader without JavaScript.

SCREENSHOTS=dir writes the pages' screenshots there (for a person to look at)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from support import unit18_examples

from mathmachine.coursebook.cache import load_unit
from mathmachine.engine import tiny
from mathmachine.engine.anatomy import block_walk

from .conftest import UNIT

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

OpenPage = Callable[..., Any]
Axe = Callable[..., list[dict[str, Any]]]
EX = unit18_examples()["block"]
SECTION = f"/units/{UNIT}/9/"
W = "#w12"
POST = ["x", "attn", "resid1", "ln1", "hidden_in", "hidden", "ffn", "resid2", "out"]
PRE = ["x", "ln1", "attn", "resid1", "ln2", "hidden_in", "hidden", "ffn", "out"]


def _draft() -> bool:
    return any(s.number == 9 for s in load_unit(UNIT).drafts)


def fmt(x: float, places: int = 3) -> str:
    s = f"{x:.{places}f}"
    return (s.lstrip("-") if float(s) == 0 else s).replace("-", "\u2212")


def grouped(n: int) -> str:
    return f"{n:,}"


def walk(token: int, pre: bool) -> Any:
    model = tiny.load()
    x = model.walk(EX["sentence"])["encoder"]["input"]
    return block_walk(x, model.params["enc"]["0"], 4, token, pre_norm=pre, activation="relu")


def texts(page: Any, selector: str) -> list[str]:
    return [
        s.strip()
        for s in page.locator(selector).evaluate_all(
            "els => els.filter(e => !e.hidden).map(e => e.textContent)"
        )
    ]


def stage_shown(page: Any, token: int, pre: bool, k: int) -> None:
    """The stage on show is stage k of `token`'s walk, every number as the engine has it."""
    w = walk(token, pre)
    name = (PRE if pre else POST)[k]
    v = w.stage(name)
    assert texts(page, f'{W} [data-target="num"]') == [fmt(a) for a in v]
    assert page.locator(f'{W} [data-target="mean"]').text_content() == fmt(float(v.mean()), 2)
    spread = float(np.sqrt(np.mean((v - v.mean()) ** 2)))
    assert page.locator(f'{W} [data-target="spread"]').text_content() == fmt(spread, 2)
    assert page.locator(f'{W} [data-target="stage"]').input_value() == str(k + 1)
    current = page.locator(f'{W} [data-target="chip"][aria-current="step"]')
    assert current.count() == 1 and current.get_attribute("data-k") == str(k)
    weights = page.locator(f'{W} [data-target="weights"]')
    assert weights.is_visible() == (name == "attn")
    if name == "attn":
        cells = texts(page, f'{W} [data-target="weight"]')
        mean = np.mean([[float(c.replace("\u2212", "-")) for c in cells[i * 3 : i * 3 + 3]]
                        for i in range(4)], axis=0)  # fmt: skip
        assert np.allclose(mean, w.weights.mean(axis=0), atol=2e-3)
        for i in range(4):
            row = [float(c) for c in cells[i * 3 : i * 3 + 3]]
            assert abs(sum(row) - 1) < 1e-9  # printed to add up to 1
            assert np.allclose(row, w.weights[i], atol=1e-3)


def counted(page: Any, d: int, extras: bool) -> None:
    ff = 4 * d
    attn, w1 = 4 * d * d, d * ff
    bias, norm = (4 * d + ff + d, 4 * d) if extras else (0, 0)
    names = ("att-n", "w1-n", "w2-n", "bias-n", "norm-n", "total", "width-value")
    got = {t: page.locator(f'{W} [data-target="{t}"]').text_content() for t in names}
    assert got == {
        "att-n": grouped(attn),
        "w1-n": grouped(w1),
        "w2-n": grouped(w1),
        "bias-n": grouped(bias),
        "norm-n": grouped(norm),
        "total": grouped(attn + 2 * w1 + bias + norm),
        "width-value": grouped(d),
    }


def _shot(page: Any, name: str) -> None:
    where = os.environ.get("SCREENSHOTS")
    if where:
        Path(where).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(where) / f"{name}.png"), full_page=True)


def _open(open_page: OpenPage, **kw: Any) -> Any:
    draft = _draft()
    return open_page(SECTION, buyer=not draft, staff=draft, **kw)


def test_the_try_box_by_keyboard(open_page: OpenPage, axe: Axe) -> None:
    site = _open(open_page, reduced_motion="reduce")
    page = site.page
    el = page.locator(W)
    assert el.get_attribute("data-upgraded") == ""
    el.scroll_into_view_if_needed()
    token = EX["token"]
    stage_shown(page, token, False, 0)
    assert page.locator(f'{W} [data-target="back"]').get_attribute("aria-disabled") == "true"

    # Next, by keyboard, through every stage of "tea"
    page.locator(f'{W} [data-target="next"]').focus()
    for k in range(1, 9):
        page.keyboard.press("Enter")
        stage_shown(page, token, False, k)
    nxt = page.locator(f'{W} [data-target="next"]')
    assert nxt.get_attribute("aria-disabled") == "true"
    assert page.evaluate("() => document.activeElement.dataset.target") == "next"
    page.keyboard.press("Enter")  # at the end: stays there
    stage_shown(page, token, False, 8)
    status = page.locator(f'{W} [data-target="status"]').text_content() or ""
    live = page.locator(f'{W} [data-target="live"]').text_content() or ""
    assert status == live and live.startswith("“tea”, post-LN. Stage 9 of 9, LayerNorm: 32 numbers")
    _shot(page, "s9-widget-post-out")

    # the slider, by keyboard: back to the attention
    page.locator(f'{W} [data-target="stage"]').focus()
    page.keyboard.press("Home")
    page.keyboard.press("ArrowRight")
    stage_shown(page, token, False, 1)
    _shot(page, "s9-widget-attention")

    # another word
    page.locator(f'{W} [data-target="word"][data-i="1"]').focus()
    page.keyboard.press("Enter")
    stage_shown(page, 1, False, 1)

    # pre-LN: the switch, by keyboard (Space), the same stage index in the other order
    page.locator(f'{W} [data-target="pre"]').focus()
    page.keyboard.press("Space")
    stage_shown(page, 1, True, 1)
    page.locator(f'{W} [data-target="chip"][data-k="8"]').focus()
    page.keyboard.press("Enter")
    stage_shown(page, 1, True, 8)
    live = page.locator(f'{W} [data-target="live"]').text_content() or ""
    assert live.startswith("“drink”, pre-LN. Stage 9 of 9, add")

    # the counter: starts at the example's width; slide, then the biases and LayerNorms
    widths = EX["widths"]
    at = widths.index(EX["d_default"])
    counted(page, widths[at], False)
    slider = page.locator(f'{W} [data-target="width"]')
    slider.focus()
    page.keyboard.press("End")
    counted(page, widths[-1], False)
    assert slider.get_attribute("aria-valuetext") == f"d = {grouped(widths[-1])}"
    page.keyboard.press("Home")
    counted(page, widths[0], False)
    for _ in range(at):
        page.keyboard.press("ArrowRight")
    counted(page, widths[at], False)
    page.locator(f'{W} [data-target="extras"]').focus()
    page.keyboard.press("Space")
    counted(page, widths[at], True)
    _shot(page, "s9-widget-counter")

    assert axe(page, W) == []
    assert site.scroll_width() <= 360


def test_without_javascript(open_page: OpenPage) -> None:
    site = _open(open_page, js=False)
    page = site.page
    el = page.locator(W)
    fallback = el.locator(".ib-fallback")
    assert fallback.is_visible()
    stages = fallback.locator("details.ib-stage")
    assert stages.count() == 9
    assert [stages.nth(k).get_attribute("open") is not None for k in range(9)] == [
        True,
        *[False] * 7,
        True,
    ]
    w = walk(EX["token"], False)
    for k, name in enumerate(POST):
        cells = texts(page, f"{W} details.ib-stage:nth-of-type({k + 1}) .wk-table-wrap td")
        assert cells == [fmt(a) for a in w.stage(name)], name
    rows = fallback.locator("table").last.locator("tbody tr")
    assert rows.count() == len(EX["widths"])
    d = EX["d_default"]
    row = rows.nth(EX["widths"].index(d))
    assert grouped(12 * d * d) in (row.text_content() or "")
    for control in el.locator("button, input").all():
        assert control.is_hidden()
    body = page.locator("article").inner_text()
    assert "Without JavaScript: The tables above are the vector of “tea”" in body
    assert site.scroll_width() <= 360
    _shot(page, "s9-nojs")
