"""Stage 6b: LaTeX -> MathML at build time (latex2mathml), stored in token.meta["mathml"].

latex2mathml is lenient where we want errors, and trusting where we need escaping, so this
pass wraps it:
- unbalanced braces and unknown commands (which latex2mathml would print as "\\foo") are errors;
- its output is re-serialized from the element tree with proper escaping (latex2mathml
  un-escapes its whole output, so "\\text{<b>}" would otherwise inject markup);
- amsmath's aligned / gathered, which it renders as one line with stray "&", are mapped to
  align* / displaylines (real <mtable>s); bare "\\\\" line breaks in display math likewise;
- \\boxed{...} becomes <mrow class="boxed"> (MathML Core has no <menclose>);
- \\operatorname{name} is set like \\sin, as an <mi> (latex2mathml makes it an <mo>, which a
  browser spaces as an unknown operator, a thick space each side: "Concat ( head" where TeX prints
  "Concat(head", and a formula a phone's width can hold no longer fits);
- mathvariant="bold" / "sans-serif" / "double-struck" (\\mathbf, \\mathsf, \\mathbb), which MathML
  Core browsers ignore, become the Unicode mathematical alphanumeric characters themselves;
- the LaTeX is kept in alttext for screen readers; display math gets display="block".
"""

from __future__ import annotations

import re
from functools import lru_cache
from xml.etree.ElementTree import Element

from latex2mathml.converter import convert_to_element
from markdown_it.token import Token

from ..errors import MathError
from .context import SectionContext, line_of, walk
from .roles import inline_line

DISPLAY_TYPES = ("math_block", "math_inline_double")
INLINE_TYPES = ("math_inline",)

_ENV_MAP = {
    "aligned": "align*",
    "gathered": "displaylines",
    "gather*": "displaylines",
    "gather": "displaylines",
    "align": "align*",
    "equation": None,
    "equation*": None,
}
_CHAR_REF = re.compile(r"&#x([0-9A-Fa-f]+);|&#(\d+);")
# The operator names latex2mathml itself writes as a word in an <mo> (\lim, \max, \det, ...):
# they keep their <mo>. Any other word in an <mo> came from \operatorname.
_OWN_OPERATORS = frozenset({"lim", "sup", "inf", "max", "min", "det", "gcd", "plim", "Pr"})


class LatexError(ValueError):
    pass


