"""Stage 5: the directive pass. Every ``:::{name}`` (or ```` ```{name} ````) fence is read
(argument, ``:key: value`` options, body), checked against its spec, its body parsed
recursively (line numbers kept), and built into a node stored in token.meta["node"]."""

from __future__ import annotations

import re

from markdown_it.token import Token

from ..directives import SPECS
from ..directives.base import DirectiveCall, Empty
from ..errors import (
    DirectiveOptionError,
    DirectiveStructureError,
    UnknownDirectiveError,
    UnknownFigureError,
    suggest,
)
from ..parse import parse
from .context import SectionContext, line_of

NAME = re.compile(r"^\{([A-Za-z][\w-]*)\}\s*(.*)$")
OPTION_LINE = re.compile(r"^\s*:([A-Za-z][\w-]*):(?:\s+(.*?))?\s*$")


def is_directive(tok: Token) -> bool:
    return tok.type == "colon_fence" or (tok.type == "fence" and tok.info.strip().startswith("{"))


def read_call(tok: Token, ctx: SectionContext) -> DirectiveCall | None:
    """Split a fence token into name, argument, options and body (None on a bad header)."""
    line = line_of(tok)
    m = NAME.match(tok.info.strip())
    if not m:
        ctx.error(
            UnknownDirectiveError,
            line,
            "a ::: block must name its directive, like :::{note} (got "
            f"{(':::' + tok.info.strip())!r})",
        )
        return None
    name, argument = m.group(1), m.group(2).strip()

    def figure_error(at: int, message: str) -> None:
        ctx.error(UnknownFigureError, at, message)

    # The argument and option values take their figures as text (:answer: {{ key }}); the
    # body is parsed with its references in place, like the section (passes/figures.py).
    argument = ctx.figure_scope.substitute(argument, line, figure_error)
    if tok.type == "colon_fence" and tok.meta.get("closed") is False:
        ctx.error(
            DirectiveStructureError,
            line,
            f":::{{{name}}} is never closed: end it with a line of colons (:::)",
        )
    lines = tok.content.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    options: dict[str, str] = {}
    option_lines: dict[str, int] = {}
    i = 0
    while i < len(lines):
        om = OPTION_LINE.match(lines[i])
        if not om:
            break
        key, value = om.group(1), (om.group(2) or "").strip()
        if key in options:
            ctx.error(DirectiveOptionError, line + 1 + i, f"option :{key}: is given twice")
        options[key] = ctx.figure_scope.substitute(value, line + 1 + i, figure_error)
        option_lines[key] = line + 1 + i
        i += 1
    if i < len(lines) and not lines[i].strip():
        i += 1
    return DirectiveCall(
        name=name,
        argument=argument,
        options=options,
        option_lines=option_lines,
        body="\n".join(lines[i:]),
        body_line=line + 1 + i,
        line=line,
    )


def _where(parent: str | None) -> str:
    return "at the top of the section" if parent is None else f"inside {{{parent}}}"


def _validate(call: DirectiveCall, parent: str | None, ctx: SectionContext) -> bool:
    spec = SPECS[call.name]
    ok = True
    if parent not in spec.allowed_in:
        homes = sorted("the section" if p is None else f"{{{p}}}" for p in spec.allowed_in)
        ctx.error(
            DirectiveStructureError,
            call.line,
            f"{{{call.name}}} cannot stand {_where(parent)}; it belongs in {' or '.join(homes)}",
        )
        ok = False
    if spec.argument == "none" and call.argument:
        ctx.error(
            DirectiveOptionError,
            call.line,
            f"{{{call.name}}} takes no argument after its name (got {call.argument!r})",
        )
        ok = False
    if spec.argument == "required" and not call.argument:
        what = spec.describe or "an argument"
        ctx.error(DirectiveOptionError, call.line, f"{{{call.name}}} needs {what}")
        ok = False
    if spec.options is not None:
        for key in call.options:
            if key not in spec.options:
                known = ", ".join(f":{k}:" for k in sorted(spec.options)) or "none"
                ctx.error(
                    DirectiveOptionError,
                    call.option_line(key),
                    f"unknown option :{key}: for {{{call.name}}} (known: {known})",
                )
                ok = False
    for key in sorted(spec.required_options):
        if not call.options.get(key):
            ctx.error(DirectiveOptionError, call.line, f"{{{call.name}}} needs the option :{key}:")
            ok = False
    has_body = bool(call.body.strip())
    if spec.body == "none" and has_body:
        ctx.error(DirectiveStructureError, call.body_line, f"{{{call.name}}} takes no body")
        ok = False
    if spec.body == "required" and not has_body:
        ctx.error(DirectiveStructureError, call.line, f"{{{call.name}}} has an empty body")
        ok = False
    return ok


def expand(tokens: list[Token], ctx: SectionContext, parent: str | None = None) -> list[Token]:
    """Build every directive of `tokens` (in place) and return them. parent: the enclosing
    directive's name, None at the top of the section."""
    for tok in tokens:
        if not is_directive(tok):
            continue
        line = line_of(tok)
        tok.meta = dict(tok.meta or {})
        tok.meta["node"] = Empty(line)
        call = read_call(tok, ctx)
        if call is None:
            continue
        if call.name not in SPECS:
            close = suggest(call.name, SPECS)
            hint = f" (did you mean {{{close}}}?)" if close else ""
            ctx.error(
                UnknownDirectiveError,
                line,
                f"unknown directive {{{call.name}}}{hint}; known: " + ", ".join(sorted(SPECS)),
            )
            continue
        if not _validate(call, parent, ctx):
            continue
        spec = SPECS[call.name]
        body: list[Token] = []
        if spec.body != "none" and call.body.strip():
            body = expand(parse(call.body, line_offset=call.body_line - 1), ctx, call.name)
        node = spec.build(call, body, ctx)
        if node is not None:
            tok.meta["node"] = node
    return tokens
