"""A widget's options, declared once: the kit parses and validates them before the renderer runs.

    options=(
        option.example("example", default="lookback", needs=("notes", "states")),
        option.integer("select", default=1, minimum=1),
        option.number("beta", default=1.0, minimum=0.0, maximum=10.0),
        option.choice("mode", ("toy", "real"), default="toy"),
        option.text("label", default=""),
    )

Every option is a ``:key: value`` line of the directive. An unknown key, a missing required one
(``default=None``) or a value that does not parse is a WidgetOptionError, which the compiler
reports at the directive's file:line. ``:id:`` is always there (the directive requires it): it
must be a valid HTML id, and it reaches the renderer as ``opts["id"]``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["Option", "WidgetOptionError", "choice", "example", "integer", "number", "parse", "text"]

ID = re.compile(r"[A-Za-z][\w-]*\Z")


class WidgetOptionError(ValueError):
    """A widget's options are wrong; the message says which and why (no file:line needed)."""


@dataclass(frozen=True)
class Option:
    """name: the ``:key:``; default: used when the line is absent (None = required);
    read(raw, examples): the parsed value or a WidgetOptionError; describe: for messages;
    kind: "example" for option.example (its key is passed on too)."""

    name: str
    read: Callable[[str, Mapping[str, Any]], Any]
    default: Any = None
    describe: str = ""
    kind: str = ""


def text(name: str, *, default: str | None = None, pattern: str | None = None) -> Option:
    rx = re.compile(pattern) if pattern else None

    def read(raw: str, examples: Mapping[str, Any]) -> str:
        if rx is not None and not rx.fullmatch(raw):
            raise WidgetOptionError(f":{name}: {raw!r} must match {pattern}")
        return raw

    return Option(name, read, default, "text")


def integer(
    name: str, *, default: int | None = None, minimum: int | None = None, maximum: int | None = None
) -> Option:
    span = _span(minimum, maximum)

    def read(raw: str, examples: Mapping[str, Any]) -> int:
        if not re.fullmatch(r"[+-]?\d+", raw):
            raise WidgetOptionError(f":{name}: must be a whole number{span}, got {raw!r}")
        value = int(raw)
        _bounds(name, value, minimum, maximum, span)
        return value

    return Option(name, read, default, f"a whole number{span}")


def number(
    name: str,
    *,
    default: float | None = None,
    minimum: float | None = None,
    maximum: float | None = None,
) -> Option:
    span = _span(minimum, maximum)

    def read(raw: str, examples: Mapping[str, Any]) -> float:
        try:
            value = float(raw)
        except ValueError:
            value = math.nan
        if not math.isfinite(value):
            raise WidgetOptionError(f":{name}: must be a number{span}, got {raw!r}")
        _bounds(name, value, minimum, maximum, span)
        return value

    return Option(name, read, default, f"a number{span}")


def choice(name: str, choices: Sequence[str], *, default: str | None = None) -> Option:
    allowed = ", ".join(choices)

    def read(raw: str, examples: Mapping[str, Any]) -> str:
        if raw not in choices:
            raise WidgetOptionError(f":{name}: must be one of {allowed}, got {raw!r}")
        return raw

    return Option(name, read, default, f"one of {allowed}")


def example(
    name: str = "example", *, default: str | None = None, needs: Sequence[str] = ()
) -> Option:
    """A key of the unit's figures.EXAMPLES; the renderer gets the example's dict itself (and the
    key as ``opts[name + "_key"]``). ``needs``: the keys the example must have."""

    def read(raw: str, examples: Mapping[str, Any]) -> dict[str, Any]:
        if raw not in examples:
            known = ", ".join(sorted(examples)) or "none"
            raise WidgetOptionError(f"unknown example {raw!r} (figures.EXAMPLES has: {known})")
        value = examples[raw]
        if not isinstance(value, dict):
            raise WidgetOptionError(f"example {raw!r} must be a dict")
        missing = [k for k in needs if k not in value]
        if missing:
            raise WidgetOptionError(f"example {raw!r} lacks {', '.join(missing)}")
        return value

    return Option(name, read, default, "a key of figures.EXAMPLES", kind="example")


def parse(
    declared: Sequence[Option], raw: Mapping[str, str], examples: Mapping[str, Any], uid: str
) -> dict[str, Any]:
    """The directive's ``:key: value`` lines, checked against `declared`, as parsed values."""
    known = {o.name: o for o in declared}
    unknown = sorted(set(raw) - set(known) - {"id"})
    if unknown:
        names = ", ".join(sorted({"id", *known}))
        raise WidgetOptionError(f"unknown option(s) {', '.join(unknown)} (known: {names})")
    ident = (raw.get("id") or uid).strip()
    if not ID.match(ident):
        raise WidgetOptionError(f":id: {ident!r} must be letters, digits, '-' or '_'")
    values: dict[str, Any] = {"id": ident}
    for opt in declared:
        given = raw.get(opt.name)
        if given is None:
            if opt.default is None:
                raise WidgetOptionError(f"needs :{opt.name}: ({opt.describe})")
            given = str(opt.default)
        values[opt.name] = opt.read(given.strip(), examples)
        if opt.kind == "example":
            values[f"{opt.name}_key"] = given.strip()
    return values


def _span(minimum: float | None, maximum: float | None) -> str:
    if minimum is not None and maximum is not None:
        return f" from {minimum:g} to {maximum:g}"
    if minimum is not None:
        return f" ≥ {minimum:g}"
    if maximum is not None:
        return f" ≤ {maximum:g}"
    return ""


def _bounds(
    name: str, value: float, minimum: float | None, maximum: float | None, span: str
) -> None:
    if (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
        raise WidgetOptionError(f":{name}: must be{span}, got {value:g}")
