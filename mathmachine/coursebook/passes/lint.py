"""Stage 3: no hand-typed decimals. Every decimal a learner sees comes from the engine, through
figures() and ``{{ name }}``. Integers may be typed. Runs on the source as written.

Not counted: text inside ``{{ }}``, a ``:tolerance:`` option line (never shown), and URLs
(link targets such as arxiv.org/abs/1409.0473).
"""

from __future__ import annotations

import re
from pathlib import Path

from ..errors import CompileError, HandTypedFigureError

DECIMAL = re.compile(r"(?<![\w.])\d*\.\d+")
_MASKS = (
    re.compile(r"\{\{.*?\}\}"),  # figure references
    re.compile(r"\]\([^)\s]*"),  # link destinations
    re.compile(r"<https?://[^>]*>"),  # autolinks
    re.compile(r"https?://\S+"),  # bare URLs
)
_EXEMPT_LINE = re.compile(r"^\s*:tolerance:")


def _mask(line: str) -> str:
    for pattern in _MASKS:
        line = pattern.sub(lambda m: " " * len(m.group()), line)
    return line


def lint_decimals(text: str, path: Path, figures: dict[str, str]) -> list[CompileError]:
    """One HandTypedFigureError per decimal literal typed outside ``{{ }}``."""
    by_value: dict[str, list[str]] = {}
    for key, value in figures.items():
        by_value.setdefault(value.strip(), []).append(key)
    errors: list[CompileError] = []
    for n, line in enumerate(text.split("\n"), start=1):
        if "." not in line or _EXEMPT_LINE.match(line):
            continue
        for m in DECIMAL.finditer(_mask(line)):
            literal = m.group()
            names = by_value.get(literal, [])
            if len(names) == 1:
                hint = f"write {{{{ {names[0]} }}}}"
            elif names:
                shown = ", ".join(f"{{{{ {n} }}}}" for n in names[:4])
                more = ", ..." if len(names) > 4 else ""
                hint = f"write the figure it stands for: one of {shown}{more}"
            else:
                hint = "add it to figures() (computed by the engine) and write {{ name }}"
            errors.append(HandTypedFigureError(path, n, f'hand-typed figure "{literal}": {hint}'))
    return errors
