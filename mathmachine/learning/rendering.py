"""Turns a compiled section into the page a learner sees: check forms filled in at their markers.

What is the same for every learner is rendered once per process and kept, keyed by the compiled
unit's ``source_hash`` (a digest of the unit's sources and of the compiler's code, so a rebuilt
unit gets new keys): the section body cut at its check markers, the table of contents for one
pattern of open/locked sections, and each check's form as an unanswered learner sees it (with a
placeholder where the CSRF token goes). Nothing personal is kept: a learner's answers, feedback
and messages are rendered per request, and the CSRF token is put in per response.
"""

from __future__ import annotations

import re
import secrets
import threading
from collections.abc import Callable, Hashable, Sequence
from typing import Any, Generic, TypeVar

from django.http import HttpRequest
from django.middleware.csrf import get_token
from django.template.loader import render_to_string
from django.urls import get_script_prefix
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from mathmachine.coursebook.grading import grade
from mathmachine.coursebook.model import CheckDef, CompiledSection, CompiledUnit

from .models import CheckAnswer

CHECK_MARKER = re.compile(r"<!--check:([A-Za-z0-9_-]+)-->")

# Stands for the CSRF token in a kept check form; random per process, so no content can hold it.
_CSRF_PLACEHOLDER = f"csrf-placeholder-{secrets.token_hex(16)}"

_V = TypeVar("_V")


class _Memo(Generic[_V]):
    """A small in-process memo (thread-safe); emptied when it reaches ``size`` entries."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._data: dict[Hashable, _V] = {}
        self._lock = threading.Lock()

    def get(self, key: Hashable, make: Callable[[], _V]) -> _V:
        try:
            return self._data[key]
        except KeyError:
            pass
        value = make()  # outside the lock: two threads may both make it; either result is right
        with self._lock:
            if len(self._data) >= self.size:
                self._data.clear()  # content was rebuilt many times over: start afresh
            self._data[key] = value
        return value

    def clear(self) -> None:
        with self._lock:
            self._data.clear()


# (text, check id, text, check id, ..., text): the section body cut at its check markers.
_BODIES: _Memo[tuple[str, ...]] = _Memo(256)
_TOCS: _Memo[SafeString] = _Memo(1024)
_BLANK_CHECKS: _Memo[str] = _Memo(1024)


def clear_memos() -> None:
    """Forget every kept fragment (tests; the keys change by themselves when content does)."""
    for memo in (_BODIES, _TOCS, _BLANK_CHECKS):
        memo.clear()


def _check_context(
    *, unit: CompiledUnit, check: CheckDef, answer: CheckAnswer | None, message: str
) -> dict[str, Any]:
    result = grade(check, list(answer.last_answer)) if answer and answer.last_answer else None
    fields = []
    for i, field in enumerate(check.fields):
        previous = answer.last_answer[i] if answer and i < len(answer.last_answer) else ""
        fields.append({"index": i, "label": field.label, "value": previous})
    return {
        "unit": unit,
        "check": check,
        "fields": fields,
        "answer": answer,
        "result": result,
        "message": message,
    }


def _blank_check(unit: CompiledUnit, check: CheckDef) -> str:
    """The check as every learner who has not answered it sees it, CSRF token left out."""
    key = (unit.slug, unit.source_hash, check.id, get_script_prefix())

    def make() -> str:
        context = _check_context(unit=unit, check=check, answer=None, message="")
        html = render_to_string(
            "learning/_check.html", {**context, "csrf_token": _CSRF_PLACEHOLDER}
        )
        if html.count(_CSRF_PLACEHOLDER) != 1:
            raise ValueError("learning/_check.html must hold exactly one {% csrf_token %}")
        return html

    return _BLANK_CHECKS.get(key, make)


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
    An unanswered check without a message is the kept form with this response's CSRF token.
    """
    if answer is None and not message:
        token = escape(get_token(request))  # as {% csrf_token %}: marks the cookie for sending
        return mark_safe(_blank_check(unit, check).replace(_CSRF_PLACEHOLDER, token))
    return render_to_string(
        "learning/_check.html",
        _check_context(unit=unit, check=check, answer=answer, message=message),
        request=request,
    )


def _body_pieces(unit: CompiledUnit, section: CompiledSection) -> tuple[str, ...]:
    key = (unit.slug, unit.source_hash, section.number)
    return _BODIES.get(key, lambda: tuple(CHECK_MARKER.split(section.html)))


def section_html(
    *,
    request: HttpRequest,
    unit: CompiledUnit,
    section: CompiledSection,
    answers: dict[str, CheckAnswer],
    messages_by_check: dict[str, str],
) -> SafeString:
    """The section body with each check marker replaced by that check for this learner."""
    checks = {c.id: c for c in section.checks}
    pieces = _body_pieces(unit, section)
    out = list(pieces)
    for i in range(1, len(pieces), 2):  # odd places hold the check ids
        check = checks[pieces[i]]
        out[i] = check_html(
            request=request,
            unit=unit,
            check=check,
            answer=answers.get(check.id),
            message=messages_by_check.get(check.id, ""),
        )
    # The compiled HTML is produced (and escaped) by our own compiler from our own sources.
    return mark_safe("".join(out))


def toc_html(
    *,
    unit: CompiledUnit,
    toc: Sequence[dict[str, object]],
    current: CompiledSection | None,
) -> SafeString:
    """The table of contents (learning/_toc.html) for ``toc`` (selectors.toc_with_access).

    It depends only on the unit, which sections are open and the current one: kept per pattern.
    """
    opened = tuple(bool(item["open"]) for item in toc)
    numbers = tuple(item["section"].number for item in toc)  # type: ignore[attr-defined]
    key = (
        unit.slug,
        unit.source_hash,
        numbers,
        opened,
        current.number if current else None,
        get_script_prefix(),
    )
    return _TOCS.get(
        key,
        lambda: render_to_string(
            "learning/_toc.html", {"unit": unit, "toc": toc, "current": current}
        ),
    )
