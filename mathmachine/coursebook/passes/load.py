"""Stage 1: read a unit folder: unit.toml (tomllib), its figures (``figures.py``, or a
``figures/`` package with one module per section, imported from its path) and the list of
section files."""

from __future__ import annotations

import importlib.util
import inspect
import re
import sys
import tomllib
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import CompileError, CompileErrors, FiguresError, SectionFileError, UnitFileError
from ..model import UnitInfo

UNIT_FILE = "unit.toml"
FIGURES_FILE = "figures.py"
FIGURES_PACKAGE = "figures"  # figures/__init__.py, with figures/sNN_<slug>.py per section
SLUG = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
FIGURE_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]*$")

UNIT_KEYS: dict[str, type] = {
    "number": int,
    "slug": str,
    "title": str,
    "subtitle": str,
    "course": str,
    "offer": str,
    "sections": list,
}
UNIT_REQUIRED = ("number", "slug", "title", "sections")
SECTION_KEYS: dict[str, type] = {
    "number": int,
    "slug": str,
    "title": str,
    "file": str,
    "free": bool,
    "widgets": int,
    "checks": int,
    "problems": int,
    "draft": bool,
}
SECTION_REQUIRED = ("number", "slug", "title")


@dataclass(frozen=True)
class SectionEntry:
    """One [[sections]] entry. file == "" means the section is not written yet.

    widgets, checks: what the section publishes (a written section has exactly these).
    problems: the practice problems it plans, when it says (the arena is written a few problems
    at a time: it may hold fewer, never more); None when unit.toml does not say.
    draft: the section is being written in the open (``draft = true``): compiled and tested
    like any section, served to staff only, counted nowhere; it may hold fewer widgets, checks
    and problems than it publishes, never more, and holds exactly them once published."""

    number: int
    slug: str
    title: str
    file: str
    free: bool
    widgets: int
    checks: int
    line: int  # of its [[sections]] header in unit.toml
    problems: int | None = None
    draft: bool = False

    def path(self, folder: Path) -> Path | None:
        return folder / self.file if self.file else None


@dataclass(frozen=True)
class UnitSource:
    folder: Path
    number: int
    slug: str
    title: str
    subtitle: str
    course: str
    offer: str
    sections: tuple[SectionEntry, ...]

    @property
    def toml_path(self) -> Path:
        return self.folder / UNIT_FILE


@dataclass(frozen=True)
class Figures:
    """figures() (name -> text exactly as printed) and EXAMPLES from figures.py."""

    values: dict[str, str]
    examples: dict[str, Any]
    path: Path
    # VARIANTS: name -> function(seed) -> figures of one variant of a check or problem
    variants: dict[str, Callable[[int], dict[str, str]]] = field(default_factory=dict)


def _key_lines(text: str) -> dict[tuple[int, str], int]:
    """(table index, key) -> 1-based line; table index -1 is the top level, k the k-th
    [[sections]] (k = 0, 1, ...), and (k, "[[sections]]") its header line."""
    lines: dict[tuple[int, str], int] = {}
    table = -1
    for n, raw in enumerate(text.splitlines(), start=1):
        s = raw.strip()
        if s.startswith("[[sections]]"):
            table += 1
            lines[(table, "[[sections]]")] = n
            continue
        m = re.match(r'^"?([A-Za-z0-9_-]+)"?\s*=', s)
        if m:
            lines.setdefault((table, m.group(1)), n)
    return lines


def _type_name(t: type) -> str:
    return {int: "an integer", str: "a string", bool: "true or false", list: "a list"}[t]


def _check_table(
    table: dict[str, Any],
    spec: dict[str, type],
    required: tuple[str, ...],
    where: str,
    line_of: Any,
    path: Path,
    errors: list[CompileError],
) -> None:
    for key, value in table.items():
        if key not in spec:
            errors.append(
                UnitFileError(
                    path, line_of(key), f"unknown key {key!r} in {where} (known: {', '.join(spec)})"
                )
            )
            continue
        want = spec[key]
        if not isinstance(value, want) or (want is int and isinstance(value, bool)):
            errors.append(
                UnitFileError(path, line_of(key), f"{where}: {key} must be {_type_name(want)}")
            )
    for key in required:
        if key not in table:
            errors.append(UnitFileError(path, line_of(None), f"{where} has no {key!r}"))


