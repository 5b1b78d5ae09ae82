"""The Markdown dialect: markdown-it-py (CommonMark + GFM tables) with mdit_py_plugins.

- colon fences ``:::{name} arg`` (mdit_py_plugins.colon_fence), made *nestable*: an inner
  ``:::{feedback}`` ... ``:::`` inside an outer ``:::{check}`` ... ``:::`` pairs up like
  brackets, so authors need not count colons (MyST's longer-outer-fence style works too);
- ``$...$`` / ``$$...$$`` math (dollarmath), ``{role}`text``` (myst_role);
- ``{{ name }}`` in running text: a ``figure`` token (read before any other inline syntax, so
  nothing inside the braces is emphasis or a link), given its value after parsing
  (passes/figures.py); inside math, code and directive options the reference stays text;
- raw HTML is off: anything that looks like a tag is text, escaped on output.
"""

from __future__ import annotations

from functools import lru_cache

from markdown_it import MarkdownIt
from markdown_it.rules_block import StateBlock
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token
from mdit_py_plugins.colon_fence import colon_fence_plugin
from mdit_py_plugins.dollarmath import dollarmath_plugin
from mdit_py_plugins.myst_role import myst_role_plugin
from mdit_py_plugins.utils import is_code_block


def _colons(state: StateBlock, line: int) -> tuple[int, str]:
    """(number of leading colons, rest of the line stripped) for one source line."""
    pos = state.bMarks[line] + state.tShift[line]
    end = state.eMarks[line]
    start = pos
    while pos < end and state.src[pos] == ":":
        pos += 1
    return pos - start, state.src[pos:end].strip()


def nested_colon_fence(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
    """colon_fence's rule, but an inner opening fence of the same length nests.

    Token: type "colon_fence", info = text after the colons, content = the inner lines,
    map = [first line, line after the closing fence] (0-based, like every block token).
    """
    if is_code_block(state, start_line):
        return False
    length, params = _colons(state, start_line)
    if length < 3:
        return False
    if silent:
        return True

    depth = 0
    next_line = start_line
    closed = False
    while True:
        next_line += 1
        if next_line >= end_line:
            break  # an unclosed fence runs to the end of its parent
        pos = state.bMarks[next_line] + state.tShift[next_line]
        if pos < state.eMarks[next_line] and state.sCount[next_line] < state.blkIndent:
            break
        if is_code_block(state, next_line):
            continue
        n, tail = _colons(state, next_line)
        if n < length:
            continue
        if tail:
            if tail.startswith("{"):
                depth += 1
            continue
        if depth:
            depth -= 1
            continue
        closed = True
        break

    indent = state.sCount[start_line]
    state.line = next_line + (1 if closed else 0)
    token = state.push("colon_fence", "code", 0)
    token.info = params
    token.content = state.getLines(start_line + 1, next_line, indent, True)
    token.markup = ":" * length
    token.map = [start_line, state.line]
    token.meta = {"closed": closed}
    return True


def figure_reference(state: StateInline, silent: bool) -> bool:
    """``{{ name }}`` on one line -> a ``figure`` token (content: what the braces hold, markup:
    the reference as written, meta["pos"]: where it starts in the inline source). Like
    mdit_py_plugins' substitution rule, inline only: a line that is just a reference stays a
    paragraph."""
    src, pos = state.src, state.pos
    if not src.startswith("{{", pos):
        return False
    end = src.find("}}", pos + 2)
    if end < 0 or "\n" in src[pos:end]:
        return False
    if not silent:
        token = state.push("figure", "", 0)
        token.content = src[pos + 2 : end]
        token.markup = src[pos : end + 2]
        token.meta = {"pos": pos}
    state.pos = end + 2
    return True


@lru_cache(maxsize=1)
def markdown() -> MarkdownIt:
    """The one configured parser (built once; parsing is re-entrant)."""
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.enable("table")
    md.use(colon_fence_plugin)
    md.block.ruler.at(
        "colon_fence",
        nested_colon_fence,
        {"alt": ["paragraph", "reference", "blockquote", "list", "footnote_def"]},
    )
    md.use(dollarmath_plugin, allow_labels=False, allow_digits=False, double_inline=True)
    md.use(myst_role_plugin)
    md.inline.ruler.before("escape", "figure", figure_reference)
    return md


def parse(text: str, *, line_offset: int = 0) -> list[Token]:
    """Block tokens of `text`; every token's map is shifted by line_offset (0-based lines),
    so map[0] + 1 is the 1-based line in the original file."""
    tokens = markdown().parse(text, {})
    if line_offset:
        for tok in tokens:
            if tok.map:
                tok.map = [tok.map[0] + line_offset, tok.map[1] + line_offset]
    return tokens


def parse_inline(text: str, *, line: int) -> list[Token]:
    """Inline children of a one-line snippet (a directive's argument), tagged with its line."""
    tokens = markdown().parseInline(text, {})
    for tok in tokens:
        tok.map = [line - 1, line]
    return tokens
