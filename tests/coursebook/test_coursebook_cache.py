"""The compiled-unit cache: memo in process, pickles on disk keyed by content hash."""

from __future__ import annotations

import multiprocessing
import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mathmachine.coursebook import UnitNotFound, cache, catalog, load_unit
from mathmachine.coursebook.passes import assemble

from .conftest import FIXTURES

GOOD = FIXTURES / "units" / "good" / "01-demo"


@pytest.fixture
def root(tmp_path: Path) -> Iterator[Path]:
    """A content root holding a copy of the good fixture unit (safe to edit)."""
    units = tmp_path / "units"
    shutil.copytree(GOOD, units / "01-demo", ignore=shutil.ignore_patterns("__pycache__"))
    cache.clear_memo()
    yield units
    cache.clear_memo()


@pytest.fixture
def compiles(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Records every real compile (parse of Markdown) the cache performs."""
    calls: list[Path] = []
    real = assemble.compile_unit

    def counting(folder: Any, **kwargs: Any) -> Any:
        calls.append(Path(folder))
        return real(folder, **kwargs)

    monkeypatch.setattr(assemble, "compile_unit", counting)
    return calls


def test_second_load_does_not_reparse(root: Path, tmp_path: Path, compiles: list[Path]) -> None:
    store = tmp_path / "cache"
    first = load_unit("demo", root=root, cache_dir=store)
    assert len(compiles) == 1
    pickles = list(store.glob("*.pickle"))
    assert [p.name for p in pickles] == [f"{first.source_hash}.pickle"]

    assert load_unit("demo", root=root, cache_dir=store) is first  # memo: same object
    assert len(compiles) == 1

    cache.clear_memo()  # a fresh process: only the disk cache is left
    again = load_unit("demo", root=root, cache_dir=store)
    assert len(compiles) == 1
    assert again == first and again is not first


def test_editing_a_section_recompiles(root: Path, tmp_path: Path, compiles: list[Path]) -> None:
    store = tmp_path / "cache"
    before = load_unit("demo", root=root, cache_dir=store)
    md = root / "01-demo" / "01-first.md"
    md.write_text(md.read_text().replace("Softmax turns", "Softmax makes"))
    after = load_unit("demo", root=root, cache_dir=store)
    assert len(compiles) == 2
    assert after.source_hash != before.source_hash
    assert "Softmax makes" in after.sections[0].summary_html
    assert len(list(store.glob("*.pickle"))) == 2


def test_a_code_change_invalidates(
    root: Path, tmp_path: Path, compiles: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    store = tmp_path / "cache"
    first = load_unit("demo", root=root, cache_dir=store)
    cache.clear_memo()
    monkeypatch.setattr(cache, "code_digest", lambda: "another version of the compiler")
    second = load_unit("demo", root=root, cache_dir=store)
    assert len(compiles) == 2
    assert second.source_hash != first.source_hash


def test_code_digest_covers_coursebook_and_engine_sources() -> None:
    cache.code_digest.cache_clear()
    digest = cache.code_digest()
    assert len(digest) == 64
    assert (cache.PACKAGE_DIR, cache.PACKAGE_DIR.parent / "engine") == cache.CODE_PACKAGES
    assert all((p / "__init__.py").is_file() for p in cache.CODE_PACKAGES)


def test_a_corrupt_pickle_is_rebuilt(root: Path, tmp_path: Path, compiles: list[Path]) -> None:
    store = tmp_path / "cache"
    unit = load_unit("demo", root=root, cache_dir=store)
    path = store / f"{unit.source_hash}.pickle"
    path.write_bytes(path.read_bytes()[:40])
    cache.clear_memo()
    assert load_unit("demo", root=root, cache_dir=store) == unit
    assert len(compiles) == 2


def test_cache_dir_from_the_environment(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = tmp_path / "from-env"
    monkeypatch.setenv("MATHMACHINE_CACHE_DIR", str(store))
    unit = load_unit("demo", root=root)
    assert (store / f"{unit.source_hash}.pickle").is_file()


def _build_in_child(folder: str, store: str) -> str:
    cache.clear_memo()
    return cache.build_unit(Path(folder), cache_dir=store).source_hash


def test_concurrent_builds_are_safe(root: Path, tmp_path: Path, compiles: list[Path]) -> None:
    store = tmp_path / "cache"
    folder = str(root / "01-demo")
    cache.code_digest.cache_clear()  # read the sources as the children will (others edit them)
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(2) as pool:
        hashes = pool.starmap(_build_in_child, [(folder, str(store))] * 4)
    assert len(set(hashes)) == 1
    assert [p.name for p in store.iterdir()] == [f"{hashes[0]}.pickle"]  # no temp files left
    cache.clear_memo()
    assert load_unit("demo", root=root, cache_dir=store).source_hash == hashes[0]
    assert compiles == []  # the parent read the children's pickle


def test_catalog_and_unknown_slug(root: Path) -> None:
    shutil.copytree(
        FIXTURES / "units" / "figures-error" / "04-demo", root / "04-demo"
    )  # listed: the catalog reads unit.toml only
    infos = catalog(root=root)
    assert [(u.number, u.slug, u.title) for u in infos] == [
        (1, "demo", "A demo unit"),
        (4, "demo", "figures() fails"),
    ]
    with pytest.raises(UnitNotFound):
        load_unit("no-such-unit", root=root)


def test_memo_notices_edits_without_a_restart(root: Path, tmp_path: Path) -> None:
    store = tmp_path / "cache"
    load_unit("demo", root=root, cache_dir=store)
    md = root / "01-demo" / "01-first.md"
    time.sleep(0.01)
    md.write_text(md.read_text().replace("top score", "largest score"))
    os.utime(md, None)
    unit = load_unit("demo", root=root, cache_dir=store)
    assert "largest score" in unit.sections[0].checks[0].prompt_html


def test_an_unwritable_cache_still_serves(
    root: Path, tmp_path: Path, compiles: list[Path], caplog: pytest.LogCaptureFixture
) -> None:
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("a file where the cache directory should be")
    unit = load_unit("demo", root=root, cache_dir=blocker / "cache")
    assert unit.sections[0].written and len(compiles) == 1
    assert "cannot write the coursebook cache" in caplog.text
    assert load_unit("demo", root=root, cache_dir=blocker / "cache") is unit  # memo


# Production: the units the release built, kept for the life of the process -------------------


def _no_disk(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make any look at the content on disk (a scan of unit.toml, a stat, a hash) fail."""

    def disk(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the content was looked at on disk")

    for name in ("scan_units", "find_unit", "_stat_key", "content_hash", "build_unit"):
        monkeypatch.setattr(cache, name, disk)


def test_kept_units_are_loaded_once_and_never_looked_for_again(
    root: Path, tmp_path: Path, compiles: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    store = tmp_path / "cache"
    cache.build_unit(root / "01-demo", cache_dir=store)  # the release step
    assert len(compiles) == 1
    unit = load_unit("demo", root=root, cache_dir=store, watch=False)
    infos = catalog(root=root, watch=False)
    assert len(compiles) == 1  # read from the release's pickle
    md = root / "01-demo" / "01-first.md"
    md.write_text(md.read_text().replace("top score", "largest score"))
    _no_disk(monkeypatch)
    for _ in range(3):
        assert load_unit("demo", root=root, cache_dir=store, watch=False) is unit
        assert catalog(root=root, watch=False) == infos
    assert "top score" in unit.sections[0].checks[0].prompt_html  # edits wait for a release
    with pytest.raises(UnitNotFound):  # answered from the kept catalog
        load_unit("no-such-unit", root=root, cache_dir=store, watch=False)


def test_a_kept_unit_the_release_did_not_build_is_compiled_once_and_said(
    root: Path, tmp_path: Path, compiles: list[Path], caplog: pytest.LogCaptureFixture
) -> None:
    store = tmp_path / "cache"
    first = load_unit("demo", root=root, cache_dir=store, watch=False)
    assert load_unit("demo", root=root, cache_dir=store, watch=False) is first
    assert len(compiles) == 1
    assert "was not built by the release step" in caplog.text


def test_watching_and_keeping_do_not_mix(root: Path, tmp_path: Path) -> None:
    store = tmp_path / "cache"
    kept = load_unit("demo", root=root, cache_dir=store, watch=False)
    md = root / "01-demo" / "01-first.md"
    md.write_text(md.read_text().replace("top score", "largest score"))
    watched = load_unit("demo", root=root, cache_dir=store)
    assert "largest score" in watched.sections[0].checks[0].prompt_html
    assert load_unit("demo", root=root, cache_dir=store, watch=False) is kept
    cache.clear_memo()  # a new process (a restart after the release)
    fresh = load_unit("demo", root=root, cache_dir=store, watch=False)
    assert "largest score" in fresh.sections[0].checks[0].prompt_html
