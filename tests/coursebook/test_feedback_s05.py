"""The checks of §5 (real content): every wrong option is a named mistake with its own words;
the key is right; no first feedback prints the worked output of the swap; the worked answer
does, and the right answer's feedback explains it."""

from __future__ import annotations

from pathlib import Path

import pytest

from mathmachine.coursebook import CompiledUnit, compile_unit
from mathmachine.coursebook.feedback import feedback_for
from mathmachine.coursebook.grading import grade
from mathmachine.coursebook.passes.answers import visible_text
from mathmachine.coursebook.passes.load import load_figures

UNIT = Path(__file__).resolve().parents[2] / "content" / "units" / "18-attention-and-transformers"
FIGS = load_figures(UNIT, 18).values

# check id -> {option chosen: (the mistake's name, words of its explanation)}
MISTAKES = {
    "s5-lookup": {
        "too-short": ("more-numbers", "it is still one row"),
        "more-training": ("more-training", "It does not make a second row"),
        "position": ("position-decides", "Where a word stands does not say what it means"),
    },
    "s5-swap": {
        "money": ("the-word-money-pulls-hardest", "how hard a word pulls is set by its weight"),
        "line": ("counting-words", "Attention does not count words"),
        "own": ("nothing-to-mix", "only when no other word gets any weight"),
    },
}
KEYS = {"s5-lookup": "same-row", "s5-swap": "water"}


@pytest.fixture(scope="module")
def unit() -> CompiledUnit:
    return compile_unit(UNIT)


def test_every_wrong_option_is_a_named_mistake(unit: CompiledUnit) -> None:
    assert [c.id for c in unit.section(5).checks] == sorted(MISTAKES) == sorted(KEYS)
    for check_id, typed in MISTAKES.items():
        check = unit.check(check_id)
        assert {name for name, _ in typed.values()} == {m.name for m in check.mistakes}
        assert set(check.fields[0].key.options) == {*typed, KEYS[check_id]}


CASES = [(c, raw, *want) for c, typed in MISTAKES.items() for raw, want in typed.items()]


@pytest.mark.parametrize(("check_id", "raw", "name", "words"), CASES)
def test_each_named_mistake_is_recognised_and_explained(
    unit: CompiledUnit, check_id: str, raw: str, name: str, words: str
) -> None:
    check = unit.check(check_id)
    g = grade(check, [raw])
    assert g.ok and not g.correct and name in g.mistakes, g
    shown = feedback_for(
        check, correct=False, mistakes=g.mistakes, fields_right=g.fields_right,
        wrong_attempts=1, revealed=False,
    )  # fmt: skip
    source = next(m for m in check.mistakes if m.name == name)
    assert source.html in shown.body_html
    assert words in visible_text(source.html)
    # the first feedback does not hand over the worked answer of the swap
    for figure in (FIGS["mm_swap_after"], FIGS["mm_swap_weights"]):
        assert figure not in visible_text(shown.body_html)


@pytest.mark.parametrize("check_id", sorted(KEYS))
def test_the_key_is_right_and_explained(unit: CompiledUnit, check_id: str) -> None:
    check = unit.check(check_id)
    g = grade(check, [KEYS[check_id]])
    assert g.ok and g.correct
    if check_id == "s5-swap":
        assert FIGS["mm_swap_after"] in visible_text(check.feedback_correct_html)
        assert FIGS["mm_swap_weights"] in visible_text(check.solution_html)
