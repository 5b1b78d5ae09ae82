"""Fixture pairs: every directive, role and math form. fixtures/render/NAME.md compiles to
NAME.html (and NAME.json for checks, widgets and the summary when it defines any); files named
section-*.md compile as whole sections, the others as fragments."""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import FIXTURES, compare, compile_fixture, structured

CASES = sorted((FIXTURES / "render").glob("*.md"))
pytestmark = pytest.mark.usefixtures("test_widgets")


@pytest.mark.parametrize("source", CASES, ids=[p.stem for p in CASES])
def test_render_fixture(source: Path) -> None:
    result = compile_fixture(source)
    assert [e.format() for e in result.ctx.errors] == []
    compare(source.with_suffix(".html"), result.html)
    has_data = (
        result.ctx.checks or result.ctx.problems or result.ctx.widgets or result.ctx.summary_html
    )
    json_path = source.with_suffix(".json")
    if has_data or json_path.exists():
        compare(json_path, structured(result))


def test_every_directive_and_role_has_a_fixture() -> None:
    from mathmachine.coursebook.directives import SPECS
    from mathmachine.coursebook.passes.roles import ROLES

    text = "\n".join(p.read_text(encoding="utf-8") for p in CASES)
    missing = [n for n in SPECS if f"{{{n}}}" not in text]
    missing += [n for n in ROLES if f"{{{n}}}`" not in text]
    assert missing == []
