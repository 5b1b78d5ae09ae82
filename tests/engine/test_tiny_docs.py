"""docs/tiny-translator.md and the tiny package's docstring: every example runs as written."""

from __future__ import annotations

import doctest
from pathlib import Path

from mathmachine.engine import tiny

DOC = Path(__file__).resolve().parent.parent.parent / "docs" / "tiny-translator.md"
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def test_every_example_in_docs_tiny_translator_md_runs_as_written() -> None:
    failures, tried = doctest.testfile(
        str(DOC), module_relative=False, optionflags=FLAGS, verbose=False, report=True
    )
    assert tried >= 20
    assert failures == 0, f"{failures} of {tried} examples in {DOC.name} failed (see above)"


def test_the_package_docstring_example_runs() -> None:
    failures, tried = doctest.testmod(tiny, optionflags=FLAGS, verbose=False, report=True)
    assert tried >= 4 and failures == 0
