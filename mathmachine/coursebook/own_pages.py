"""A part of a section on a page of its own, cut out when the unit compiles (issue 19: a
section's repeat visit in <= 15 KB of HTML).

A widget's fallback for readers without JavaScript can be long: §13's walk of "I drink tea" is
every number of the model's walk, 36 KB of tables. A reader with JavaScript never sees it (the
widget replaces it), yet every visit would carry it. The widget marks such a part

    <div data-own-page="walk" data-own-page-title="The whole walk, as tables">…</div>

and the compiler cuts it out of the section (CompiledSection.own_pages) and leaves a link in its
place, ``<p class="own-page-link"><a href="walk/">The whole walk, as tables</a></p>``: the page
``/units/<slug>/<number>/walk/`` (learning/views.py section_own_page) shows the part with the
section's fonts and styles, gated as the section is, and kept on the phone with it
(learning/keeping.py). The link sits where the part was, inside the widget's fallback: visible
without JavaScript and until the widget wakes.
"""

from __future__ import annotations

import html as _html
import re

from .html import element_end
from .model import OwnPage

_PART = re.compile(
    r'<div((?:\s[^>]*?)?)\sdata-own-page="([a-z][a-z0-9-]*)" data-own-page-title="([^"]*)"([^>]*)>'
)


def split_own_pages(html: str) -> tuple[str, tuple[OwnPage, ...]]:
    """``html`` with every marked part replaced by the link to its page; and the pages."""
    pages: list[OwnPage] = []
    out: list[str] = []
    at = 0
    for m in _PART.finditer(html):
        if m.start() < at:
            raise ValueError("a part on a page of its own holds another")
        end = element_end(html, m.start(), "div")
        name, title = m.group(2), _html.unescape(m.group(3))
        if any(p.name == name for p in pages):
            raise ValueError(f"two parts of one section are both named {name!r}")
        inner = html[m.end() : end - len("</div>")]
        pages.append(
            OwnPage(name=name, title=title, html=f"<div{m.group(1)}{m.group(4)}>{inner}</div>")
        )
        out.append(html[at : m.start()])
        out.append(f'<p class="own-page-link"><a href="{name}/">{m.group(3)}</a></p>')
        at = end
    out.append(html[at:])
    return "".join(out), tuple(pages)
