"""The widget registry (server side).

A widget module in this package registers a render function under the name the Markdown uses:

    from . import RenderedWidget, WidgetContext, WidgetOptionError, register

    @register("translate-lookback")
    def render(options: dict[str, str], ctx: WidgetContext) -> RenderedWidget:
        ...
        return RenderedWidget(html="<translate-lookback>...</translate-lookback>",
                              scripts=("widgets/translate-lookback.js",))

`options` are the directive's ``:key: value`` lines (``id`` included). Raise WidgetOptionError
for bad options: the compiler reports it at the directive's file:line.

Widget modules are discovered (every module of this package) on first use, not at import, so a
module that fails to import only matters when a unit uses a widget: the compile error then
names the module and its exception.
"""

from __future__ import annotations

import importlib
import pkgutil
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "RenderedWidget",
    "WidgetContext",
    "WidgetOptionError",
    "get",
    "import_failures",
    "names",
    "register",
]


class WidgetOptionError(ValueError):
    """A widget's options are wrong; the message says which and why (no file:line needed)."""


@dataclass(frozen=True)
class WidgetContext:
    """What a widget may read while rendering.

    examples: figures.EXAMPLES of the unit; figures: figures() (name -> printed text);
    unit_slug; source: "path:line" of the directive; id: the widget's :id:; section: number.
    """

    examples: dict[str, Any]
    figures: dict[str, str]
    unit_slug: str
    source: str
    id: str = ""
    section: int = 0


@dataclass(frozen=True)
class RenderedWidget:
    """html: the custom element wrapping its no-JS fallback and its initial state
    (<script type="application/json">). scripts: static paths of the JS modules to load."""

    html: str
    scripts: tuple[str, ...] = field(default_factory=tuple)


Render = Callable[[dict[str, str], WidgetContext], RenderedWidget]

_REGISTRY: dict[str, Render] = {}
_FAILED: dict[str, BaseException] = {}
_lock = threading.Lock()
_discovered = False


def register(name: str) -> Callable[[Render], Render]:
    """Decorator: register `render` under `name` (lowercase, hyphens)."""

    def deco(func: Render) -> Render:
        existing = _REGISTRY.get(name)
        if existing is not None and existing is not func:
            same = (existing.__module__, existing.__qualname__) == (
                func.__module__,
                func.__qualname__,
            )
            if not same:
                raise ValueError(f"widget {name!r} is already registered by {existing.__module__}")
        _REGISTRY[name] = func
        return func

    return deco


def unregister(name: str) -> None:
    """Remove a widget (tests register throwaway widgets and clean up)."""
    _REGISTRY.pop(name, None)


def _discover() -> None:
    global _discovered
    if _discovered:
        return
    with _lock:
        if _discovered:
            return
        for info in pkgutil.iter_modules(__path__):
            if info.name.startswith("_"):
                continue
            try:
                importlib.import_module(f"{__name__}.{info.name}")
            except Exception as exc:
                _FAILED[info.name] = exc
        _discovered = True


def get(name: str) -> Render | None:
    _discover()
    return _REGISTRY.get(name)


def names() -> list[str]:
    _discover()
    return sorted(_REGISTRY)


def import_failures() -> dict[str, BaseException]:
    """Widget modules that failed to import: module name -> exception."""
    _discover()
    return dict(_FAILED)
