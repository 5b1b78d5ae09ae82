"""Every check and problem of every written section, taken from the compiled units: nothing
here lists an id, so a section that lands with new checks is covered as it lands
(tests/gradables.py collects them; problems with fresh numbers are tried at SEEDS, 300 seeds).

For each, at each seed: the key typed back is right, and so is the by-hand answer (what the
worked solution reaches with its printed numbers); each named mistake typed back is named, its
explanation shown, and it is wrong; the kinds' own mistakes (a vector reordered, a matrix
transposed) too; each wrong option of a choice has words of its own; the hints, mistakes and
general wrong words never print the key; the worked solution states an answer the grader takes
(a problem: in its final paragraph); nothing renders an unresolved figure or a NaN. For fresh
numbers: the statements and keys are fresh, and a named mistake is withheld on few seeds (it is
when its answer would be the key).

The hand-written tables of tests/coursebook/test_feedback_typed.py remain for the ways
learners type (₹26, 1,048,576, १०४८५७६); tests/content/test_printed_steps.py checks every
printed step, tests/content/test_hand_worked.py works the arena by hand apart from the figures.
"""

from __future__ import annotations

import math
import re
from collections import Counter

import pytest
from gradables import (
    SEEDS,
    answer_in,
    by_hand_texts,
    checks_of,
    every_gradable,
    every_variant,
    final_paragraph,
    gradable,
    ident,
)

from mathmachine.coursebook import CheckDef
from mathmachine.coursebook.feedback import feedback_for
from mathmachine.coursebook.grading import grade
from mathmachine.coursebook.kinds import KINDS
from mathmachine.coursebook.passes.answers import telling_figures, visible_text
from mathmachine.printing import count

ITEMS = every_gradable()
VARIANTS = every_variant()
BAD = re.compile(r"\bnan\b|\binf\b|\{\{|\}\}", re.I)

#: Fresh numbers must be fresh: over the 300 SEEDS, at least this many different statements and
#: different keys (a softmax only sees differences of scores, so inputs may share an answer).
FRESH_STATEMENTS = 150
FRESH_KEYS = 50
#: A named mistake of a variant is withheld at a seed where its answer is the key (reordered,
#: or within the key's range); more often than this share of seeds, the slip is badly chosen.
MOST_WITHHELD = 0.1
HINTS_OF_A_PROBLEM = 2  # "Need a hint?", then "Another hint"


def test_there_is_something_to_cover() -> None:
    assert len(ITEMS) >= 1 and len(VARIANTS) >= 1


def _where(check: CheckDef, seed: int) -> str:
    return f"{check.id} (seed {seed})" if check.variant else check.id


def _key(check: CheckDef) -> list[str]:
    """The key as a learner types it, box by box."""
    return [KINDS[f.kind].typed(f.key) for f in check.fields]


@pytest.mark.parametrize("item", ITEMS, ids=ident)
def test_the_key_and_the_answer_worked_by_hand_are_right(item: tuple[str, str]) -> None:
    for seed, check in checks_of(*item):
        where = _where(check, seed)
        g = grade(check, _key(check))
        assert g.ok and g.correct, (where, _key(check), g)
        hand = by_hand_texts(check)
        if hand is not None:
            g = grade(check, hand)
            assert g.ok and g.correct, (where, hand, g)
        for f in check.fields:
            assert all(math.isfinite(v) for v in getattr(f.key, "values", ())), where


def _typed(check: CheckDef, box: int, text: str) -> list[str]:
    return [text if i == box else t for i, t in enumerate(_key(check))]


@pytest.mark.parametrize("item", ITEMS, ids=ident)
def test_each_named_mistake_typed_back_is_named_and_explained(item: tuple[str, str]) -> None:
    for seed, check in checks_of(*item):
        where = _where(check, seed)
        for m in check.mistakes:
            if m.builtin:
                tries = [
                    _typed(check, i, text)
                    for i, f in enumerate(check.fields)
                    for name, text in KINDS[f.kind].builtin_examples(f.key).items()
                    if name == m.name
                ]
            else:
                tries = [
                    [
                        KINDS[f.kind].typed(t) if t is not None else key
                        for f, t, key in zip(check.fields, m.answer, _key(check), strict=True)
                    ]
                ]
            own = {n for f in check.fields for n in KINDS[f.kind].builtins} - {m.name}
            for typed in tries:
                g = grade(check, typed)
                assert g.ok and not g.correct and m.name in g.mistakes, (where, m.name, typed, g)
                # not also the kind's own mistake (a slip that gives the key reordered would
                # get two messages that contradict each other)
                assert not own & set(g.mistakes), (where, m.name, g.mistakes)
                shown = feedback_for(
                    check, correct=False, mistakes=g.mistakes, fields_right=g.fields_right,
                    wrong_attempts=1, revealed=False,
                )  # fmt: skip
                assert m.html in shown.body_html, (where, m.name)


