"""A content change that changes a key is reported by `coursebook check` until it is recorded
in the unit's keys.toml (answers keep the verdict they were given)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from mathmachine.coursebook import compile_unit
from mathmachine.coursebook.__main__ import main
from mathmachine.coursebook.keys import key_changes

UNIT = Path(__file__).resolve().parents[2] / "content" / "units" / "18-attention-and-transformers"


def test_the_committed_keys_are_the_compiled_ones() -> None:
    assert key_changes(UNIT, compile_unit(UNIT)) == []


def test_a_changed_key_is_reported_until_recorded(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    unit = tmp_path / UNIT.name
    shutil.copytree(UNIT, unit, ignore=shutil.ignore_patterns("__pycache__"))
    figures = unit / "figures" / "s01_look_back.py"
    text = figures.read_text(encoding="utf-8")
    # The count check now asks about a 40-word Hindi sentence: its first key becomes 40.
    figures.write_text(text.replace('"hindi_words": 35', '"hindi_words": 40'), encoding="utf-8")
    assert main(["check", str(unit)]) == 1
    out = capsys.readouterr().out
    assert "the key of s1-count changed from 35 | 1050 to 40 | 1200" in out
    assert "01-look-back.md:" in out and "python -m mathmachine.coursebook keys" in out
    assert main(["keys", str(unit)]) == 0
    assert main(["check", str(unit)]) == 0
    (unit / "keys.toml").write_text("", encoding="utf-8")
    assert main(["check", str(unit)]) == 1
    assert "s1-sharpen is new" in capsys.readouterr().out
