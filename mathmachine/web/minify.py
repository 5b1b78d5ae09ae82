"""Comments and indentation out of our own scripts and stylesheets, when they are collected.

The sources are written to be read: a widget module is a third comments, and every line is
indented. Browsers need neither; brotli does not make them free (site.css 3.8 KB, 2.8 KB
without them; the §6 lab's script 8.3 KB, 7.1 KB). ``StaticStorage`` (web/storage.py) passes
every ``.js`` and ``.css`` file of ``site/`` and ``widgets/`` through here before it hashes and
compresses them, so the served file is the stripped one and its name is that file's hash.

Nothing else changes: no renaming, no rewriting of code. What is removed:

- comments (``// …`` and ``/* … */`` in JavaScript; ``/* … */`` in CSS);
- each line's leading and trailing whitespace, and empty lines.

Line breaks stay (JavaScript's automatic semicolons depend on them) and every string, template
literal and regular expression is copied as it is, including its line breaks and indentation:
the scanner below knows where each begins and ends (a ``/`` starts a regular expression where an
expression may start, as ECMAScript's grammar says, and divides after a value). A template
literal's ``${…}`` is scanned as code. The result is checked by tests/web/test_minify.py: Node
parses every stripped file, stripping twice is stripping once, and the strings stay.

Why not a library: rJSmin (the usual Python choice) handles only unnested template literals, and
our widgets nest them (a template literal inside another's ``${…}``); a minifier that renames or
rewrites code (terser, esbuild) would need Node at collectstatic time, which ``make run`` does
not otherwise need.
"""

from __future__ import annotations

import re

# After one of these (or at the start), a "/" starts a regular expression; after anything else
# (a name, a number, ")" or "]") it divides. Keywords that end an expression's left side too.
_REGEX_AFTER_PUNCTUATION = set("(,=:[!&|?{};+-*%<>~^")
_REGEX_AFTER_WORD = {
    "return",
    "typeof",
    "case",
    "do",
    "else",
    "in",
    "of",
    "new",
    "delete",
    "void",
    "throw",
    "instanceof",
    "yield",
    "await",
}
_WORD_END = re.compile(r"[A-Za-z0-9_$]+$")