@pytest.mark.parametrize("item", ITEMS, ids=ident)
def test_every_wrong_option_of_a_choice_gets_words_of_its_own(item: tuple[str, str]) -> None:
    """A choice check teaches through its options: each wrong one, picked (with a single answer,
    alone; with several, beside the right ones), is wrong and named by a mistake of its own,
    whose explanation the learner is shown."""
    for seed, check in checks_of(*item):
        where = _where(check, seed)
        for i, f in enumerate(check.fields):
            if f.kind != "choice":
                continue
            for option in (o for o in f.key.options if o not in f.key.chosen):
                chosen = [*sorted(f.key.chosen), option] if f.key.several else [option]
                typed = _typed(check, i, ", ".join(chosen))
                g = grade(check, typed)
                assert g.ok and not g.correct and g.mistakes, (where, option, g)
                shown = feedback_for(
                    check, correct=False, mistakes=g.mistakes, fields_right=g.fields_right,
                    wrong_attempts=1, revealed=False,
                )  # fmt: skip
                named = [m for m in check.mistakes if m.name in g.mistakes]
                assert named and all(m.html in shown.body_html for m in named), (where, option)


def _in_every_form(figures: list[str]) -> list[str]:
    """The key's figures, and a count of four digits or more with its thousands separators
    (1048576 as 1,048,576 and 10,48,576)."""
    out = list(figures)
    for figure in figures:
        if figure.isdigit() and len(figure) > 3:
            out += [count(int(figure)), count(int(figure), indian=True)]
    return list(dict.fromkeys(out))


@pytest.mark.parametrize("item", ITEMS, ids=ident)
def test_hints_mistakes_and_wrong_words_never_print_the_key(item: tuple[str, str]) -> None:
    for seed, check in checks_of(*item):
        where = _where(check, seed)
        n = len(check.hints_html)
        assert n == HINTS_OF_A_PROBLEM if check.problem else 1 <= n <= 2, (where, n)
        parts = [*check.hints_html, *(m.html for m in check.mistakes), check.feedback_wrong_html]
        # the words a first wrong answer that matches no mistake gets
        first = feedback_for(
            check, correct=False, mistakes=(), fields_right=(), wrong_attempts=1, revealed=False
        )
        parts.append(first.body_html)
        for figure in _in_every_form(telling_figures(check)):
            for part in parts:
                text = visible_text(part)
                assert not re.search(rf"(?<![\d.]){re.escape(figure)}(?!\d)", text), (
                    where,
                    figure,
                    text[:200],
                )


@pytest.mark.parametrize("item", ITEMS, ids=ident)
def test_the_worked_solution_states_an_answer_graded_right(item: tuple[str, str]) -> None:
    for seed, check in checks_of(*item):
        where = _where(check, seed)
        kinds = {KINDS[f.kind].name for f in check.fields}
        if kinds & {"choice", "words"}:
            # no figure to find: a word's key (one of its spellings) is written out
            for f in check.fields:
                if f.kind == "words":
                    text = visible_text(check.solution_html).lower()
                    words = [w for part in f.answer_text.split(",") for w in part.split("/")]
                    assert any(w.strip().lower() in text for w in words), where
            continue
        fragment = final_paragraph(check.solution_html) if check.problem else check.solution_html
        assert answer_in(check, fragment) is not None, (where, visible_text(fragment))


@pytest.mark.parametrize("item", ITEMS, ids=ident)
def test_every_part_renders_with_no_unresolved_figure(item: tuple[str, str]) -> None:
    for seed, check in checks_of(*item):
        parts = [check.prompt_html, check.solution_html, check.feedback_correct_html]
        parts += [*check.hints_html, *(m.html for m in check.mistakes)]
        for html in parts:
            assert html.strip() and not BAD.search(visible_text(html)), _where(check, seed)


@pytest.mark.parametrize("item", VARIANTS, ids=ident)
def test_fresh_numbers_are_fresh(item: tuple[str, str]) -> None:
    compiled = gradable(*item)
    assert compiled.variant is not None
    checks = [c for _, c in checks_of(*item)]
    assert [c.variant.seed for c in checks if c.variant] == list(SEEDS)
    statements = {c.prompt_html for c in checks}
    keys = {tuple(_key(c)) for c in checks}
    assert len(statements) >= FRESH_STATEMENTS, len(statements)
    assert len(keys) >= FRESH_KEYS, len(keys)
    # every mistake the source names is offered at nearly every seed
    named = re.findall(r"^\s*:{3,}\{mistake\}\s+(\S+)", compiled.variant.source, re.M)
    offered = Counter(m.name for c in checks for m in c.mistakes)
    for name in named:
        withheld = len(SEEDS) - offered[name]
        assert withheld <= MOST_WITHHELD * len(SEEDS), (name, withheld)
