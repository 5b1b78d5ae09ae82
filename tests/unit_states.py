"""Unit 18 as it is today and complete (tests/complete_content.py), as fixtures any tests'
conftest can import: ``unit_state`` runs a test on both, the site serving each in turn.

    from unit_states import complete_content, unit_state  # noqa: F401 (fixtures)
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from complete_content import build_complete_content
from django.core.cache import cache as django_cache

from mathmachine import coursebook, units
from mathmachine.coursebook.model import CompiledUnit
from mathmachine.learning import rendering

UNIT = "attention-and-transformers"


@pytest.fixture(scope="session")
def complete_content(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """content/units with Unit 18 complete (tests/complete_content.py: the sections not
    published yet as stand-ins holding what they publish)."""
    return build_complete_content(tmp_path_factory.mktemp("complete"))


def _fresh_units() -> None:
    coursebook.cache.clear_memo()
    rendering.clear_memos()
    django_cache.clear()


@pytest.fixture(params=["today", "complete"])
def unit_state(
    request: pytest.FixtureRequest, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> Iterator[CompiledUnit]:
    """Unit 18 as it is today, then a complete copy of it, served by the site (its pages, the
    offer, receipts): tests that take it hold for the unit while it is written and once it is
    finished. Yields the compiled unit the site serves."""
    if request.param == "complete":
        root = request.getfixturevalue("complete_content")
        settings.CONTENT_DIR = root
        monkeypatch.setenv("MATHMACHINE_CACHE_DIR", str(root.parent / "coursebook-cache"))
    _fresh_units()
    yield units.unit(UNIT)
    _fresh_units()