class _Scanner:
    """One pass over a JavaScript source into pieces: ("code", text) with the comments dropped,
    and ("literal", text): a string, template literal text or regular expression, kept whole."""

    def __init__(self, source: str) -> None:
        self.s = source
        self.i = 0
        self.pieces: list[tuple[str, str]] = []
        self.recent = ""  # the last code written (literals count as a value): regex or divide

    def run(self) -> list[tuple[str, str]]:
        self.code(in_template=False)
        return self.pieces

    def _code(self, text: str) -> None:
        self.pieces.append(("code", text))
        self.recent = (self.recent + text)[-16:]

    def _literal(self, text: str) -> None:
        self.pieces.append(("literal", text))
        self.recent = "0"  # after a literal, "/" divides

    def _regex_may_start(self) -> bool:
        """Whether a "/" here starts a regular expression (from what was written before it)."""
        text = self.recent.rstrip()
        if not text:
            return True
        last = text[-1]
        if last in _REGEX_AFTER_PUNCTUATION:
            # "++" and "--" end a value ("i++ / 2"); other operators expect one.
            return text[-2:] not in ("++", "--")
        word = _WORD_END.search(text)
        return bool(word and word.group() in _REGEX_AFTER_WORD)

    def code(self, *, in_template: bool) -> None:
        s, depth = self.s, 0
        while self.i < len(s):
            c = s[self.i]
            two = s[self.i : self.i + 2]
            if two == "//":
                end = s.find("\n", self.i)
                self.i = len(s) if end < 0 else end
            elif two == "/*":
                end = s.find("*/", self.i + 2)
                if end < 0:
                    raise ValueError("unterminated /* comment")
                comment = s[self.i : end + 2]
                self.i = end + 2
                # A comment with a line break is a line break (automatic semicolons).
                self._code("\n" if "\n" in comment else " ")
            elif c in "'\"":
                self.string(c)
            elif c == "`":
                self.template()
            elif c == "/" and self._regex_may_start():
                self.regex()
            elif in_template and c == "}" and depth == 0:
                return  # the end of ${…}: back to the template's text
            else:
                if in_template and c == "{":
                    depth += 1
                elif in_template and c == "}":
                    depth -= 1
                self._code(c)
                self.i += 1
        if in_template:
            raise ValueError("unterminated ${ in a template literal")

    def string(self, quote: str) -> None:
        s, start = self.s, self.i
        self.i += 1
        while self.i < len(s) and s[self.i] != quote:
            if s[self.i] == "\\":
                self.i += 1
            elif s[self.i] == "\n":
                raise ValueError(f"line break in a string at {start}")
            self.i += 1
        if self.i >= len(s):
            raise ValueError(f"unterminated string at {start}")
        self.i += 1
        self._literal(s[start : self.i])

    def template(self) -> None:
        s, start = self.s, self.i
        self.i += 1
        while self.i < len(s):
            c = s[self.i]
            if c == "\\":
                self.i += 2
            elif c == "`":
                self.i += 1
                self._literal(s[start : self.i])
                return
            elif s[self.i : self.i + 2] == "${":
                self.i += 2
                self._literal(s[start : self.i])
                self.recent = "{"
                self.code(in_template=True)
                start = self.i  # the "}" that ends ${…} opens the template's next text
                self.i += 1
            else:
                self.i += 1
        raise ValueError("unterminated template literal")

    def regex(self) -> None:
        s, start = self.s, self.i
        self.i += 1
        in_class = False
        while self.i < len(s):
            c = s[self.i]
            if c == "\\":
                self.i += 2
                continue
            if c == "\n":
                raise ValueError(f"line break in a regular expression at {start}")
            if c == "[":
                in_class = True
            elif c == "]":
                in_class = False
            elif c == "/" and not in_class:
                self.i += 1
                while self.i < len(s) and (s[self.i].isalnum() or s[self.i] == "_"):
                    self.i += 1  # flags
                self._literal(s[start : self.i])
                return
            self.i += 1
        raise ValueError(f"unterminated regular expression at {start}")


def strip_js(source: str) -> str:
    """``source`` without comments, indentation and empty lines (literals untouched)."""
    out: list[str] = []
    code: list[str] = []
    for kind, text in _Scanner(source).run():
        if kind == "code":
            code.append(text)
            continue
        out.append(_trim_code("".join(code), first=not out))
        code = []
        out.append(text)
    out.append(_trim_code("".join(code), first=not out, last=True))
    return "".join(out).strip("\n") + "\n"


def _trim_code(code: str, *, first: bool = False, last: bool = False) -> str:
    """Indentation, trailing spaces and empty lines out of code between two literals (its first
    and last lines are partial, their inner ends left alone, unless the file starts or ends)."""
    lines = code.split("\n")
    if len(lines) == 1:
        return code.strip() if first and last else code
    head, *middle, tail = lines
    head = head.strip() if first else head.rstrip()
    tail = tail.strip() if last else tail.lstrip()
    kept = [head, *(line.strip() for line in middle if line.strip()), tail]
    if first and not head:
        kept = kept[1:]
    return "\n".join(kept)


def strip_css(source: str) -> str:
    """``source`` without comments, indentation and empty lines (strings untouched)."""
    out: list[str] = []
    i, n = 0, len(source)
    while i < n:
        c = source[i]
        if source.startswith("/*", i):
            end = source.find("*/", i + 2)
            if end < 0:
                raise ValueError("unterminated /* comment")
            i = end + 2
        elif c in "'\"":
            end = i + 1
            while end < n and source[end] != c:
                end += 2 if source[end] == "\\" else 1
            out.append(source[i : end + 1])
            i = end + 1
        else:
            out.append(c)
            i += 1
    lines = (line.strip() for line in "".join(out).split("\n"))
    return "\n".join(line for line in lines if line) + "\n"
