"""The widget registry: declarations, option parsing, lazy discovery, import failures named only
when used, and the section's page assets taken from what its widgets declared."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from mathmachine.coursebook import widgets
from mathmachine.coursebook.passes.assemble import MarkdownResult, compile_markdown
from mathmachine.coursebook.widgets import WidgetContext, WidgetOptionError, kit, option

from .conftest import compile_fixture, make_unit


@pytest.fixture
def registry(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(widgets, "_REGISTRY", {})
    monkeypatch.setattr(widgets, "_FAILED", {})
    monkeypatch.setattr(widgets, "_discovered", True)


CTX = WidgetContext(
    examples={"demo": {"size": 3}}, figures={"w_tea": "0.736"}, unit_slug="u", source="a.md:1"
)


def _tiny(opts: dict[str, Any], ctx: WidgetContext) -> str:
    return kit.element("tiny-el", opts["id"], {"n": opts["n"]}, ctx.figures["w_tea"])


def test_register_declares_assets_options_and_control(registry: None) -> None:
    tiny = widgets.register(
        "tiny-el",
        scripts=("widgets/tiny-el.js",),
        styles=("widgets/tiny-el.css",),
        options=(option.integer("n", default=2, minimum=1, maximum=5),),
        control="n",
    )(_tiny)
    assert widgets.get("tiny-el") is tiny
    assert widgets.names() == ["tiny-el"]
    assert widgets.get("nope") is None
    assert (tiny.scripts, tiny.styles, tiny.control) == (
        ("widgets/tiny-el.js",),
        ("widgets/tiny-el.css",),
        "n",
    )
    # Calling the widget parses the raw option text, then renders with the parsed values.
    assert tiny({"id": "t", "n": "4"}, CTX) == (
        '<tiny-el id="t" class="widget" data-kit>'
        '<script type="application/json" data-state>{"n":4}</script>0.736</tiny-el>'
    )
    assert '{"n":2}' in tiny({"id": "t"}, CTX)  # the default


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"id": "t", "n": "9"}, ":n: must be from 1 to 5, got 9"),
        ({"id": "t", "n": "two"}, ":n: must be a whole number from 1 to 5, got 'two'"),
        ({"id": "t", "colour": "red"}, "unknown option(s) colour (known: id, n)"),
        ({"id": "t t"}, ":id: 't t' must be letters"),
    ],
)
def test_options_are_checked_before_rendering(
    registry: None, raw: dict[str, str], message: str
) -> None:
    rendered: list[object] = []

    def spy(opts: dict[str, Any], ctx: WidgetContext) -> str:
        rendered.append(opts)
        return _tiny(opts, ctx)

    tiny = widgets.register(
        "tiny-el",
        scripts=("widgets/tiny-el.js",),
        options=(option.integer("n", default=2, minimum=1, maximum=5),),
        control="n",
    )(spy)
    with pytest.raises(WidgetOptionError, match=message.replace("(", r"\(").replace(")", r"\)")):
        tiny(raw, CTX)
    assert rendered == []


def test_option_kinds() -> None:
    examples = {"demo": {"size": 3, "notes": []}}
    parse = option.parse
    declared = (
        option.number("beta", default=1.0, minimum=0.0),
        option.choice("mode", ("toy", "real"), default="toy"),
        option.example(default="demo", needs=("size",)),
        option.text("label", default="", pattern=r"[a-z ]*"),
    )
    got = parse(declared, {"id": "x", "beta": "2.5", "mode": "real"}, examples, "")
    assert got == {
        "id": "x",
        "beta": 2.5,
        "mode": "real",
        "example": examples["demo"],
        "example_key": "demo",
        "label": "",
    }
    for raw, message in (
        ({"beta": "nan"}, ":beta: must be a number ≥ 0, got 'nan'"),
        ({"beta": "-1"}, ":beta: must be ≥ 0, got -1"),
        ({"mode": "big"}, ":mode: must be one of toy, real, got 'big'"),
        ({"example": "nope"}, "unknown example 'nope' (figures.EXAMPLES has: demo)"),
        ({"label": "Bad!"}, ":label: 'Bad!' must match"),
    ):
        with pytest.raises(
            WidgetOptionError, match=message.replace("(", r"\(").replace(")", r"\)")
        ):
            parse(declared, {"id": "x", **raw}, examples, "")
    with pytest.raises(WidgetOptionError, match="lacks notes, keys"):
        parse((option.example(default="demo", needs=("notes", "keys")),), {}, {"demo": {}}, "x")
    with pytest.raises(WidgetOptionError, match=r"needs :n: \(a whole number\)"):
        parse((option.integer("n"),), {"id": "x"}, {}, "")


@pytest.mark.parametrize(
    ("name", "kwargs", "message"),
    [
        ("tiny", {"scripts": ("widgets/tiny.js",), "control": "n"}, "must be lowercase words"),
        ("tiny-el", {"scripts": (), "control": "n"}, "declares no script"),
        ("tiny-el", {"scripts": ("/static/x.js",), "control": "n"}, "must be a static path"),
        ("tiny-el", {"scripts": ("widgets/x.css",), "control": "n"}, "must be a static path"),
        ("tiny-el", {"scripts": ("widgets/x.js",), "styles": ("widgets/x.js",), "control": "n"},
         "must be a static path"),
        ("tiny-el", {"scripts": ("widgets/x.js",), "control": "Not A Target"}, "data-target"),
    ],
)  # fmt: skip
def test_bad_declarations_fail_at_registration(
    registry: None, name: str, kwargs: dict[str, Any], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        widgets.register(name, **kwargs)(_tiny)
    assert widgets.names() == []


def test_render_must_return_its_own_element(registry: None) -> None:
    def wrong_tag(opts: dict[str, Any], ctx: WidgetContext) -> str:
        return kit.element("other-el", opts["id"], {})

    def not_html(opts: dict[str, Any], ctx: WidgetContext) -> Any:
        return 42

    w = widgets.register("tiny-el", scripts=("widgets/t.js",), control="n")(wrong_tag)
    with pytest.raises(ValueError, match="must return one <tiny-el id=…> element"):
        w({"id": "t"}, CTX)
    widgets.unregister("tiny-el")
    w = widgets.register("tiny-el", scripts=("widgets/t.js",), control="n")(not_html)
    with pytest.raises(TypeError, match="returned int"):
        w({"id": "t"}, CTX)


def test_two_modules_cannot_take_one_name(registry: None) -> None:
    def one(opts: dict[str, Any], ctx: WidgetContext) -> str:
        return ""

    declare = widgets.register("taken-el", scripts=("widgets/t.js",), control="n")
    declare(one)
    declare(one)  # the same function again (a reload) is fine

    def other(opts: dict[str, Any], ctx: WidgetContext) -> str:
        return ""

    with pytest.raises(ValueError, match="already registered"):
        declare(other)


def test_discovery_imports_every_module_and_records_failures(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A widget package with one good and one broken module: only using the broken one's
    widget fails, and the compile error names the module and its exception."""
    pkg = tmp_path / "fakewidgets"
    pkg.mkdir()
    (pkg / "good.py").write_text(
        "from mathmachine.coursebook.widgets import kit, register\n"
        "@register('good-widget', scripts=('widgets/good.js',), control='go')\n"
        "def render(opts, ctx):\n"
        "    return kit.element('good-widget', opts['id'], {})\n"
    )
    (pkg / "broken.py").write_text("import no_such_module_anywhere\n")
    (pkg / "_private.py").write_text("raise RuntimeError('never imported')\n")
    monkeypatch.setattr(widgets, "_REGISTRY", {})
    monkeypatch.setattr(widgets, "_FAILED", {})
    monkeypatch.setattr(widgets, "_discovered", False)
    monkeypatch.setattr(widgets, "__path__", [str(pkg)])
    monkeypatch.setattr(widgets, "__name__", "fakewidgets")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        assert widgets.names() == ["good-widget"]
        assert set(widgets.import_failures()) == {"broken"}
        assert isinstance(widgets.import_failures()["broken"], ModuleNotFoundError)

        md = tmp_path / "w.md"
        md.write_text(
            ":::{widget} good-widget\n:id: g\n:::\n\n:::{widget} translate-lookback\n:id: t\n:::\n"
        )
        result = compile_fixture(md, make_unit())
        (error,) = result.ctx.errors
        assert error.line == 5
        assert error.message == (
            "unknown widget 'translate-lookback' (known: good-widget); widget module "
            "broken.py failed to import: ModuleNotFoundError: No module named "
            "'no_such_module_anywhere'"
        )
        assert '<good-widget id="g" class="widget" data-kit>' in result.html
    finally:
        for name in ("fakewidgets", "fakewidgets.good", "fakewidgets.broken"):
            sys.modules.pop(name, None)


