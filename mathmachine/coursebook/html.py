"""Small HTML helpers: escaping, and marking Devanagari runs with lang="hi"."""

from __future__ import annotations

import html
import re

# Devanagari (U+0900-097F) and Devanagari Extended (U+A8E0-A8FF), with ZWJ/ZWNJ inside words;
# words separated by single spaces form one run: "मैं चाय पीता हूँ" is one <span lang="hi">.
_DEVA = "\u0900-\u097f\ua8e0-\ua8ff"
DEVANAGARI_RUN = re.compile(
    rf"[{_DEVA}](?:[{_DEVA}\u200c\u200d]*)(?:[ \u00a0][{_DEVA}][{_DEVA}\u200c\u200d]*)*"
)


def escape(text: str) -> str:
    """Escape text for an HTML text node or a double-quoted attribute."""
    return html.escape(text, quote=True)


def escape_text(text: str) -> str:
    """Escape text for an HTML text node (quotes need no escaping there)."""
    return html.escape(text, quote=False)


def text_html(text: str) -> str:
    """Escaped text with every Devanagari run wrapped in <span lang="hi">."""
    out: list[str] = []
    pos = 0
    for m in DEVANAGARI_RUN.finditer(text):
        out.append(escape_text(text[pos : m.start()]))
        out.append(f'<span lang="hi">{escape_text(m.group())}</span>')
        pos = m.end()
    out.append(escape_text(text[pos:]))
    return "".join(out)


def has_devanagari(text: str) -> bool:
    return DEVANAGARI_RUN.search(text) is not None


def attrs_html(attrs: dict[str, str | int | None]) -> str:
    """' a="1" b="x"' for the non-None attributes, values escaped."""
    return "".join(f' {k}="{escape(str(v))}"' for k, v in attrs.items() if v is not None)


def element_end(html: str, start: int, tag: str) -> int:
    """Where the element ``tag`` opened at ``start`` closes (the same tag nested inside it
    counted): the index just after its end tag."""
    depth = 0
    for m in re.finditer(rf"<{tag}[\s>]|</{tag}>", html[start:]):
        depth += -1 if m.group(0).startswith("</") else 1
        if depth == 0:
            return start + m.end()
    raise ValueError(f"a <{tag}> is not closed")
