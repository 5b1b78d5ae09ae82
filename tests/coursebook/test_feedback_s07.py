"""The checks of §7 (real content): each named mistake, typed as a learner would type it, is
recognised and explained; the key is right in the forms a learner types; no first feedback
prints the key (nor the count with its thousands separators); the worked answer holds it."""

from __future__ import annotations

from pathlib import Path

import pytest

from mathmachine.coursebook import CheckDef, CompiledUnit, compile_unit
from mathmachine.coursebook.feedback import feedback_for
from mathmachine.coursebook.grading import grade
from mathmachine.coursebook.passes.answers import telling_figures, visible_text

UNIT = Path(__file__).resolve().parents[2] / "content" / "units" / "18-attention-and-transformers"


@pytest.fixture(scope="module")
def unit() -> CompiledUnit:
    return compile_unit(UNIT)


# check id -> {answer as typed: (the mistake's name, words of its explanation)}
MISTAKES: dict[str, dict[tuple[str, ...], tuple[str, str]]] = {
    "s7-width": {
        ("4096", "512", "64"): ("multiplied", "Divide."),
        ("64", "512", "512"): ("full-width-query", "A head's query is short"),
        ("64", "64", "64"): ("square-head", "is not square"),
    },
    "s7-concat": {
        ("10", "64"): ("one-head", "That is one head's output"),
        ("80", "64"): ("stacked", "on top of each other"),
        ("10", "10"): ("the-map", "one head's map of weights"),
    },
    "s7-weights": {
        ("786432",): ("forgot-w-o", "but the layer has one more"),
        ("786,432",): ("forgot-w-o", "but the layer has one more"),
        ("1050624",): ("counted-biases", "this check counts the matrices only"),
        ("360448",): ("divided-by-h-twice", "you divided by $h$ twice"),
        ("6553600",): ("full-width-heads", "Each head is narrow"),
    },
}
RIGHT = {
    "s7-width": [("64", "512", "64"), ("६४", "512", "64.0")],
    "s7-concat": [("10", "512")],
    "s7-weights": [("1048576",), ("1,048,576",), ("10,48,576",), ("१०४८५७६",)],
}


def test_every_check_of_the_section_is_covered(unit: CompiledUnit) -> None:
    ids = [c.id for c in unit.section(7).checks]
    assert ids == ["s7-width", "s7-concat", "s7-weights"]
    assert sorted(ids) == sorted(MISTAKES) == sorted(RIGHT)
    for check_id, typed in MISTAKES.items():
        names = {name for name, _ in typed.values()}
        assert names == {m.name for m in unit.check(check_id).mistakes}, check_id


CASES = [(c, raw, *want) for c, typed in MISTAKES.items() for raw, want in typed.items()]


@pytest.mark.parametrize(("check_id", "raw", "name", "words"), CASES)
def test_each_named_mistake_is_recognised_and_explained(
    unit: CompiledUnit, check_id: str, raw: tuple[str, ...], name: str, words: str
) -> None:
    check = unit.check(check_id)
    g = grade(check, list(raw))
    assert g.ok and not g.correct
    assert name in g.mistakes, (raw, g.mistakes)
    shown = feedback_for(
        check, correct=False, mistakes=g.mistakes, fields_right=g.fields_right,
        wrong_attempts=1, revealed=False,
    )  # fmt: skip
    source = next(m for m in check.mistakes if m.name == name)
    assert source.html in shown.body_html

    def plain(text: str) -> str:
        return "".join(text.replace("*", "").replace("$", "").split())

    assert plain(words) in plain(visible_text(source.html))
    body = visible_text(shown.body_html)
    for figure in telling_figures(check):  # the first feedback never gives the key away
        assert figure not in body, (check_id, figure)
        if figure.isdigit() and len(figure) > 3:
            assert f"{int(figure):,}" not in body, (check_id, figure)


@pytest.mark.parametrize(("check_id", "raw"), [(c, r) for c, rs in RIGHT.items() for r in rs])
def test_the_key_is_right_as_learners_type_it(
    unit: CompiledUnit, check_id: str, raw: tuple[str, ...]
) -> None:
    g = grade(unit.check(check_id), list(raw))
    assert g.ok and g.correct, (raw, g)


@pytest.mark.parametrize("check_id", sorted(RIGHT))
def test_the_worked_answer_shows_the_key(unit: CompiledUnit, check_id: str) -> None:
    check: CheckDef = unit.check(check_id)
    solution = visible_text(check.solution_html)
    for figure in telling_figures(check):
        assert figure in solution, (check_id, figure)


def test_hints_never_print_the_key_in_any_form(unit: CompiledUnit) -> None:
    for check in unit.section(7).checks:
        for hint in check.hints_html:
            text = visible_text(hint)
            for f in check.fields:
                assert f.answer_text not in text.split(), (check.id, f.answer_text)
            assert "1,048,576" not in text and "1048576" not in text
