"""The kit's conformance test, server half: every registered widget, as every written section
uses it (drafts too: CompiledUnit.with_drafts), is held to the same rules (the browser half is
tests/browser/test_widget_conformance.py):

- its declared scripts and styles exist, and its element module defines its tag;
- a written section uses it, or a draft does (a widget nothing uses is dead code);
- its HTML is one element with a parseable state, its main control as a named target, a
  fallback with a caption (a table's <caption>, a figure's <figcaption>), text alternatives for
  its SVG, and no inline style or event handler; its scripts set none either;
- if its scripts recompute numbers (they import math.js or another module of math), it declares
  golden vectors and they are collected from its uses;
- its element files compute nothing: no Math function beyond rounding and min/max, no **, no
  reduce (the numbers come from the server or from a golden-tested math module; what is left is
  layout), and they import only the kit, the kit's parts and math modules.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

import pytest

from mathmachine.coursebook import cache, widgets
from mathmachine.coursebook.golden import collect
from mathmachine.coursebook.model import CompiledSection, CompiledUnit, WidgetUse

STATIC = Path(widgets.__file__).resolve().parents[2] / "static"
STATE_FILE = re.compile(
    r'<script type="application/json" data-state data-src="\.\./data/([0-9a-f]{16}\.json)">'
    r"</script>"
)
IMPORT = re.compile(r"""^\s*import\s[^;]*?\bfrom\s*['"](\.{1,2}/[^'"]+)['"]""", re.M | re.S)


@dataclass(frozen=True)
class Use:
    unit: CompiledUnit
    section: CompiledSection
    widget: WidgetUse

    @property
    def html(self) -> str:
        """The widget's element as the section's HTML holds it, a state that is a file of its
        own (coursebook/state_files.py) put back in its place, as the renderer wrote it."""
        html = self.section.html
        start = html.index(f'<{self.widget.name} id="{self.widget.id}"')
        end = html.index(f"</{self.widget.name}>", start) + len(self.widget.name) + 3

        def state(found: re.Match[str]) -> str:
            body = self.unit.state_files[found.group(1)].decode("utf-8")
            return f'<script type="application/json" data-state>{body}</script>'

        return STATE_FILE.sub(state, html[start:end])


def _units() -> list[CompiledUnit]:
    root = cache.content_root()
    return [cache.build_unit(folder) for folder in cache.unit_folders(root)]


def widget_uses(units: list[CompiledUnit]) -> list[Use]:
    """Every use of a widget in the units' sections, a draft's included (a section lands a
    widget at a time: its widgets are held to the rules from the first)."""
    return [Use(u, s, w) for u in units for s in u.with_drafts().sections for w in s.widgets]


UNITS = _units()
USES = widget_uses(UNITS)
NAMES = widgets.names()


def uses_of(name: str) -> list[Use]:
    return [u for u in USES if u.widget.name == name]


def spec(name: str) -> widgets.Widget:
    found = widgets.get(name)
    assert found is not None
    return found


def imports(path: str, seen: set[str] | None = None) -> set[str]:
    """Static paths of every module `path` imports, transitively."""
    seen = set() if seen is None else seen
    source = (STATIC / path).read_text(encoding="utf-8")
    for rel in IMPORT.findall(source):
        target = (Path(path).parent / rel).as_posix()
        target = str(Path(target)).replace("\\", "/")
        parts: list[str] = []
        for part in target.split("/"):
            if part == "..":
                parts.pop()
            elif part != ".":
                parts.append(part)
        norm = "/".join(parts)
        if norm not in seen:
            seen.add(norm)
            imports(norm, seen)
    return seen


#: The kit and its parts: modules an element may import that are neither element files nor math.
KIT = frozenset({"widgets/kit.js", "widgets/printing.js", "widgets/heatmap.js", "widgets/plot.js"})
#: What an element file may not do: compute.
COMPUTING = (
    (
        re.compile(r"\bMath\.(?!(?:min|max|round|floor|ceil|abs|sign|trunc)\b)[A-Za-z0-9_]+"),
        "a Math function beyond rounding and min/max (math belongs in a golden-tested module)",
    ),
    (re.compile(r"\*\*"), "the ** operator (math belongs in a golden-tested module)"),
    (re.compile(r"\.reduce(?:Right)?\("), "a reduce (a sum belongs in a math module: math.js sum)"),
)
COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)


def is_math(path: str) -> bool:
    return Path(path).stem.endswith("math")


def computing(source: str) -> list[str]:
    """What a script computes that an element file may not (comments left out)."""
    code = COMMENT.sub("", source)
    return [f"{m.group(0)}: {why}" for rx, why in COMPUTING for m in rx.finditer(code)]


def element_files(name: str) -> set[str]:
    """A widget's element files: its declared scripts and what they import that is neither the
    kit, one of its parts, nor a math module."""
    w = spec(name)
    found = set(w.scripts)
    for script in w.scripts:
        found |= {p for p in imports(script) if p not in KIT and not is_math(p)}
    return found


Attrs = dict[str, str | None]


class Markup(HTMLParser):
    """Elements of a fragment: (tag, attrs, ancestors as (tag, attrs))."""

    VOID = frozenset({"br", "col", "hr", "img", "input", "link", "meta", "source", "wbr"})

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, Attrs]] = []
        self.elements: list[tuple[str, Attrs, tuple[tuple[str, Attrs], ...]]] = []
        self.state: list[str] = []
        self._in_state = False
        self.feed(html)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        self.elements.append((tag, a, tuple(self.stack)))
        self._in_state = tag == "script" and "data-state" in a
        if tag not in self.VOID:
            self.stack.append((tag, a))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, dict(attrs), tuple(self.stack)))

    def handle_endtag(self, tag: str) -> None:
        if any(t == tag for t, _ in self.stack):
            while self.stack.pop()[0] != tag:
                pass
        self._in_state = False

    def handle_data(self, data: str) -> None:
        if self._in_state:
            self.state.append(data)

    def tags(self, tag: str) -> list[tuple[Attrs, tuple[tuple[str, Attrs], ...]]]:
        return [(a, up) for t, a, up in self.elements if t == tag]


def test_the_registry_holds_the_unit_widgets() -> None:
    assert "translate-lookback" in NAMES
    assert widgets.import_failures() == {}


@pytest.mark.parametrize("name", NAMES)
def test_declared_files_exist_and_the_element_defines_its_tag(name: str) -> None:
    w = spec(name)
    for path in (*w.scripts, *w.styles):
        assert (STATIC / path).is_file(), f"{name} declares {path}, missing from mathmachine/static"
    element = (STATIC / w.scripts[0]).read_text(encoding="utf-8")
    assert re.search(rf"""\.define\(\s*['"]{re.escape(name)}['"]\s*\)""", element), (
        f"{w.scripts[0]} (the first script {name} declares) must define <{name}>: "
        f"XElement.define('{name}')"
    )
    assert re.search(r"""from\s*['"]\./kit\.js['"]""", element), f"{name} must build on kit.js"


@pytest.mark.parametrize("name", NAMES)
def test_a_written_section_uses_it(name: str) -> None:
    assert uses_of(name), f"{name} is registered but no section (written or draft) uses it"


SCRIPT_RULES = (
    (r"\.on[a-z]+\s*=(?!=)", "an on<event> property (use addEventListener / kit on())"),
    (r"""setAttribute\(\s*['"](?:on[a-z]+|style)['"]""", "an inline handler or style"),
    (r"\.(?:inner|outer)HTML\s*=|insertAdjacentHTML", "markup from strings"),
    (r"\.style\.cssText\s*=|\beval\(|new Function\(", "cssText / eval"),
)


def check_script(path: str, source: str) -> None:
    """The rules every widget script keeps (an AssertionError says which one it breaks)."""
    for pattern, what in SCRIPT_RULES:
        assert not re.search(pattern, source), f"{path} sets {what}"


@pytest.mark.parametrize("name", NAMES)
def test_scripts_set_no_inline_handler_or_style_and_write_no_markup(name: str) -> None:
    for path in {*spec(name).scripts, *imports(spec(name).scripts[0])}:
        check_script(path, (STATIC / path).read_text(encoding="utf-8"))


@pytest.mark.parametrize(
    "use", USES, ids=lambda u: f"{u.widget.name}-§{u.section.number}-{u.widget.id}"
)
def test_server_html_is_its_element_with_state_control_and_a_captioned_fallback(use: Use) -> None:
    w = spec(use.widget.name)
    assert use.widget.scripts == w.scripts and use.widget.styles == w.styles
    assert set(w.scripts) <= set(use.section.scripts) and set(w.styles) <= set(use.section.styles)
    check_markup(use.html, use.widget.name, use.widget.id, w.control)


def check_markup(html: str, name: str, widget_id: str, control: str) -> None:
    """The rules every widget's server HTML keeps (an AssertionError says which one it breaks)."""
    m = Markup(html)
    roots = m.tags(name)
    assert roots, f"no <{name}> element"
    root, _ = roots[0]
    assert root.get("id") == widget_id and "data-kit" in root, "the element needs its id, data-kit"
    assert m.state, "no <script type=application/json data-state>"
    json.loads("".join(m.state))
    for tag, a, _ in m.elements:
        bad = [k for k in a if k == "style" or k.startswith("on")]
        assert not bad, f"<{tag}> has inline {bad} (the CSP forbids them)"
    targets = [str(a.get("data-target", "")).split() for _, a, _ in m.elements]
    assert any(control in t for t in targets), f"no data-target={control!r} (the control)"
    tables, figures = m.tags("table"), m.tags("figure")
    assert tables or figures, "no fallback: a table of the numbers or a static figure"
    assert [up[-1][0] for _, up in m.tags("caption")] == ["table"] * len(tables), (
        "every table needs a <caption>"
    )
    assert [up[-1][0] for _, up in m.tags("figcaption")] == ["figure"] * len(figures), (
        "every figure needs a <figcaption>"
    )
    for a, _ in m.tags("svg"):
        if a.get("role") == "img":
            assert a.get("aria-labelledby") or a.get("aria-label"), "an img SVG needs a name"
        else:
            assert a.get("aria-hidden") == "true", "an SVG is either role=img or aria-hidden"
    # Without JavaScript no control may be on show: controls live in parts marked data-js.
    for tag in ("button", "input", "select", "textarea"):
        for a, up in m.tags(tag):
            live_only = any("data-js" in b for _, b in up)
            in_form = any(t == "form" and b.get("action") for t, b in up)
            assert live_only or in_form, f"<{tag}> {a} shows without JavaScript and does nothing"


@pytest.mark.parametrize(
    "use", USES, ids=lambda u: f"{u.widget.name}-§{u.section.number}-{u.widget.id}"
)
def test_a_widget_drawing_with_the_kits_plots_declares_their_stylesheet(use: Use) -> None:
    """parts.heatmap, a shaded parts.matrix_table and parts.line_plot are styled by plots.css
    (the palette's classes, the plots' sizes): a widget that draws one declares it."""
    drawn = re.search(r'class="[^"]*\b(?:wk-hm|wk-plot|wk-h\d+)\b', use.html)
    if drawn:
        assert "widgets/plots.css" in spec(use.widget.name).styles, drawn.group(0)


@pytest.mark.parametrize("name", NAMES)
def test_element_files_compute_nothing(name: str) -> None:
    for path in sorted(element_files(name)):
        source = (STATIC / path).read_text(encoding="utf-8")
        assert computing(source) == [], f"{path} computes: {computing(source)}"
        for imported in imports(path):
            assert imported in KIT or is_math(imported) or imported in element_files(name), (
                f"{path} imports {imported}: an element file imports the kit, its parts and math "
                "modules"
            )


def test_the_computing_rule_catches_what_widget_3_and_4_did() -> None:
    """The rule above, run on what the self-attention calculator and dot-products-grow did before
    their math moved to golden-tested modules, and on layout it must allow."""
    before = """
      const exps = row.map((s) => Math.exp(s - Math.max(...row)))  // a softmax it printed
      const total = exps.reduce((a, b) => a + b, 0)
      const scaled = raw.map((x) => x / Math.sqrt(d))
      const big = 2 ** 10
    """
    found = computing(before)
    assert [f.split(":")[0] for f in found] == ["Math.exp", "Math.sqrt", "**", ".reduce("]
    layout = """
      bar.setAttribute('width', (100 * w).toFixed(1))  // Math.exp in a comment is no code
      const c = Math.max(12, Math.min(28, Math.floor(room / n)))  /* .reduce( */
    """
    assert computing(layout) == []
    assert element_files("two-heads") == {"widgets/two-heads.js"}


@pytest.mark.parametrize("name", NAMES)
def test_golden_vectors_if_it_recomputes(name: str) -> None:
    w = spec(name)
    modules = {p for s in w.scripts for p in imports(s)}
    math = {p for p in modules if Path(p).stem.endswith("math")}
    if not math and w.golden is None:
        return  # computes nothing on the client (the server sends every number)
    assert w.golden is not None, f"{name} imports {sorted(math)}: declare golden vectors"
    groups = collect()[name]
    assert groups, f"{name} declares golden vectors but none were collected from its uses"
    assert {g["module"] for g in groups} <= modules, "golden vectors for a module it never loads"
    assert {g["source"] for g in groups} == {
        f"{u.unit.slug} §{u.section.number} #{u.widget.id}" for u in uses_of(name)
    }


GOOD = (
    '<x-y id="a" data-kit><script type="application/json" data-state>{}</script>'
    '<table><caption>Numbers</caption><tr><td data-target="beta">1</td></tr></table>'
    '<div data-js hidden><input data-target="beta"></div></x-y>'
)
BAD = {
    "no element": ("<p>x</p>", "no <x-y> element"),
    "no id": (GOOD.replace(' id="a"', ""), "needs its id"),
    "no state": (GOOD.replace(" data-state", ""), "no <script type=application/json"),
    "bad state": (GOOD.replace(">{}<", ">{oops<"), "Expecting property name"),
    "inline style": (GOOD.replace("<td ", '<td style="color:red" '), "inline ['style']"),
    "inline handler": (GOOD.replace("<td ", '<td onclick="f()" '), "inline ['onclick']"),
    "no control": (GOOD.replace('data-target="beta"', 'data-target="gamma"'), "the control"),
    "no fallback": (GOOD.replace("table>", "div>").replace("caption>", "b>"), "no fallback"),
    "no caption": (GOOD.replace("<caption>Numbers</caption>", ""), "needs a <caption>"),
    "unnamed svg": (GOOD.replace("</x-y>", "<svg></svg></x-y>"), "an SVG is either"),
    "nameless img svg": (GOOD.replace("</x-y>", '<svg role="img"></svg></x-y>'), "needs a name"),
    "dead control": (GOOD.replace("<div data-js hidden>", "<div>"), "shows without JavaScript"),
}


def test_the_rules_pass_a_widget_that_keeps_them() -> None:
    check_markup(GOOD, "x-y", "a", "beta")
    check_script("widgets/x-y.js", "this.on('input', 'beta', (r) => write(r, fmt(1)))")


@pytest.mark.parametrize("case", sorted(BAD))
def test_the_rules_catch_a_widget_that_breaks_them(case: str) -> None:
    html, message = BAD[case]
    with pytest.raises((AssertionError, ValueError)) as caught:
        check_markup(html, "x-y", "a", "beta")
    assert message in str(caught.value), caught.value


@pytest.mark.parametrize(
    "source",
    [
        "el.onclick = () => 1",
        "el.setAttribute('style', 'color: red')",
        "el.innerHTML = text",
        "el.insertAdjacentHTML('beforeend', text)",
        "eval(code)",
    ],
)
def test_the_script_rules_catch_a_script_that_breaks_them(source: str) -> None:
    with pytest.raises(AssertionError, match=r"widgets/x-y\.js sets"):
        check_script("widgets/x-y.js", source)


def test_imports_are_followed_through_every_module() -> None:
    assert imports("widgets/translate-lookback.js") == {
        "widgets/heatmap.js",
        "widgets/kit.js",
        "widgets/math.js",
        "widgets/printing.js",
    }
