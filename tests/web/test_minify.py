"""web/minify.py: comments and indentation out of our scripts and stylesheets, nothing else.

Every script and stylesheet of site/ and widgets/ is stripped as collectstatic strips it: Node
must parse each stripped script, stripping twice must be stripping once, and what went is only
whitespace and comments (the stripped file, without its whitespace, is the source without its
whitespace with only spans that start a comment taken out). tests/learning/test_serving.py
collects them with the production storage."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from mathmachine.web.minify import strip_css, strip_js

STATIC = Path(__file__).resolve().parents[2] / "mathmachine" / "static"
SCRIPTS = sorted(STATIC.glob("*/*.js"))
STYLES = sorted(STATIC.glob("*/*.css"))
NODE = shutil.which("node")


def _only_comments_went(source: str, stripped: str) -> None:
    """Walking the source and ``stripped`` side by side, whitespace aside, every character the
    stripped file lacks is in a comment of the source (from ``//`` to the line's end, or from
    ``/*`` to ``*/``)."""
    kept = re.sub(r"\s+", "", stripped)
    i = j = 0
    while i < len(source):
        if source[i].isspace():
            i += 1
        elif j < len(kept) and source[i] == kept[j]:
            i, j = i + 1, j + 1
        elif source.startswith("//", i):
            newline = source.find("\n", i)
            i = len(source) if newline < 0 else newline
        elif source.startswith("/*", i):
            i = source.index("*/", i + 2) + 2
        else:
            raise AssertionError(f"stripped something not a comment: {source[i : i + 60]!r}")
    assert j == len(kept), f"stripped file has more: {kept[j : j + 60]!r}"


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_script_stripped_still_parses_and_lost_only_comments(
    path: Path, tmp_path: Path
) -> None:
    source = path.read_text(encoding="utf-8")
    stripped = strip_js(source)
    assert strip_js(stripped) == stripped
    assert len(stripped) < len(source)
    _only_comments_went(source, stripped)
    if NODE is None:
        pytest.skip("needs node")
    (tmp_path / "package.json").write_text('{"type": "module"}')
    (tmp_path / path.name).write_text(stripped, encoding="utf-8")
    result = subprocess.run([NODE, "--check", str(tmp_path / path.name)], capture_output=True)
    assert result.returncode == 0, result.stderr.decode()


@pytest.mark.parametrize("path", STYLES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_stylesheet_stripped_lost_only_comments(path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    stripped = strip_css(source)
    assert strip_css(stripped) == stripped
    assert "/*" not in stripped.replace('"/*"', "")
    _only_comments_went(source, stripped)


def test_literals_are_kept_whole() -> None:
    source = (
        "// a comment\n"
        "  const url = 'http://x/*y*/' // trailing\n"
        '  const b = "a // b"\n'
        "  const re = /[/'\"]+\\/\\/*/g, half = n / 2 / 3\n"
        "  const t = `line one\n"
        "      indented ${ {a: 1}.a + `inner // ${x}` } // kept\n"
        "  /* not */ end`\n"
        "  if (x) return /a'b/.test(s)\n"
        "  i++ / 2\n"
    )
    assert strip_js(source) == (
        "const url = 'http://x/*y*/'\n"
        'const b = "a // b"\n'
        "const re = /[/'\"]+\\/\\/*/g, half = n / 2 / 3\n"
        "const t = `line one\n"
        "      indented ${ {a: 1}.a + `inner // ${x}` } // kept\n"
        "  /* not */ end`\n"
        "if (x) return /a'b/.test(s)\n"
        "i++ / 2\n"
    )


def test_a_comment_across_lines_stays_a_line_break() -> None:
    # Automatic semicolon insertion: `a /* … */ b` on two lines is two statements.
    assert strip_js("a /* one\ntwo */ b\n") == "a\nb\n"
    assert strip_js("a /* one */ b\n") == "a   b\n"


def test_css_strings_and_comments() -> None:
    source = '/* the widget\'s map */\n.a::before {\n  content: "/* kept */";\n}\n\n'
    assert strip_css(source) == '.a::before {\ncontent: "/* kept */";\n}\n'


@pytest.mark.parametrize("broken", ["a = 'x", "/* open", "b = `x ${y", "c = /x\n"])
def test_a_source_it_cannot_read_is_an_error_not_a_guess(broken: str) -> None:
    with pytest.raises(ValueError):
        strip_js(broken)
