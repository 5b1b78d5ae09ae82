"""Grading by kind: what each kind reads, marks and refuses, the named mistakes, and that no text
at all makes grading raise or call a wrong answer right (property-based, hypothesis).

The checks are compiled from Markdown, as a section would write them, so the keys, tolerances
and mistakes are the compiler's own.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mathmachine.coursebook.grading import grade
from mathmachine.coursebook.kinds.reader import Numbers, read_numbers
from mathmachine.coursebook.model import CheckDef
from mathmachine.coursebook.passes.assemble import compile_markdown

from .conftest import TITLE, make_unit


def make_check(body: str, *, options: str, fields: str = "") -> CheckDef:
    """A check compiled from ``options`` (its :key: lines) and ``body`` (its sub-blocks)."""
    labels = f":fields: {fields}\n" if fields else ""
    text = (
        f"::::{{check}} c\n{options}\n{labels}\nThe prompt.\n\n:::{{feedback}} correct\nYes.\n"
        f":::\n\n{body}\n:::{{solution}}\nThe worked answer.\n:::\n::::\n"
    )
    figures: dict[str, str] = {}

    def figure(m: re.Match[str]) -> str:  # decimals come from figures, as in a real unit
        figures[f"f{len(figures)}"] = m.group(0)
        return f"{{{{ f{len(figures) - 1} }}}}"

    text = re.sub(r"(?<![\w.])\d*\.\d+", figure, text)
    unit = make_unit(figures=figures)
    result = compile_markdown(
        text, path=Path("t.md"), unit=unit, number=1, title=TITLE, whole_section=False
    )
    assert [e.format() for e in result.ctx.errors] == []
    (check,) = result.ctx.checks
    return check


def mistake(name: str, answer: str) -> str:
    return f":::{{mistake}} {name}\n:answer: {answer}\n{name} explained.\n:::\n"


SHARE = make_check("", options=":kind: number\n:answer: 0.936")
WEIGHTS = make_check(
    mistake("unchanged", "(0.100, 0.164, 0.736)") + mistake("doubled", "(0.200, 0.328, 1.472)"),
    options=":kind: vector\n:answer: (0.017, 0.047, 0.936)",
)
COUNT = make_check(
    mistake("one-context", "1 | *") + mistake("square", "* | 900"),
    options=":kind: integer\n:answer: 35 | 1,050",
    fields="context vectors | numbers in the map",
)
MATRIX = make_check("", options=":kind: matrix\n:answer: [[1, 2, 3], [4, 5, 6]]")
SQUARE = make_check("", options=":kind: matrix\n:answer: 1 2; 3 4")
THIRD = make_check(mistake("a-half", "1/2"), options=":kind: fraction\n:answer: 1/3")
ONE = make_check(
    ":::{option} dot\nThe dot product\n:::\n:::{option} general\nThe general score\n:::\n"
    ":::{option} additive\nThe additive score\n:::\n" + mistake("has-a-matrix", "general"),
    options=":kind: choice\n:answer: dot",
)
SEVERAL = make_check(
    ":::{option} a\nA\n:::\n:::{option} b\nB\n:::\n:::{option} c\nC\n:::\n"
    + mistake("ticked-c", "c"),
    options=":kind: choice\n:select: several\n:answer: a, b",
)
WORD = make_check(mistake("the-noun", "tea"), options=":kind: words\n:answer: drink/drinks")
TWO_WORDS = make_check("", options=":kind: words\n:order: any\n:answer: I, drink")


def right(check: CheckDef, *raw: str) -> bool:
    g = grade(check, list(raw))
    return g.ok and g.correct


def refused(check: CheckDef, *raw: str) -> str:
    g = grade(check, list(raw))
    assert not g.ok and not g.correct and g.message, g
    return g.message


def named(check: CheckDef, *raw: str) -> tuple[str, ...]:
    g = grade(check, list(raw))
    assert g.ok and not g.correct, g
    return g.mistakes


# ---------------------------------------------------------------- number


@pytest.mark.parametrize(
    "raw",
    ["0.936", ".936", "93.6%", "93.6 %", " 0.9362 ", "0.9355", "≈ 0.936", "+0.936", "0.936e0"],
)
def test_a_number_in_every_reasonable_form(raw: str) -> None:
    assert right(SHARE, raw)


@pytest.mark.parametrize("raw", ["0.937", "9.36", "0.0936", "0.8", "1", "0"])
def test_a_wrong_number_is_wrong(raw: str) -> None:
    g = grade(SHARE, [raw])
    assert (g.ok, g.correct) == (True, False)


@pytest.mark.parametrize("raw", ["0.94", "0.9", "94%"])
def test_the_right_number_at_too_few_decimals_is_asked_for_more(raw: str) -> None:
    assert refused(SHARE, raw) == "Nearly there: give your answer to three decimal places."


def test_tolerance_follows_the_printed_precision_of_the_key() -> None:
    two = make_check("", options=":kind: number\n:answer: 0.94")
    assert right(two, "0.944") and not right(two, "0.946")
    third = make_check("", options=":kind: number\n:answer: 0.333")
    assert not grade(third, ["0"]).correct and not grade(third, ["0.8"]).correct
    assert not grade(third, ["−0.15"]).correct


def test_a_decimal_comma_is_named() -> None:
    assert refused(SHARE, "0,936") == (
        "Use a point for decimals, as in 0.936: here a comma separates numbers."
    )
    assert "Use a point for decimals, as in 0.017, 0.047, 0.936" in refused(
        WEIGHTS, "0,017, 0,047, 0,936"
    )


# ---------------------------------------------------------------- vector


@pytest.mark.parametrize(
    "raw",
    [
        "(0.017, 0.047, 0.936)",
        "0.017 0.047 0.936",
        "[0.017,0.047,0.936]",
        "0.017;0.047;0.936",
        "(1.7%, 4.7%, 93.6%)",
        "{.017 .047 .936}",
        "(०.०१७, ०.०४७, ०.९३६)",
        "0.017\n0.047\n0.936",
    ],
)
def test_a_vector_in_every_reasonable_form(raw: str) -> None:
    assert right(WEIGHTS, raw)


def test_vector_mistakes_are_named_at_any_precision() -> None:
    assert named(WEIGHTS, "(0.1, 0.164, 0.736)") == ("unchanged",)
    assert named(WEIGHTS, "0.10 0.16 0.74") == ("unchanged",)
    assert named(WEIGHTS, "0.200 0.328 1.472") == ("doubled",)
    assert named(WEIGHTS, "(0.936, 0.047, 0.017)") == ("reordered",)
    assert named(WEIGHTS, "(0.3, 0.3, 0.4)") == ()


def test_a_vector_of_the_wrong_length_says_how_long() -> None:
    message = refused(WEIGHTS, "0.017, 0.936")
    assert message.startswith("This answer is a list of 3 numbers; you gave 2.")


# ---------------------------------------------------------------- integer


@pytest.mark.parametrize("raw", ["1,050", "1050", "१०५०", "1050.0", "(1050)", "≈1050"])
def test_counts_read_separators_and_devanagari(raw: str) -> None:
    assert right(COUNT, "35", raw)


def test_a_count_is_a_whole_number_and_its_messages_fit_a_count() -> None:
    message = refused(COUNT, "35", "1,050.2")
    assert message.startswith("Numbers in the map: This answer is a whole number.")
    for raw in ("", "lots", "(0.1, 0.2)"):
        message = refused(COUNT, "35", raw)
        assert "list" not in message and "(0.1" not in message
        assert "whole number" in message
    assert "1050" not in refused(COUNT, "35", "") and "35" not in refused(COUNT, "", "1050")


def test_multi_box_answers_say_which_boxes_are_right_and_wildcards_match() -> None:
    g = grade(COUNT, ["35", "900"])
    assert (g.ok, g.correct, g.fields_right) == (True, False, (True, False))
    assert g.mistakes == ("square",)
    assert named(COUNT, "1", "1050") == ("one-context",)
    assert named(COUNT, "1", "900") == ("one-context", "square")
    assert named(COUNT, "30", "1000") == ()


# ---------------------------------------------------------------- matrix


@pytest.mark.parametrize(
    "raw", ["[[1, 2, 3], [4, 5, 6]]", "1 2 3; 4 5 6", "1 2 3\n4 5 6", "(1, 2, 3), (4, 5, 6)"]
)
def test_a_matrix_written_row_by_row(raw: str) -> None:
    assert right(MATRIX, raw)


def test_a_matrix_checks_its_shape_and_names_the_transpose() -> None:
    assert refused(MATRIX, "1 2 3 4 5 6").startswith("Write the matrix row by row.")
    assert named(MATRIX, "1 4; 2 5; 3 6") == ("transposed",)
    assert named(SQUARE, "1 3; 2 4") == ("transposed",)
    assert refused(MATRIX, "1 2; 3 4; 5 6").startswith(
        "This answer has 2 rows of 3; you gave 3 rows of 2."
    )
    assert refused(SQUARE, "1 2 3 4").startswith("Write the matrix row by row.")
    assert "same number of entries" in refused(SQUARE, "1 2; 3")


# ---------------------------------------------------------------- fraction


@pytest.mark.parametrize("raw", ["1/3", "2/6", "0.333", "33.3%", "0.3333", " 1 / 3 "])
def test_an_exact_fraction_and_its_decimals(raw: str) -> None:
    assert right(THIRD, raw)


@pytest.mark.parametrize("raw", ["0.334", "0", "0.8", "−0.15", "1/4"])
def test_near_a_third_is_not_a_third(raw: str) -> None:
    g = grade(THIRD, [raw])
    assert (g.ok, g.correct) == (True, False)


def test_a_fraction_asks_for_its_places_and_names_its_mistakes() -> None:
    assert "fraction, or to three decimal places" in refused(THIRD, "0.33")
    assert named(THIRD, "0.5") == ("a-half",) == named(THIRD, "1/2")
    assert "1/0" not in refused(THIRD, "1/0") and "below the line" in refused(THIRD, "1/0")


# ---------------------------------------------------------------- choice and words


def test_one_choice_with_feedback_per_option() -> None:
    assert right(ONE, "dot")
    assert named(ONE, "general") == ("has-a-matrix",)
    assert named(ONE, "additive") == ()
    assert refused(ONE, "") == "Choose one option." == refused(ONE, "dot,general")
    assert refused(ONE, "nonsense") == "Choose one option."


def test_several_choices_say_how_many_were_found() -> None:
    assert right(SEVERAL, "a,b") and right(SEVERAL, "b, a")
    g = grade(SEVERAL, ["a,c"])
    assert (g.correct, g.mistakes) == (False, ("ticked-c",))
    assert g.fields[0].note == "You ticked 1 of the 2 right options and 1 that is not right."
    assert grade(SEVERAL, ["a"]).fields[0].note == "You ticked 1 of the 2 right options."


def test_words_ignore_case_quotes_and_stops() -> None:
    for raw in ("drink", "Drink", "“drink”", "drinks.", " DRINK "):
        assert right(WORD, raw)
    assert named(WORD, "Tea") == ("the-noun",)
    assert refused(WORD, "") == "Type one word, like river."
    assert refused(WORD, "I drink").startswith("This answer is one word; you gave 2.")
    assert right(TWO_WORDS, "drink, I") and right(TWO_WORDS, "i drink")
    assert not grade(TWO_WORDS, ["tea, I"]).correct


# ---------------------------------------------------------------- every check


def test_wrong_number_of_boxes() -> None:
    assert grade(COUNT, ["35"]).message == "This check takes 2 answers; got 1."
    assert grade(SHARE, []).message == "This check takes one answer; got 0."
    assert not grade(SHARE, "0.936").ok  # type: ignore[arg-type]  # a bare string, not a list


@pytest.mark.parametrize("raw", ["nan", "NaN", "inf", "-inf", "Infinity", "1e999", "(nan, 1, 2)"])
def test_nan_and_infinity_are_not_numbers(raw: str) -> None:
    assert not grade(SHARE, [raw]).ok and not grade(WEIGHTS, [raw]).ok


def test_huge_input_is_refused_politely() -> None:
    assert "too long" in refused(SHARE, "9" * 100_000)
    assert grade(SHARE, ["0." + "9" * 150]).ok  # long but under the limit: read, and wrong


def test_no_message_prints_a_key() -> None:
    for check, raw in ((SHARE, ""), (WEIGHTS, "x"), (COUNT, ""), (MATRIX, "x"), (THIRD, "x")):
        boxes = [raw] * len(check.fields)
        message = grade(check, boxes).message
        for f in check.fields:
            assert f.answer_text not in message


ALL = (SHARE, WEIGHTS, COUNT, MATRIX, SQUARE, THIRD, ONE, SEVERAL, WORD, TWO_WORDS)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=250))
def test_no_text_makes_any_kind_raise_and_unreadable_is_never_right(raw: str) -> None:
    for check in ALL:
        g = grade(check, [raw] * len(check.fields))
        assert g.ok or (g.message and not g.correct and not g.mistakes)
        assert not (g.correct and g.mistakes)


def _close_to(raw: str, target: float, tol: float) -> bool:
    numbers = read_numbers(raw)
    assert isinstance(numbers, Numbers) and len(numbers.flat) == 1
    return abs(numbers.flat[0].value - target) <= tol + 1e-9


NUMBERISH = st.one_of(
    st.floats(min_value=-2, max_value=2, allow_nan=False).map(lambda x: f"{x:.4f}"),
    st.floats(min_value=0.9, max_value=0.98).map(lambda x: f"{x:.3f}"),
    st.floats(min_value=0.9, max_value=0.98).map(lambda x: f"{100 * x:.1f}%"),
    st.fractions(min_value=0, max_value=2, max_denominator=40).map(str),
    st.text(alphabet="0123456789.,%/ -−()e", max_size=12),
)


@settings(max_examples=400, deadline=None)
@given(NUMBERISH)
def test_a_number_is_right_only_within_the_printed_tolerance(raw: str) -> None:
    g = grade(SHARE, [raw])
    if g.correct:
        assert _close_to(raw, 0.936, 0.0005)


@settings(max_examples=300, deadline=None)
@given(st.fractions(min_value=0, max_value=1, max_denominator=60), st.integers(1, 6))
def test_a_fraction_is_right_only_when_it_is_a_third_to_its_places(
    f: Fraction, places: int
) -> None:
    for raw in (str(f), f"{float(f):.{places}f}"):
        g = grade(THIRD, [raw])
        if g.correct:
            value = read_numbers(raw)
            assert isinstance(value, Numbers)
            n = value.flat[0]
            assert n.exact == Fraction(1, 3) or (
                n.places is not None
                and n.places >= 3
                and abs(n.exact - Fraction(1, 3)) <= Fraction(1, 2 * 10**n.places)
            )


@settings(max_examples=300, deadline=None)
@given(st.lists(st.floats(min_value=0, max_value=1, allow_nan=False), min_size=3, max_size=3))
def test_a_vector_is_right_only_entry_by_entry(xs: list[float]) -> None:
    raw = "(" + ", ".join(f"{x:.3f}" for x in xs) + ")"
    g = grade(WEIGHTS, [raw])
    expected = all(
        abs(float(f"{x:.3f}") - k) <= 0.0005 + 1e-9
        for x, k in zip(xs, (0.017, 0.047, 0.936), strict=True)
    )
    assert g.ok and g.correct == expected


@given(st.floats(min_value=-1e6, max_value=1e6, allow_nan=False))
def test_a_printed_number_reads_back(x: float) -> None:
    numbers = read_numbers(f"{x:.6f}")
    assert isinstance(numbers, Numbers)
    assert math.isclose(numbers.flat[0].value, float(f"{x:.6f}"), abs_tol=1e-12)


def test_grade_fields_keep_what_was_typed() -> None:
    g = grade(COUNT, ["35", "lots"])
    assert not g.ok and [f.raw for f in g.fields] == ["35", "lots"]
    assert [f.readable for f in g.fields] == [True, False]
