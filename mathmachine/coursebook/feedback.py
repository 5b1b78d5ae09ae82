"""What a learner is shown after answering: feedback that teaches without giving the answer away.

    feedback_for(check, correct=..., mistakes=..., fields_right=..., wrong_attempts=...,
                 revealed=...) -> Feedback

A right answer gets the check's "correct" feedback. A wrong one gets the named mistakes it
matches (computed by the engine alongside the key, or recognised by the kind); otherwise a hint,
the first after the first wrong answer, the second after the next; otherwise the check's general
"wrong" words. A practice problem's hints are not in its feedback: they open one at a time on
request under "Need a hint?" (learning/_check.html), so its wrong answer points there instead of
printing a hint the learner may have open already. None of these prints the key (the compiler
refuses one that does). A check with several boxes says which boxes are right. The worked answer
(the check's {solution}) is shown after REVEAL_AFTER wrong answers, when the learner asks for it
("show me", recorded), and for a practice problem once it is answered right.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .model import CheckDef

REVEAL_AFTER = 3  # wrong answers after which the worked answer is shown without asking
NOT_QUITE = "<p>Not quite. Go over the steps once more and try again.</p>"
TRY_A_HINT = "<p>Go over the steps once more, or open “Need a hint?” above.</p>"


@dataclass(frozen=True)
class Feedback:
    """verdict: "right" or "wrong". fields: (label, right) per box, for a check with several
    boxes (empty for one box). notes: the kinds' remarks. body_html: the feedback to read now
    (mistake explanations, a hint, or general words). hint: which hint body_html ends with
    (1, 2; 0 none). solution_html: the worked answer when it is shown, else "". offer_solution:
    show the "show me the worked answer" button."""

    verdict: str
    fields: tuple[tuple[str, bool], ...]
    notes: tuple[str, ...]
    body_html: str
    hint: int
    solution_html: str
    offer_solution: bool


def feedback_for(
    check: CheckDef,
    *,
    correct: bool,
    mistakes: Sequence[str],
    fields_right: Sequence[bool],
    wrong_attempts: int,
    revealed: bool,
    notes: Sequence[str] = (),
) -> Feedback:
    """The feedback for an answer graded ``correct``/``mistakes``/``fields_right``, after
    ``wrong_attempts`` wrong answers in all (this one included), the worked answer ``revealed``
    on request or not."""
    fields: tuple[tuple[str, bool], ...] = ()
    if len(check.fields) > 1 and len(fields_right) == len(check.fields):
        fields = tuple((f.label, bool(r)) for f, r in zip(check.fields, fields_right, strict=True))
    show_solution = bool(check.solution_html) and (
        revealed or wrong_attempts >= REVEAL_AFTER or (correct and check.problem)
    )
    solution = check.solution_html if show_solution else ""
    offer = bool(check.solution_html) and not show_solution and (check.problem or not correct)
    if correct:
        return Feedback("right", fields, (), check.feedback_correct_html, 0, solution, offer)
    bodies = [m.html for name in mistakes if (m := check.mistake(name)) is not None]
    hint = 0
    if not bodies:
        if check.feedback_wrong_html:
            bodies.append(check.feedback_wrong_html)
        if check.hints_html and not check.problem:
            hint = min(max(wrong_attempts, 1), len(check.hints_html))
            bodies.append(check.hints_html[hint - 1])
        if not bodies:
            bodies.append(TRY_A_HINT if check.hints_html else NOT_QUITE)
    return Feedback("wrong", fields, tuple(notes), "".join(bodies), hint, solution, offer)