@pytest.mark.usefixtures("test_widgets")
def test_widget_sees_figures_examples_and_source_and_the_page_gets_its_assets() -> None:
    seen: list[WidgetContext] = []

    @widgets.register(
        "spy-el",
        scripts=("widgets/spy-el.js", "widgets/shared.js"),
        styles=("widgets/spy-el.css",),
        options=(option.choice("mode", ("fine", "bad")),),
        control="go",
    )
    def spy(opts: dict[str, Any], ctx: WidgetContext) -> str:
        seen.append(ctx)
        if opts["mode"] == "bad":
            raise WidgetOptionError("mode must be fine")
        return kit.element("spy-el", opts["id"], {})

    def run(text: str) -> MarkdownResult:
        return compile_markdown(
            text, path=Path("x.md"), unit=make_unit(), number=1, title="T", whole_section=False
        )

    text = (
        "Text.\n\n:::{widget} spy-el\n:id: s1\n:mode: fine\n:::\n\n"
        ":::{widget} demo-widget\n:id: d1\n:::\n\n:::{widget} spy-el\n:id: s2\n:mode: fine\n:::\n"
    )
    out = run(text)
    assert not out.ctx.errors
    ctx = seen[0]
    assert ctx.source == "x.md:3"
    assert (ctx.id, ctx.unit_slug, ctx.section) == ("s1", "attention-and-transformers", 1)
    assert ctx.figures["w_tea"] == "0.736" and ctx.examples == {"demo": {"size": 3}}
    assert [(w.id, w.options) for w in out.ctx.widgets] == [
        ("s1", (("id", "s1"), ("mode", "fine"))),
        ("d1", (("id", "d1"),)),
        ("s2", (("id", "s2"), ("mode", "fine"))),
    ]
    # The page loads exactly what the widgets declared, each once, in first-use order.
    assert out.ctx.scripts == ["widgets/spy-el.js", "widgets/shared.js", "widgets/demo-widget.js"]
    assert out.ctx.styles == ["widgets/spy-el.css", "widgets/demo-widget.css"]

    bad = run(text.replace("fine", "bad", 1))
    assert [e.format() for e in bad.ctx.errors] == ["x.md:3: widget 'spy-el': mode must be fine"]
