"""Whole-unit fixtures: fixtures/units/CASE/NN-slug/ compiles, or fails with exactly the
lines of fixtures/units/CASE/expected.err (paths relative to CASE)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mathmachine.coursebook import CompileError, CompileErrors, compile_unit

from .conftest import FIXTURES, compare

CASES = sorted(p for p in (FIXTURES / "units").iterdir() if (p / "expected.err").exists())


@pytest.mark.parametrize("case", CASES, ids=[p.name for p in CASES])
def test_unit_error_fixture(case: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(case)
    (folder,) = [p for p in case.iterdir() if p.is_dir()]
    with pytest.raises(CompileError) as info:
        compile_unit(folder.name)
    assert isinstance(info.value, CompileErrors)
    compare(case / "expected.err", info.value.format() + "\n")


def test_good_unit_compiles() -> None:
    unit = compile_unit(FIXTURES / "units" / "good" / "01-demo")
    assert (unit.number, unit.slug, unit.title) == (1, "demo", "A demo unit")
    assert unit.offer == unit.price_note == "Unlock for ₹299."
    first, second = unit.sections
    assert first.written and not second.written
    assert (second.html, second.checks, second.published_checks) == ("", (), 2)
    assert second.title == "Not written yet"
    (check,) = first.checks
    assert check.id == "top-share" and check.fields[0].key.values == (0.936,)
    assert "(0.100, 0.164, 0.736)" in first.html  # the engine's numbers, through figures()
    assert first.summary_html == "<p>Softmax turns scores into shares.</p>\n"
    assert '<a class="sec-ref" href="/units/demo/2/"' in first.html
    assert '<span class="unit-ref">Unit 1</span>' in first.html  # this unit: no self-link
    assert len(unit.source_hash) == 64


def test_a_byte_order_mark_is_ignored(tmp_path: Path) -> None:
    import shutil

    folder = tmp_path / "01-demo"
    shutil.copytree(FIXTURES / "units" / "good" / "01-demo", folder)
    for name in ("01-first.md", "unit.toml"):
        path = folder / name
        path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    assert compile_unit(folder).sections[0].written
