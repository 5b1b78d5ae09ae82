"""Which figures each line of a section takes (passes/figures.py places them): the unit's
figures(), except the lines of a check or problem with ``:variant:``, which take its function's
for the seed (passes/variants.py)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from ..errors import suggest

FIGURE_REF = re.compile(r"\{\{(.*?)\}\}")
NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]*$")


@dataclass
class FigureScope:
    """Which figures each line of a section takes: the unit's, except the lines of a variant
    block (first, last, figures, owner), which take its function's for the seed."""

    figures: dict[str, str]
    owner: str = "figures() in the unit's figures"
    # (first line, last line, figures, owner); figures None: the block's function failed (its
    # error says so), so its references are left as written, unreported.
    regions: list[tuple[int, int, dict[str, str] | None, str]] = field(default_factory=list)

    def at(self, line: int) -> tuple[dict[str, str] | None, str]:
        for first, last, values, owner in self.regions:
            if first <= line <= last:
                return values, owner
        return self.figures, self.owner

    def value(self, raw: str, line: int, error: Callable[[int, str], None]) -> str | None:
        """The value of the reference ``{{raw}}`` at ``line`` (None, and an error, when there
        is none)."""
        name = raw.strip()
        if not NAME.match(name):
            error(line, f"{{{{{raw}}}}} is not a figure name")
            return None
        figures, owner = self.at(line)
        if figures is None:
            return None
        if name not in figures:
            close = suggest(name, figures)
            hint = f" (did you mean {{{{ {close} }}}}?)" if close else ""
            error(line, f"unknown figure {{{{ {name} }}}}{hint}: {owner} has no such entry")
            return None
        return figures[name]

    def substitute(
        self,
        text: str,
        line: int,
        error: Callable[[int, str], None],
        *,
        typed: Callable[[str], str] = lambda v: v,
    ) -> str:
        """``text`` (starting at ``line``) with each reference replaced by ``typed(value)``;
        an unknown one is left as written."""

        def one(m: re.Match[str]) -> str:
            at = line + text.count("\n", 0, m.start())
            value = self.value(m.group(1), at, error)
            return m.group(0) if value is None else typed(value)

        return FIGURE_REF.sub(one, text) if "{{" in text else text

    def substitute_lines(self, text: str) -> str:
        """The whole section with every known figure in place, line by line (for the rules on
        printed answers, which look for the source line that prints a figure)."""
        out = []
        for n, line in enumerate(text.split("\n"), start=1):
            out.append(self.substitute(line, n, lambda _line, _message: None))
        return "\n".join(out)
