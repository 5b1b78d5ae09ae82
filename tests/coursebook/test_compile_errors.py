"""Error fixtures: fixtures/errors/NAME.md must fail with exactly the lines of NAME.err
("NAME.md:LINE: message", in line order). section-*.md compile as whole sections."""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import FIXTURES, compare, compile_fixture

CASES = sorted((FIXTURES / "errors").glob("*.md"))
pytestmark = pytest.mark.usefixtures("test_widgets")


@pytest.mark.parametrize("source", CASES, ids=[p.stem for p in CASES])
def test_error_fixture(source: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(source.parent)  # errors print paths relative to the working directory
    result = compile_fixture(source)
    errors = sorted(result.ctx.errors, key=lambda e: e.line)
    assert errors, "expected compile errors"
    compare(source.with_suffix(".err"), "".join(e.format() + "\n" for e in errors))
