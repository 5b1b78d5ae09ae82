"""python -m mathmachine.coursebook check / build, as a separate process."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from .conftest import FIXTURES

REPO = Path(__file__).resolve().parents[2]


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mathmachine.coursebook", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"},
        timeout=120,
    )


def test_check_reports_path_line_message_and_exits_1() -> None:
    case = FIXTURES / "units" / "section-errors"
    out = run("check", "03-demo", cwd=case)
    assert out.returncode == 1
    assert out.stdout == (case / "expected.err").read_text(encoding="utf-8")
    assert "6 error(s)" in out.stderr


def test_check_passes_a_good_unit() -> None:
    out = run("check", str(FIXTURES / "units" / "good" / "01-demo"), cwd=REPO)
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.startswith(
        "ok: unit 1 demo: 1 of 2 sections written, 0 widget(s), 1 check(s)"
    )


def test_build_writes_the_cache(tmp_path: Path) -> None:
    root = tmp_path / "units"
    shutil.copytree(FIXTURES / "units" / "good" / "01-demo", root / "01-demo")
    store = tmp_path / "cache"
    out = run("--root", str(root), "build", "--cache-dir", str(store), cwd=tmp_path)
    assert out.returncode == 0, out.stdout + out.stderr
    (pickle,) = store.glob("*.pickle")
    assert out.stdout.startswith("built unit 1 demo -> ") and str(pickle) in out.stdout


def test_build_fails_on_errors(tmp_path: Path) -> None:
    root = tmp_path / "units"
    shutil.copytree(FIXTURES / "units" / "figures-error" / "04-demo", root / "04-demo")
    out = run("--root", str(root), "build", "--cache-dir", str(tmp_path / "c"), cwd=root)
    assert out.returncode == 1
    assert (
        out.stdout == "04-demo/figures.py:6: figures() raised IndexError: list index out of range\n"
    )


def test_check_a_folder_of_units_checks_each_unit() -> None:
    """README step 3 (issue 10, failure 9): `check content/units` said "unit.toml is missing"
    because content/units holds units rather than being one."""
    out = run("check", str(FIXTURES / "units" / "good"), cwd=REPO)
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.startswith("ok: unit 1 demo: ")
    assert "unit.toml is missing" not in out.stdout + out.stderr


def test_readme_step_3_command_as_written() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    command = ".venv/bin/python -m mathmachine.coursebook check content/units"
    assert command in readme
    out = run(*command.split()[3:], cwd=REPO)
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.startswith("ok: unit 18 attention-and-transformers: ")


def test_check_a_folder_without_units_still_says_what_is_missing(tmp_path: Path) -> None:
    out = run("check", str(tmp_path), cwd=REPO)
    assert out.returncode == 1
    assert "unit.toml is missing" in out.stdout
