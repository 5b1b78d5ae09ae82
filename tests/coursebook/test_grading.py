"""Numeric grading: lenient parsing of what learners type, never an exception."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mathmachine.coursebook.grading import (
    FORMAT_MESSAGE,
    Grade,
    NumberFormatError,
    default_tolerance,
    grade,
    parse_numbers,
)
from mathmachine.coursebook.model import CheckDef, Field, Mistake

WEIGHTS = CheckDef(
    id="s1-sharpen",
    section=1,
    prompt_html="<p>Predict.</p>",
    fields=(Field("the three weights", (0.017, 0.047, 0.936), 0.0005),),
    feedback_correct_html="<p>correct</p>",
    feedback_wrong_html="<p>wrong</p>",
    mistakes=(
        Mistake(((0.100, 0.164, 0.736),), "<p>old weights</p>"),
        Mistake(((0.200, 0.328, 1.472),), "<p>doubled</p>"),
    ),
)
SHARE = CheckDef(
    id="share",
    section=1,
    prompt_html="",
    fields=(Field("answer", (0.936,), 0.0005),),
    feedback_correct_html="C",
    feedback_wrong_html="W",
)
COUNT = CheckDef(
    id="s1-count",
    section=1,
    prompt_html="",
    fields=(
        Field("context vectors", (35.0,), 0.5),
        Field("numbers in the map", (1050.0,), 0.5),
    ),
    feedback_correct_html="C",
    feedback_wrong_html="W",
    mistakes=(Mistake(((1.0,), (1050.0,)), "one context vector"),),
)


@pytest.mark.parametrize(
    "raw",
    ["0.936", ".936", "93.6%", "93.6 %", " 0.9362 ", "0.9355", "≈ 0.936", "+0.936", "0.936e0"],
)
def test_single_number_forms_are_correct(raw: str) -> None:
    g = grade(SHARE, [raw])
    assert (g.ok, g.correct, g.feedback_html, g.message) == (True, True, "C", "")
    assert g.fields[0].correct


@pytest.mark.parametrize("raw", ["0.94", "0.9", "0.937", "9.36", "0.0936"])
def test_outside_the_tolerance_is_wrong(raw: str) -> None:
    g = grade(SHARE, [raw])
    assert (g.ok, g.correct, g.feedback_html) == (True, False, "W")


@pytest.mark.parametrize(
    "raw",
    [
        "(0.017, 0.047, 0.936)",
        "0.017 0.047 0.936",
        "[0.017,0.047,0.936]",
        "0.017, 0.047, 0.936",
        "0.017;0.047;0.936",
        "(1.7%, 4.7%, 93.6%)",
        "{.017 .047 .936}",
        "(०.०१७, ०.०४७, ०.९३६)",
    ],
)
def test_vector_forms_are_correct(raw: str) -> None:
    g = grade(WEIGHTS, [raw])
    assert (g.ok, g.correct, g.feedback_html) == (True, True, "<p>correct</p>")
    assert g.fields[0].values == pytest.approx((0.017, 0.047, 0.936))


def test_a_known_mistake_gets_its_own_feedback() -> None:
    assert grade(WEIGHTS, ["(0.1, 0.164, 0.736)"]).feedback_html == "<p>old weights</p>"
    assert grade(WEIGHTS, ["0.200 0.328 1.472"]).feedback_html == "<p>doubled</p>"
    other = grade(WEIGHTS, ["(0.3, 0.3, 0.4)"])
    assert (other.ok, other.correct, other.feedback_html) == (True, False, "<p>wrong</p>")


@pytest.mark.parametrize("raw", ["1,050", "1050", "१०५०", "1050.0", "1,050.2", "(1050)"])
def test_thousands_separator_and_devanagari_digits(raw: str) -> None:
    g = grade(COUNT, ["35", raw])
    assert (g.ok, g.correct) == (True, True)
    assert [f.correct for f in g.fields] == [True, True]


def test_indian_digit_grouping() -> None:
    assert parse_numbers("1,05,000", expected=1) == (105000.0,)
    assert parse_numbers("12,34,567", expected=1) == (1234567.0,)


def test_field_by_field_result() -> None:
    g = grade(COUNT, ["35", "900"])
    assert (g.ok, g.correct, g.feedback_html) == (True, False, "W")
    assert [(f.label, f.correct) for f in g.fields] == [
        ("context vectors", True),
        ("numbers in the map", False),
    ]
    assert grade(COUNT, ["1", "1,050"]).feedback_html == "one context vector"


@pytest.mark.parametrize(
    "raw",
    ["", "   ", "abc", "zero point nine", "0.9.3", "--1", "1e", "0x10", "1_000", "()", "%"],
)
def test_garbage_gives_the_format_message(raw: str) -> None:
    g = grade(SHARE, [raw])
    assert g == Grade(
        ok=False, correct=False, fields=g.fields, feedback_html="", message=FORMAT_MESSAGE
    )
    assert g.fields[0].values is None


@pytest.mark.parametrize("raw", ["nan", "NaN", "inf", "-inf", "Infinity", "1e999", "(nan, 1, 2)"])
def test_nan_and_infinity_are_not_accepted(raw: str) -> None:
    g = grade(SHARE, [raw])
    assert (g.ok, g.correct, g.feedback_html) == (False, False, "")
    assert g.message == FORMAT_MESSAGE or "one number" in g.message


def test_huge_input_is_refused_politely() -> None:
    g = grade(SHARE, ["9" * 100_000])
    assert (g.ok, g.correct) == (False, False)
    assert "too long" in g.message
    assert grade(SHARE, ["0." + "9" * 150]).ok  # long but under the limit: read, and wrong


def test_decimal_comma_is_two_numbers_with_a_hint() -> None:
    g = grade(SHARE, ["0,936"])
    assert not g.ok
    assert g.message == "This answer is one number; you gave 2. For a decimal, use a point: 0.936."


def test_wrong_number_of_entries_says_how_many() -> None:
    g = grade(WEIGHTS, ["0.017, 0.936"])
    assert not g.ok
    assert g.message == "This answer is a list of 3 numbers, like (0.1, 0.1, 0.1); you gave 2."


def test_wrong_number_of_boxes() -> None:
    g = grade(COUNT, ["35"])
    assert (g.ok, g.message) == (False, "This check takes 2 answers; got 1.")
    assert grade(SHARE, []).message == "This check takes one answer; got 0."
    assert not grade(SHARE, "0.936").ok  # type: ignore[arg-type]  # a bare string, not a list


def test_multi_field_message_names_the_field() -> None:
    g = grade(COUNT, ["35", "lots"])
    assert g.message == f"Numbers in the map: {FORMAT_MESSAGE}"
    assert [f.values for f in g.fields] == [(35.0,), None]


def test_fractions_and_unicode_minus() -> None:
    assert parse_numbers("1/3", expected=1) == pytest.approx((1 / 3,))
    assert parse_numbers("(1/3, 1 / 3, 1/3)", expected=3) == pytest.approx((1 / 3,) * 3)
    assert parse_numbers("\u22120.462", expected=1) == (-0.462,)
    with pytest.raises(NumberFormatError):
        parse_numbers("1/0", expected=1)


@pytest.mark.parametrize(
    ("text", "tol"),
    [
        ("0.936", 0.0005),
        ("1050", 0.5),
        ("1,050", 0.5),
        ("(0.1, 0.25, 0.7)", 0.005),
        ("2.5e1", 0.05),
    ],
)
def test_default_tolerance_is_half_the_last_printed_digit(text: str, tol: float) -> None:
    assert default_tolerance(text) == pytest.approx(tol)


@given(st.text(max_size=300))
def test_grading_never_raises(raw: str) -> None:
    for check in (SHARE, WEIGHTS):
        g = grade(check, [raw])
        assert isinstance(g, Grade)
        assert g.ok or g.message


@given(st.floats(min_value=-1e6, max_value=1e6, allow_nan=False))
def test_a_printed_number_reads_back(x: float) -> None:
    assert parse_numbers(f"{x:.6f}", expected=1) == pytest.approx((float(f"{x:.6f}"),))
