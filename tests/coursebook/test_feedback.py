"""What a learner is shown after an answer: named mistakes first, else hints one by one (a
problem's on request), which boxes are right, the worked answer after three wrong answers or on
request, and for a problem after a right answer; never the key before that (section 1's real
checks)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mathmachine.coursebook import CheckDef, CompiledUnit, compile_unit
from mathmachine.coursebook.feedback import NOT_QUITE, REVEAL_AFTER, TRY_A_HINT, feedback_for
from mathmachine.coursebook.grading import grade
from mathmachine.coursebook.passes.answers import telling_figures, visible_text

UNIT = Path(__file__).resolve().parents[2] / "content" / "units" / "18-attention-and-transformers"


@pytest.fixture(scope="module")
def unit() -> CompiledUnit:
    return compile_unit(UNIT)


@pytest.fixture(scope="module")
def sharpen(unit: CompiledUnit) -> CheckDef:
    return unit.check("s1-sharpen")


@pytest.fixture(scope="module")
def count(unit: CompiledUnit) -> CheckDef:
    return unit.check("s1-count")


def shown(check: CheckDef, raw: list[str], *, wrong: int = 1, revealed: bool = False) -> object:
    g = grade(check, raw)
    assert g.ok
    return feedback_for(
        check,
        correct=g.correct,
        mistakes=g.mistakes,
        fields_right=g.fields_right,
        wrong_attempts=0 if g.correct else wrong,
        revealed=revealed,
    )


# Every named mistake of section 1, as a learner would make it, and the words it brings.
SHARPEN_MISTAKES = {
    "(0.100, 0.164, 0.736)": ("unchanged", "These are the old weights"),
    "(0.200, 0.328, 1.472)": ("doubled-the-weights", "You doubled the weights"),
    "(0, 0.2, 0.8)": ("forgot-to-exponentiate", "You divided the scores by their total"),
    "(0.2, 0.544, 10.92)": ("divided-by-the-scores", "divided by the total of the scores"),
    "(0.017, 0.046, 0.937)": ("rounded-too-early", "Keep every digit"),
    "(0.936, 0.047, 0.017)": ("reordered", "not in the right order"),
}
COUNT_MISTAKES = {
    ("1", "1050"): ("one-for-the-sentence", "One context vector for the whole sentence"),
    ("30", "1050"): ("one-per-word-read", "one context vector for each English word"),
    ("35", "900"): ("square-map-of-words-read", "The map is not square"),
    ("35", "1225"): ("square-map-of-words-written", "The map is not square"),
}


@pytest.mark.parametrize("raw", sorted(SHARPEN_MISTAKES))
def test_every_named_mistake_of_check_1(sharpen: CheckDef, raw: str) -> None:
    name, words = SHARPEN_MISTAKES[raw]
    assert grade(sharpen, [raw]).mistakes == (name,)
    fb = shown(sharpen, [raw])
    assert fb.verdict == "wrong" and words in fb.body_html and fb.hint == 0
    assert not fb.solution_html and fb.offer_solution
    assert "0.936" not in visible_text(fb.body_html) or name == "reordered"


@pytest.mark.parametrize("raw", sorted(COUNT_MISTAKES))
def test_every_named_mistake_of_check_2(count: CheckDef, raw: tuple[str, str]) -> None:
    name, words = COUNT_MISTAKES[raw]
    assert grade(count, list(raw)).mistakes == (name,)
    assert words in shown(count, list(raw)).body_html


def test_the_named_mistakes_are_the_ones_the_figures_compute(
    sharpen: CheckDef, count: CheckDef
) -> None:
    assert {m.name for m in sharpen.mistakes} == {n for n, _ in SHARPEN_MISTAKES.values()}
    assert {m.name for m in count.mistakes} == {n for n, _ in COUNT_MISTAKES.values()}


def test_without_a_named_mistake_the_hints_come_one_by_one(sharpen: CheckDef) -> None:
    first = shown(sharpen, ["(0.3, 0.3, 0.4)"], wrong=1)
    second = shown(sharpen, ["(0.3, 0.3, 0.4)"], wrong=2)
    assert (first.hint, second.hint) == (1, 2)
    assert first.body_html == sharpen.hints_html[0] and second.body_html == sharpen.hints_html[1]
    assert not first.solution_html and not second.solution_html


def test_the_worked_answer_after_three_wrong_answers_or_on_request(sharpen: CheckDef) -> None:
    third = shown(sharpen, ["(0.3, 0.3, 0.4)"], wrong=REVEAL_AFTER)
    assert third.solution_html == sharpen.solution_html and not third.offer_solution
    asked = shown(sharpen, ["(0.3, 0.3, 0.4)"], wrong=1, revealed=True)
    assert asked.solution_html == sharpen.solution_html
    assert "0.936" in visible_text(sharpen.solution_html)  # the solution may print the key


def test_a_check_with_two_boxes_says_which_are_right(count: CheckDef) -> None:
    fb = shown(count, ["35", "1000"])
    assert fb.fields == (("context vectors", True), ("numbers in the map", False))
    assert fb.body_html == count.hints_html[0]
    right = shown(count, ["35", "1050"])
    assert right.verdict == "right" and right.body_html == count.feedback_correct_html
    assert not right.solution_html and not right.offer_solution  # a check: no solution needed


def test_no_first_feedback_prints_the_key(sharpen: CheckDef, count: CheckDef) -> None:
    for check in (sharpen, count):
        figures = telling_figures(check)
        assert figures
        first = [*check.hints_html, *(m.html for m in check.mistakes), check.feedback_wrong_html]
        for html in first:
            for figure in figures:
                assert figure not in visible_text(html), (check.id, figure)


def test_general_words_when_there_is_nothing_else(sharpen: CheckDef) -> None:
    bare = CheckDef(**{**sharpen.__dict__, "hints_html": (), "mistakes": ()})
    assert shown(bare, ["(0.3, 0.3, 0.4)"]).body_html == NOT_QUITE


def test_a_problem_points_to_its_hints_instead_of_printing_one(unit: CompiledUnit) -> None:
    # Its hints open on request under "Need a hint?": printed in the feedback too, a learner who
    # had opened them read each twice (the bug an earlier shift reported).
    problem = unit.check("p15-soft-weights")
    assert problem.problem and len(problem.hints_html) == 2
    for wrong in (1, 2, REVEAL_AFTER):
        fb = shown(problem, ["(0.3, 0.3, 0.4)"], wrong=wrong)
        assert fb.verdict == "wrong" and fb.hint == 0 and fb.body_html == TRY_A_HINT
        assert all(hint not in fb.body_html for hint in problem.hints_html)
