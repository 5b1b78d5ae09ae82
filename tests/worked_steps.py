"""The arithmetic a compiled page prints, checked against its own printed numbers.

    false_steps(html) -> list of (the step as printed, what its numbers give)

A step is a run like "0.119 × 80 + 0.879 × 90 + 0.002 × 30 = 88.69", "1 − 0.652 = 0.348",
"3 × 512 × 64 = 98,304", "2.718 / 11.756 ≈ 0.231" or "(1, 0.5) · (2, 1) = 2.5" (a dot
product): numbers and lists joined by + − × · / and ending in = or ≈ and one number. It is true
when its left side, computed from the numbers as printed, rounds to the printed result (half a
unit of the result's last digit either way). A step whose right side is itself a sum or product
("0.871 + 1 × 6 = 0.871 + 6", a chain written out) is true when both sides agree within half a
unit of the last digit of each decimal on the right; the right side is then the next step's
left. Powers, roots, fractions and indices in the math
(e^{1.5}, √64, n²) are not read: they break a run, so "e^2 ≈ 7.389" is no step of "2 ≈ 7.389".
"""

from __future__ import annotations

import html as html_lib
import re
from dataclasses import dataclass

_DROP = re.compile(r"<(script|annotation|style)\b.*?</\1>|<!--.*?-->", re.S)
# MathML that does not read left to right as written: replaced by a mark that breaks a run
_NESTED = re.compile(
    r"<(msup|msub|msubsup|msqrt|mroot|mfrac|munder|mover|munderover|mtable)\b[^>]*>"
    r"(?:(?!<\1\b).)*?</\1>",
    re.S,
)
_TAG = re.compile(r"<[^>]+>")
BREAK = " ⊠ "

_NUMBER = r"[−-]?(?:\d{1,3}(?:,\d{3})+(?![\d,])|\d+(?:\.\d+)?|\.\d+)(?![\d.]*\d)"
_TOKEN = re.compile(
    rf"\((?:\s*{_NUMBER}\s*,)+\s*{_NUMBER}\s*\)"  # a list (0.1, 0.2)
    rf"|{_NUMBER}"
    r"|[+−×·/=≈-]"
    r"|\S"
)
OPS = {"+", "−", "-", "×", "·", "/"}
RELATIONS = {"=", "≈"}


def page_text(fragment: str) -> str:
    """What a reader sees, with powers, roots, fractions and indices marked as breaks."""
    text = _DROP.sub(" ", fragment)
    while True:
        done = _NESTED.sub(BREAK, text)
        if done == text:
            break
        text = done
    return html_lib.unescape(_TAG.sub(" ", text))


def _number(token: str) -> float | None:
    t = token.replace("−", "-").replace(",", "")
    try:
        return float(t)
    except ValueError:
        return None


def _operand(token: str) -> float | tuple[float, ...] | None:
    if token.startswith("("):
        parts = [_number(p.strip()) for p in token.strip("()").split(",")]
        if any(p is None for p in parts):
            return None
        return tuple(p for p in parts if p is not None)
    return _number(token)


def _places(token: str) -> int:
    return len(token.split(".", 1)[1]) if "." in token else 0


Value = float | tuple[float, ...]


def _times(a: Value, b: Value, op: str) -> Value | None:
    if isinstance(a, tuple) and isinstance(b, tuple):
        if op != "·" or len(a) != len(b):
            return None
        return sum(x * y for x, y in zip(a, b, strict=True))
    if isinstance(a, tuple) or isinstance(b, tuple):
        if op == "/":
            return None
        s, v = (a, b) if isinstance(b, tuple) else (b, a)
        assert isinstance(v, tuple) and not isinstance(s, tuple)
        return tuple(s * x for x in v)
    if op == "/":
        return a / b if b else None
    return a * b


