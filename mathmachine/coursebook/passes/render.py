"""Stage 7: render HTML.

markdown-it's HTML renderer, with rules for what the compiler adds:
- text: escaped, and every Devanagari run wrapped in <span lang="hi">;
- headings: shifted so the outline stays well formed inside callouts (section title = h1);
- math: the MathML from the math pass (display math inside {realization} is boxed); inline
  math and the punctuation right after it are held on one line (span.math-glue);
- roles: the HTML from the roles pass;
- directives: their node's render();
- tables: <th scope="col">, alignment as classes (no inline styles: the site's CSP forbids
  them), a <caption> for {table}, and a focusable scroll wrapper for narrow screens.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict

from ..directives.base import directive_node
from ..directives.proof import ProofNode, group_open
from ..html import escape, text_html
from ..parse import markdown
from .context import SectionContext

# Punctuation right after inline math stays on its line: the browser may break between a
# <math> and the text after it, which on a phone leaves a full stop alone on the next line.
_TRAILING_PUNCTUATION = re.compile(r"[.,;:!?)\]’”।…]+")


def _glued(tokens: Sequence[Token], idx: int) -> str:
    """The punctuation that opens token ``idx`` when it is text right after inline math."""
    if idx == 0 or tokens[idx].type != "text" or tokens[idx - 1].type != "math_inline":
        return ""
    match = _TRAILING_PUNCTUATION.match(tokens[idx].content)
    return match.group(0) if match else ""


class _HTML(RendererHTML):
    """Rule methods are named after token types; env["r"] is the section's Renderer."""

    def text(self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
        content = tokens[idx].content
        return text_html(content[len(_glued(tokens, idx)) :])  # math_inline wrote those

    def figure(self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
        # passes/figures.py gives every reference its value; one it could not is shown as
        # written (the compile has failed with an error at its line then).
        return text_html(tokens[idx].markup)

    def heading_open(
        self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        r: Renderer = env["r"]
        level = min(6, r.base + int(tokens[idx].tag[1]) - 1)
        r.current = level
        return f"<h{level}>"

    def heading_close(
        self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        return f"</h{env['r'].current}>\n"

    def code_inline(
        self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        return f"<code>{text_html(tokens[idx].content)}</code>"

    def code_block(
        self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        return f"<pre><code>{text_html(tokens[idx].content)}</code></pre>\n"

    def math_inline(
        self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        mathml = str(tokens[idx].meta.get("mathml", ""))
        after = _glued(tokens, idx + 1) if idx + 1 < len(tokens) else ""
        if not after:
            return mathml
        return f'<span class="math-glue">{mathml}{text_html(after)}</span>'

    def _display(self, tok: Token, env: EnvType) -> str:
        mathml = str(tok.meta.get("mathml", ""))
        if env["r"].flags.get("boxed"):
            return f'<div class="formula-box">{mathml}</div>\n'
        return f"{mathml}\n"

    def math_inline_double(
        self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        return self._display(tokens[idx], env)

    def math_block(
        self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        return self._display(tokens[idx], env)

    def myst_role(
        self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        tok = tokens[idx]
        return str(tok.meta.get("html", escape(tok.content)))

    def _directive(self, tokens: Sequence[Token], idx: int, env: EnvType) -> str:
        r: Renderer = env["r"]
        node = directive_node(tokens[idx])
        html = node.render(r)
        if isinstance(node, ProofNode):
            before = directive_node(tokens[idx - 1]) if idx > 0 else None
            if not isinstance(before, ProofNode):
                count = 1
                while idx + count < len(tokens) and isinstance(
                    directive_node(tokens[idx + count]), ProofNode
                ):
                    count += 1
                html = group_open(r, count) + html
            after = directive_node(tokens[idx + 1]) if idx + 1 < len(tokens) else None
            if not isinstance(after, ProofNode):
                html += "</section>\n"
        return html

    def colon_fence(
        self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        return self._directive(tokens, idx, env)

    def fence(self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
        tok = tokens[idx]
        if directive_node(tok) is not None:
            return self._directive(tokens, idx, env)
        lang = tok.info.strip().split(maxsplit=1)[0] if tok.info.strip() else ""
        cls = f' class="language-{escape(lang)}"' if lang else ""
        return f"<pre><code{cls}>{text_html(tok.content)}</code></pre>\n"

    def table_open(
        self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        r: Renderer = env["r"]
        caption_tokens = tokens[idx].meta.get("caption") if tokens[idx].meta else None
        if caption_tokens:
            cid = r.new_id("table")
            caption = r.inline(caption_tokens)
            return (
                f'<div class="table-scroll" role="region" aria-labelledby="{cid}" tabindex="0">\n'
                f'<table>\n<caption id="{cid}">{caption}</caption>\n'
            )
        return '<div class="table-scroll" role="region" aria-label="Table" tabindex="0">\n<table>\n'

    def table_close(
        self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        return "</table>\n</div>\n"

    def thead_open(
        self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        env["r"].in_thead = True
        return "<thead>\n"

    def thead_close(
        self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        env["r"].in_thead = False
        return "</thead>\n"

    def _cell(self, tok: Token, env: EnvType) -> str:
        attrs: dict[str, str] = {}
        style = str(tok.attrs.get("style", ""))
        if style.startswith("text-align:"):
            attrs["class"] = "align-" + style.split(":", 1)[1].strip()
        if tok.tag == "th":
            attrs["scope"] = str(tok.attrs.get("scope", "col" if env["r"].in_thead else "row"))
        rendered = "".join(f' {k}="{escape(v)}"' for k, v in attrs.items())
        return f"<{tok.tag}{rendered}>"

    def th_open(self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
        return self._cell(tokens[idx], env)

    def td_open(self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
        return self._cell(tokens[idx], env)

    def td_close(
        self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        return f"</{tokens[idx].tag}>\n"


_RENDERER = _HTML()


class Renderer:
    """Renders one section. Tracks the heading level (for callout labels), unique ids, and
    flags such as "inside {realization}"."""

    def __init__(self, ctx: SectionContext, id_prefix: str) -> None:
        self.ctx = ctx
        self.base = 1  # heading level that "#" maps to here (the section title's)
        self.current = 1  # level of the last heading rendered at this depth
        self.in_thead = False
        self.flags: dict[str, Any] = {}
        self._prefix = id_prefix
        self._ids: dict[str, int] = {}

    def label_level(self) -> int:
        """The level of a heading for a block standing here: one below the current one."""
        return min(6, self.current + 1)

    def current_level(self) -> int:
        return self.current

    def new_id(self, kind: str) -> str:
        n = self._ids.get(kind, 0) + 1
        self._ids[kind] = n
        return f"{self._prefix}-{kind}-{n}"

    @contextmanager
    def flag(self, **flags: Any) -> Iterator[None]:
        saved = dict(self.flags)
        self.flags.update(flags)
        try:
            yield
        finally:
            self.flags = saved

    def blocks(self, tokens: list[Token], level: int | None = None) -> str:
        """HTML of block tokens. level: the heading level they sit under (None: top level)."""
        if level is None:
            return _RENDERER.render(tokens, markdown().options, {"r": self})
        saved = (self.base, self.current)
        self.base = self.current = level
        try:
            return _RENDERER.render(tokens, markdown().options, {"r": self})
        finally:
            self.base, self.current = saved

    def inline(self, tokens: list[Token]) -> str:
        """HTML of a parse_inline() result (no <p>)."""
        return _RENDERER.render(tokens, markdown().options, {"r": self})


def render_section(tokens: list[Token], ctx: SectionContext) -> str:
    return Renderer(ctx, f"s{ctx.number}").blocks(tokens)
