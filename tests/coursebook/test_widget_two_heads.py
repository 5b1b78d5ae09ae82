"""Widget 8 (§7, "Two heads, two questions"), server side: the fallback's tables and the state
print the engine's numbers for the unit's own example (every row of both maps, the
concatenation, W_O, the output, and the output with either head switched off); the maps'
text alternatives say what each head does; example data that cannot work is refused with a
message that names the problem."""

from __future__ import annotations

import copy
import json
import re
from typing import Any

import numpy as np
import pytest
from support import unit18_examples, widget_context

from mathmachine.coursebook import widgets
from mathmachine.coursebook.widgets import WidgetOptionError
from mathmachine.engine import multi_head_attention
from mathmachine.engine.heads import multi_head_steps

STATE = re.compile(r'<script type="application/json" data-state>(.*?)</script>', re.S)
MINUS = "\u2212"


@pytest.fixture(scope="module")
def examples() -> dict[str, Any]:
    return unit18_examples()


def render(examples: dict[str, Any], **options: str) -> str:
    ctx = widget_context(examples)
    widget = widgets.get("two-heads")
    assert widget is not None
    return widget({"id": "w8", **options}, ctx)


def state(html: str) -> dict[str, Any]:
    m = STATE.search(html)
    assert m is not None
    return json.loads(m.group(1))  # type: ignore[no-any-return]


def fmt(x: float, places: int = 3) -> str:
    s = f"{x:.{places}f}"
    return (s.lstrip("-") if float(s) == 0 else s).replace("-", MINUS)


def table_rows(html: str, caption_start: str) -> list[list[str]]:
    """The cells of the table whose caption starts with ``caption_start``, row by row."""
    m = re.search(rf"<caption>{re.escape(caption_start)}.*?</caption>(.*?)</table>", html, re.S)
    assert m is not None, caption_start
    body = m.group(1).split("<tbody>", 1)[1]
    return [re.findall(r"<td>([^<]*)</td>", row) for row in body.split("</tr>") if "<td>" in row]


def reference(ex: dict[str, Any]) -> tuple[np.ndarray, np.ndarray]:
    """The batched layer, heads laid side by side: the output and the maps."""
    params = {
        "W_q": np.hstack([hd["W_Q"] for hd in ex["heads"]]),
        "W_k": np.hstack([hd["W_K"] for hd in ex["heads"]]),
        "W_v": np.hstack([hd["W_V"] for hd in ex["heads"]]),
        "W_o": np.asarray(ex["W_O"]),
    }
    x = np.asarray(ex["X"])
    return multi_head_attention(x, x, params, len(ex["heads"]))


def test_the_fallback_prints_the_engines_numbers(examples: dict[str, Any]) -> None:
    ex = examples["two_heads"]
    html = render(examples)
    out, weights = reference(ex)
    for k in (0, 1):
        assert table_rows(html, f"Head {k + 1}'s map, 4 × 4") == [
            [fmt(w) for w in row] for row in weights[k]
        ]
    st = multi_head_steps(ex["X"], [(h["W_Q"], h["W_K"], h["W_V"]) for h in ex["heads"]], ex["W_O"])
    assert table_rows(html, "Concatenation, 4 × 8") == [[fmt(v) for v in r] for r in st.concat]
    assert table_rows(html, "Output, 4 × 8") == [[fmt(v) for v in r] for r in out]
    assert table_rows(html, "W<sub>O</sub>, 8 × 8") == [
        [fmt(v, 0) for v in r] for r in np.asarray(ex["W_O"])
    ]
    # the fallback is open without JavaScript; the live parts are hidden until the script runs
    assert re.search(r'<details[^>]*data-target="tables"[^>]*\bopen\b|<details open', html)
    for target in ("word", "head-on", "bars-1", "c1", "y1"):
        assert f'data-target="{target}"' in html


def test_the_maps_say_what_each_head_does(examples: dict[str, Any]) -> None:
    html = render(examples)
    descs = re.findall(r"<desc[^>]*>(.*?)</desc>", html, re.S)
    assert len(descs) == 2
    assert (
        "always looks mostly at I; drink looks mostly at always; tea looks mostly at drink"
        in descs[0]
    )
    assert "I looks evenly at every word" in descs[0]
    assert "drink looks mostly at I" in descs[1] and "tea looks evenly at every word" in descs[1]
    # the chosen word's row is outlined in both maps, server side too
    rows = re.findall(r'<rect class="wk-hm-row"[^>]*data-row="(\d+)"', html)
    assert rows == [str(examples["two_heads"]["word_default"])] * 2


def test_the_state_holds_every_row_and_every_choice_of_heads(examples: dict[str, Any]) -> None:
    ex = examples["two_heads"]
    s = state(render(examples))
    out, weights = reference(ex)
    st = multi_head_steps(ex["X"], [(h["W_Q"], h["W_K"], h["W_V"]) for h in ex["heads"]], ex["W_O"])
    assert s["words"] == ["I", "always", "drink", "tea"] and s["word"] == 2
    assert s["shapes"] == {
        "concat": "4 × 8",
        "w_o": "8 × 8",
        "output": "4 × 8",
        "n": 4,
        "d_model": 8,
    }
    for k, head in enumerate(s["heads"]):
        assert head["rows"] == [[fmt(w) for w in r] for r in weights[k]]
        np.testing.assert_allclose(head["weights"], weights[k], atol=1e-6)
        assert head["out"] == [[fmt(v) for v in r] for r in st.heads[k].output]
    assert s["heads"][0]["top"] == ["I", "I", "always", "drink"]
    assert s["heads"][0]["even"] == [True, False, False, False]
    assert s["heads"][1]["top"][2] == "I" and s["heads"][1]["even"] == [True, True, False, True]
    both = s["outputs"]["11"]
    assert both["output"] == [[fmt(v) for v in r] for r in out]
    # one head off: its columns of the concatenation are 0, the output is the other head's share
    only1, only2, none = (s["outputs"][c] for c in ("10", "01", "00"))
    assert only1["concat"] == [[fmt(v) for v in r[:4]] + ["0.000"] * 4 for r in st.concat]
    assert only1["output"] == [[fmt(v) for v in r] for r in st.head_part(0)]
    assert only2["output"] == [[fmt(v) for v in r] for r in st.head_part(1)]
    assert none["output"] == [["0.000"] * 8] * 4


def test_the_word_option_picks_the_first_word_shown(examples: dict[str, Any]) -> None:
    assert state(render(examples, word="1"))["word"] == 0
    with pytest.raises(WidgetOptionError, match=":word: must be 1 to 4"):
        render(examples, word="9")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda ex: ex["heads"].pop(), "two heads"),
        (lambda ex: ex["X"].pop(), "one row per word"),
        (lambda ex: ex.update(W_O=[[1.0] * 8] * 7), "W_O must have 8 rows"),
        (lambda ex: ex["heads"][1].update(W_Q=[[1.0] * 3] * 8), "not a multi-head layer"),
    ],
)
def test_broken_examples_are_refused(examples: dict[str, Any], change: Any, message: str) -> None:
    broken = copy.deepcopy(examples)
    change(broken["two_heads"])
    with pytest.raises(WidgetOptionError, match=message):
        render(broken)
