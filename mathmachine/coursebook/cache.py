"""Finding units, and the compiled-unit cache.

load_unit(slug) returns a CompiledUnit without parsing Markdown whenever it can:
1. in process: with ``watch=False`` (production: the release step built the units), the unit
   loaded first is kept for the life of the process and nothing on disk is read again, not
   even a stat; with ``watch=True`` (development) a memo keyed by the unit folder, re-validated
   by the (mtime, size) of the unit's files (a few stat calls; editing a section shows up on
   the next request);
2. on disk: var/coursebook/<hash>.pickle, where hash covers every file of the unit folder, the
   source of the coursebook and engine packages and the parser library versions, so a code
   change invalidates it. Writes go to a temp file then os.replace (safe under concurrent
   builds: the last writer wins with identical content);
3. otherwise it compiles (compile_unit) and stores both.

catalog() reads the units' unit.toml files; with ``watch=False`` once per process.

Locations: content root = `root` argument, else $MATHMACHINE_CONTENT_DIR, else the repo's
content/units; cache = `cache_dir` argument, else $MATHMACHINE_CACHE_DIR, else
$MATHMACHINE_VAR_DIR/coursebook, else the repo's var/coursebook (the Django settings create it).
"""

from __future__ import annotations

import hashlib
import logging
import os
import pickle
import sys
import tempfile
import threading
from functools import lru_cache
from importlib import metadata
from pathlib import Path

from . import fonts
from .errors import CompileError
from .model import CompiledUnit, UnitInfo
from .passes import assemble
from .passes.load import UNIT_FILE, read_unit_header, scan_units
from .passes.load import unit_folders as unit_folders  # callers find the units through the cache

PACKAGE_DIR = Path(__file__).resolve().parent
REPO_ROOT = PACKAGE_DIR.parents[1]
DEFAULT_CONTENT_ROOT = REPO_ROOT / "content" / "units"
DEFAULT_CACHE_DIR = Path(os.environ.get("MATHMACHINE_VAR_DIR") or REPO_ROOT / "var") / "coursebook"
CODE_PACKAGES = (PACKAGE_DIR, PACKAGE_DIR.parent / "engine")
# the one printer figures and widgets use; the Devanagari font the sections' fonts are cut from
CODE_FILES = (PACKAGE_DIR.parent / "printing.py", fonts.SOURCE)
LIBRARIES = ("markdown-it-py", "mdit-py-plugins", "latex2mathml", "numpy", "fonttools")
log = logging.getLogger(__name__)


class UnitNotFound(LookupError):
    """No unit with that slug under the content root."""


def content_root(root: str | os.PathLike[str] | None = None) -> Path:
    return Path(root or os.environ.get("MATHMACHINE_CONTENT_DIR") or DEFAULT_CONTENT_ROOT)


def cache_path(path: str | os.PathLike[str] | None = None) -> Path:
    return Path(path or os.environ.get("MATHMACHINE_CACHE_DIR") or DEFAULT_CACHE_DIR)


def _spelled_root(root: str | os.PathLike[str] | None) -> str:
    """content_root(root) as spelled, for the kept units' keys: no Path is made on every call
    (a page asks several times); another spelling of one folder is only another entry."""
    return os.fspath(root or os.environ.get("MATHMACHINE_CONTENT_DIR") or DEFAULT_CONTENT_ROOT)


def _spelled_cache(path: str | os.PathLike[str] | None) -> str:
    """cache_path(path) as spelled (as _spelled_root)."""
    return os.fspath(path or os.environ.get("MATHMACHINE_CACHE_DIR") or DEFAULT_CACHE_DIR)


def catalog(*, root: str | os.PathLike[str] | None = None, watch: bool = True) -> list[UnitInfo]:
    """The units under the content root (number, slug, title...), read from unit.toml only.

    watch=False: read once per process and kept (the units a release built do not change).
    """
    if watch:
        return scan_units(content_root(root), strict=True)
    base = _spelled_root(root)
    kept = _CATALOGS.get(base)
    if kept is None:
        kept = tuple(scan_units(Path(base), strict=True))
        with _LOCK:
            _CATALOGS[base] = kept
    return list(kept)


def find_unit(slug: str, root: Path) -> Path:
    """The folder of unit `slug` ("NN-slug" by convention; unit.toml decides)."""
    for folder in sorted(root.glob(f"*-{slug}")):
        if (folder / UNIT_FILE).is_file():
            try:
                if read_unit_header(folder)[1] == slug:
                    return folder
            except CompileError:
                pass
    for info in scan_units(root):
        if info.slug == slug:
            return Path(info.path)
    raise UnitNotFound(f"no unit {slug!r} under {root}")


def _unit_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts)


