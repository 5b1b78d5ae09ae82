"""How the site reads the compiled units (mathmachine/units.py): in production the units the
release step built, loaded once per process and never looked for on disk again; under `make run`
(development) an edited section shows on the next request."""

from __future__ import annotations

import importlib
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from mathmachine.coursebook import cache
from mathmachine.coursebook.__main__ import main as coursebook_command

DEMO = Path(__file__).parents[1] / "coursebook" / "fixtures" / "units" / "good" / "01-demo"
PAGE = "/units/demo/1/"


@pytest.fixture
def content(settings: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The site serving a content root that holds a copy of the demo unit (safe to edit), with
    its own compiled-unit cache."""
    root = tmp_path / "units"
    shutil.copytree(DEMO, root / "01-demo", ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setenv("MATHMACHINE_CACHE_DIR", str(tmp_path / "coursebook"))
    settings.CONTENT_DIR = root
    cache.clear_memo()
    yield root
    cache.clear_memo()


def edit(root: Path) -> None:
    md = root / "01-demo" / "01-first.md"
    md.write_text(md.read_text().replace("every score doubles", "each score is doubled"))


def page(client: Client) -> str:
    response = client.get(PAGE)
    assert response.status_code == 200
    return response.content.decode()


def test_the_settings_keep_in_production_and_reload_under_make_run() -> None:
    assert importlib.import_module("mathmachine.web.settings.base").COURSEBOOK_RELOAD is False
    assert importlib.import_module("mathmachine.web.settings.local").COURSEBOOK_RELOAD is True


@pytest.mark.django_db
def test_under_make_run_an_edited_section_shows_on_the_next_request(
    content: Path, settings: Any, client: Client
) -> None:
    settings.COURSEBOOK_RELOAD = True
    assert "every score doubles" in page(client)
    edit(content)
    html = page(client)
    assert "each score is doubled" in html and "every score doubles" not in html


@pytest.mark.django_db
def test_in_production_the_built_units_are_read_once_per_process(
    content: Path, settings: Any, client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.COURSEBOOK_RELOAD = False
    assert coursebook_command(["--root", str(content), "build"]) == 0  # the release step
    assert "every score doubles" in page(client)  # the first request loads the built unit
    edit(content)

    for name in ("scan_units", "find_unit", "_stat_key", "content_hash", "build_unit"):
        monkeypatch.setattr(cache, name, lambda *a, **k: pytest.fail("looked at the disk"))
    for path in (PAGE, "/units/demo/", "/", "/pricing/"):
        assert client.get(path).status_code == 200, path
    assert client.get("/units/no-such-unit/").status_code == 404
    assert "every score doubles" in page(client)  # an edit waits for the next release
    monkeypatch.undo()
    settings.CONTENT_DIR = content
    cache.clear_memo()  # the release restarts the servers
    assert "each score is doubled" in page(client)


def test_the_wsgi_entry_loads_the_units_before_the_first_request(
    content: Path, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mathmachine import units
    from mathmachine.web import wsgi

    settings.COURSEBOOK_RELOAD = False
    assert coursebook_command(["--root", str(content), "build"]) == 0
    importlib.reload(wsgi)  # what a server process runs at start
    for name in ("scan_units", "find_unit", "_stat_key", "content_hash", "build_unit"):
        monkeypatch.setattr(cache, name, lambda *a, **k: pytest.fail("loaded at a request"))
    assert [u.slug for u in units.published()] == ["demo"]