def _plus(a: Value, b: Value, sign: float) -> Value | None:
    if isinstance(a, tuple) != isinstance(b, tuple):
        return None
    if isinstance(a, tuple) and isinstance(b, tuple):
        if len(a) != len(b):
            return None
        return tuple(x + sign * y for x, y in zip(a, b, strict=True))
    assert not isinstance(a, tuple) and not isinstance(b, tuple)
    return a + sign * b


def evaluate(operands: list[Value], ops: list[str]) -> Value | None:
    """operands[0] ops[0] operands[1] ...: × · / before + −."""
    terms: list[Value] = [operands[0]]
    signs: list[float] = [1.0]
    for op, x in zip(ops, operands[1:], strict=True):
        if op in ("×", "·", "/"):
            got = _times(terms[-1], x, op)
            if got is None:
                return None
            terms[-1] = got
        else:
            terms.append(x)
            signs.append(-1.0 if op in ("−", "-") else 1.0)
    total: Value | None = terms[0]
    for t, s in zip(terms[1:], signs[1:], strict=True):
        if total is None:
            return None
        total = _plus(total, t, s)
    return total


@dataclass(frozen=True)
class Step:
    printed: str
    result: float
    computed: float
    tolerance: float | None = None  # None: half a unit of the printed result's last digit


def _run(tokens: list[str], i: int) -> tuple[list[Value], list[str], list[str], int]:
    """The operands, operators and texts of the run of arithmetic at tokens[i], and its end."""
    first = _operand(tokens[i])
    if first is None:
        return [], [], [], i + 1
    operands: list[Value] = [first]
    ops: list[str] = []
    texts = [tokens[i]]
    j = i + 1
    while j + 1 < len(tokens) and tokens[j] in OPS:
        nxt = _operand(tokens[j + 1])
        if nxt is None:
            break
        ops.append(tokens[j])
        operands.append(nxt)
        texts += [tokens[j], tokens[j + 1]]
        j += 2
    return operands, ops, texts, j


def _half_units(texts: list[str]) -> float:
    """Half a unit of the last digit of every decimal among ``texts``, summed (a whole number
    in a chain is taken as exact: 1 × 6 = 6)."""
    return sum(0.5 * 10.0 ** -_places(t) for t in texts if "." in t and _number(t) is not None)


def steps(fragment: str) -> list[Step]:
    """Every printed step of a fragment, with what its numbers give."""
    out: list[Step] = []
    tokens = _TOKEN.findall(page_text(fragment))
    i = 0
    while i < len(tokens):
        operands, ops, texts, j = _run(tokens, i)
        if not operands:
            i = j
            continue
        if ops and j + 1 < len(tokens) and tokens[j] in RELATIONS:
            value = evaluate(operands, ops)
            r_operands, r_ops, r_texts, _ = _run(tokens, j + 1)
            if r_ops:  # the right side is a sum or product itself: both sides must agree
                r_value = evaluate(r_operands, r_ops)
                if isinstance(value, float) and isinstance(r_value, float):
                    printed = " ".join([*texts, tokens[j], *r_texts])
                    out.append(Step(printed, r_value, value, _half_units(r_texts)))
            else:
                result = _number(tokens[j + 1]) if not tokens[j + 1].startswith("(") else None
                if result is not None and isinstance(value, float):
                    out.append(Step(" ".join([*texts, tokens[j], tokens[j + 1]]), result, value))
        i = max(j, i + 1)
    return out


def is_true(step: Step) -> bool:
    if step.tolerance is not None:
        allowed = step.tolerance
    else:
        allowed = 0.5 * 10.0 ** -_places(step.printed.rsplit(" ", 1)[-1])
    return abs(step.computed - step.result) <= allowed + 1e-9 * max(1.0, abs(step.result))


def false_steps(fragment: str) -> list[tuple[str, float]]:
    """The steps of a fragment its own numbers do not give: (as printed, what they give)."""
    return [(s.printed, s.computed) for s in steps(fragment) if not is_true(s)]
