"""A copy of Unit 18 that is complete: every section the real unit has not published yet (no
file, or a draft) is written out as a stand-in holding exactly the widgets and checks its
unit.toml entry publishes, and the arena gets stand-in problems up to the number it plans. For
the tests that a finished unit says so everywhere (tests/learning/test_complete_unit.py and
the tests that hold for both the unit as it is and the finished one).

The real sections are kept as they are (a draft that holds all it publishes is published);
once every lane has published, the copy changes nothing
but still compiles, and the tests run on both units alike. Each stand-in check's answer is a
whole number no page prints elsewhere (COMPLETE_ANSWER + its index).
"""

from __future__ import annotations

import itertools
import re
import shutil
import tomllib
from pathlib import Path

from support import UNIT18

from mathmachine import coursebook

COMPLETE_ANSWER = 70411
STAND_IN = "This stand-in section holds what the finished section will publish."


def _entries(toml: str) -> list[tuple[int, int]]:
    starts = [m.start() for m in re.finditer(r"^\[\[sections\]\]", toml, re.M)] + [len(toml)]
    return list(itertools.pairwise(starts))


def _check(ident: str, answer: int) -> str:
    return f"""::::{{check}} {ident}
:kind: integer
:answer: {answer}

Type the stand-in number, {answer}.

:::{{feedback}} correct
Right.
:::

:::{{hint}}
Read the prompt again.
:::

:::{{solution}}
The number is {answer}.
:::
::::
"""


def _problem(ident: str, number: int, answer: int) -> str:
    return f"""::::{{problem}} {ident}
:title: Problem {number} · A stand-in
:kind: integer
:answer: {answer}

Type the stand-in number, {answer}.

:::{{feedback}} correct
Right.
:::

:::{{hint}}
Read the prompt again.
:::

:::{{hint}}
It is the number in the prompt.
:::

:::{{solution}}
The number is {answer}.
:::
::::

"""


def _section(title: str, number: int, widgets: int, checks: int, answers: itertools.count) -> str:
    parts = [f"# {title}\n\n{STAND_IN}\n"]
    for k in range(1, widgets + 1):
        parts.append(f":::{{widget}} translate-lookback\n:id: complete-{number}-w{k}\n:::\n")
        parts.append("::::{try}\nPress play.\n\n:::{nojs}\nThe map shows the weights.\n:::\n::::\n")
    for k in range(1, checks + 1):
        parts.append(_check(f"s{number}-complete-{k}", next(answers)))
    parts.append(":::{summary}\nA stand-in section, complete.\n:::\n")
    return "\n".join(parts)


def build_complete_content(root: Path) -> Path:
    """content/units under ``root``: Unit 18 with every section and problem written; returns
    it. Asserts the copy compiles and is complete."""
    units = root / "units"
    unit = units / UNIT18.name
    shutil.copytree(UNIT18, unit, ignore=shutil.ignore_patterns("__pycache__"))
    toml = unit / "unit.toml"
    text = toml.read_text(encoding="utf-8")
    answers = itertools.count(COMPLETE_ANSWER)
    # A draft that already holds what it publishes is published as it is.
    ready = {
        d.number
        for d in coursebook.compile_unit(unit).drafts
        if (len(d.widgets), len(d.checks)) == (d.published_widgets, d.published_checks)
    }
    out, last = [], 0
    for start, end in _entries(text):
        out.append(text[last:start])
        entry = text[start:end]
        sec = tomllib.loads(entry)["sections"][0]
        if sec["number"] in ready:
            entry = re.sub(r"^draft = .*\n", "", entry, flags=re.M)
        elif not sec.get("file") or sec.get("draft"):
            if sec.get("file"):
                (unit / sec["file"]).unlink()
            name = f"{sec['number']:02d}-{sec['slug']}.md"
            body = _section(sec["title"], sec["number"], sec["widgets"], sec["checks"], answers)
            (unit / name).write_text(body, encoding="utf-8")
            entry = re.sub(r"^(file|draft) = .*\n", "", entry, flags=re.M)
            line = f'title = "{sec["title"]}"\n'
            entry = entry.replace(line, f'{line}file = "{name}"\n', 1)
        out.append(entry)
        last = end
    out.append(text[last:])
    toml.write_text("".join(out), encoding="utf-8")
    compiled = coursebook.compile_unit(unit)
    arena = next(s for s in compiled.sections if s.planned_problems)
    missing = arena.planned_problems - len(arena.problems)
    if missing:
        path = Path(arena.source)
        body = path.read_text(encoding="utf-8")
        at = body.index(":::{summary}")
        first = len(arena.problems) + 1
        extra = "".join(
            _problem(f"p15-complete-{n}", n, next(answers)) for n in range(first, first + missing)
        )
        path.write_text(body[:at] + extra + body[at:], encoding="utf-8")
        compiled = coursebook.compile_unit(unit)
    assert compiled.contents.complete, compiled.contents
    assert (compiled.contents.widgets, compiled.contents.checks) == (
        compiled.contents.planned_widgets,
        compiled.contents.planned_checks,
    )
    return units
