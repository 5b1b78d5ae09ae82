"""Server-side grading of numeric checks, with lenient parsing of what learners type.

Accepted forms for one field (see docs/CONTENT-FORMAT "Answers accepted"):
    "0.936"  ".936"  "93.6%"  "(0.017, 0.047, 0.936)"  "0.017 0.047 0.936"  "[0.017,0.047,0.936]"
    "1,050" (thousands separator, single-number field only; also Indian grouping "1,05,000")
    "१०५०" (Devanagari or any other Unicode decimal digits)  "1/3"  "−0.5" (Unicode minus)
A comma is a separator, never a decimal point: "0,936" is two numbers.
Parsing never raises: anything unusable gives Grade(ok=False, message=...).
"""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass

from .model import CheckDef, Field

FORMAT_MESSAGE = "Type a number like 0.936 or a list like (0.1, 0.2, 0.7)"
MAX_ANSWER_CHARS = 200

_MINUS = dict.fromkeys(map(ord, "\u2212\u2012\u2013\u2014\ufe63\uff0d"), "-")
_PREFIXES = ("≈", "~", "=", "≃", "about")
_BRACKETS = {"(": ")", "[": "]", "{": "}", "⟨": "⟩", "<": ">"}
_NUMBER = re.compile(r"^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?%?$")
_FRACTION = re.compile(r"^([+-]?(?:\d+\.?\d*|\.\d+))/((?:\d+\.?\d*|\.\d+))$")
# 1,050 / 12,345,678.5 (western) and 1,05,000 (Indian); the first group may not start with 0.
_THOUSANDS = re.compile(r"^[+-]?(?:[1-9]\d{0,2}(?:,\d{3})+|[1-9]\d?(?:,\d{2})+,\d{3})(?:\.\d+)?$")
_SEPARATORS = re.compile(r"[,;\s]+")


class NumberFormatError(ValueError):
    """Text that is not a number or list of numbers (message is learner-facing)."""


def _ascii_digits(text: str) -> str:
    out = []
    for ch in text:
        if ch.isdigit() and not ("0" <= ch <= "9"):
            d = unicodedata.decimal(ch, None)
            out.append(str(d) if d is not None else ch)
        else:
            out.append(ch)
    return "".join(out)


def normalize(raw: str) -> str:
    """Unicode digits -> ASCII, minus signs -> "-", one pair of enclosing brackets removed."""
    text = unicodedata.normalize("NFKC", raw)
    text = _ascii_digits(text).translate(_MINUS).strip()
    for prefix in _PREFIXES:
        if text.lower().startswith(prefix):
            text = text[len(prefix) :].strip()
    if len(text) >= 2 and _BRACKETS.get(text[0]) == text[-1]:
        text = text[1:-1].strip()
    text = re.sub(r"\s+%", "%", text)
    text = re.sub(r"\s*/\s*", "/", text)
    return text


def _one_number(token: str) -> float:
    m = _FRACTION.match(token)
    if m:
        den = float(m.group(2))
        if den == 0:
            raise NumberFormatError("A fraction cannot have 0 below the line.")
        value = float(m.group(1)) / den
    elif _NUMBER.match(token):
        value = float(token[:-1]) / 100 if token.endswith("%") else float(token)
    else:
        raise NumberFormatError(FORMAT_MESSAGE)
    if not math.isfinite(value):
        raise NumberFormatError(FORMAT_MESSAGE)
    return value


