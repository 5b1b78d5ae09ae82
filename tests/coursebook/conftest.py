"""Shared fixtures for the compiler tests: a small unit context, a throwaway widget, and the
fixture-file runner (input .md -> expected .html / .json / .err, next to each other)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import asdict
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from mathmachine.coursebook import widgets
from mathmachine.coursebook.passes.assemble import MarkdownResult, compile_markdown
from mathmachine.coursebook.passes.context import SectionRef, UnitContext

FIXTURES = Path(__file__).parent / "fixtures"
# UPDATE_FIXTURES=1 rewrites the expected files from the current output (then review the diff).
UPDATE = os.environ.get("UPDATE_FIXTURES") == "1"

FIGURES = {
    "q": "(0, 0.5, 2)",
    "w_tea": "0.736",
    "row_main_i": "0.736",  # a second figure with the same printed value
    "weights": "(0.100, 0.164, 0.736)",
    "sharp": "(0.017, 0.047, 0.936)",
    "sharp_tea": "0.936",
    "old": "(0.100, 0.164, 0.736)",
    "doubled": "(0.200, 0.328, 1.472)",
    "contexts": "35",
    "numbers": "1,050",
    "neg": "\u22120.462",
    "half": "0.5",
    "matrix": "[[0.5, 0.25], [1, 2]]",
    "matrix_t": "[[0.5, 1], [0.25, 2]]",
    "third": "1/3",
    "weights_by_hand": "(0.101, 0.163, 0.736)",  # a by-hand answer a unit off the key
    "weights_between": "(0.1005, 0.1635, 0.736)",  # between the key and the by-hand answer
}


def demo_variant(seed: int) -> dict[str, str]:
    """A tiny variant function for the fixtures: a score pair drawn from the seed."""
    a = seed % 7 + 1
    return {"a": str(a), "b": str(a + 2), "sum": str(2 * a + 2), "wrong_sum": str(2 * a)}


TITLE = "The bottleneck, and the fix: look back"


def make_unit(**overrides: object) -> UnitContext:
    unit = UnitContext(
        number=18,
        slug="attention-and-transformers",
        title="Attention and Transformers",
        sections={
            1: SectionRef(1, "look-back", TITLE, True),
            2: SectionRef(2, "soft-lookup", "Attention is a soft lookup", False),
            4: SectionRef(4, "square-root-of-d", "Why we divide by the square root of d", False),
        },
        figures=dict(FIGURES),
        examples={"demo": {"size": 3}},
        known_units={3: "vectors", 18: "attention-and-transformers"},
        variants={"demo_variant": demo_variant},
    )
    for k, v in overrides.items():
        setattr(unit, k, v)
    return unit


def compile_fixture(path: Path, unit: UnitContext | None = None) -> MarkdownResult:
    """Fragments compile alone; files named section-*.md compile as whole sections."""
    return compile_markdown(
        path.read_text(encoding="utf-8"),
        path=path,
        unit=unit or make_unit(),
        number=1,
        title=TITLE,
        whole_section=path.name.startswith("section-"),
    )


def compare(expected_path: Path, actual: str) -> None:
    if UPDATE:
        expected_path.write_text(actual, encoding="utf-8")
    assert expected_path.exists(), f"missing {expected_path.name} (run with UPDATE_FIXTURES=1)"
    assert actual == expected_path.read_text(encoding="utf-8")


def structured(result: MarkdownResult) -> str:
    """Checks, widgets and summary of a compile, as stable JSON."""
    checks = []
    for c in [*result.ctx.checks, *result.ctx.problems]:
        d = asdict(c)
        d["source"] = Path(c.source).name  # machine-independent
        checks.append(d)
    data = {
        "checks": checks,
        "widgets": [asdict(w) for w in result.ctx.widgets],
        "summary_html": result.ctx.summary_html,
    }
    return json.dumps(data, indent=2, ensure_ascii=False, default=_sets) + "\n"


def _sets(value: object) -> object:
    if isinstance(value, frozenset | set):
        return sorted(value)
    if isinstance(value, Fraction):
        return str(value)
    raise TypeError(f"{type(value).__name__} is not JSON")


@pytest.fixture
def test_widgets(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """An isolated registry holding two throwaway widgets (the real ones are not loaded), so
    fixture outputs and messages do not depend on other people's widget modules."""
    monkeypatch.setattr(widgets, "_REGISTRY", {})
    monkeypatch.setattr(widgets, "_FAILED", {})
    monkeypatch.setattr(widgets, "_discovered", True)

    @widgets.register(
        "demo-widget",
        scripts=("widgets/demo-widget.js",),
        styles=("widgets/demo-widget.css",),
        options=(widgets.option.choice("color", ("blue", "red"), default="blue"),),
        control="color",
    )
    def render(opts: dict[str, Any], ctx: widgets.WidgetContext) -> str:
        size = ctx.examples["demo"]["size"]
        table = widgets.kit.table(
            caption=f"{size} cells", columns=["cell", "value"], rows=[("one", ["1"])]
        )
        return widgets.kit.element("demo-widget", opts["id"], {"size": size}, table,
                                   data_color=opts["color"])  # fmt: skip

    @widgets.register("broken-widget", scripts=("widgets/broken-widget.js",), control="x")
    def broken(opts: dict[str, Any], ctx: widgets.WidgetContext) -> str:
        raise ZeroDivisionError("division by zero")

    yield
