"""The widget registry: register/get, lazy discovery, import failures named only when used."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from mathmachine.coursebook import widgets
from mathmachine.coursebook.passes.assemble import MarkdownResult, compile_markdown
from mathmachine.coursebook.widgets import RenderedWidget, WidgetContext, WidgetOptionError

from .conftest import compile_fixture, make_unit


@pytest.fixture
def registry(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(widgets, "_REGISTRY", {})
    monkeypatch.setattr(widgets, "_FAILED", {})
    monkeypatch.setattr(widgets, "_discovered", True)


def test_register_and_get(registry: None) -> None:
    @widgets.register("tiny")
    def tiny(options: dict[str, str], ctx: WidgetContext) -> RenderedWidget:
        return RenderedWidget(f"<tiny-el>{ctx.figures['w_tea']}</tiny-el>", ("widgets/tiny.js",))

    assert widgets.get("tiny") is tiny
    assert widgets.names() == ["tiny"]
    assert widgets.get("nope") is None
    ctx = WidgetContext(examples={}, figures={"w_tea": "0.736"}, unit_slug="u", source="a.md:1")
    assert tiny({"id": "t"}, ctx) == RenderedWidget(
        "<tiny-el>0.736</tiny-el>", ("widgets/tiny.js",)
    )


def test_two_modules_cannot_take_one_name(registry: None) -> None:
    def one(options: dict[str, str], ctx: WidgetContext) -> RenderedWidget:
        return RenderedWidget("")

    widgets.register("taken")(one)
    widgets.register("taken")(one)  # the same function again (a reload) is fine

    def other(options: dict[str, str], ctx: WidgetContext) -> RenderedWidget:
        return RenderedWidget("")

    with pytest.raises(ValueError, match="already registered"):
        widgets.register("taken")(other)


def test_discovery_imports_every_module_and_records_failures(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A widget package with one good and one broken module: only using the broken one's
    widget fails, and the compile error names the module and its exception."""
    pkg = tmp_path / "fakewidgets"
    pkg.mkdir()
    (pkg / "good.py").write_text(
        "from mathmachine.coursebook.widgets import RenderedWidget, register\n"
        "@register('good-widget')\n"
        "def render(options, ctx):\n"
        "    return RenderedWidget('<good-widget></good-widget>', ('widgets/good.js',))\n"
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
        assert "<good-widget></good-widget>" in result.html
    finally:
        for name in ("fakewidgets", "fakewidgets.good", "fakewidgets.broken"):
            sys.modules.pop(name, None)


@pytest.mark.usefixtures("test_widgets")
def test_widget_sees_figures_examples_and_source() -> None:
    seen: list[WidgetContext] = []

    @widgets.register("spy")
    def spy(options: dict[str, str], ctx: WidgetContext) -> RenderedWidget:
        seen.append(ctx)
        if options.get("mode") == "bad":
            raise WidgetOptionError("mode must be good")
        return RenderedWidget("<spy-el></spy-el>", ("widgets/spy.js",))

    def run(text: str) -> MarkdownResult:
        return compile_markdown(
            text, path=Path("x.md"), unit=make_unit(), number=1, title="T", whole_section=False
        )

    text = "Text.\n\n:::{widget} spy\n:id: s1\n:mode: fine\n:::\n"
    out = run(text)
    assert not out.ctx.errors
    (ctx,) = seen
    assert ctx.source == "x.md:3"
    assert (ctx.id, ctx.unit_slug, ctx.section) == ("s1", "attention-and-transformers", 1)
    assert ctx.figures["w_tea"] == "0.736" and ctx.examples == {"demo": {"size": 3}}
    assert [w.scripts for w in out.ctx.widgets] == [("widgets/spy.js",)]

    bad = run(text.replace("fine", "bad"))
    assert [e.format() for e in bad.ctx.errors] == ["x.md:3: widget 'spy': mode must be good"]