def parse_numbers(raw: str, expected: int | None = None) -> tuple[float, ...]:
    """Parse one field's text into numbers. expected: how many numbers the field takes.

    Raises NumberFormatError (learner-facing message) when the text is unusable or holds the
    wrong count of numbers.
    """
    if not isinstance(raw, str):
        raise NumberFormatError(FORMAT_MESSAGE)
    if len(raw) > MAX_ANSWER_CHARS:
        raise NumberFormatError(
            f"That answer is too long: keep it under {MAX_ANSWER_CHARS} characters."
        )
    text = normalize(raw)
    if not text:
        raise NumberFormatError(FORMAT_MESSAGE)
    if expected in (1, None) and _THOUSANDS.match(text):
        tokens = [text.replace(",", "")]
    else:
        tokens = [t for t in _SEPARATORS.split(text) if t]
    if not tokens:
        raise NumberFormatError(FORMAT_MESSAGE)
    values = tuple(_one_number(t) for t in tokens)
    if expected is not None and len(values) != expected:
        if expected == 1:
            hint = ""
            if re.fullmatch(r"[+-]?\d+,\d+", text):
                hint = f" For a decimal, use a point: {text.replace(',', '.')}."
            raise NumberFormatError(f"This answer is one number; you gave {len(values)}.{hint}")
        raise NumberFormatError(
            f"This answer is a list of {expected} numbers, like "
            f"({', '.join(['0.1'] * expected)}); you gave {len(values)}."
        )
    return values


def decimals_of(token: str) -> int:
    """Digits after the decimal point of a printed number ("0.936" -> 3, "1,050" -> 0)."""
    token = token.strip().rstrip("%")
    mantissa = re.split(r"[eE]", token)[0]
    return len(mantissa.split(".", 1)[1]) if "." in mantissa else 0


def default_tolerance(answer_text: str) -> float:
    """Half a unit of the last printed digit; for a vector, of its most precise entry."""
    text = normalize(answer_text)
    tokens = [text] if _THOUSANDS.match(text) else [t for t in _SEPARATORS.split(text) if t]
    places = max((decimals_of(t) for t in tokens), default=0)
    return 0.5 * 10.0 ** (-places)


@dataclass(frozen=True)
class FieldGrade:
    """How one answer box fared. values is None when the text could not be read."""

    label: str
    raw: str
    values: tuple[float, ...] | None
    correct: bool
    message: str = ""


@dataclass(frozen=True)
class Grade:
    """ok: the answer could be read (every field). correct: every field within tolerance.
    feedback_html: the check's correct feedback, a matching mistake's, or the wrong feedback
    ("" when ok is False). message: what to tell the learner when ok is False."""

    ok: bool
    correct: bool
    fields: tuple[FieldGrade, ...]
    feedback_html: str
    message: str = ""


def _close(values: tuple[float, ...], target: tuple[float, ...], tol: float) -> bool:
    slack = 1e-9 * max(1.0, *(abs(t) for t in target)) if target else 0.0
    return len(values) == len(target) and all(
        abs(v - t) <= tol + slack for v, t in zip(values, target, strict=True)
    )


def _grade_field(f: Field, raw: str) -> FieldGrade:
    try:
        values = parse_numbers(raw, expected=len(f.answer))
    except NumberFormatError as exc:
        return FieldGrade(f.label, raw if isinstance(raw, str) else "", None, False, str(exc))
    return FieldGrade(f.label, raw, values, _close(values, f.answer, f.tolerance))


def grade(check: CheckDef, raw: list[str]) -> Grade:
    """Grade a learner's answer: raw holds one string per field of the check. Never raises."""
    n = len(check.fields)
    raw = list(raw) if isinstance(raw, list | tuple) else []
    if len(raw) != n:
        boxes = "one answer" if n == 1 else f"{n} answers"
        return Grade(False, False, (), "", f"This check takes {boxes}; got {len(raw)}.")
    fields = tuple(_grade_field(f, r) for f, r in zip(check.fields, raw, strict=True))
    unread = [fg for fg in fields if fg.values is None]
    if unread:
        msg = unread[0].message
        if n > 1:
            label = unread[0].label
            msg = f"{label[:1].upper()}{label[1:]}: {msg}"
        return Grade(False, False, fields, "", msg)
    if all(fg.correct for fg in fields):
        return Grade(True, True, fields, check.feedback_correct_html)
    for mistake in check.mistakes:
        if all(
            fg.values is not None and _close(fg.values, target, f.tolerance)
            for fg, target, f in zip(fields, mistake.answer, check.fields, strict=True)
        ):
            return Grade(True, False, fields, mistake.html)
    return Grade(True, False, fields, check.feedback_wrong_html)