def _check_braces(latex: str) -> None:
    depth = 0
    i = 0
    while i < len(latex):
        ch = latex[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth < 0:
                raise LatexError("a } closes a brace that was never opened")
        i += 1
    if depth:
        raise LatexError(f"{depth} unclosed {{")


def _check_environments(latex: str) -> None:
    stack: list[str] = []
    for m in re.finditer(r"\\(begin|end)\{([^{}]*)\}", latex):
        kind, name = m.group(1), m.group(2)
        if kind == "begin":
            stack.append(name)
        elif not stack:
            raise LatexError(f"\\end{{{name}}} has no \\begin{{{name}}}")
        elif stack[-1] != name:
            raise LatexError(f"\\begin{{{stack[-1]}}} is closed by \\end{{{name}}}")
        else:
            stack.pop()
    if stack:
        raise LatexError(f"\\begin{{{stack[-1]}}} is never closed")


def _rewrite(latex: str, display: bool) -> str:
    def env(m: re.Match[str]) -> str:
        kind, name = m.group(1), m.group(2)
        if name not in _ENV_MAP:
            return m.group(0)
        new = _ENV_MAP[name]
        return "" if new is None else f"\\{kind}{{{new}}}"

    latex = re.sub(r"\\(begin|end)\{([A-Za-z*]+)\}", env, latex)
    latex = latex.replace("\u2212", "-")  # the engine prints a real minus sign; TeX wants "-"
    if display and "\\\\" in latex and "\\begin" not in latex:
        latex = f"\\begin{{displaylines}}{latex}\\end{{displaylines}}"
    return latex


def _text(s: str) -> str:
    s = _CHAR_REF.sub(lambda m: chr(int(m.group(1), 16) if m.group(1) else int(m.group(2))), s)
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _attr(s: str) -> str:
    return _text(s).replace('"', "&quot;")


# First code point of A, a, 0 in each Unicode mathematical alphabet (None: not in that alphabet).
_ALPHABETS: dict[str, tuple[int, int, int | None]] = {
    "bold": (0x1D400, 0x1D41A, 0x1D7CE),
    "sans-serif": (0x1D5A0, 0x1D5BA, 0x1D7E2),
    "bold-sans-serif": (0x1D5D4, 0x1D5EE, 0x1D7EC),
    "bold-italic": (0x1D468, 0x1D482, None),
    "double-struck": (0x1D538, 0x1D552, 0x1D7D8),
}
# Letters that Unicode encodes elsewhere (the holes in the double-struck alphabet).
_HOLES = {("double-struck", "C"): "ℂ", ("double-struck", "H"): "ℍ", ("double-struck", "N"): "ℕ",
          ("double-struck", "P"): "ℙ", ("double-struck", "Q"): "ℚ", ("double-struck", "R"): "ℝ",
          ("double-struck", "Z"): "ℤ"}  # fmt: skip


def _styled(text: str, variant: str) -> str | None:
    """text in the Unicode alphabet `variant`, or None if a character has no styled form."""
    upper, lower, digit = _ALPHABETS[variant]
    out = []
    for ch in text:
        if (variant, ch) in _HOLES:
            out.append(_HOLES[(variant, ch)])
        elif "A" <= ch <= "Z":
            out.append(chr(upper + ord(ch) - ord("A")))
        elif "a" <= ch <= "z":
            out.append(chr(lower + ord(ch) - ord("a")))
        elif "0" <= ch <= "9" and digit is not None:
            out.append(chr(digit + ord(ch) - ord("0")))
        else:
            return None
    return "".join(out)


def _restyle(el: Element) -> None:
    variant = el.attrib.get("mathvariant")
    if el.tag not in ("mi", "mn", "mtext") or variant not in _ALPHABETS or not el.text:
        return
    styled = _styled(el.text, variant)
    if styled is not None:
        el.text = styled
        # A single styled letter must not be italicised again by the browser.
        el.attrib["mathvariant"] = "normal"


def _serialize(el: Element, out: list[str], unknown: list[str]) -> None:
    _restyle(el)
    if (
        el.tag == "mo"
        and not el.attrib
        and el.text
        and len(el.text) > 1
        and el.text.isascii()
        and el.text.isalpha()
        and el.text not in _OWN_OPERATORS
    ):
        el.tag = "mi"  # \operatorname{name}: a multi-letter <mi> is upright, with no spacing
    if el.tag == "menclose" and el.attrib.get("notation") == "box":
        # MathML Core (Chromium) has no <menclose>: \boxed becomes a classed <mrow> the
        # stylesheet draws a border around.
        el.tag, el.attrib = "mrow", {"class": "boxed"}
    attrs = "".join(f' {k}="{_attr(v)}"' for k, v in el.attrib.items() if k != "xmlns")
    out.append(f"<{el.tag}{attrs}>")
    if el.text:
        if el.tag in ("mi", "mo") and el.text.startswith("\\") and len(el.text) > 1:
            unknown.append(el.text)
        out.append(_text(el.text))
    for child in el:
        _serialize(child, out, unknown)
        if child.tail:
            out.append(_text(child.tail))
    out.append(f"</{el.tag}>")


@lru_cache(maxsize=4096)
def to_mathml(latex: str, display: bool) -> str:
    """<math display="block|inline" alttext="LaTeX">…</math>. Raises LatexError."""
    source = latex.strip()
    if not source:
        raise LatexError("empty formula")
    _check_braces(source)
    _check_environments(source)
    try:
        root = convert_to_element(
            _rewrite(source, display), display="block" if display else "inline"
        )
    except Exception as exc:  # latex2mathml raises many kinds (MissingEndError, ...)
        detail = str(exc) or type(exc).__name__
        raise LatexError(f"LaTeX could not be converted: {detail}") from None
    root.attrib.pop("xmlns", None)
    root.set("display", "block" if display else "inline")
    root.set("alttext", source)
    out: list[str] = []
    unknown: list[str] = []
    _serialize(root, out, unknown)
    if unknown:
        raise LatexError(f"unknown LaTeX command {unknown[0]}")
    return "".join(out)


def convert_math(tokens: list[Token], ctx: SectionContext) -> None:
    """Attach meta["mathml"] to every math token, recording MathErrors with their lines."""
    cursor: dict[int, int] = {}
    for tok, parent in walk(tokens):
        if tok.type not in DISPLAY_TYPES and tok.type not in INLINE_TYPES:
            continue
        display = tok.type in DISPLAY_TYPES
        line = line_of(tok) if parent is None else inline_line(parent, tok.content, cursor)
        tok.meta = dict(tok.meta or {})
        try:
            tok.meta["mathml"] = to_mathml(tok.content, display)
        except LatexError as exc:
            shown = " ".join(tok.content.split())
            if len(shown) > 60:
                shown = shown[:57] + "..."
            ctx.error(MathError, line, f"in ${shown}$: {exc}")
            tok.meta["mathml"] = ""
