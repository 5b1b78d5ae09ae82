"""Writing the golden vectors (``python -m mathmachine.coursebook golden [--check]``): the kit's
own cases and every registered widget's, collected over every use in every unit of the content
root (widgets/_golden.py says what the vectors are and how they are compared).

Above the cache and the widget registry, which know nothing of it: it compiles the units through
the cache and asks each widget's declaration for its cases.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from . import cache
from .passes.load import load_figures
from .widgets import WidgetContext, get
from .widgets._golden import (
    TOLERANCE,
    Golden,
    difference,
    dump,
    layer_cases,
    mask_cases,
    math_cases,
    parts_cases,
    printing_cases,
)

__all__ = ["collect", "golden_files", "write"]


def collect(root: str | Path | None = None) -> dict[str, list[dict[str, Any]]]:
    """Widget name -> its golden groups, over every use in every unit of the content root."""
    out: dict[str, list[dict[str, Any]]] = {}
    for folder in cache.unit_folders(cache.content_root(root)):
        unit = cache.build_unit(folder).with_drafts()  # a draft's widgets are tested too
        figures = load_figures(folder, unit.number)
        for section in unit.sections:
            for use in section.widgets:
                spec = get(use.name)
                if spec is None or spec.golden is None:
                    continue
                ctx = WidgetContext(
                    examples=figures.examples,
                    figures=figures.values,
                    unit_slug=unit.slug,
                    source=section.source,
                    id=use.id,
                    section=section.number,
                )
                groups = spec.golden(spec.parse(dict(use.options), ctx), ctx)
                if isinstance(groups, Golden):
                    groups = [groups]
                where = f"{unit.slug} §{section.number} #{use.id}"
                out.setdefault(use.name, []).extend(g.as_json(where) for g in groups)
    return out


def golden_files(root: str | Path | None = None) -> dict[str, str]:
    """File name -> exact text of every golden file (deterministic)."""
    about = (
        "Written by `python -m mathmachine.coursebook golden` from mathmachine.engine; do not "
        "edit. Each case calls the module's export fn(...args); the result must equal out (floats "
        "to the tolerance, text exactly)."
    )
    files = {
        "math.json": {"about": about, "tolerance": TOLERANCE,
                      "groups": [g.as_json("kit") for g in (math_cases(), layer_cases(),
                                                            mask_cases())]},
        "printing.json": {"about": about, "tolerance": TOLERANCE,
                          "groups": [printing_cases().as_json("kit")]},
        "parts.json": {"about": about, "tolerance": TOLERANCE,
                       "groups": [g.as_json("kit") for g in parts_cases()]},
    }  # fmt: skip
    for name, groups in sorted(collect(root).items()):
        files[f"{name}.json"] = {"about": about, "tolerance": TOLERANCE, "groups": groups}
    return {name: dump(data) + "\n" for name, data in files.items()}


def _same_file(path: Path, text: str) -> bool:
    """Whether the file at `path` already holds `text`'s figures (within STALE_RTOL)."""
    try:
        committed = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return difference(committed, json.loads(text)) is None


def write(out: Path, *, check: bool, root: str | Path | None = None) -> list[Path]:
    """Write the files into `out` (or, with check, write nothing); returns the stale ones. A file
    that already equals the new one within STALE_RTOL is left alone (not rewritten by one bit)."""
    stale: list[Path] = []
    files = golden_files(root)
    for name, text in files.items():
        path = out / name
        if _same_file(path, text):
            continue
        if check:
            stale.append(path)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    extra = sorted(p for p in out.glob("*.json") if p.name not in files) if out.is_dir() else []
    if check:
        stale.extend(extra)
    else:
        for path in extra:  # a widget that no longer recomputes (or exists) leaves no file behind
            path.unlink()
    return stale