def read_unit(folder: Path) -> UnitSource:
    """Parse and validate unit.toml, and check the section files against the folder.

    Raises CompileErrors listing every problem found.
    """
    path = folder / UNIT_FILE
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise CompileErrors([UnitFileError(path, 1, "unit.toml is missing")]) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        m = re.search(r"line (\d+)", str(exc))
        line = int(m.group(1)) if m else 1
        raise CompileErrors([UnitFileError(path, line, f"not valid TOML: {exc}")]) from None

    lines = _key_lines(text)
    errors: list[CompileError] = []
    _check_table(
        data, UNIT_KEYS, UNIT_REQUIRED, "unit.toml", lambda k: lines.get((-1, k), 1), path, errors
    )
    found = data.get("sections")
    raw_sections: list[Any] = found if isinstance(found, list) else []
    sections: list[SectionEntry] = []
    listed: set[str] = set()  # every file named by an entry, even a malformed one
    for i, sec in enumerate(raw_sections):
        header = lines.get((i, "[[sections]]"), 1)
        if not isinstance(sec, dict):
            errors.append(UnitFileError(path, header, "each [[sections]] entry must be a table"))
            continue

        def line_of(key: str | None, i: int = i, header: int = header) -> int:
            return lines.get((i, key), header) if key else header

        if isinstance(sec.get("file"), str) and sec["file"].strip():
            listed.add(sec["file"].strip())
        before = len(errors)
        _check_table(sec, SECTION_KEYS, SECTION_REQUIRED, f"section {i + 1}", line_of, path, errors)
        if len(errors) > before:
            continue
        entry = SectionEntry(
            number=sec["number"],
            slug=sec["slug"],
            title=sec["title"].strip(),
            file=sec.get("file", "").strip(),
            free=sec.get("free", False),
            widgets=sec.get("widgets", 0),
            checks=sec.get("checks", 0),
            line=header,
            problems=sec.get("problems"),
            draft=sec.get("draft", False),
        )
        if entry.number != i + 1:
            errors.append(
                UnitFileError(
                    path,
                    line_of("number"),
                    f"sections must be numbered 1, 2, 3... in order: entry {i + 1} "
                    f"has number {entry.number}",
                )
            )
        if not SLUG.match(entry.slug):
            errors.append(
                UnitFileError(path, line_of("slug"), f"section slug {entry.slug!r} is not a slug")
            )
        if any(s.slug == entry.slug for s in sections):
            errors.append(
                UnitFileError(path, line_of("slug"), f"section slug {entry.slug!r} is used twice")
            )
        for key in ("widgets", "checks", "problems"):
            if (getattr(entry, key) or 0) < 0:
                errors.append(UnitFileError(path, line_of(key), f"{key} cannot be negative"))
        if entry.draft and not entry.file:
            errors.append(
                UnitFileError(
                    path,
                    line_of("draft"),
                    f"section {i + 1} is a draft but has no file: a draft is a section being "
                    "written, so give it its file (file = ...)",
                )
            )
        if entry.file:
            if "/" in entry.file or "\\" in entry.file or not entry.file.endswith(".md"):
                errors.append(
                    UnitFileError(
                        path,
                        line_of("file"),
                        f"file {entry.file!r} must be a .md file in the unit's folder",
                    )
                )
            elif not (folder / entry.file).is_file():
                errors.append(
                    SectionFileError(
                        path,
                        line_of("file"),
                        f"section {i + 1} lists file {entry.file!r}, which does not exist",
                    )
                )
            if any(s.file == entry.file for s in sections):
                errors.append(
                    UnitFileError(path, line_of("file"), f"file {entry.file!r} is listed twice")
                )
        sections.append(entry)

    if "sections" in data and not raw_sections:
        errors.append(UnitFileError(path, lines.get((-1, "sections"), 1), "no [[sections]]"))

    number, slug = data.get("number"), data.get("slug")
    if isinstance(slug, str) and not SLUG.match(slug):
        errors.append(UnitFileError(path, lines.get((-1, "slug"), 1), f"{slug!r} is not a slug"))
    if isinstance(number, int) and isinstance(slug, str):
        expected = f"{number:02d}-{slug}"
        if folder.name != expected:
            errors.append(
                UnitFileError(
                    path,
                    lines.get((-1, "slug"), 1),
                    f"the unit's folder is {folder.name!r}; number and slug say {expected!r}",
                )
            )

    for md in sorted(folder.glob("*.md")):
        if md.name not in listed:
            errors.append(
                SectionFileError(md, 1, "no section in unit.toml lists this file (add file = ...)")
            )

    if errors:
        raise CompileErrors(errors)
    return UnitSource(
        folder=folder,
        number=data["number"],
        slug=data["slug"],
        title=data["title"].strip(),
        subtitle=str(data.get("subtitle", "")).strip(),
        course=str(data.get("course", "")).strip(),
        offer=str(data.get("offer", "")).strip(),
        sections=tuple(sections),
    )


