"""Stage 2: replace every ``{{ name }}`` with figures()[name], before parsing.

Figure values never contain a newline (load_figures rejects them), so every line keeps its
number: errors found later still point at the right line of the source file.

A line the writer began with a figure must not turn into a numbered list: "{{ s }}. Asking…"
with s = 1 would read as "1. Asking…", an ordered list item (§3's trap did so). The full stop
or parenthesis after a whole number that starts such a line is escaped ("1\\."), which Markdown
shows as "1." in the paragraph. A variant's numbers can be 1 on some seeds, so this is done here
and not left to the writer.
"""

from __future__ import annotations

import re
from pathlib import Path

from ..errors import CompileError, UnknownFigureError, suggest

FIGURE_REF = re.compile(r"\{\{(.*?)\}\}")
NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]*$")
STARTS_WITH_FIGURE = re.compile(r"^\s*\{\{")
LIST_MARKER = re.compile(r"^(\s*\d{1,9})([.)])(?=\s|$)")  # CommonMark's ordered-list marker


def substitute(
    text: str,
    path: Path,
    figures: dict[str, str],
    *,
    first_line: int = 1,
    skip: frozenset[int] = frozenset(),
    owner: str = "figures() in the unit's figures",
) -> tuple[str, list[CompileError]]:
    """(text with figures substituted, errors). An unknown name is left as written.

    first_line: the file line of the text's first line; skip: file lines left as they are (a
    variant's block, substituted from its own function); owner: who lacks an unknown name.
    """
    errors: list[CompileError] = []
    out_lines: list[str] = []
    for n, line in enumerate(text.split("\n"), start=first_line):
        if "{{" not in line or n in skip:
            out_lines.append(line)
            continue

        def replace(m: re.Match[str], n: int = n) -> str:
            name = m.group(1).strip()
            if not NAME.match(name):
                errors.append(
                    UnknownFigureError(path, n, f"{{{{{m.group(1)}}}}} is not a figure name")
                )
                return m.group(0)
            if name not in figures:
                close = suggest(name, figures)
                hint = f" (did you mean {{{{ {close} }}}}?)" if close else ""
                errors.append(
                    UnknownFigureError(
                        path,
                        n,
                        f"unknown figure {{{{ {name} }}}}{hint}: {owner} has no such entry",
                    )
                )
                return m.group(0)
            return figures[name]

        out = FIGURE_REF.sub(replace, line)
        if STARTS_WITH_FIGURE.match(line):
            out = LIST_MARKER.sub(r"\1\\\2", out)
        out_lines.append(out)
    return "\n".join(out_lines), errors
