"""Widget 13 (§10, "The mask"), server side: the tables print the engine's masked attention for
the unit's sentence (−∞ and 0 exactly where the mask hides a pair, every row adding to 1); the
fallback shows the example's edit with the mask (the places before it the same) and without it
(they change); the guesses of one pass; the golden cases cover every sentence one word away
from the first; example data that cannot work is refused with a message naming the problem."""

from __future__ import annotations

import copy
import json
import re
from typing import Any

import numpy as np
import pytest
from support import unit18_examples, widget_context

from mathmachine.coursebook import widgets
from mathmachine.coursebook.widgets import WidgetContext, WidgetOptionError
from mathmachine.engine.masking import masked_self_attention_steps

STATE = re.compile(r'<script type="application/json" data-state>(.*?)</script>', re.S)
MINUS = "\u2212"


@pytest.fixture(scope="module")
def examples() -> dict[str, Any]:
    return unit18_examples()


def ctx(examples: dict[str, Any]) -> WidgetContext:
    return widget_context(examples)


def render(examples: dict[str, Any], **options: str) -> str:
    widget = widgets.get("causal-mask")
    assert widget is not None
    return widget({"id": "w13", **options}, ctx(examples))


def fmt(x: float, places: int = 3) -> str:
    s = f"{x:.{places}f}"
    return (s.lstrip("-") if float(s) == 0 else s).replace("-", MINUS)


def vec(xs: Any) -> str:
    return "(" + ", ".join(fmt(x) for x in xs) + ")"


def cells(html: str, target: str) -> list[str]:
    return re.findall(rf'<td[^>]*data-target="{target}"[^>]*>([^<]*)</td>', html)


def steps(ex: dict[str, Any], words: list[str], mask: bool) -> Any:
    x = [ex["vectors"][w] for w in words]
    return masked_self_attention_steps(x, ex["W_Q"], ex["W_K"], ex["W_V"], mask)


def test_the_tables_print_the_engines_masked_attention(examples: dict[str, Any]) -> None:
    ex = examples["mask"]
    html = render(examples)
    words = [c[0] for c in ex["choices"]]
    st = steps(ex, words, True)
    n = len(words)
    hidden = ~np.tril(np.ones((n, n), dtype=bool))
    scores = [("\u2212\u221e" if hidden[i, j] else fmt(st.scaled[i, j]))
              for i in range(n) for j in range(n)]  # fmt: skip
    assert cells(html, "score") == scores
    weights = ["0" if hidden[i, j] else fmt(st.weights[i, j]) for i in range(n) for j in range(n)]
    assert cells(html, "weight") == weights
    assert cells(html, "rowsum") == ["1.000"] * n
    assert cells(html, "out") == [vec(r) for r in st.output]
    assert len(re.findall(r'class="[^"]*\bcm-hidden\b', html)) == 2 * int(hidden.sum())


def test_the_state_is_what_the_script_needs(examples: dict[str, Any]) -> None:
    ex = examples["mask"]
    m = STATE.search(render(examples))
    assert m is not None
    s = json.loads(m.group(1))
    assert s["words"] == ["I", "drink", "hot", "tea"]
    assert s["choices"] == ex["choices"] and s["masked"] is True
    assert s["pairs"] == {"masked": 10, "all": 16}
    assert set(s["vectors"]) == {w for c in ex["choices"] for w in c}


def test_the_fallback_shows_the_edit_with_and_without_the_mask(examples: dict[str, Any]) -> None:
    ex = examples["mask"]
    html = render(examples)
    fallback = html.split('class="cm-fallback"', 1)[1]
    words = [c[0] for c in ex["choices"]]
    place, new = ex["edit"]["place"], ex["edit"]["word"]
    edited = [*words[: place - 1], new, *words[place:]]
    with_mask, without = fallback.split("Without the mask", 1)
    for part, masked in ((with_mask, True), (without, False)):
        a, b = steps(ex, words, masked), steps(ex, edited, masked)
        for i in range(len(words)):
            assert f"<td>{vec(a.output[i])}</td><td>{vec(b.output[i])}</td>" in part
        verdicts = re.findall(r"<td>(same|changed)</td>", part)
        if masked:
            assert verdicts == ["same"] * (place - 1) + ["changed"] * (len(words) - place + 1)
        else:
            assert verdicts == ["changed"] * len(words)


def test_the_guesses_of_one_pass(examples: dict[str, Any]) -> None:
    html = render(examples)
    reads = re.findall(r'data-target="reads">([^<]*)<', html)
    guesses = re.findall(r'data-target="guess">([^<]*)<', html)
    assert reads == ["I", "I drink", "I drink hot", "I drink hot tea"]
    assert guesses == ["drink", "hot", "tea", "."]


def test_golden_cases_cover_every_sentence_one_word_away(examples: dict[str, Any]) -> None:
    widget = widgets.get("causal-mask")
    assert widget is not None and widget.golden is not None
    opts = {"id": "w13", "example": examples["mask"], "example_key": "mask"}
    (g,) = widget.golden(opts, ctx(examples))
    calls = [c for c in g.cases if c["fn"] == "maskedSelfAttention"]
    ex = examples["mask"]
    sentences = 1 + sum(len(c) - 1 for c in ex["choices"])
    assert len(calls) == 2 * sentences


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda ex: ex.__setitem__("choices", [["I"]]), "2 to 6 lists"),
        (lambda ex: ex["vectors"].pop("milk"), "no vector for milk"),
        (lambda ex: ex.__setitem__("edit", {"place": 1, "word": "you"}), "edit must change"),
        (lambda ex: ex.__setitem__("edit", {"place": 4, "word": "tea"}), "edit must change"),
        (lambda ex: ex.__setitem__("W_Q", [[1.0, 0.0, 0.0]]), "not a self-attention"),
    ],
)
def test_bad_example_data_is_refused(examples: dict[str, Any], change: Any, message: str) -> None:
    bad = copy.deepcopy(examples)
    change(bad["mask"])
    with pytest.raises(WidgetOptionError, match=message):
        render(bad)
