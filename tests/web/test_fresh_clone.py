"""A fresh clone has no var/ (git ignores it): the project creates the folders it writes to."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _manage(*args: str, var_dir: Path, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {
        k: v
        for k, v in os.environ.items()
        if k not in {"DATABASE_URL", "DJANGO_SETTINGS_MODULE", "MATHMACHINE_CACHE_DIR"}
    }
    environ.update(
        DJANGO_SETTINGS_MODULE="mathmachine.web.settings.local",
        MATHMACHINE_VAR_DIR=str(var_dir),
        **env,
    )
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=REPO,
        env=environ,
        capture_output=True,
        text=True,
        timeout=180,
    )


def test_migrate_on_a_fresh_clone_creates_the_folders_and_the_database(tmp_path: Path) -> None:
    var = tmp_path / "not" / "yet" / "var"  # nothing of it exists, as on a fresh clone
    result = _manage("migrate", "--noinput", "-v", "0", var_dir=var)
    assert result.returncode == 0, result.stderr
    assert (var / "db.sqlite3").is_file()
    assert (var / "staticfiles").is_dir() and (var / "coursebook").is_dir()


def test_a_sqlite_database_elsewhere_gets_its_folder_too(tmp_path: Path) -> None:
    db = tmp_path / "elsewhere" / "site.sqlite3"
    result = _manage(
        "migrate", "--noinput", "-v", "0", var_dir=tmp_path / "var", DATABASE_URL=f"sqlite:///{db}"
    )
    assert result.returncode == 0, result.stderr
    assert db.is_file()


def test_a_folder_that_cannot_be_made_is_named(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    result = _manage("check", var_dir=blocker / "var")
    assert result.returncode != 0
    assert f"cannot create {blocker / 'var'}" in result.stderr
    assert "MATHMACHINE_VAR_DIR" in result.stderr