@lru_cache(maxsize=1)
def code_digest() -> str:
    """sha256 of the coursebook, engine and printer sources and the parser libraries' versions.

    Computed once per process: code that changes on disk is not the code this process runs.
    """
    h = hashlib.sha256()
    h.update(f"python {sys.version_info[:2]}\0".encode())
    for lib in LIBRARIES:
        try:
            h.update(f"{lib} {metadata.version(lib)}\0".encode())
        except metadata.PackageNotFoundError:
            h.update(f"{lib} -\0".encode())
    for pkg in CODE_PACKAGES:
        for p in sorted(pkg.rglob("*.py")):
            if "__pycache__" in p.parts:
                continue
            h.update(p.relative_to(pkg.parent).as_posix().encode() + b"\0")
            h.update(p.read_bytes() + b"\0")
    for p in CODE_FILES:
        h.update(p.name.encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()


def content_hash(folder: Path) -> str:
    """The cache key of a unit: its files, the compiler's code, the library versions."""
    h = hashlib.sha256()
    h.update(code_digest().encode())
    h.update(assemble.source_digest(folder).encode())
    return h.hexdigest()


def _stat_key(folder: Path) -> tuple[tuple[str, int, int], ...]:
    out = []
    for p in _unit_files(folder):
        st = p.stat()
        out.append((str(p), st.st_mtime_ns, st.st_size))
    return tuple(out)


_MEMO: dict[tuple[str, str], tuple[tuple[tuple[str, int, int], ...], CompiledUnit]] = {}
# watch=False: (content root, cache folder, slug) -> the unit, and content root -> the catalog,
# kept for the life of the process.
_KEPT: dict[tuple[str, str, str], CompiledUnit] = {}
_CATALOGS: dict[str, tuple[UnitInfo, ...]] = {}
_LOCK = threading.Lock()


def clear_memo() -> None:
    """Forget the in-process copies (the disk cache stays)."""
    with _LOCK:
        _MEMO.clear()
        _FOLDERS.clear()
        _KEPT.clear()
        _CATALOGS.clear()


def _read_pickle(path: Path, expected_hash: str) -> CompiledUnit | None:
    try:
        with path.open("rb") as f:
            unit = pickle.load(f)
    except FileNotFoundError:
        return None
    except Exception:
        return None  # truncated or from other code: recompile
    if not isinstance(unit, CompiledUnit) or unit.source_hash != expected_hash:
        return None
    return unit


def _write_pickle(path: Path, unit: CompiledUnit) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            pickle.dump(unit, f, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


_FOLDERS: dict[tuple[str, str], Path] = {}


def _folder(memo_key: tuple[str, str], slug: str, base: Path) -> Path:
    folder = _FOLDERS.get(memo_key)
    if folder is not None and (folder / UNIT_FILE).is_file():
        return folder
    return find_unit(slug, base)


def load_unit(
    slug: str,
    *,
    root: str | os.PathLike[str] | None = None,
    cache_dir: str | os.PathLike[str] | None = None,
    watch: bool = True,
) -> CompiledUnit:
    """The compiled unit `slug`, from memory, the disk cache, or a fresh compile.

    watch=True: re-validated against its files on every call (an edit shows at once);
    watch=False: loaded once per process, then returned without touching the disk (a slug that
    is not in the kept catalog is not looked for again either).
    Raises UnitNotFound, or CompileError (CompileErrors) when the sources have errors.
    """
    if not watch:
        key = (_spelled_root(root), _spelled_cache(cache_dir), slug)
        unit = _KEPT.get(key)
        if unit is None:
            if slug not in {info.slug for info in catalog(root=root, watch=False)}:
                raise UnitNotFound(f"no unit {slug!r} under {key[0]}")
            unit = _load_watched(slug, root, cache_dir, built=True)
            with _LOCK:
                _KEPT[key] = unit
        return unit
    return _load_watched(slug, root, cache_dir)


def _load_watched(
    slug: str,
    root: str | os.PathLike[str] | None,
    cache_dir: str | os.PathLike[str] | None,
    *,
    built: bool = False,
) -> CompiledUnit:
    base = content_root(root)
    memo_key = (str(base.resolve()), slug)
    folder = _folder(memo_key, slug, base)
    key = _stat_key(folder)
    memo = _MEMO.get(memo_key)
    if memo is not None and memo[0] == key:
        return memo[1]
    unit = build_unit(folder, cache_dir=cache_dir, built=built)
    with _LOCK:
        _MEMO[memo_key] = (key, unit)
        _FOLDERS[memo_key] = folder
    return unit


def build_unit(
    folder: Path, *, cache_dir: str | os.PathLike[str] | None = None, built: bool = False
) -> CompiledUnit:
    """Compile `folder` unless the disk cache already holds it; store the result.

    built: the caller expects the release step to have built it (a compile is then logged)."""
    digest = content_hash(folder)
    path = cache_path(cache_dir) / f"{digest}.pickle"
    unit = _read_pickle(path, digest)
    if unit is not None:
        return unit
    if built:
        log.warning(
            "%s was not built by the release step (python -m mathmachine.coursebook build): "
            "compiling it in this process",
            folder,
        )
    known = {info.number: info.slug for info in scan_units(folder.parent)}
    unit = assemble.compile_unit(folder, known_units=known, source_hash=digest)
    try:
        _write_pickle(path, unit)
    except OSError as exc:  # a read-only deployment still serves (from the memo)
        log.warning("cannot write the coursebook cache %s: %s", path, exc)
    return unit
