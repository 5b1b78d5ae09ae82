"""Widget 15 (§12, "The n² calculator"), server side: the readout, the table and the state print
the closed-form counts (n² h L scores, their bytes, 2 n² d L multiplications, 2 L n d KV cache
numbers) for the unit's own starting setting; memories print in the largest binary unit;
example data that cannot work is refused with a message that names the problem."""

from __future__ import annotations

import copy
import json
import re
from typing import Any

import pytest
from support import unit18_examples, widget_context

from mathmachine.coursebook import widgets
from mathmachine.coursebook.widgets import WidgetOptionError
from mathmachine.coursebook.widgets.n2_calculator import memory_text

STATE = re.compile(r'<script type="application/json" data-state>(.*?)</script>', re.S)


@pytest.fixture(scope="module")
def examples() -> dict[str, Any]:
    return unit18_examples()


def render(examples: dict[str, Any], **options: str) -> str:
    ctx = widget_context(examples)
    widget = widgets.get("n2-calculator")
    assert widget is not None
    return widget({"id": "w15", **options}, ctx)


def target(html: str, name: str) -> list[str]:
    return re.findall(rf'data-target="{re.escape(name)}"[^>]*>([^<]*)<', html)


def g(n: int) -> str:
    return f"{n:,}"


def test_the_readout_and_the_table_print_the_closed_forms(examples: dict[str, Any]) -> None:
    ex = examples["n2_calculator"]
    n, h, L, b, w = ex["n"], ex["heads"], ex["layers"], ex["bytes_per_number"], ex["head_width"]
    assert (n, h, L, b, w) == (4096, 16, 24, 2, 64)
    d = h * w
    html = render(examples)
    assert target(html, "scores") == [g(n * n * h * L)]
    assert target(html, "per-layer") == [g(n * n * h)]
    assert target(html, "memory") == ["12 GiB"]
    assert target(html, "per-layer-memory") == ["512 MiB"]  # SPEC §12's check
    assert target(html, "memory-bytes") == [g(n * n * h * L * b)]
    assert target(html, "mults") == [g(2 * n * n * d * L)]
    assert target(html, "kv") == [g(2 * L * n * d)]
    assert target(html, "kv-memory") == ["384 MiB"]
    assert target(html, "rnn") == [g(n)]
    lengths = ex["lengths"]
    assert target(html, "t-scores") == [g(m * m * h * L) for m in lengths]
    assert target(html, "t-mults") == [g(2 * m * m * d * L) for m in lengths]
    assert target(html, "t-memory")[0] == "12 MiB" and target(html, "t-memory")[-1] == "768 GiB"
    assert target(html, "t-kv") == [memory_text(2 * L * m * d * b) for m in lengths]
    state = json.loads(STATE.search(html).group(1))  # type: ignore[union-attr]
    assert state["lengths"] == lengths and state["lengths"][state["n"]] == n
    assert state["bytes"][state["b"]] == {"bytes": b, "bits": 16}
    assert (state["heads"], state["layers"], state["headWidth"]) == (h, L, w)
    # two plots, the second on log axes, each with its text alternative
    assert html.count("<figure") == 2 and "log scale" in html
    assert 'aria-valuetext="4,096 tokens"' in html and 'aria-valuetext="2 bytes, 16 bits"' in html


@pytest.mark.parametrize(
    ("nbytes", "text"),
    [
        (0, "0 bytes"),
        (1023, "1,023 bytes"),
        (1024, "1 KiB"),
        (1536, "1.5 KiB"),
        (17 * 2**16, "1.06 MiB"),
        (512 * 2**20, "512 MiB"),
        (3 * 2**30, "3 GiB"),
        (1536 * 2**30, "1.5 TiB"),
        (12 * 2**40, "12 TiB"),
        (2**50, "1,024 TiB"),
        (int(12.8 * 2**30), "12.8 GiB"),
    ],
)
def test_memory_is_printed_in_the_largest_binary_unit(nbytes: int, text: str) -> None:
    assert memory_text(nbytes) == text


def test_memory_text_refuses_what_is_not_a_count() -> None:
    for bad in (-1, 1.5, "3"):
        with pytest.raises(ValueError):
            memory_text(bad)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"lengths": [256, 128]}, "lengths must be increasing"),
        ({"bytes": [2, 0]}, "bytes must be increasing whole numbers"),
        ({"n": 1000}, "n and bytes_per_number must be on the menus"),
        ({"heads": 40}, "within their maxima"),
        ({"head_width": 0}, "head_width must be a whole number"),
        ({"lengths": [4096]}, "at least two lengths"),
    ],
)
def test_example_data_that_cannot_work_is_refused(
    examples: dict[str, Any], change: dict[str, Any], message: str
) -> None:
    bad = copy.deepcopy(examples)
    bad["n2_calculator"].update(change)
    with pytest.raises(WidgetOptionError, match=message):
        render(bad)
