"""Unit 18's worked examples and every figure its prose prints, computed by the engine.

One module per section, named ``sNN_<slug>.py`` (``s01_look_back.py``, ``s15_practice.py``), each
defining ``EXAMPLES`` (the inputs its widgets and prose use), ``figures()`` (every number the
section prints, formatted exactly as printed) and, for checks and problems with fresh numbers,
``VARIANTS`` (name -> function(seed) -> the figures of that variant). This package gathers them:
``EXAMPLES``, ``figures()`` and ``VARIANTS`` below are what the compiler reads. A name defined
by two sections is an error.
Numbers are printed by the project's one printer, ``mathmachine.printing`` (``dec``, ``plain``,
``vec``, ``matrix``, ``count``, ``rupees``); a figures module imports only the engine, that printer
and this package. ``variants.py`` holds the helpers fresh numbers draw with (``draw``,
``distinct``) and solutions are worked by hand with (``carried``, ``kept``).

The section modules are found by their file names, so adding a section's figures is adding its
file; nothing here needs editing.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from types import ModuleType
from typing import Any

SECTION_MODULE = re.compile(r"^s(\d\d)_[a-z0-9_]+$")


def _sections() -> list[ModuleType]:
    names = sorted(m.name for m in pkgutil.iter_modules(__path__) if SECTION_MODULE.match(m.name))
    return [importlib.import_module(f"{__name__}.{name}") for name in names]


SECTIONS: tuple[ModuleType, ...] = tuple(_sections())


def _merge(parts: list[tuple[str, dict[str, Any]]], what: str) -> dict[str, Any]:
    merged: dict[str, Any] = {}
    owner: dict[str, str] = {}
    for module, part in parts:
        for key, value in part.items():
            if key in merged:
                raise ValueError(f"{what} {key!r} is defined by both {owner[key]} and {module}")
            merged[key] = value
            owner[key] = module
    return merged


EXAMPLES: dict[str, Any] = _merge(
    [(m.__name__.rsplit(".", 1)[-1], getattr(m, "EXAMPLES", {})) for m in SECTIONS], "example"
)


VARIANTS: dict[str, Any] = _merge(
    [(m.__name__.rsplit(".", 1)[-1], getattr(m, "VARIANTS", {})) for m in SECTIONS], "variant"
)


def figures() -> dict[str, str]:
    """Every figure of every section, by name."""
    return _merge(
        [(m.__name__.rsplit(".", 1)[-1], m.figures()) for m in SECTIONS if hasattr(m, "figures")],
        "figure",
    )
