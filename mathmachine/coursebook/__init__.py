"""mathmachine.coursebook: compiles a unit's sources into HTML fragments, checks and widgets.

    compile_unit(path) -> CompiledUnit          (raises CompileError, with path:line)
    load_unit(slug, root=None) -> CompiledUnit  (cached on disk and in memory by content hash)
    catalog(root=None) -> list[UnitInfo]        (the units, from unit.toml only)

The stages live in passes/ (load, figures, lint, directives, structure, roles, math, render,
assemble), the directives in directives/, the widget registry in widgets/, numeric grading in
grading.py. Never imports Django.
"""

from __future__ import annotations

from .cache import UnitNotFound, catalog, load_unit
from .errors import CompileError, CompileErrors
from .model import CheckDef, CompiledSection, CompiledUnit, Field, Mistake, UnitInfo, WidgetUse
from .passes.assemble import compile_unit

__all__ = [
    "CheckDef",
    "CompileError",
    "CompileErrors",
    "CompiledSection",
    "CompiledUnit",
    "Field",
    "Mistake",
    "UnitInfo",
    "UnitNotFound",
    "WidgetUse",
    "catalog",
    "compile_unit",
    "load_unit",
]
