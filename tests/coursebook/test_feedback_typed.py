"""The ways learners type, on real checks: each named mistake typed as a learner might (with a
rupee sign, thousands separators, fewer decimals) is recognised and explained in its own words;
the key is right in the forms a learner types (₹26, Rs. 26, 1,048,576, 10,48,576, १०४८५७६); no
first feedback prints the key, nor a count with its thousands separators.

These tables are not the list of checks: every check and problem of every written section is
covered, without a list, by tests/content/test_every_check.py (a choice's wrong options
too)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mathmachine.coursebook import CompiledUnit, compile_unit
from mathmachine.coursebook.feedback import feedback_for
from mathmachine.coursebook.grading import grade
from mathmachine.coursebook.passes.answers import telling_figures, visible_text

UNIT = Path(__file__).resolve().parents[2] / "content" / "units" / "18-attention-and-transformers"


@pytest.fixture(scope="module")
def unit() -> CompiledUnit:
    return compile_unit(UNIT)


# check id -> {answer as typed: (the mistake's name, words of its explanation)}
MISTAKES: dict[str, dict[tuple[str, ...], tuple[str, str]]] = {
    "s2-anything": {
        ("0",): ("zero-query-zero-answer", "zero *scores*"),
        ("104",): ("weights-of-one", "the sum of the prices"),
        ("₹12",): ("the-best-key", "That is chai's price"),
        ("19.30",): ("the-worked-answer", "hot, a little sweet"),
    },
    "s2-sharpest": {
        ("45",): ("the-dearest", "the largest price, lassi's"),
        ("26",): ("the-plain-mean", "That is the plain mean"),
        ("19.3",): ("beta-changes-nothing", "multiplies every score"),
    },
    "s3-shapes": {
        ("6", "6", "6", "4"): ("output-as-wide-as-the-words", "the width of $V$"),
        ("6", "3", "6", "5"): ("scores-shaped-like-q", "That is the shape of $Q$"),
        ("3", "3", "6", "5"): ("q-transposed-times-k", "That would be"),
    },
    "s3-rows": {
        ("1", "1"): ("columns-add-to-one-too", "Columns are not shares"),
        ("1.00", "1.00"): ("columns-add-to-one-too", "Columns are not shares"),
    },
    "s3-itself": {
        ("next",): ("next-word", "Nothing in a dot product knows about order"),
        ("first",): ("first-word", "no special place"),
        ("equal",): ("all-equal", "only if all the words are the same vector"),
    },
    "s4-spread": {
        ("8", "2.828"): ("square-root-as-the-variance", "the *standard deviation*"),
        ("1", "1"): ("spread-of-one-piece", "does not keep the spread"),
        ("4096", "64"): ("d-squared", "That is $d$ squared"),
    },
    "s4-scaled": {
        ("8", "2.83"): ("divided-the-variance-by-the-root", "an average of *squares*"),
        ("64", "8"): ("nothing-changes", "the spreads before dividing"),
    },
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
    "s9-layernorm": {
        ("-1, 0, 1",): ("n-minus-1", "as a sample variance does"),
        ("(−1.5, 0, 1.5)",): ("forgot-the-square-root", "Divide by its square root"),
        ("1.225 2.449 3.674",): ("forgot-the-mean", "without first taking the mean away"),
    },
    "s9-highway": {
        ("0.1", "1.331"): ("forgot-the-one", "the slope of $F$ alone"),
        ("1.1", "0.001"): ("no-residual", "without residuals"),
        ("1.1", "1.300"): ("added-the-slopes", "they do not add them"),
        ("1.1", "3.300"): ("times-three", "raise it to the power 3"),
    },
    "s9-block-weights": {
        ("6,488,064",): ("forgot-w-o", "Attention has four"),
        ("4718592",): ("one-feed-forward-matrix", "one of the two feed-forward matrices"),
        ("23,59,296",): ("attention-only", "That is the attention layer alone"),
        ("3538944",): ("square-feed-forward", "You made the feed-forward matrices"),
        ("7,087,872",): ("counted-biases", "this check counts the matrices only"),
    },
    "s11-jobs": {
        ("gpt", "GPT", "T5"): ("gpt-fills-gaps", "sees only the words before the gap"),
        ("BERT", "bert", "T5."): ("bert-writes", "never trained to produce the next word"),
    },
    "s11-masks": {
        ("36", "15", "24"): ("forgot-itself", "You left out the diagonal"),
        ("36", "21", "18"): ("cross-masked", "You put a causal mask on the cross-attention"),
    },
    "s13-weights": {
        ("8,320", "12,832", "26,521"): ("no-biases", "without its biases"),
        ("8544", "12832", "२३,२५७"): ("no-tables", "not the two word tables"),
    },
    "s13-peeta": {
        ("Tea",): ("tea", "Hindi puts the verb last"),
        ("“I”",): ("subject", "does agree with"),
    },
    "s14-cross": {
        ("0.100, 0.164, 0.736",): ("unscaled", "These are §1's weights"),
        ("(0.242; 0.286; 0.472)",): ("divided-by-d", "divides by its square root"),
    },
}
RIGHT = {
    "s2-anything": [
        ("26",),
        ("₹26",),
        ("Rs. 26",),
        ("26.00",),
        ("Rs. 26/-",),
        ("26/-",),
        ("₹ 26 /-",),
    ],
    "s2-sharpest": [("12",), ("₹ 12",), ("≈ ₹12",)],
    "s3-shapes": [("6", "6", "6", "5")],
    "s3-rows": [("1", "1.73"), ("1.00", "1.727")],
    "s3-itself": [("itself",)],
    "s4-spread": [("64", "8"), ("६४", "8.0")],
    "s4-scaled": [("1", "1"), ("1.00", "1.0")],
    "s7-width": [("64", "512", "64"), ("६४", "512", "64.0")],
    "s7-concat": [("10", "512")],
    "s7-weights": [("1048576",), ("1,048,576",), ("10,48,576",), ("१०४८५७६",)],
    "s9-layernorm": [("−1.225, 0, 1.225",), ("(-1.2247, 0.000, 1.2247)",), ("-1.225 0 1.225",)],
    "s9-highway": [("1.1", "1.331"), ("1.10", "≈ 1.331")],
    "s9-block-weights": [("7077888",), ("7,077,888",), ("70,77,888",), ("७०७७८८८",)],
    "s11-masks": [("36", "21", "24"), ("३६", "२१", "२४")],
    "s13-weights": [("8,544", "12,832", "26,521"), ("8544", "12832", "२६,५२१")],
    "s13-peeta": [("Drink",), ("“drink”",), ("drink.",)],
    "s14-cross": [("0.182 0.242 0.576",), ("(0.182; 0.242; 0.576)",), ("18.2%, 24.2%, 57.6%",)],
}


def test_the_tables_name_real_checks_and_mistakes(unit: CompiledUnit) -> None:
    for check_id, typed in MISTAKES.items():
        names = {m.name for m in unit.check(check_id).mistakes}
        assert {name for name, _ in typed.values()} <= names, check_id
    for check_id in RIGHT:
        unit.check(check_id)  # raises KeyError for an id that is gone


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
