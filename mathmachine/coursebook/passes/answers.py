"""Stage 8: the rules on printed answers, run on a compiled section.

1. A "Pause & predict" comes before anything on the page prints its answer: the text before a
   check's marker (prose, math, a widget's no-JS figure) may not show a figure of its key.
2. Feedback never gives the key away: a check's or problem's hints, named mistakes and general
   "wrong" words may not print a figure of its key (its {solution} may).

A figure counts when it tells: a decimal (0.936), or a whole number of two digits or more
(1050); figures its own prompt prints (the 35 of "35 Hindi words") do not count.
"""

from __future__ import annotations

import html as html_lib
import re

from ..errors import AnswerShownError
from ..kinds import KINDS
from ..model import CheckDef
from .context import SectionContext

_DROP = re.compile(r"<(script|annotation|style)\b.*?</\1>|<!--.*?-->", re.S)
_TAG = re.compile(r"<[^>]+>")


def visible_text(html: str) -> str:
    """What a reader sees of a fragment: no tags, scripts, LaTeX annotations or comments."""
    return html_lib.unescape(_TAG.sub(" ", _DROP.sub(" ", html)))


def _telling(figure: str) -> bool:
    digits = re.sub(r"\D", "", figure)
    return "." in figure or "/" in figure or len(digits) >= 2


def _pattern(figure: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\d.]){re.escape(figure)}(?![\d])(?!\.\d)")


def telling_figures(check: CheckDef) -> list[str]:
    """The figures of the check's key that would give it away, less those its prompt prints."""
    prompt = visible_text(check.prompt_html)
    out: list[str] = []
    for f in check.fields:
        for figure in KINDS[f.kind].printed(f.key):
            if _telling(figure) and not _pattern(figure).search(prompt) and figure not in out:
                out.append(figure)
    return out


def _line_of(check: CheckDef) -> int:
    return int(check.source.rsplit(":", 1)[1]) if ":" in check.source else 1


def check_printed_answers(html: str, ctx: SectionContext) -> None:
    """Record an AnswerShownError for every breach of the two rules."""
    source_lines = ctx.text.split("\n")
    for check in [*ctx.checks, *ctx.problems]:
        figures = telling_figures(check)
        line = _line_of(check)
        if not check.problem:
            before = visible_text(html.split(check.marker, 1)[0])
            for figure in figures:
                if not _pattern(figure).search(before):
                    continue
                where = next(
                    (
                        n
                        for n in range(line - 1, 0, -1)
                        if _pattern(figure).search(source_lines[n - 1])
                    ),
                    line,
                )
                ctx.error(
                    AnswerShownError,
                    where,
                    f"this prints {figure}, the answer of check {check.id} (line {line}), "
                    "before it: a pause & predict comes before anything that shows its answer",
                )
        parts = [("a hint", h) for h in check.hints_html]
        parts += [(f"the mistake {m.name!r}", m.html) for m in check.mistakes]
        parts.append(("the wrong feedback", check.feedback_wrong_html))
        for what, part in parts:
            text = visible_text(part)
            for figure in figures:
                if _pattern(figure).search(text):
                    ctx.error(
                        AnswerShownError,
                        line,
                        f"{what} of {check.id} prints {figure}, its answer: only its {{solution}} "
                        "may show the answer",
                    )
