"""Stage 2a: variants. A check or problem with ``:variant: NAME`` takes its figures from the
function NAME of the unit's figures (``VARIANTS`` in a section module), called with a seed:

    def soft_weights(seed: int) -> dict[str, str]     # name -> text as printed, by the engine

The block (from its opening fence to its closing one) takes that function's figures for the
seed, the rest of the section the unit's figures() (a FigureScope, which passes/figures.py and
the directives' options read). The block's source is kept in the compiled check
(model.Variant), so the web layer can compile it again for any seed
(mathmachine.coursebook.variants): statement, key, mistakes, hints and solution recomputed.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from ..errors import CompileError, DirectiveOptionError, FiguresError, suggest
from ..model import Variant
from .load import FIGURE_NAME
from .scope import FigureScope

DEFAULT_SEED = 1  # the variant compiled into the unit (and printed when no seed is asked for)
MAX_SEED = 999_999
OPEN = re.compile(r"^\s*(:{3,})\{(check|problem)\}")
VARIANT_OPTION = re.compile(r"^\s*:variant:\s*(.*?)\s*$")
OPTION = re.compile(r"^\s*:[A-Za-z][\w-]*:")

VariantFunction = Callable[[int], dict[str, str]]


def find_blocks(lines: list[str]) -> list[tuple[int, int, str, int]]:
    """(first line, last line, function name, line of :variant:) of each variant block,
    1-based file lines."""
    blocks = []
    i = 0
    while i < len(lines):
        m = OPEN.match(lines[i])
        if not m:
            i += 1
            continue
        colons = len(m.group(1))
        name, at = "", 0
        j = i + 1
        while j < len(lines) and OPTION.match(lines[j]):
            vm = VARIANT_OPTION.match(lines[j])
            if vm:
                name, at = vm.group(1), j + 1
            j += 1
        end = next(
            (k for k in range(j, len(lines)) if re.fullmatch(rf"\s*:{{{colons},}}\s*", lines[k])),
            len(lines) - 1,
        )
        if at:
            blocks.append((i + 1, end + 1, name, at))
        i = end + 1
    return blocks


def variant_figures(
    function: VariantFunction, name: str, seed: int, path: Path, line: int
) -> tuple[dict[str, str], list[CompileError]]:
    """Call the variant function for ``seed`` and check what it gives (like figures())."""
    try:
        values = function(seed)
    except Exception as exc:
        return {}, [
            FiguresError(path, line, f"variant {name}({seed}) raised {type(exc).__name__}: {exc}")
        ]
    if not isinstance(values, dict):
        return {}, [FiguresError(path, line, f"variant {name}({seed}) must return a dict")]
    errors: list[CompileError] = []
    for key, value in values.items():
        if not isinstance(key, str) or not FIGURE_NAME.match(key):
            errors.append(FiguresError(path, line, f"variant {name}: {key!r} is not a figure name"))
        elif not isinstance(value, str) or "\n" in value or "\r" in value:
            errors.append(
                FiguresError(path, line, f"variant {name}: {key!r} must be one line of text")
            )
    return (values if not errors else {}), errors


def variant_scope(
    text: str,
    path: Path,
    figures: dict[str, str],
    functions: dict[str, VariantFunction],
    seed: int,
) -> tuple[FigureScope, dict[int, Variant], list[CompileError]]:
    """Which figures each line of the section takes (the variant blocks their functions' at
    ``seed``), the blocks found (by opening line) and the errors."""
    lines = text.split("\n")
    scope = FigureScope(figures)
    errors: list[CompileError] = []
    found: dict[int, Variant] = {}
    for first, last, name, at in find_blocks(lines):
        function = functions.get(name)
        if function is None:
            close = suggest(name, functions)
            hint = f" (did you mean {close}?)" if close else ""
            known = ", ".join(sorted(functions)) or "none"
            errors.append(
                DirectiveOptionError(
                    path, at, f"unknown variant {name!r}{hint}: the figures' VARIANTS has {known}"
                )
            )
            scope.regions.append((first, last, None, name))
            continue
        values, errs = variant_figures(function, name, seed, path, at)
        errors.extend(errs)
        if errs:  # its references are not reported too: the function's error says what is wrong
            scope.regions.append((first, last, None, name))
            continue
        block = "\n".join(lines[first - 1 : last])
        found[first] = Variant(function=name, source=block, line=first, seed=seed)
        scope.regions.append((first, last, values, f"the variant {name}({seed})"))
    return scope, found, errors


def parse_seed(text: object) -> int | None:
    """A seed from a URL or a form: a whole number from 1 to MAX_SEED, else None."""
    if not isinstance(text, str) or not text.isascii() or not text.isdigit() or len(text) > 6:
        return None
    seed = int(text)
    return seed if 1 <= seed <= MAX_SEED else None
