"""Stage 6a: inline roles, ``{name}`content```, resolved to HTML (stored in token.meta["html"]).

{unit}`17`            "Unit 17", a link only when unit 17 exists in the content root
{sec}`4`              "§4", a link to section 4 of this unit
{hi}`चाय|chai`        <span lang="hi">चाय</span> <i class="translit">(chai)</i>
{term}`attention weights`   <dfn>attention weights</dfn>
"""

from __future__ import annotations

from collections.abc import Callable

from markdown_it.token import Token

from ..errors import RoleError, UnknownRoleError, suggest
from ..html import escape, has_devanagari, text_html
from .context import SectionContext, line_of, walk

UNIT_URL = "/units/{slug}/"
SECTION_URL = "/units/{unit}/{number}/"


class _Bad(ValueError):
    pass


def _number(content: str, what: str) -> int:
    try:
        n = int(content.strip())
    except ValueError:
        raise _Bad(f"{what} takes a number (got {content!r})") from None
    if n < 1:
        raise _Bad(f"{what} takes a number from 1 (got {n})")
    return n


def _unit(content: str, ctx: SectionContext) -> str:
    n = _number(content, "{unit}")
    text = f"Unit {n}"
    slug = ctx.unit.known_units.get(n)
    if slug is None or n == ctx.unit.number:
        return f'<span class="unit-ref">{text}</span>'
    return f'<a class="unit-ref" href="{escape(UNIT_URL.format(slug=slug))}">{text}</a>'


def _sec(content: str, ctx: SectionContext) -> str:
    n = _number(content, "{sec}")
    if n not in ctx.unit.sections:
        raise _Bad(f"{{sec}}`{n}`: unit {ctx.unit.number} has no section {n}")
    href = SECTION_URL.format(unit=ctx.unit.slug, number=n)
    title = ctx.unit.sections[n].title
    current = ' aria-current="page"' if n == ctx.number else ""
    return f'<a class="sec-ref" href="{escape(href)}" title="{escape(title)}"{current}>§{n}</a>'


def _hi(content: str, ctx: SectionContext) -> str:
    word, _, translit = content.partition("|")
    word, translit = word.strip(), translit.strip()
    if not word or not has_devanagari(word):
        raise _Bad(f"{{hi}} takes Devanagari, then |transliteration (got {content!r})")
    out = f'<span lang="hi">{escape(word)}</span>'
    if translit:
        out += f' <i class="translit">({escape(translit)})</i>'
    return out


def _term(content: str, ctx: SectionContext) -> str:
    if not content.strip():
        raise _Bad("{term} is empty")
    return f"<dfn>{text_html(content.strip())}</dfn>"


ROLES: dict[str, Callable[[str, SectionContext], str]] = {
    "unit": _unit,
    "sec": _sec,
    "hi": _hi,
    "term": _term,
}


def inline_line(parent: Token, needle: str, cursor: dict[int, int]) -> int:
    """Line of `needle` inside an inline token's source, scanning forward from the last hit
    (so repeated needles map to successive lines)."""
    start = cursor.get(id(parent), 0)
    at = parent.content.find(needle, start)
    if at < 0:
        at = parent.content.find(needle)
    if at < 0:
        return line_of(parent)
    cursor[id(parent)] = at + len(needle)
    return line_of(parent) + parent.content.count("\n", 0, at)


def resolve_roles(tokens: list[Token], ctx: SectionContext) -> None:
    cursor: dict[int, int] = {}
    for tok, parent in walk(tokens):
        if tok.type != "myst_role":
            continue
        name = tok.meta.get("name", "")
        line = inline_line(parent, f"{{{name}}}`", cursor) if parent is not None else line_of(tok)
        role = ROLES.get(name)
        if role is None:
            close = suggest(name, ROLES)
            hint = f" (did you mean {{{close}}}?)" if close else ""
            ctx.error(
                UnknownRoleError,
                line,
                f"unknown role {{{name}}}{hint}; known: " + ", ".join(sorted(ROLES)),
            )
            tok.meta["html"] = escape(tok.content)
            continue
        try:
            tok.meta["html"] = role(tok.content, ctx)
        except _Bad as exc:
            ctx.error(RoleError, line, str(exc))
            tok.meta["html"] = escape(tok.content)
