"""Stage 5a: figures, put into the parsed tokens (as MyST-Parser places its substitutions).

The section is parsed with its ``{{ name }}`` references in place: the parser reads each one in
running text as a ``figure`` token (parse.py), so nothing a figure prints can become Markdown
syntax (a "1" that starts a line is no list marker, a "|" splits no table cell, "*" and "_"
emphasise nothing). This pass then gives every reference its value, typed by where it stands:

- in running text (paragraphs, headings, table cells, link text, directive titles): a ``text``
  token, escaped like any text when rendered; a figure that holds LaTeX (a command such as
  ``\\begin{pmatrix}``: pmatrix's figures, or a braced power ``10^{−5}``) is math, and becomes
  an inline formula;
- inside a formula (``$…$``, ``$$…$$``): its characters join the formula's LaTeX, a text figure's
  TeX specials (``# $ % & _ { }``) escaped so that it shows as printed;
- in a directive's argument and option values (``:answer: {{ x }}``): its text (read_call).

- in code (spans and blocks): its text, as code shows it (the lint forbids a decimal typed
  there too, so a code block that prints the engine's numbers takes them as figures).

Which figures a line takes is the
scope's business: a check or problem with ``:variant:`` takes its own function's for the seed
(passes/variants.py), every other line the unit's figures(). An unknown name is a
CompileError at its line.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from markdown_it.token import Token

from ..errors import UnknownFigureError
from .context import SectionContext, line_of, walk
from .scope import FigureScope

# A figure holding a LaTeX command (pmatrix's "\\begin{pmatrix}") or a braced superscript or
# subscript ("10^{−5}") is math: no printed text holds either.
LATEX = re.compile(r"\\[A-Za-z]+|[\^_]\{")
_TEX_SPECIAL = re.compile(r"[#$%&_{}]")
MATH_TYPES = ("math_inline", "math_inline_double", "math_block")
CODE_TYPES = ("code_block", "fence", "code_inline")


def is_math(value: str) -> bool:
    """A figure is math when it holds a LaTeX command (pmatrix's ``\\begin{pmatrix}…``) or a
    braced superscript or subscript (``10^{−5}``, ``W_{Q}``)."""
    return bool(LATEX.search(value))


def in_formula(value: str) -> str:
    """The LaTeX a figure adds to a formula: a math figure as it is, a text figure with TeX's
    special characters escaped (a printed "50%" must not open a TeX comment)."""
    return value if is_math(value) else _TEX_SPECIAL.sub(lambda m: "\\" + m.group(), value)


def place_figures(tokens: list[Token], ctx: SectionContext) -> None:
    """Give every figure reference of the section (directive bodies and titles included) its
    value: figure tokens become text or inline math, formulas take the figures' LaTeX."""
    scope = ctx.figure_scope

    def error(line: int, message: str) -> None:
        ctx.error(UnknownFigureError, line, message)

    current = 1  # the line of the last block token: inline tokens without a map sit there
    for tok, parent in walk(tokens):
        if parent is None:
            if tok.map:
                current = line_of(tok)
            if tok.type in MATH_TYPES:
                tok.content = scope.substitute(tok.content, current, error, typed=in_formula)
            elif tok.type in CODE_TYPES and not (tok.meta and tok.meta.get("node")):
                # A fence's content starts on the line after its opening one.
                start = current + (1 if tok.type == "fence" else 0)
                tok.content = scope.substitute(tok.content, start, error)
            if tok.type == "inline" and tok.children:
                _inline(tok, line_of(tok, current), scope, error)


def _inline(tok: Token, line: int, scope: FigureScope, error: Callable[[int, str], None]) -> None:
    children: list[Token] = []
    for child in tok.children or []:
        if child.type == "figure":
            at = line + tok.content.count("\n", 0, int(child.meta.get("pos", 0)))
            value = scope.value(child.content, at, error)
            if value is None:
                child.type, child.content = "text", child.markup  # as written
            elif is_math(value):
                child.type, child.tag, child.markup, child.content = (
                    "math_inline",
                    "math",
                    "$",
                    value,
                )
            else:
                child.type, child.content = "text", value
        elif child.type in MATH_TYPES or child.type == "code_inline":
            at = line + tok.content.count("\n", 0, tok.content.find(child.content))
            typed = in_formula if child.type in MATH_TYPES else (lambda v: v)
            child.content = scope.substitute(child.content, at, error, typed=typed)
        # Text next to text is one run, as if the figure had been typed there (a Devanagari
        # run stays in one <span lang="hi">; text right after a formula keeps its glue).
        if child.type == "text" and children and children[-1].type == "text":
            children[-1].content += child.content
            continue
        children.append(child)
    tok.children = children
