"""The directives a section may use. Importing this package registers all of them in SPECS."""

from __future__ import annotations

from . import callouts, check, proof, table, widget
from .base import SPECS, DirectiveCall, DirectiveSpec

__all__ = [
    "SPECS",
    "DirectiveCall",
    "DirectiveSpec",
    "callouts",
    "check",
    "proof",
    "table",
    "widget",
]
