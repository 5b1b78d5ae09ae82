"""The widget kit (server side): the registry, and what a widget declares when it registers.

A widget is one module in this package (its renderer) and one custom element in
mathmachine/static/widgets/ (plus a stylesheet if it needs one). The module declares everything
the page and the tests need to know about it::

    from . import Golden, WidgetContext, kit, option, register

    @register(
        "soft-dictionary",                          # the Markdown name and the element's tag
        scripts=("widgets/soft-dictionary.js",),    # the page loads exactly these (ES modules)
        styles=("widgets/soft-dictionary.css",),    # ... and links exactly these
        options=(option.example(default="softdict", needs=("keys", "values")),
                 option.number("beta", default=1.0, minimum=0.0, maximum=20.0)),
        control="beta",                             # data-target of the main control (bench)
        golden=vectors,                             # if the script recomputes numbers
    )
    def render(opts: dict[str, Any], ctx: WidgetContext) -> str:
        return kit.element("soft-dictionary", opts["id"], state, fallback, live_parts)

`register` returns a `Widget`; calling it with the directive's raw options parses them against
the declared ones (WidgetOptionError names the problem; the compiler adds file:line) and renders.
The renderer returns the custom element (kit.element) wrapping its initial state and a fallback
that works without JavaScript (kit.table / kit.figure). The browser side is
static/widgets/kit.js; docs/writing-content.md walks through a new widget, and
tests/widgets/test_conformance.py holds every registered widget to the same rules.

Widget modules are discovered (every module of this package not starting with "_") on first use,
not at import, so a module that fails to import only matters when a unit uses a widget: the
compile error then names the module and its exception.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from . import _kit as kit
from . import _options as option
from . import _parts as parts
from ._golden import Golden
from ._options import Option, WidgetOptionError

__all__ = [
    "Golden",
    "Option",
    "SectionSoFar",
    "Widget",
    "WidgetContext",
    "WidgetOptionError",
    "get",
    "import_failures",
    "kit",
    "names",
    "option",
    "parts",
    "register",
]

TAG = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)+\Z")  # a custom element name needs a hyphen
TARGET = re.compile(r"[a-z][a-z0-9-]*\Z")
STATIC = re.compile(r"(?:[a-z0-9_-]+/)+[a-z0-9_.-]+\Z")


@dataclass(frozen=True)
class SectionSoFar:
    """A section of the unit as the compiler has it when a later section's widget renders.

    published: written and not a draft (what a learner can open). url: its page. widgets: the
    (id, name) of each widget it uses, in order (empty unless published). first_widget: the
    number the unit's plan gives its first widget (the counts of unit.toml before it, plus 1),
    so its k-th widget is "Widget first_widget + k - 1" whether or not earlier sections are
    written yet.
    """

    number: int
    slug: str
    title: str
    url: str
    published: bool
    planned_widgets: int
    first_widget: int
    widgets: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class WidgetContext:
    """What a widget may read while rendering.

    examples: figures.EXAMPLES of the unit; figures: figures() (name -> printed text);
    unit_slug; source: "path:line" of the directive; id: the widget's :id:; section: number;
    sections: every section of the unit by number, as compiled so far (SectionSoFar): the
    sections before this one are compiled (their widgets known), later ones only planned.
    """

    examples: dict[str, Any]
    figures: dict[str, str]
    unit_slug: str
    source: str
    id: str = ""
    section: int = 0
    sections: dict[int, SectionSoFar] = field(default_factory=dict)


Render = Callable[[dict[str, Any], WidgetContext], str]
GoldenFn = Callable[[dict[str, Any], WidgetContext], "Golden | Sequence[Golden]"]


@dataclass(frozen=True)
class Widget:
    """A registered widget: its renderer and what it declared (see the module docstring)."""

    name: str
    render: Render
    scripts: tuple[str, ...]
    control: str
    styles: tuple[str, ...] = ()
    options: tuple[Option, ...] = ()
    golden: GoldenFn | None = None
    module: str = field(default="", compare=False)

    def parse(self, raw: dict[str, str], ctx: WidgetContext) -> dict[str, Any]:
        """The directive's options as parsed values (WidgetOptionError if they are wrong)."""
        return option.parse(self.options, raw, ctx.examples, ctx.id)

    def __call__(self, raw: dict[str, str], ctx: WidgetContext) -> str:
        """Parse the raw options and render; the result is checked to be this widget's element."""
        opts = self.parse(raw, ctx)
        html = self.render(opts, ctx)
        if not isinstance(html, str):
            raise TypeError(f"{self.module}.render returned {type(html).__name__}, not HTML")
        head = f'<{self.name} id="{opts["id"]}"'
        if not html.startswith(head) or not html.rstrip().endswith(f"</{self.name}>"):
            raise ValueError(
                f"render must return one <{self.name} id=…> element (kit.element), got "
                f"{html[:60]!r}…"
            )
        return html


_REGISTRY: dict[str, Widget] = {}
_FAILED: dict[str, BaseException] = {}
_lock = threading.Lock()
_discovered = False


def _check_declaration(
    name: str, scripts: Sequence[str], styles: Sequence[str], control: str
) -> None:
    if not TAG.match(name):
        raise ValueError(f"widget name {name!r} must be lowercase words joined by '-' (a tag)")
    if not scripts:
        raise ValueError(f"widget {name!r} declares no script")
    for path, ext in [(s, ".js") for s in scripts] + [(s, ".css") for s in styles]:
        if not STATIC.match(path) or ".." in path or not path.endswith(ext):
            raise ValueError(
                f"widget {name!r}: {path!r} must be a static path like 'widgets/{name}{ext}'"
            )
    if not TARGET.match(control):
        raise ValueError(f"widget {name!r}: control {control!r} must be a data-target name")


def register(
    name: str,
    *,
    scripts: Sequence[str],
    control: str,
    styles: Sequence[str] = (),
    options: Sequence[Option] = (),
    golden: GoldenFn | None = None,
) -> Callable[[Render], Widget]:
    """Decorator: register the renderer under `name` with its declarations; returns the Widget."""
    _check_declaration(name, scripts, styles, control)

    def deco(func: Render) -> Widget:
        widget = Widget(
            name=name,
            render=func,
            scripts=tuple(scripts),
            control=control,
            styles=tuple(styles),
            options=tuple(options),
            golden=golden,
            module=func.__module__,
        )
        existing = _REGISTRY.get(name)
        if existing is not None:
            same = (existing.module, existing.render.__qualname__) == (
                func.__module__,
                func.__qualname__,
            )
            if not same:
                raise ValueError(f"widget {name!r} is already registered by {existing.module}")
        _REGISTRY[name] = widget
        return widget

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


def get(name: str) -> Widget | None:
    _discover()
    return _REGISTRY.get(name)


def names() -> list[str]:
    _discover()
    return sorted(_REGISTRY)


def import_failures() -> dict[str, BaseException]:
    """Widget modules that failed to import: module name -> exception."""
    _discover()
    return dict(_FAILED)
