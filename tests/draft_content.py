"""A copy of Unit 18 whose §8 is a draft (unit.toml ``draft = true``) holding one widget and
one check, every part of it marked with a sentinel string, for the tests that a draft is served
to staff only and counted nowhere (tests/gate/test_drafts.py, tests/browser/test_drafts.py).

§8 publishes 3 widgets and 3 checks; the draft holds 1 of each, as a section landing a widget
at a time does. Whatever §8 holds in the real unit (nothing yet, a draft, or the published
section) is replaced by this draft.
"""

from __future__ import annotations

import itertools
import re
import shutil
import tomllib
from pathlib import Path

from support import UNIT18

from mathmachine import coursebook

DRAFT = 8
DRAFT_SENTINEL = "qzxdraft5519"
DRAFT_ANSWER = "73519"
DRAFT_CHECK = "s8-qzxdraft5519"
DRAFT_WIDGET = f"{DRAFT_SENTINEL}-widget"

SECTION = f"""# {{title}}

Staff read this draft; the words {DRAFT_SENTINEL} must reach nobody else.

:::{{widget}} translate-lookback
:id: {DRAFT_WIDGET}
:example: {DRAFT_SENTINEL}
:::

::::{{check}} {DRAFT_CHECK}
:kind: integer
:answer: {DRAFT_ANSWER}

Which number does only staff see? ({DRAFT_SENTINEL} in the prompt.)

:::{{feedback}} correct
Right: {DRAFT_SENTINEL} in the feedback.
:::

:::{{hint}}
A hint that says {DRAFT_SENTINEL}.
:::

:::{{solution}}
It is {DRAFT_ANSWER}; {DRAFT_SENTINEL} in the worked answer.
:::
::::

:::{{summary}}
The draft's summary says {DRAFT_SENTINEL}.
:::
"""

# The example behind the draft's widget carries the sentinel in its JSON state.
FIGURES_MODULE = f"""from .s01_look_back import EXAMPLES as LOOK_BACK

EXAMPLES = {{
    {DRAFT_SENTINEL!r}: {{**LOOK_BACK["lookback"], "english": ["I", "drink", {DRAFT_SENTINEL!r}]}},
}}
"""


def _section_entry(toml: str, number: int) -> tuple[int, int]:
    """(start, end) of the [[sections]] entry numbered ``number`` in unit.toml's text."""
    starts = [m.start() for m in re.finditer(r"^\[\[sections\]\]", toml, re.M)] + [len(toml)]
    for start, end in itertools.pairwise(starts):
        if re.search(rf"^number = {number}$", toml[start:end], re.M):
            return start, end
    raise AssertionError(f"unit.toml has no section {number}: update tests/draft_content.py")


def build_draft_content(root: Path) -> Path:
    """content/units under ``root``: Unit 18 with §8 written as a draft; returns it."""
    units = root / "units"
    unit = units / UNIT18.name
    shutil.copytree(UNIT18, unit, ignore=shutil.ignore_patterns("__pycache__"))
    toml = unit / "unit.toml"
    text = toml.read_text(encoding="utf-8")
    start, end = _section_entry(text, DRAFT)
    entry = text[start:end]
    title = tomllib.loads(entry)["sections"][0]["title"]
    old = re.search(r'^file = "([^"]*)"$', entry, re.M)
    if old:
        (unit / old.group(1)).unlink()
    entry = re.sub(r"^(file|draft) = .*\n", "", entry, flags=re.M).rstrip("\n")
    entry += f'\nfile = "{DRAFT:02d}-draft.md"\ndraft = true\n\n'
    toml.write_text(text[:start] + entry + text[end:], encoding="utf-8")
    (unit / f"{DRAFT:02d}-draft.md").write_text(
        SECTION.replace("# {title}", f"# {title}", 1), encoding="utf-8"
    )
    (unit / "figures" / f"s{DRAFT:02d}_{DRAFT_SENTINEL}.py").write_text(
        FIGURES_MODULE, encoding="utf-8"
    )
    compiled = coursebook.compile_unit(unit)  # fails loudly if the fixture is not valid
    assert not compiled.section(DRAFT).written
    draft = next(d for d in compiled.drafts if d.number == DRAFT)  # the unit may hold others
    assert DRAFT_SENTINEL in draft.html
    return units