def read_unit_header(folder: Path) -> tuple[int, str, str, str]:
    """(number, slug, title, subtitle) from unit.toml, for the catalog (no section checks)."""
    path = folder / UNIT_FILE
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8-sig"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise CompileErrors([UnitFileError(path, 1, f"cannot read unit.toml: {exc}")]) from None
    try:
        return (
            int(data["number"]),
            str(data["slug"]),
            str(data["title"]),
            str(data.get("subtitle", "")),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise CompileErrors([UnitFileError(path, 1, f"unit.toml lacks {exc}")]) from None


def unit_folders(root: Path) -> list[Path]:
    """The folders under a content root that hold a unit.toml, by name."""
    if not root.is_dir():
        return []
    return sorted(p for p in root.iterdir() if (p / UNIT_FILE).is_file())


def scan_units(root: Path, *, strict: bool = False) -> list[UnitInfo]:
    """Every unit under root, by number. strict: raise on an unreadable unit.toml."""
    infos = []
    for folder in unit_folders(root):
        try:
            number, slug, title, subtitle = read_unit_header(folder)
        except CompileError:
            if strict:
                raise
            continue
        infos.append(UnitInfo(number, slug, title.strip(), subtitle.strip(), str(folder)))
    return sorted(infos, key=lambda u: u.number)


def _error_line(exc: BaseException, root: Path) -> tuple[Path, int]:
    """The file under ``root`` (figures.py, or any file of the figures/ package) and the line
    where ``exc`` was raised, innermost frame first."""
    target = root.resolve()

    def inside(filename: str) -> bool:
        p = Path(filename).resolve()
        return p == target or target in p.parents

    frames = [f for f in traceback.extract_tb(exc.__traceback__) if inside(f.filename)]
    if frames and frames[-1].lineno:
        return Path(frames[-1].filename), frames[-1].lineno
    if isinstance(exc, SyntaxError) and exc.lineno and exc.filename and inside(exc.filename):
        return Path(exc.filename), exc.lineno
    return (root / "__init__.py" if root.is_dir() else root), 1


def figures_source(folder: Path) -> Path | None:
    """The unit's figures: folder/figures.py or folder/figures/ (a package), or None."""
    package = folder / FIGURES_PACKAGE
    if (package / "__init__.py").is_file():
        return package
    single = folder / FIGURES_FILE
    return single if single.is_file() else None


def load_figures(folder: Path, unit_number: int) -> Figures:
    """Import the unit's figures from their path and call figures(). A unit without figures has
    none. ``figures.py`` or a ``figures/`` package (both at once is an error).

    Raises CompileErrors (FiguresError) with the file and line that failed.
    """
    source = figures_source(folder)
    if source is None:
        return Figures({}, {}, folder / FIGURES_FILE)
    if source.is_dir() and (folder / FIGURES_FILE).is_file():
        raise CompileErrors(
            [FiguresError(folder / FIGURES_FILE, 1, "figures.py and figures/ both exist: keep one")]
        )
    path = source / "__init__.py" if source.is_dir() else source
    name = f"mathmachine_unit{unit_number:02d}_figures"
    spec = importlib.util.spec_from_file_location(
        name, path, submodule_search_locations=[str(source)] if source.is_dir() else None
    )
    if spec is None or spec.loader is None:
        raise CompileErrors([FiguresError(path, 1, f"cannot import {path.name}")])
    module = importlib.util.module_from_spec(spec)
    previous = {k: v for k, v in sys.modules.items() if k == name or k.startswith(name + ".")}
    sys.modules[name] = module  # dataclasses and typing look a module up while it runs
    try:
        spec.loader.exec_module(module)
        func = getattr(module, "figures", None)
        if not callable(func):
            raise CompileErrors([FiguresError(path, 1, "the figures define no figures() function")])
        try:
            values = func()
        except Exception as exc:
            where, line = _error_line(exc, source)
            raise CompileErrors(
                [FiguresError(where, line, f"figures() raised {type(exc).__name__}: {exc}")]
            ) from exc
    except CompileErrors:
        raise
    except Exception as exc:
        where, line = _error_line(exc, source)
        raise CompileErrors(
            [FiguresError(where, line, f"{where.name} raised {type(exc).__name__}: {exc}")]
        ) from exc
    finally:
        for key in [k for k in sys.modules if k == name or k.startswith(name + ".")]:
            del sys.modules[key]
        sys.modules.update(previous)

    def_line = inspect.getsourcelines(func)[1] if inspect.isfunction(func) else 1
    errors: list[CompileError] = []
    if not isinstance(values, dict):
        raise CompileErrors(
            [
                FiguresError(
                    path, def_line, f"figures() must return a dict, not {type(values).__name__}"
                )
            ]
        )
    clean: dict[str, str] = {}
    for key, value in values.items():
        if not isinstance(key, str) or not FIGURE_NAME.match(key):
            errors.append(FiguresError(path, def_line, f"figure name {key!r} is not a valid name"))
        elif not isinstance(value, str):
            errors.append(
                FiguresError(
                    path,
                    def_line,
                    f"figures()[{key!r}] is {type(value).__name__}: format it as printed, "
                    f"e.g. f'{{x:.3f}}'",
                )
            )
        elif "\n" in value or "\r" in value:
            errors.append(FiguresError(path, def_line, f"figures()[{key!r}] spans several lines"))
        else:
            clean[key] = value
    examples = getattr(module, "EXAMPLES", {})
    if not isinstance(examples, dict):
        errors.append(FiguresError(path, 1, "EXAMPLES must be a dict"))
        examples = {}
    variants = getattr(module, "VARIANTS", {})
    if not isinstance(variants, dict) or not all(
        isinstance(k, str) and callable(v) for k, v in variants.items()
    ):
        errors.append(FiguresError(path, 1, "VARIANTS must be a dict of name -> function(seed)"))
        variants = {}
    if errors:
        raise CompileErrors(errors)
    return Figures(clean, examples, path, dict(variants))
