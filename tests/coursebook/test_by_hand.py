"""A check worked by hand (:by-hand:): every answer from the exact key to what the printed,
rounded steps reach is right, widened by the tolerance; named mistakes that cannot be told from
the key are an error in a check, and are not offered at that seed in a variant."""

from __future__ import annotations

from pathlib import Path

import pytest

from mathmachine.coursebook.grading import grade
from mathmachine.coursebook.kinds import KINDS
from mathmachine.coursebook.model import CheckDef
from mathmachine.coursebook.passes.assemble import compile_markdown

from .conftest import TITLE, make_unit
from .test_grading import make_check, mistake

WEIGHTS = make_check(
    mistake("unchanged", "(0.100, 0.164, 0.736)"),
    options=":kind: vector\n:answer: (0.017, 0.047, 0.936)\n:by-hand: (0.017, 0.046, 0.937)",
)
OUTPUT = make_check("", options=":kind: number\n:answer: 88.68\n:by-hand: 88.71")
GRAD = make_check(
    "",
    options=":kind: matrix\n:answer: [[0.881, 0.000], [0.210, 1.091]]\n"
    ":by-hand: [[0.882, 0.000], [0.211, 1.092]]",
)


@pytest.mark.parametrize(
    "raw",
    [
        "(0.017, 0.047, 0.936)",
        "(0.017, 0.046, 0.937)",
        "0.0172 0.0465 0.9364",
        "(0.017, 0.047, 0.937)",
    ],
)
def test_from_every_digit_to_the_rounded_steps_is_right(raw: str) -> None:
    g = grade(WEIGHTS, [raw])
    assert g.ok and g.correct, (raw, g)


@pytest.mark.parametrize(
    "raw", ["(0.017, 0.048, 0.936)", "(0.016, 0.046, 0.937)", "(0.1, 0.2, 0.7)"]
)
def test_outside_the_range_is_wrong(raw: str) -> None:
    g = grade(WEIGHTS, [raw])
    assert g.ok and not g.correct, (raw, g)


@pytest.mark.parametrize(("raw", "right"), [("88.68", True), ("88.695", True), ("88.71", True),
                                            ("88.715", True), ("88.675", True), ("88.67", False),
                                            ("88.72", False)])  # fmt: skip
def test_a_number_takes_the_range_widened_by_half_a_unit(raw: str, right: bool) -> None:
    g = grade(OUTPUT, [raw])
    assert g.ok and g.correct is right, (raw, g)


def test_fewer_decimals_of_either_end_ask_for_more() -> None:
    for raw in ("(0.02, 0.05, 0.94)", "(0.017, 0.046, 0.94)"):  # the key, the by-hand answer
        g = grade(WEIGHTS, [raw])
        assert not g.ok and "three decimal places" in g.message, raw
    assert grade(OUTPUT, ["88.7"]).correct  # 88.70 lies between 88.68 and 88.71


def test_the_by_hand_answer_reordered_is_named() -> None:
    g = grade(WEIGHTS, ["(0.937, 0.046, 0.017)"])
    assert g.ok and not g.correct and g.mistakes == ("reordered",)


def test_a_matrix_worked_by_hand_and_its_transpose() -> None:
    assert grade(GRAD, ["0.882 0; 0.211 1.092"]).correct
    assert grade(GRAD, ["0.881 0.000; 0.2105 1.0915"]).correct
    g = grade(GRAD, ["0.882 0.211; 0 1.092"])
    assert g.ok and not g.correct and g.mistakes == ("transposed",)


def test_the_by_hand_figures_count_as_the_key_for_hints() -> None:
    printed = KINDS["vector"].printed(WEIGHTS.fields[0].key)
    assert printed == ("0.017", "0.047", "0.936", "0.046", "0.937")


def _variant(seed: int) -> dict[str, str]:
    """A key (a, b) and a slip that gives (b, a) on even seeds, (a, b + 1) on odd ones."""
    a, b = seed % 5 + 1, seed % 5 + 3
    slip = (b, a) if seed % 2 == 0 else (a, b + 1)
    return {"key": f"({a}, {b})", "slip": f"({slip[0]}, {slip[1]})", "a": str(a), "b": str(b)}


SOURCE = """::::{problem} p-slip
:title: Problem · a slip
:kind: vector
:answer: {{ key }}
:variant: demo

Add {{ a }} and {{ b }}.

:::{mistake} the-slip
:answer: {{ slip }}
The slip.
:::

:::{feedback} correct
Yes.
:::

:::{solution}
It is {{ key }}.
:::
::::
"""


def _compiled(seed: int) -> CheckDef:
    result = compile_markdown(
        SOURCE,
        path=Path("p.md"),
        unit=make_unit(variants={"demo": _variant}),
        number=1,
        title=TITLE,
        whole_section=False,
        seed=seed,
    )
    assert [e.format() for e in result.ctx.errors] == []
    (check,) = result.ctx.problems
    return check


@pytest.mark.parametrize("seed", [2, 4, 10])
def test_a_variant_mistake_that_is_the_key_reordered_is_not_offered(seed: int) -> None:
    check = _compiled(seed)
    assert [m.name for m in check.mistakes] == ["reordered"]  # the kind's own
    key = _variant(seed)
    g = grade(check, [key["slip"]])
    assert g.mistakes == ("reordered",)  # one message, not two that contradict each other


@pytest.mark.parametrize("seed", [1, 3, 9])
def test_the_same_mistake_is_offered_where_it_differs(seed: int) -> None:
    check = _compiled(seed)
    assert [m.name for m in check.mistakes] == ["the-slip", "reordered"]
    assert grade(check, [_variant(seed)["slip"]]).mistakes == ("the-slip",)
