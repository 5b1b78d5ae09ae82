"""Every printed step is true of its printed numbers: the arithmetic of every written section,
and of every check and problem (statement, hints, mistakes, feedback and worked solution, at
every seed of fresh numbers), computed from the numbers as printed (tests/worked_steps.py)."""

from __future__ import annotations

import pytest
from gradables import checks_of, every_gradable, ident, unit
from worked_steps import false_steps, steps

from mathmachine.coursebook import catalog

WRITTEN = [
    (info.slug, s.number) for info in catalog() for s in unit(info.slug).sections if s.written
]


@pytest.mark.parametrize(("slug", "number"), WRITTEN, ids=[f"{u}:{n}" for u, n in WRITTEN])
def test_the_sections_prose(slug: str, number: int) -> None:
    assert false_steps(unit(slug).section(number).html) == []


@pytest.mark.parametrize("item", every_gradable(), ids=ident)
def test_every_check_and_problem_at_every_seed(item: tuple[str, str]) -> None:
    wrong = []
    for seed, check in checks_of(*item):
        parts = [check.prompt_html, check.solution_html, check.feedback_correct_html]
        parts += [check.feedback_wrong_html, *check.hints_html, *(m.html for m in check.mistakes)]
        for part in parts:
            wrong += [(seed, *step) for step in false_steps(part)]
    assert wrong == [], wrong[:5]


# ------------------------------------------------------------------ the reader of steps itself


def math(tex_mn: str) -> str:
    return f'<math display="block"><mrow>{tex_mn}</mrow></math>'


def test_it_reads_the_issues_example_and_finds_it_false() -> None:
    # problem 2 as it was compiled: the printed weights give 88.69, the page said 88.68
    html = math(
        "<mn>0.119</mn><mo>×</mo><mn>80</mn><mo>+</mo><mn>0.879</mn><mo>×</mo><mn>90</mn>"
    ) + math("<mo>+</mo><mn>0.002</mn><mo>×</mo><mn>30</mn><mo>≈</mo><mn>88.68</mn>")
    assert false_steps(html) == [("0.119 × 80 + 0.879 × 90 + 0.002 × 30 ≈ 88.68", 88.69)]
    assert false_steps(html.replace("88.68", "88.69")) == []


@pytest.mark.parametrize(
    ("text", "true"),
    [
        ("<p>1 − 0.652 = 0.348</p>", True),
        ("<p>1 − 0.652 = 0.358</p>", False),
        ("<p>3 × 512 × 64 = 98,304</p>", True),
        ("<p>12 × 6 × 121 = 8,712.</p>", True),
        ("<p>7.389 + 0.368 + 0.607 = 8.363</p>", False),  # §15 problem 1 as it was
        ("<p>2.718 / 11.756 ≈ 0.231</p>", True),
        ("<p>(1, 0.5) · (2, −1) = 1.5</p>", True),
        ("<p>(1, 0.5) · (2, −1) = 2.5</p>", False),
        ("<p>d = 512 / 8 = 64</p>", True),
    ],
)
def test_it_checks_each_kind_of_step(text: str, true: bool) -> None:
    assert len(steps(text)) == 1, steps(text)
    assert (false_steps(text) == []) is true


@pytest.mark.parametrize(
    ("text", "false"),
    [
        # §12's running blend as printed: a chain whose middle is a sum, then its total
        ("<p>0.871 + 1 × 6 + 0.050 × 4 = 0.871 + 6 + 0.200 = 7.071</p>", []),
        ("<p>0.871 + 1 × 6 + 0.050 × 4 = 0.871 + 6 + 0.250 = 7.121</p>", ["= 0.871 + 6 + 0.250"]),
        ("<p>0.871 + 1 × 6 + 0.050 × 4 = 0.871 + 6 + 0.200 = 7.081</p>", ["+ 0.200 = 7.081"]),
    ],
)
def test_a_chain_is_checked_link_by_link(text: str, false: list[str]) -> None:
    # each link of a = b = c is a step: a against b (within b's printed digits), then b against c
    assert len(steps(text)) == 2, steps(text)
    found = [printed for printed, _ in false_steps(text)]
    assert len(found) == len(false) and all(f in got for f, got in zip(false, found, strict=True))


def test_powers_roots_and_indices_are_not_read_as_steps() -> None:
    # e^{2} ≈ 7.389, √64 = 8, n² = 121: none is "2 ≈ 7.389" or "64 = 8"
    html = (
        "<math><msup><mi>e</mi><mn>2</mn></msup><mo>≈</mo><mn>7.389</mn></math> "
        "<math><msqrt><mn>64</mn></msqrt><mo>=</mo><mn>8</mn></math> "
        "<math><msup><mi>n</mi><mn>2</mn></msup><mo>=</mo><mn>121</mn></math>"
    )
    assert steps(html) == []
    assert steps("<p>Softmax of (2, 4): e − 2 β shrinks, and 1/4 of 104 is 26.</p>") == []
