"""Golden vectors: the engine's answers that the widgets' client modules must reproduce.

A widget whose script recomputes numbers declares ``golden=`` when it registers: a function of
its parsed options and context (the same as its renderer gets) that returns `Golden` cases, each
a call of one function its client module exports, with the engine's answer::

    def vectors(opts, ctx):
        g = Golden("widgets/math.js")
        g.case("softmax", [0.0, 0.5, 2.0], out=engine.softmax(np.array([0.0, 0.5, 2.0])))
        return g

The registry collects them for every use of the widget in every unit (so the vectors are the
numbers the learner meets) and writes one file per widget, plus math.json for the kit's shared
math.js (MATH below):

    python -m mathmachine.coursebook golden            # (re)write tests/golden/*.json
    python -m mathmachine.coursebook golden --check    # exit 1 if a committed file is stale

tests/js/golden.test.mjs runs every case of every file in Node (floats to TOLERANCE, strings
exactly); tests/golden/test_golden_files.py holds the committed files to what this writes now.
The output is deterministic (same inputs, same float repr, same key order).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from mathmachine.engine import alignment_map, context_vector, dot_scores, softmax

__all__ = ["MATH_MODULE", "TOLERANCE", "Golden", "golden_files", "math_cases"]

TOLERANCE = 1e-12
MATH_MODULE = "widgets/math.js"


def plain(value: Any) -> Any:
    """numpy arrays and scalars, tuples -> lists of Python floats / ints / str (exact in JSON)."""
    if isinstance(value, np.ndarray):
        return (
            np.asarray(value, dtype=np.float64).tolist()
            if value.dtype.kind == "f"
            else (value.tolist())
        )
    if isinstance(value, np.floating):
        return float(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, float) and not np.isfinite(value):
        raise ValueError(f"golden vectors must be finite, got {value!r}")
    return value


@dataclass
class Golden:
    """Cases for one client module (a static path such as "widgets/math.js")."""

    module: str
    cases: list[dict[str, Any]] = field(default_factory=list)

    def case(self, fn: str, *args: Any, out: Any) -> Any:
        """Record ``fn(*args) == out`` (to TOLERANCE); returns ``out`` for chaining."""
        self.cases.append({"fn": fn, "args": plain(list(args)), "out": plain(out)})
        return out

    def as_json(self, source: str) -> dict[str, Any]:
        return {"source": source, "module": self.module, "cases": self.cases}


# Softmax inputs [n]: small, equal, a single entry, and large ones that overflow a naive exp().
SOFTMAX_INPUTS: tuple[tuple[float, ...], ...] = (
    (0.0, 0.5, 2.0),
    (1.0, 2.0, 3.0),
    (0.0, 0.0, 0.0),
    (5.0,),
    (3.5, -1.25, 0.0, 7.0, 2.0),
    (1000.0, 1001.0, 1002.0),
    (-1000.0, -999.0, -998.0),
    (710.0, 0.0, -710.0),
    (1e5, 1e5 - 1.0, 0.0, -1e5),
    (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2),
)


def math_cases() -> Golden:
    """The kit's shared math.js against the engine, on inputs no unit needs to contain."""
    g = Golden(MATH_MODULE)
    for x in SOFTMAX_INPUTS:
        g.case("softmax", list(x), out=softmax(np.array(x)))
    for q, notes in (
        ([0.0, 0.5, 2.0], [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]),
        ([0.5, -0.5], [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]),
        ([1.5, -2.25, 3.0, 0.125], [[0.3, 0.1, -0.7, 2.0], [-1.0, 4.5, 0.25, 0.0]]),
    ):
        g.case("scores", q, notes, out=dot_scores(q, notes))
        for h in notes:
            g.case("dot", q, h, out=float(np.dot(q, h)))
    # Notes that are not one-hot, so that a context differs from its weights.
    mixed_notes = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]  # [3, 2]
    mixed_states = [[0.5, -0.5], [2.0, 1.0], [-1.5, 3.0]]  # [3, 2]
    for w in ([0.2, 0.3, 0.5], [0.195, 0.315, 0.49], [1.0, 0.0, 0.0]):
        g.case("context", w, mixed_notes, out=context_vector(w, mixed_notes))
    amap = g.case(
        "alignmentMap", mixed_states, mixed_notes, out=alignment_map(mixed_states, mixed_notes)
    )
    for q, row in zip(mixed_states, amap, strict=True):
        g.case("alignmentRow", q, mixed_notes, out=row)
    printed: list[tuple[float, int]] = [(0.7361, 3), (-0.0001, 3), (2.05, 1), (1.0, 1), (-1.2, 2)]
    for value, places in printed:
        g.case("fmt", value, places, out=_fmt(value, places))
    return g


def _fmt(x: float, places: int) -> str:
    from ._kit import num  # the server's own printing, which fmt() must equal

    return num(x, places)


def collect(root: str | Path | None = None) -> dict[str, list[dict[str, Any]]]:
    """Widget name -> its golden groups, over every use in every unit of the content root."""
    from .. import cache
    from ..passes.load import load_figures
    from . import WidgetContext, get

    out: dict[str, list[dict[str, Any]]] = {}
    for folder in cache.unit_folders(cache.content_root(root)):
        unit = cache.build_unit(folder)
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
    files = {"math.json": {"about": about, "tolerance": TOLERANCE,
                           "groups": [math_cases().as_json("kit")]}}  # fmt: skip
    for name, groups in sorted(collect(root).items()):
        files[f"{name}.json"] = {"about": about, "tolerance": TOLERANCE, "groups": groups}
    return {name: dump(data) + "\n" for name, data in files.items()}


def write(out: Path, *, check: bool, root: str | Path | None = None) -> list[Path]:
    """Write the files into `out` (or, with check, write nothing); returns the stale ones."""
    stale: list[Path] = []
    files = golden_files(root)
    for name, text in files.items():
        path = out / name
        if check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
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


def dump(obj: Any, indent: str = "") -> str:
    """JSON with one line per leaf record: dicts and lists of records are broken over lines, a
    dict or list holding only numbers, strings or lists of those stays on one line (diffable)."""

    def flat(o: Any) -> bool:
        if isinstance(o, dict):
            return all(not isinstance(v, dict) and flat(v) for v in o.values())
        if isinstance(o, list):
            return all(not isinstance(v, dict) and flat(v) for v in o)
        return True

    if flat(obj):
        return json.dumps(obj, ensure_ascii=False, separators=(", ", ": "))
    inner = indent + " "
    if isinstance(obj, dict):
        items = [f"{inner}{json.dumps(k)}: {dump(v, inner)}" for k, v in obj.items()]
        return "{\n" + ",\n".join(items) + "\n" + indent + "}"
    items = [inner + dump(v, inner) for v in obj]
    return "[\n" + ",\n".join(items) + "\n" + indent + "]"
