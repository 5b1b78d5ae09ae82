"""Widgets 2-5 (§2-§4) in real Chromium at 360 px, opened as a buyer: each "Try" box walked by
keyboard alone, with reduced motion asked for, the numbers compared with the engine's, axe
clean after the walk; and each fallback without JavaScript printing the engine's numbers.

What every widget must do (Tab reaches every control, the main control updates it, axe before
and after, the fallback's caption) is the conformance test's; here is what the Try boxes promise.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from support import unit18_examples

from mathmachine.coursebook.widgets.dot_products_grow import draws
from mathmachine.engine.lookup import hard_lookup, soft_lookup
from mathmachine.engine.scaling import slope_size
from mathmachine.engine.self_attention import self_attention_steps
from mathmachine.engine.shares import softmax
from mathmachine.printing import count

from .conftest import UNIT, tab_to

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

OpenPage = Callable[..., Any]
Axe = Callable[..., list[dict[str, Any]]]
EX = unit18_examples()


def section(n: int) -> str:
    return f"/units/{UNIT}/{n}/"


def t(widget: str, name: str) -> str:
    return f'{widget} [data-target~="{name}"]'


def texts(page: Any, selector: str) -> list[str]:
    """The text of every element matching ``selector`` (SVG text included), trimmed."""
    found = page.locator(selector).evaluate_all("els => els.map(e => e.textContent)")
    return [s.strip() for s in found]


def fmt(x: float, places: int = 3) -> str:
    s = f"{x:.{places}f}"
    return (s.lstrip("-") if float(s) == 0 else s).replace("-", "\u2212")


def press(page: Any, key: str, times: int) -> None:
    for _ in range(times):
        page.keyboard.press(key)


def settled(page: Any, axe: Axe, uid: str) -> None:
    """After a walk: no animation ran (reduced motion), axe is clean, the page is 360 px wide."""
    assert page.evaluate("document.getAnimations().length") == 0
    assert axe(page, f"#{uid}") == []
    assert page.evaluate("document.documentElement.scrollWidth") <= 360


# ---------------------------------------------------------------- §2 soft dictionary

SD = "soft-dictionary"
MENU = EX["soft_lookup"]
KEYS = [it["key"] for it in MENU["items"]]
PRICES = [it["value"] for it in MENU["items"]]


def weights_shown(page: Any) -> list[str]:
    return texts(page, t(SD, "weight"))


def test_soft_dictionary_try_walk_by_keyboard(open_page: OpenPage, axe: Axe) -> None:
    page = open_page(section(2), buyer=True, reduced_motion="reduce").page
    got = soft_lookup([1.0, 0.5], KEYS, PRICES, 1.0)
    assert weights_shown(page) == [fmt(w) for w in got.weights]
    assert texts(page, t(SD, "answer")) == ["₹19.30"]

    # Bring the query close to lassi, (-1, 1): its bar grows, it takes the largest weight.
    tab_to(page, t(SD, "x"))
    press(page, "ArrowLeft", 20)
    tab_to(page, t(SD, "y"))
    press(page, "ArrowRight", 5)
    near = soft_lookup([-1.0, 1.0], KEYS, PRICES, 1.0)
    assert weights_shown(page) == [fmt(w) for w in near.weights]
    assert np.argmax(near.weights) == 2
    assert page.locator(t(SD, "y")).get_attribute("aria-valuetext") == (
        f"sweet 1.0: answer ₹{near.output:.2f}"
    )

    # Back to "hot, a little sweet"; sharpness to its top: chai's price, the hard lookup.
    press(page, "ArrowLeft", 5)
    tab_to(page, t(SD, "x"), backwards=True)
    press(page, "ArrowRight", 20)
    tab_to(page, t(SD, "beta"))
    page.keyboard.press("End")
    sharp = soft_lookup([1.0, 0.5], KEYS, PRICES, MENU["beta_max"])
    assert texts(page, t(SD, "answer")) == [f"₹{sharp.output:.2f}"] == ["₹12.00"]
    page.keyboard.press("Home")  # sharpness 0: every bar a quarter
    assert weights_shown(page) == ["0.250"] * 4
    assert texts(page, t(SD, "answer")) == ["₹26"]

    # The tie: (1, 0) at sharpness 10 splits chai and coffee evenly; the hard lookup agrees.
    tab_to(page, t(SD, "y"), backwards=True)
    press(page, "ArrowLeft", 5)
    tab_to(page, t(SD, "beta"))
    press(page, "ArrowRight", 100)
    tie = soft_lookup([1.0, 0.0], KEYS, PRICES, 10.0)
    assert weights_shown(page)[:2] == [fmt(tie.weights[0])] * 2 == ["0.500"] * 2
    assert texts(page, t(SD, "answer")) == [f"₹{tie.output:.2f}"] == ["₹21.00"]
    tab_to(page, t(SD, "hard"))
    page.keyboard.press("Space")
    hard = hard_lookup([1.0, 0.0], KEYS, PRICES)
    assert page.locator(t(SD, "hard-line")).is_visible()
    assert texts(page, t(SD, "hard-answer")) == [f"₹{hard.output:g}"]
    # a tie is named as one: the mean of two prices, two keys (not "the best-matching key")
    assert texts(page, t(SD, "hard-what")) == [
        "the mean of the prices of chai and coffee, the 2 best-matching keys (a tie)"
    ]
    assert "Hard lookup: ₹21." in page.locator(t(SD, "live")).inner_text()
    settled(page, axe, "w2")


def test_soft_dictionary_query_follows_a_drag_on_the_plane(open_page: OpenPage) -> None:
    page = open_page(section(2), buyer=True).page
    plane = page.locator(f"{SD} .sd-plane")
    plane.scroll_into_view_if_needed()
    box = plane.bounding_box()
    assert box is not None
    size, pad, r = 240.0, 22.0, MENU["query_max"]

    def at(x: float, y: float) -> tuple[float, float]:  # a query point -> screen pixels
        px = pad + (x + r) / (2 * r) * (size - 2 * pad)
        py = size - (pad + (y + r) / (2 * r) * (size - 2 * pad))
        return box["x"] + px / size * box["width"], box["y"] + py / size * box["height"]

    page.mouse.move(*at(1.0, 0.5))
    page.mouse.down()
    page.mouse.move(*at(-0.4, -1.2), steps=5)
    page.mouse.up()
    q = [
        float(page.locator(t(SD, "x")).input_value()),
        float(page.locator(t(SD, "y")).input_value()),
    ]
    assert q == pytest.approx([-0.4, -1.2], abs=0.11)
    got = soft_lookup(q, KEYS, PRICES, 1.0)
    assert weights_shown(page) == [fmt(w) for w in got.weights]
    assert page.locator(t(SD, "live")).inner_text() == f"The soft lookup answers ₹{got.output:.2f}."


# ---------------------------------------------------------------- §3 self-attention calculator

SA = "self-attention-calculator"
SAX = EX["self_attention"]


def stage_values(page: Any, key: str) -> list[str]:
    return texts(page, f'{SA} td[data-stage="{key}"]')


def test_self_attention_calculator_try_walk_by_keyboard(open_page: OpenPage, axe: Axe) -> None:
    page = open_page(section(3), buyer=True, reduced_motion="reduce").page
    stages = page.locator(t(SA, "stage"))
    assert [stages.nth(i).is_visible() for i in range(6)] == [True] + [False] * 5

    # next step, five times: Q, K, V, scores, weights, output, each with its shape.
    tab_to(page, t(SA, "next"))
    press(page, "Enter", 5)
    assert all(stages.nth(i).is_visible() for i in range(6))
    assert page.locator(t(SA, "next")).is_disabled()
    st = self_attention_steps(SAX["X"], SAX["W_Q"], SAX["W_K"], SAX["W_V"])
    assert stage_values(page, "weights") == [fmt(x) for x in st.weights.ravel()]
    assert texts(page, t(SA, "output-shape")) == ["3 × 2"]
    assert texts(page, t(SA, "weights-rowsum")) == ["1.000"] * 3

    # Focus the scores: Tab reaches the table once, the arrows move inside it.
    tab_to(page, f'{SA} td[data-stage="scores"][tabindex="0"]')
    page.keyboard.press("ArrowRight")
    explain = page.locator(t(SA, "explain")).inner_text()
    assert explain == "score[I, drink] = q_I · k_drink: 2×1 + 0×0 = 2"
    assert page.locator(t(SA, "live")).inner_text() == explain

    # Change one number of W_K: every column of scores can move, since every key uses W_K.
    wk = f'{SA} input[data-m="W_K"][data-r="0"][data-c="0"]'
    tab_to(page, wk, backwards=True)
    page.keyboard.press("Control+A")
    page.keyboard.type("2")
    wk2 = np.array(SAX["W_K"])
    wk2[0, 0] = 2.0
    st2 = self_attention_steps(SAX["X"], SAX["W_Q"], wk2, SAX["W_V"])
    assert stage_values(page, "scores") == [
        f"{x:g}".replace("-", "\u2212") for x in st2.scores.ravel()
    ]
    assert stage_values(page, "weights") == [fmt(x) for x in st2.weights.ravel()]

    # A number out of range is refused: marked, explained, and the last good value kept. Typing
    # "99" passes through 9 (good, computed) on the way to 99 (out of range).
    page.keyboard.press("Control+A")
    page.keyboard.type("99")
    assert page.locator(wk).get_attribute("aria-invalid") == "true"
    assert "Type a number from −9 to 9" in page.locator(t(SA, "status")).inner_text()
    # told right under its own grid, and the input points to the message (on a phone the
    # status line is at the bottom of the widget, off the screen)
    note = page.locator(f'{SA} [data-target~="entry-error"][data-m="W_K"]')
    assert note.is_visible() and "Type a number from −9 to 9" in note.inner_text()
    assert page.locator(wk).get_attribute("aria-describedby") == note.get_attribute("id")
    box, grid = note.bounding_box(), page.locator(wk).bounding_box()
    assert 0 < box["y"] - grid["y"] < 200  # just below the entry
    wk2[0, 0] = 9.0
    st9 = self_attention_steps(SAX["X"], SAX["W_Q"], wk2, SAX["W_V"])
    assert stage_values(page, "weights") == [fmt(x) for x in st9.weights.ravel()]

    # The preset "every key the same": a third each, every word the plain mean of the values.
    tab_to(page, t(SA, "preset"), backwards=True)
    page.keyboard.press("End")
    assert page.locator(t(SA, "preset")).input_value() == "equal"
    assert stage_values(page, "weights") == ["0.333"] * 9
    mean = np.asarray(self_attention_steps(SAX["X"], SAX["W_Q"], SAX["W_K"], SAX["W_V"]).v).mean(0)
    assert stage_values(page, "output") == [fmt(x) for x in np.tile(mean, 3)]
    assert page.locator(wk).get_attribute("aria-invalid") is None
    settled(page, axe, "w3")


# ---------------------------------------------------------------- §4 dot products grow

DG = "dot-products-grow"
DGX = EX["dot_growth"]


def test_dot_products_grow_try_walk_by_keyboard(open_page: OpenPage, axe: Axe) -> None:
    page = open_page(section(4), buyer=True, reduced_motion="reduce").page
    first = draws(DGX, DGX["seed"])
    assert texts(page, t(DG, "raw-var")) == [fmt(first[6]["raw"]["variance"], 1)]
    tab_to(page, t(DG, "d"))
    page.keyboard.press("End")
    assert texts(page, t(DG, "d-value")) == ["1024"]
    # "1024" on one line at 360 px (it once broke into "102" and "4")
    out = page.locator(t(DG, "d-value"))
    line = out.evaluate("o => parseFloat(getComputedStyle(o).lineHeight)")
    assert out.bounding_box()["height"] < 1.5 * line
    assert texts(page, t(DG, "raw-var")) == [fmt(first[-1]["raw"]["variance"], 0)]
    assert texts(page, t(DG, "scaled-var")) == [fmt(first[-1]["scaled"]["variance"], 2)]
    assert texts(page, t(DG, "raw-predicted")) == ["1024"]
    off = first[-1]["raw"]["above"]
    assert texts(page, t(DG, "raw-above")) == [f"{off} ▶"]  # scores fall off the edge at ±48
    page.keyboard.press("Home")
    assert texts(page, t(DG, "d-value")) == ["1"]
    # at d = 1 the scores and the scaled scores are the same numbers, printed the same way
    assert texts(page, t(DG, "raw-var")) == [fmt(first[0]["raw"]["variance"], 2)]
    assert texts(page, t(DG, "raw-var")) == texts(page, t(DG, "scaled-var"))

    # draw again: the next seed, drawn by the page with the engine's generator.
    press(page, "ArrowRight", 6)  # d = 64
    tab_to(page, t(DG, "redraw"))
    page.keyboard.press("Enter")
    page.wait_for_function(
        "() => document.querySelector('dot-products-grow [data-target~=draw-note]')"
        ".textContent === 'draw 2'"
    )
    second = draws(DGX, DGX["seed"] + 1)
    assert texts(page, t(DG, "raw-var")) == [fmt(second[6]["raw"]["variance"], 1)]
    assert texts(page, t(DG, "scaled-var")) == [fmt(second[6]["scaled"]["variance"], 2)]
    heights = page.locator(t(DG, "raw-bar")).evaluate_all(
        "bars => bars.map(b => Number(b.getAttribute('height')))"
    )
    counts = second[6]["raw"]["counts"]
    assert heights == pytest.approx([84 * c / max(counts) for c in counts], abs=0.06)
    assert "d = 64. Measured variance" in page.locator(t(DG, "live")).inner_text()
    settled(page, axe, "w4")


def _descs(page: Any) -> list[str]:
    return [page.locator(f"{t(DG, f'{n}-figure')} desc").text_content() for n in ("raw", "scaled")]


def test_dot_products_grow_describes_its_histograms_as_the_server_does(open_page: OpenPage) -> None:
    """The text alternative the script writes on every redraw is the one the server wrote (the
    counts with their separators: 1,000 values, as the prose prints them)."""
    served = _descs(open_page(section(4), buyer=True, js=False).page)
    assert served[0].startswith(f"Histogram of {count(DGX['samples'])} values of q·k for d = ")
    page = open_page(section(4), buyer=True, reduced_motion="reduce").page
    assert _descs(page) == served
    tab_to(page, t(DG, "d"))
    page.keyboard.press("End")
    assert all(" for d = 1024, " in d for d in _descs(page))
    page.keyboard.press("Home")
    press(page, "ArrowRight", DGX["dims"].index(DGX["d_default"]))  # back where it started
    assert _descs(page) == served


# ---------------------------------------------------------------- §4 a saturated softmax

SS = "saturated-softmax"
ROW = np.asarray(EX["saturation"]["scores"])


def test_saturated_softmax_try_walk_by_keyboard(open_page: OpenPage, axe: Axe) -> None:
    page = open_page(section(4), buyer=True, reduced_motion="reduce").page
    tab_to(page, t(SS, "spread"))
    press(page, "ArrowRight", 70)  # 1.0 -> 8.0
    assert texts(page, t(SS, "spread-value")) == ["8.0"]
    w8 = softmax(8 * ROW)
    assert texts(page, t(SS, "weight")) == [fmt(w) for w in w8]
    assert texts(page, t(SS, "size")) == [fmt(slope_size(8 * ROW), 4)] == ["0.0003"]
    ratio = slope_size(ROW) / slope_size(8 * ROW)
    assert texts(page, t(SS, "size-ratio")) == [
        f"({round(ratio):,} times smaller than at spread 1)"
    ]
    assert all(
        c.endswith(("0", "1"))
        for c in page.locator(t(SS, "slope")).evaluate_all("cs => cs.map(c => c.className)")
    )  # every entry of the slope is nearly 0: the two faintest shades
    page.keyboard.press("Home")  # spread 0: equal weights, the slope at its fullest for 3 keys
    assert texts(page, t(SS, "weight")) == ["0.333"] * 3
    assert texts(page, t(SS, "size")) == [fmt(2 / 9, 4)]
    valuetext = page.locator(t(SS, "spread")).get_attribute("aria-valuetext")
    assert valuetext == "spread 0.0: all 3 tie, 0.333 each, largest slope 0.2222"  # not "I"
    settled(page, axe, "w5")


# ---------------------------------------------------------------- without JavaScript


def test_fallbacks_print_the_engines_numbers(open_page: OpenPage) -> None:
    page = open_page(section(2), buyer=True, js=False).page
    got = soft_lookup(MENU["query"], KEYS, PRICES, MENU["beta"])
    assert weights_shown(page) == [fmt(w) for w in got.weights]
    assert page.locator(f"{SD} figure figcaption").is_visible()

    page.goto(page.url.replace("/2/", "/3/"))
    st = self_attention_steps(SAX["X"], SAX["W_Q"], SAX["W_K"], SAX["W_V"])
    assert all(page.locator(t(SA, "stage")).nth(i).is_visible() for i in range(6))
    assert stage_values(page, "output") == [fmt(x) for x in st.output.ravel()]
    assert page.locator(f"{SA} .sa-inputs table").count() == 4  # X and the three W, as tables

    page.goto(page.url.replace("/3/", "/4/"))
    table = page.locator(f"{DG} table").last
    rows = table.locator("tbody tr").all_inner_texts()
    first = draws(DGX, DGX["seed"])
    assert len(rows) == len(DGX["dims"])
    assert rows[6].split() == ["64", "64", fmt(first[6]["raw"]["variance"], 1),
                               fmt(first[6]["scaled"]["variance"], 2)]  # fmt: skip
    spreads = page.locator(f"{SS} table").last.locator("tbody tr").all_inner_texts()
    eight = next(r for r in spreads if r.split()[0] == "8")
    assert eight.split()[1:] == [*(fmt(w) for w in softmax(8 * ROW)), fmt(slope_size(8 * ROW), 4)]
