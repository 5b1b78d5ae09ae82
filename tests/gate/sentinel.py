"""Unit 18 with a written §2 full of a sentinel string (the gate tests' fixture content).

The sentinel stands in §2's prose, a check's prompt, hints and feedback, a check's answer (a
unique integer, SENTINEL_ANSWER), the widget's id and its example data (the JSON state the page
carries). The gate tests look for it in every response. The one-sentence summary is not
locked: it is the section's public abstract, shown on its locked page (issue 16), so it holds
PUBLIC_ABSTRACT instead, and the gate tests check that it shows there and nothing else does.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from mathmachine import coursebook

REPO = Path(__file__).resolve().parents[2]
UNIT_DIR = REPO / "content" / "units" / "18-attention-and-transformers"
SLUG = "attention-and-transformers"
SENTINEL = "qzxsentinel7731"
SENTINEL_ANSWER = "48213907"
SECRET_CHECK = "s2-qzxsentinel7731"
OTHER_CHECK = "s2-pair"
PUBLIC_ABSTRACT = "A soft lookup blends every value by how well its key matches."

SECTION_2 = f"""# Attention is a soft lookup

The locked prose of this section says {SENTINEL} in plain words.

:::{{widget}} translate-lookback
:id: {SENTINEL}-widget
:example: {SENTINEL}
:::

::::{{check}} {SECRET_CHECK}
:kind: integer
:answer: {SENTINEL_ANSWER}

What is the number that only buyers may see? ({SENTINEL} in the prompt.)

:::{{feedback}} correct
Right: {SENTINEL} in the feedback for a correct answer.
:::

:::{{feedback}} wrong
{SENTINEL} in the feedback for a wrong answer.
:::

:::{{mistake}} seven
:answer: 7
Seven is a trap, says {SENTINEL}.
:::

:::{{hint}}
A hint that mentions {SENTINEL}.
:::

:::{{solution}}
The answer is {SENTINEL_ANSWER}; {SENTINEL} in the worked answer.
:::
::::

::::{{check}} {OTHER_CHECK}
:kind: integer
:fields: rows | columns
:answer: 4 | 3

How many rows and columns ({SENTINEL})?

:::{{feedback}} correct
Yes, {SENTINEL}.
:::

:::{{solution}}
No, {SENTINEL}.
:::
::::

:::{{summary}}
{PUBLIC_ABSTRACT}
:::
"""

# A section figures module (figures/sNN_*.py is picked up by the package): the example behind
# §2's widget carries the sentinel in its JSON state.
FIGURES_MODULE = f"""from .s01_look_back import EXAMPLES as LOOK_BACK

EXAMPLES = {{
    {SENTINEL!r}: {{**LOOK_BACK["lookback"], "english": ["I", "drink", {SENTINEL!r}]}},
}}
"""


def _with_section_2_file(toml: str) -> str:
    marker = 'number = 2\nslug = "soft-lookup"\ntitle = "Attention is a soft lookup"\n'
    assert marker in toml, "unit.toml's §2 entry changed: update tests/gate/sentinel.py"
    listed = marker + 'file = "02-soft-lookup.md"\n'
    return toml if listed in toml else toml.replace(marker, listed)


def build_sentinel_content(root: Path) -> Path:
    """Write content/units under ``root`` with the sentinel copy of Unit 18; returns it."""
    root = root / "units"
    unit = root / UNIT_DIR.name
    shutil.copytree(UNIT_DIR, unit, ignore=shutil.ignore_patterns("__pycache__"))
    (unit / "02-soft-lookup.md").write_text(SECTION_2, encoding="utf-8")
    toml = unit / "unit.toml"
    toml.write_text(_with_section_2_file(toml.read_text(encoding="utf-8")), encoding="utf-8")
    (unit / "figures" / f"s02_{SENTINEL}.py").write_text(FIGURES_MODULE, encoding="utf-8")
    compiled = coursebook.compile_unit(unit)  # fails loudly if the fixture is not valid
    section = compiled.section(2)
    assert section.written and SENTINEL in section.html
    assert {c.id for c in section.checks} == {SECRET_CHECK, OTHER_CHECK}
    return root
