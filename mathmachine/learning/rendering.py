"""Turns a compiled section into the page a learner sees: check forms filled in at their markers."""

from __future__ import annotations

import re

from django.http import HttpRequest
from django.template.loader import render_to_string
from django.utils.safestring import SafeString, mark_safe

from mathmachine.coursebook.grading import grade
from mathmachine.coursebook.model import CheckDef, CompiledSection, CompiledUnit

from .models import CheckAnswer

CHECK_MARKER = re.compile(r"<!--check:([A-Za-z0-9_-]+)-->")


def check_html(
    *,
    request: HttpRequest,
    unit: CompiledUnit,
    check: CheckDef,
    answer: CheckAnswer | None,
    message: str = "",
) -> SafeString:
    """One check: its prompt, the answer form (with the learner's last answer) and feedback.

    Feedback exists only once the learner has answered: the key is never in the page before.
    """
    result = grade(check, list(answer.last_answer)) if answer and answer.last_answer else None
    fields = []
    for i, field in enumerate(check.fields):
        previous = answer.last_answer[i] if answer and i < len(answer.last_answer) else ""
        fields.append({"index": i, "label": field.label, "value": previous})
    return render_to_string(
        "learning/_check.html",
        {
            "unit": unit,
            "check": check,
            "fields": fields,
            "answer": answer,
            "result": result,
            "message": message,
        },
        request=request,
    )


def section_html(
    *,
    request: HttpRequest,
    unit: CompiledUnit,
    section: CompiledSection,
    answers: dict[str, CheckAnswer],
    messages_by_check: dict[str, str],
) -> SafeString:
    checks = {c.id: c for c in section.checks}

    def fill(match: re.Match[str]) -> str:
        check = checks[match.group(1)]
        return check_html(
            request=request,
            unit=unit,
            check=check,
            answer=answers.get(check.id),
            message=messages_by_check.get(check.id, ""),
        )

    # The compiled HTML is produced (and escaped) by our own compiler from our own sources.
    return mark_safe(CHECK_MARKER.sub(fill, section.html))
