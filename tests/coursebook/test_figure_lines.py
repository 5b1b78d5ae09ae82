"""Figures are put in after parsing (issue 13, part 6): whatever a figure prints, it is text, or
a formula's LaTeX, never Markdown syntax. Before, ``{{ name }}`` was pasted into the source
first, so a figure could become syntax (§3's trap printed its score as the "1." of a numbered
list, fixed by a special-case escape; "|", "*", "_" still could).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from mathmachine.coursebook import CompiledUnit, compile_unit
from mathmachine.coursebook.passes.assemble import compile_markdown

from .conftest import make_unit

UNIT = Path(__file__).resolve().parents[2] / "content" / "units" / "18-attention-and-transformers"
SRC = Path("x.md")


def html_of(text: str, **figures: str) -> str:
    result = compile_markdown(
        text, path=SRC, unit=make_unit(figures=figures), number=1, title="T", whole_section=False
    )
    assert result.ctx.errors == [], [str(e) for e in result.ctx.errors]
    return result.html


@pytest.mark.parametrize(
    ("source", "value", "html"),
    [
        # A whole number then a full stop or a parenthesis, at a line's start: no list.
        ("{{ s }}. Asking and being asked", "1", "<p>1. Asking and being asked</p>\n"),
        ("   {{ s }}) then", "12", "<p>12) then</p>\n"),
        ("A line\n{{ s }}. Next", "3", "<p>A line\n3. Next</p>\n"),
        # Nor a bullet, a heading, a quote, a rule or a code block.
        ("{{ s }} items", "- 2", "<p>- 2 items</p>\n"),
        ("{{ s }} items", "+ 2", "<p>+ 2 items</p>\n"),
        ("{{ s }} tokens", "## x", "<p>## x tokens</p>\n"),
        ("{{ s }}", "> 2", "<p>&gt; 2</p>\n"),
        ("{{ s }}", "***", "<p>***</p>\n"),
        # Emphasis, code, links and roles are not made by a figure's characters.
        ("a {{ s }} b", "*x*", "<p>a *x* b</p>\n"),
        ("a {{ s }} b {{ t }} c", "_x", "<p>a _x b y_ c</p>\n"),
        ("a {{ s }} b", "`x`", "<p>a `x` b</p>\n"),
        ("a {{ s }} b", "[x](y)", "<p>a [x](y) b</p>\n"),
        ("a {{ s }} b", "{sec}`1`", "<p>a {sec}`1` b</p>\n"),
        ("a {{ s }} b", "<b>", "<p>a &lt;b&gt; b</p>\n"),
        ("a {{ s }} b", "$x$", "<p>a $x$ b</p>\n"),
        # A name with underscores is one reference, not emphasis across two.
        ("*{{ _a }}* and {{ _a }}", "1", "<p><em>1</em> and 1</p>\n"),
    ],
)
def test_a_figure_is_text_never_syntax(source: str, value: str, html: str) -> None:
    figures = {"s": value, "t": "y_", "_a": value}
    assert html_of(source, **figures) == html


def test_a_bar_in_a_figure_splits_no_table_cell() -> None:
    html = html_of("| key | share |\n|---|---|\n| {{ k }} | {{ v }} |\n", k="a | b", v="0.5")
    assert "<td>a | b</td>\n<td>0.5</td>" in html
    assert html.count("<td>") == 2


def test_a_figure_in_a_formula_joins_its_latex() -> None:
    html = html_of(
        "$x = {{ v }}$ and $${{ m }}$$", v="−0.462", m=r"\begin{pmatrix} 1 \end{pmatrix}"
    )
    assert 'alttext="x = −0.462"' in html and "<mn>0.462</mn>" in html
    assert "<mtable" in html or "<mrow" in html  # the pmatrix is set as a matrix
    # A text figure's TeX specials show as printed (a "%" opens no TeX comment).
    assert 'alttext="y = 50\\% \\&amp; 2"' in html_of("$y = {{ p }}$", p="50% & 2")


def test_a_latex_figure_in_running_text_is_a_formula() -> None:
    html = html_of("The weights {{ m }} are a matrix.", m=r"\begin{pmatrix} 1 & 2 \end{pmatrix}")
    assert html.startswith('<p>The weights <math display="inline"')
    assert "\\begin" not in html.split('alttext="', 1)[0]


def test_a_braced_power_is_latex_in_a_formula_and_in_text() -> None:
    """§9's epsilon, 10^{−5}: a superscript, not braces printed around −5 (a figure with a braced
    power or subscript is math, like one with a LaTeX command)."""
    html = html_of("With $\\varepsilon = {{ eps }}$ it gives 0.", eps="10^{−5}")
    assert 'alttext="\\varepsilon = 10^{−5}"' in html and "<msup>" in html
    assert "{</mo>" not in html and "\\{" not in html
    text = html_of("A tiny {{ eps }} is added.", eps="10^{−5}")
    assert text.startswith('<p>A tiny <math display="inline"') and "<msup>" in text


def test_code_shows_a_figure_as_code() -> None:
    """Code takes its figures as text too (a decimal typed in code is refused like any)."""
    assert html_of("Write `w = {{ w }}`.", w="0.736") == "<p>Write <code>w = 0.736</code>.</p>\n"
    html = html_of("```python\nw = {{ w }}  # *not* emphasis\n```", w="[0.1, 0.2]")
    assert (
        html
        == '<pre><code class="language-python">w = [0.1, 0.2]  # *not* emphasis\n</code></pre>\n'
    )
    assert html_of("    w = {{ w }}", w="1 < 2") == "<pre><code>w = 1 &lt; 2\n</code></pre>\n"


def test_figures_in_directive_options_and_titles() -> None:
    html = html_of(":::{note} Share {{ s }}\nBody {{ s }}.\n:::\n", s="0.736")
    assert html.count("0.736") == 2


@pytest.mark.parametrize(
    ("source", "line"),
    [
        ("First line\nsecond {{ nope }} line", 2),
        ("| a |\n|---|\n| {{ nope }} |", 3),
        ("$$\nx =\n{{ nope }}\n$$", 3),
        ("Some text\n\n```\ncode\n{{ nope }}\n```", 5),
        ("Text $a$\nand $b = {{ nope }}$", 2),
        (":::{note}\n\nline one\n{{ nope }}\n:::", 4),
        (":::{widget} demo-widget\n:id: w\n:color: {{ nope }}\n:::", 3),
    ],
)
def test_an_unknown_figure_is_reported_at_its_line(source: str, line: int) -> None:
    result = compile_markdown(
        source, path=SRC, unit=make_unit(), number=1, title="T", whole_section=False
    )
    unknown = [e for e in result.ctx.errors if "unknown figure {{ nope }}" in e.message]
    assert [e.line for e in unknown] == [line], [str(e) for e in result.ctx.errors]


@pytest.fixture(scope="module")
def unit() -> CompiledUnit:
    return compile_unit(UNIT)


def test_section_3s_trap_is_one_paragraph(unit: CompiledUnit) -> None:
    html = unit.section(3).html
    trap = re.search(r'class="[^"]*trap.*?</(?:aside|div|section)>', html, re.S)
    assert trap, "no trap in §3"
    assert "<ol" not in trap.group(0) and "<li" not in trap.group(0)
    assert re.search(r"key:\s+1\. Asking and being asked", re.sub(r"<[^>]+>", "", trap.group(0)))
