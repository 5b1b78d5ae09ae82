"""Widget 16's numbers: the walk of a sentence as the server sends it agrees with the engine's walk,
prints its rows to add up to exactly 1, says where the sentence stands, and turns every bad input
into a message for the learner (never an exception of another kind)."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import widget_context

from mathmachine.coursebook.widgets.tiny_walk import (
    WalkInputError,
    known_words,
    walk_numbers,
)
from mathmachine.engine import tiny
from mathmachine.printing import dec


def test_the_numbers_are_the_engines_walk() -> None:
    model = tiny.load()
    w = model.walk("my mother drinks tea")
    n = walk_numbers("My mother drinks tea.")
    assert n["sentence"] == "my mother drinks tea" and n["english"] == w["english"]
    assert n["where"] == "training" and n["correct"] is True
    assert n["written"] == ["मेरी", "माँ", "चाय", "पीती", "है"] == n["expected"]
    assert n["translit"] == ["meri", "maa", "chai", "peeti", "hai"]
    enc, dec = n["encoder"], n["decoder"]
    np.testing.assert_allclose(enc["input"], w["encoder"]["input"], atol=5e-4)
    np.testing.assert_allclose(enc["stages"]["out"], w["encoder"]["output"], atol=5e-4)
    np.testing.assert_allclose(dec["stages"]["out"], w["decoder"]["output"], atol=5e-4)
    np.testing.assert_allclose(n["logits"], w["logits"], atol=5e-3)
    cross = np.asarray(dec["cross_attention"])
    assert cross.shape == (4, 6, 4)
    np.testing.assert_allclose(cross, w["decoder"]["layers"][0]["cross_attention"], atol=1e-3)
    for rows in (enc["attention"], cross, n["probabilities"], dec["self_attention"]):
        thousandths = np.rint(np.asarray(rows) * 1000)
        np.testing.assert_array_equal(thousandths / 1000, np.asarray(rows))  # three decimals
        assert np.all(thousandths.sum(axis=-1) == 1000)  # a printed row adds up to 1.000
    self_att = np.asarray(dec["self_attention"])
    assert np.all(np.triu(self_att, k=1) == 0)  # causal: nothing above the diagonal
    assert [row[0][0] for row in n["top"]] == n["chosen"]
    assert n["weights"] == model.weight_count()["total"]
    assert len(json.dumps(n, ensure_ascii=False)) < 40_000


@pytest.mark.parametrize(
    ("text", "where", "correct"),
    [
        ("the girl writes stories", "held out", True),
        ("tea drink I", "not in the corpus", False),
        ("I drink books", "not in the corpus", False),
    ],
)
def test_where_a_sentence_stands(text: str, where: str, correct: bool) -> None:
    n = walk_numbers(text)
    assert (n["where"], n["correct"]) == (where, correct)
    assert (n["expected"] is None) == (where == "not in the corpus")


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ("", "Type an English sentence"),
        ("   .  ", "Type an English sentence"),
        ("I drink coffee", "does not know “coffee”. It knows only these 44 English words: books"),
        ("my mother drinks tea tea", "at most 4"),
        ("tea " * 30, "characters"),
        (None, "as text"),
        (["I drink tea"], "as text"),
    ],
)
def test_bad_input_is_a_message(raw: object, message: str) -> None:
    with pytest.raises(WalkInputError, match=message):
        walk_numbers(raw)


def test_every_known_word_is_named_in_the_message() -> None:
    with pytest.raises(WalkInputError) as e:
        walk_numbers("Ravi drinks chai")
    assert all(w in str(e.value) for w in known_words()) and len(known_words()) == 44


@settings(max_examples=150, deadline=None)
@given(
    st.text(max_size=60)
    | st.lists(st.sampled_from([*known_words(), "x"]), max_size=5).map(" ".join)
)
def test_no_text_raises_anything_but_a_message(text: str) -> None:
    try:
        n = walk_numbers(text)
    except WalkInputError as e:
        assert str(e)
    else:
        assert n["written"] and len(n["english"]) <= 4


# ----------------------------------------------------------------------------------------------
# the renderer


def _render(examples: dict[str, Any]) -> str:
    from mathmachine.coursebook import widgets

    ctx = widget_context(examples)
    widget = widgets.get("tiny-walk")
    assert widget is not None
    return widget({"id": "w16"}, ctx)


def test_the_widget_starts_from_the_engines_walk_and_falls_back_to_tables() -> None:
    import re

    from support import unit18_examples

    examples = unit18_examples()
    html = _render(examples)
    state = json.loads(re.search(r"data-state>(.*?)</script>", html, re.S).group(1))  # type: ignore[union-attr]
    assert state["walk"] == json.loads(json.dumps(walk_numbers("I drink tea")))
    assert state["api"] == "../widgets/tiny-walk/" and len(state["words"]) == 44
    # the fallback: the walk's numbers as tables, and the other presets' translations
    walk = state["walk"]
    assert (
        "<caption>1. Tokens: each English word&#x27;s number in the vocabulary</caption>" in html
        or ("1. Tokens" in html)
    )
    for t, word in enumerate(walk["written"]):
        assert f"Place {t + 1}: after" in html and word in html
    notes = walk["encoder"]["stages"]["out"]
    assert all(f"<td>{v:.3f}</td>".replace("-", "\u2212") in html for v in notes[1][:4])
    # what stays in the section's page: the words it writes, each the most probable at its
    # place, with its probability; the rest is a part on a page of its own (own_pages.py)
    writes = html[html.index('class="wk-table tw-writes"') :].split("</table>")[0]
    vocabulary = walk["vocabulary"]
    for t, word in enumerate(walk["chosen"]):
        p = walk["probabilities"][t]
        assert p[vocabulary.index(word)] == max(p)
        assert f"<td>{dec(max(p))}</td>" in writes
    assert 'data-own-page="walk"' in html
    for preset in examples["tiny_walk"]["presets"][1:]:
        assert f"“{walk_numbers(preset['english'])['sentence']}” ({preset['where']})" in html
    # the live parts are hidden until the script runs; the form sends nothing without it
    assert re.search(r'<form data-target="form"[^>]*>', html) and "data-js hidden" in html


def test_an_example_the_model_cannot_walk_is_refused() -> None:
    from support import unit18_examples

    from mathmachine.coursebook.widgets import WidgetOptionError

    examples = unit18_examples()
    broken = {**examples, "tiny_walk": {**examples["tiny_walk"], "sentence": "I drink coffee"}}
    with pytest.raises(WidgetOptionError, match="coffee"):
        _render(broken)
