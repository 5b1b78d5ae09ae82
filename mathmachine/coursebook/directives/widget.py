"""``:::{widget} NAME`` with ``:id:`` (required, unique in the unit) and widget options.

The registered widget (mathmachine.coursebook.widgets) parses the options it declared and renders
its HTML (custom element + no-JS fallback + initial state); the compiler wraps it in
<div class="widget-frame">, records a WidgetUse, and adds the scripts and stylesheets the widget
declared to the section's page. A body, if any, is a caption rendered below the widget.
"""

from __future__ import annotations

import html as html_lib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from markdown_it.token import Token

from .. import widgets
from ..errors import UnknownWidgetError, WidgetError
from ..model import WidgetUse
from ..passes.context import SectionContext
from .base import DirectiveCall, DirectiveSpec, register
from .check import claim_id


@dataclass
class WidgetNode:
    id: str
    name: str
    line: int
    html: str
    caption: list[Token]

    def token_lists(self) -> Iterator[list[Token]]:
        yield self.caption

    def render(self, r: Any) -> str:
        caption = ""
        if self.caption:
            caption = (
                f'<div class="widget-caption">\n{r.blocks(self.caption, r.label_level())}</div>\n'
            )
        return (
            f'<div class="widget-frame" data-widget="{html_lib.escape(self.name)}">\n'
            f"{self.html}\n{caption}</div>\n"
        )


def _build(call: DirectiveCall, body: list[Token], ctx: SectionContext) -> WidgetNode | None:
    name = call.argument.strip()
    widget = widgets.get(name)
    if widget is None:
        failures = widgets.import_failures()
        why = "".join(
            f"; widget module {mod}.py failed to import: {type(exc).__name__}: {exc}"
            for mod, exc in sorted(failures.items())
        )
        known = ", ".join(widgets.names()) or "none"
        ctx.error(UnknownWidgetError, call.line, f"unknown widget {name!r} (known: {known}){why}")
        return None
    ident = call.options.get("id", "").strip()
    if not claim_id(ctx, ident, call.option_line("id"), "widget"):
        return None
    wctx = widgets.WidgetContext(
        examples=ctx.unit.examples,
        figures=ctx.unit.figures,
        unit_slug=ctx.unit.slug,
        source=ctx.where(call.line),
        id=ident,
        section=ctx.number,
        sections=dict(ctx.unit.built),
    )
    try:
        html = widget(dict(call.options), wctx)
    except widgets.WidgetOptionError as exc:
        ctx.error(WidgetError, call.line, f"widget {name!r}: {exc}")
        return None
    except Exception as exc:
        ctx.error(WidgetError, call.line, f"widget {name!r} failed: {type(exc).__name__}: {exc}")
        return None
    ctx.widgets.append(
        WidgetUse(
            id=ident,
            name=name,
            scripts=widget.scripts,
            styles=widget.styles,
            options=tuple(sorted(call.options.items())),
        )
    )
    ctx.use_assets(scripts=widget.scripts, styles=widget.styles)
    return WidgetNode(ident, name, call.line, html.strip(), body)


register(
    DirectiveSpec(
        name="widget",
        build=_build,
        argument="required",
        describe="a widget name, e.g. :::{widget} translate-lookback",
        options=None,  # widget-specific; the widget validates them
        required_options=frozenset({"id"}),
        body="optional",
        allowed_in=frozenset({None, "try", "byhand", "note"}),
    )
)
