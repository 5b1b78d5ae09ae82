"""docs/engine.md: every example runs and prints what the page says; every public name has one."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import mathmachine.engine as engine
from mathmachine.engine import pretrained

DOC = Path(__file__).resolve().parent.parent.parent / "docs" / "engine.md"


def test_every_example_in_docs_engine_md_runs_as_written() -> None:
    failures, tried = doctest.testfile(
        str(DOC),
        module_relative=False,
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
        verbose=False,
        report=True,
    )
    assert tried > 100
    assert failures == 0, f"{failures} of {tried} examples in docs/engine.md failed (see above)"


def test_every_public_name_is_shown_in_an_example() -> None:
    code = "\n".join(
        line[4:] for line in DOC.read_text().splitlines() if line.startswith((">>> ", "... "))
    )
    used = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", code))
    missing = [n for n in [*engine.__all__, *pretrained.__all__] if n not in used]
    assert not missing, f"docs/engine.md has no example using {missing}"
