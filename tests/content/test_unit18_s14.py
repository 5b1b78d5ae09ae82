"""Unit 18 §14: check s14-cross against the closed form (softmax of the scores over sqrt(d_k)),
its slips run through the same closed form, and the formula map (widget 18) read from the
compiled unit: every node's links are the compiled unit's section pages and widget ids, a
section not published has none, and the widget numbers are the plan's."""

from __future__ import annotations

import math
import re
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from complete_content import build_complete_content
from support import UNIT18

from mathmachine.coursebook import compile_unit, load_unit
from mathmachine.coursebook.model import CompiledUnit
from mathmachine.coursebook.passes.load import load_figures
from mathmachine.coursebook.widgets import SectionSoFar, WidgetContext, WidgetOptionError
from mathmachine.coursebook.widgets.formula_map import _nodes

UNIT = "attention-and-transformers"
UNIT_DIR = Path(__file__).resolve().parents[2] / "content" / "units" / f"18-{UNIT}"
FIGURES = load_figures(UNIT_DIR, 18)
F = FIGURES.values


def vec3(xs: np.ndarray) -> str:
    return "(" + ", ".join(f"{x:.3f}" for x in xs) + ")"


def softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max())
    return e / e.sum()


def test_the_cross_attention_check_is_the_scaled_look_back() -> None:
    q = np.array([0.0, 0.5, 2.0])  # §1's state for चाय; the notes are one-hot
    assert F["cf_q"] == "(0, 0.5, 2)" and F["cf_dk"] == "3"
    assert F["cf_weights"] == vec3(softmax(q / math.sqrt(3)))
    assert F["cf_unscaled"] == vec3(softmax(q)) == "(0.100, 0.164, 0.736)"  # §1's weights
    assert F["cf_by_d"] == vec3(softmax(q / 3))
    assert F["cf_context"] == F["cf_weights"]  # the values are the notes: the output is the weights
    # by hand: the printed scaled scores, their printed exponentials, total and shares
    s = [round(x / math.sqrt(3), 3) for x in q]
    e = [round(math.exp(x), 3) for x in s]
    total = round(sum(e), 3)
    assert F["cf_scores"] == vec3(np.array(s)) and F["cf_exps"] == vec3(np.array(e))
    assert F["cf_total"] == f"{total:.3f}"
    assert F["cf_weights_by_hand"] == vec3(np.array([round(x / total, 3) for x in e]))
    assert len({F["cf_weights"], F["cf_unscaled"], F["cf_by_d"]}) == 3


def section_14(unit: CompiledUnit) -> str:
    sec = next(s for s in unit.with_drafts().sections if s.number == 14)
    assert sec.written
    return sec.html


def map_items(html: str) -> list[str]:
    m = re.search(r'<formula-map id="w18".*?</formula-map>', html, re.S)
    assert m, "no formula map in §14"
    return re.findall(r'<li class="fm-item".*?</li>', m.group(0), re.S)


def the_map_follows(unit: CompiledUnit) -> list[int]:
    """Assert every node of §14's map against `unit`; the sections the nodes name, in order."""
    nodes = FIGURES.examples["formula_map"]["nodes"]
    items = map_items(section_14(unit))
    assert len(items) == len(nodes) == int(F["cf_nodes"])
    published = {s.number: s for s in unit.sections if s.published}
    planned_first, first = {}, 1
    for s in unit.sections:
        planned_first[s.number] = first
        first += s.published_widgets
    for node, item in zip(nodes, items, strict=True):
        n, k = node["section"], node["widget"]
        url = f"/units/{UNIT}/{n}/"
        assert f"Widget {planned_first[n] + k - 1}" in item
        links = re.findall(r'href="([^"]+)"', item)
        if n in published:
            wid = published[n].widgets[k - 1].id
            assert links == [url, f"{url}#{wid}"], (node["id"], links)
            assert f'id="{wid}"' in published[n].html  # the anchor is on the section's page
            assert published[n].title.replace("'", "&#x27;") in item or published[n].title in item
        else:
            assert links == [] and "(being written)" in item, (node["id"], item)
    return [node["section"] for node in nodes]


def test_the_map_links_what_the_compiled_unit_holds() -> None:
    sections = the_map_follows(load_unit(UNIT))
    assert sections == sorted(sections) and sections[0] == 1 and max(sections) < 14


def test_every_node_links_once_the_unit_is_complete(tmp_path: Path) -> None:
    """The sections being written today get their links when they are published, with no edit:
    on a complete copy of the unit every node links its section and its widget."""
    unit = compile_unit(build_complete_content(tmp_path) / UNIT18.name)
    the_map_follows(unit)
    items = map_items(section_14(unit))
    assert all(len(re.findall(r"href=", item)) == 2 for item in items)
    assert "being written" not in "".join(items)


def test_a_node_must_point_back_at_a_planned_widget() -> None:
    secs = {
        1: SectionSoFar(1, "a", "A", "/u/1/", True, 1, 1, (("w1", "translate-lookback"),)),
        2: SectionSoFar(2, "b", "B", "/u/2/", False, 2, 2),
        3: SectionSoFar(3, "c", "C", "/u/3/", False, 1, 4),  # the map's own section
    }
    ctx = WidgetContext(examples={}, figures={}, unit_slug="u", source="x:1", id="m", section=3)

    def ex(*nodes: tuple[str, int, int]) -> dict:
        return {
            "nodes": [
                {"id": i, "label": i, "formula": "f", "section": s, "widget": k}
                for i, s, k in nodes
            ],
            "links": {i: "adds" for i, _, _ in nodes},
            "echoes": [],
        }

    ctx = replace(ctx, sections=secs)
    got = _nodes(ex(("a", 1, 1), ("b", 2, 2)), ctx)
    assert got[0]["widget_url"] == "/u/1/#w1" and got[1]["url"] is None
    assert got[1]["widget"] == "Widget 3"  # §2's second planned widget, after §1's one
    for bad, why in (
        (ex(("a", 1, 1), ("b", 3, 1)), "not before this section"),
        (ex(("a", 1, 1), ("b", 2, 3)), "plans 2 widget(s)"),
        (ex(("a", 1, 2), ("b", 2, 1)), "plans 1 widget(s)"),
        (ex(("a", 1, 1), ("b", 9, 1)), "no section 9"),
    ):
        with pytest.raises(WidgetOptionError, match=re.escape(why)):
            _nodes(bad, ctx)
