"""Widget 1's server render: the no-JS fallback carries the engine's numbers, the state is valid
JSON the script can trust, Devanagari is marked as Hindi, and bad options fail loudly."""

from __future__ import annotations

import copy
import json
import re
from html.parser import HTMLParser
from typing import Any

import numpy as np
import pytest
from support import unit18_examples, widget_context

from mathmachine.coursebook import widgets
from mathmachine.coursebook.widgets import WidgetContext, WidgetOptionError
from mathmachine.coursebook.widgets.translate import render
from mathmachine.engine import alignment_map

DEVANAGARI = re.compile(r"[\u0900-\u097F]+")


@pytest.fixture(scope="module")
def examples() -> dict[str, Any]:
    return unit18_examples()


def ctx(examples: dict[str, Any]) -> WidgetContext:
    return widget_context(examples)


class Tree(HTMLParser):
    """A tiny DOM: (tag, attrs, text) for every element, plus the open-tag stack per text run."""

    VOID = frozenset({"input", "br", "img", "meta", "link", "line", "hr"})

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, dict[str, str | None]]] = []
        self.elements: list[tuple[str, dict[str, str | None], list[str]]] = []
        self.ancestry: list[tuple[str, dict[str, str | None], list[tuple[str, dict]]]] = []
        self.texts: list[tuple[str, list[tuple[str, dict[str, str | None]]]]] = []
        self._open: list[list[str]] = []
        self.feed(html)
        self.close()
        assert self.stack == [], f"unclosed: {self.stack}"

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        text: list[str] = []
        self.elements.append((tag, a, text))
        self.ancestry.append((tag, a, list(self.stack)))
        if tag in self.VOID:
            return
        self.stack.append((tag, a))
        self._open.append(text)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, dict(attrs), []))
        self.ancestry.append((tag, dict(attrs), list(self.stack)))

    def handle_endtag(self, tag: str) -> None:
        if tag in self.VOID:
            return
        assert self.stack and self.stack[-1][0] == tag, f"</{tag}> closes {self.stack[-1:]}"
        self.stack.pop()
        self._open.pop()

    def handle_data(self, data: str) -> None:
        for t in self._open:
            t.append(data)
        self.texts.append((data, list(self.stack)))

    def find(self, tag: str, **attrs: str) -> list[tuple[dict[str, str | None], str]]:
        return [
            (a, "".join(t))
            for (g, a, t) in self.elements
            if g == tag and all(a.get(k.replace("_", "-")) == v for k, v in attrs.items())
        ]


def test_registered_under_its_markdown_name_with_its_declarations(
    examples: dict[str, Any],
) -> None:
    assert widgets.get("translate-lookback") is render
    assert render.name == "translate-lookback" and render.module.endswith(".translate")
    # what the compiler calls for :::{widget} translate-lookback: options parsed, then rendered
    html = widgets.get("translate-lookback")({"id": "w1"}, ctx(examples))
    assert html.startswith('<translate-lookback id="w1"') and "data-kit" in html
    with pytest.raises(WidgetOptionError):
        render({"id": "w1", "colour": "red"}, ctx(examples))
    assert render.scripts == ("widgets/translate-lookback.js",)
    assert render.styles == ("widgets/plots.css", "widgets/translate-lookback.css")
    assert render.control == "sure" and render.golden is not None


def test_fallback_table_holds_the_engines_map(examples: dict[str, Any]) -> None:
    ex = examples["lookback"]
    out = render({"id": "lookback"}, ctx(examples))
    tree = Tree(out)
    amap = alignment_map(ex["states"], ex["notes"])  # [4, 3]
    rows = tree.find("tr", data_target="row")
    assert len(rows) == 4
    map_cells = tree.find("td")[:12]  # the map comes first; the no-attention table follows
    cells = [text for (a, text) in map_cells]
    assert cells == [f"{w:.3f}" for w in amap.ravel()]
    assert cells[3:6] == ["0.100", "0.164", "0.736"]  # चाय looks at tea
    assert cells[9:12] == ["0.422", "0.422", "0.155"]  # हूँ spreads over I and drink
    # The kit's palette shades the weights (no inline style: the CSP forbids it): 0.736 is
    # level round(10·√0.736) = 9, 0.100 level 3.
    shades = [a["class"] for (a, _) in map_cells]
    assert shades[5] == "wk-h9" and shades[3] == "wk-h3"
    assert not re.search(r"\s(style|on[a-z]+)=", out)
    # Accessible table: caption, column and row headers.
    assert tree.find("caption")[0][1].startswith("Alignment map for “I drink tea”")
    assert [t for (a, t) in tree.find("th", scope="col")][:4] == ["written", "I", "drink", "tea"]
    row_heads = [t for (a, t) in tree.find("th", scope="row")]
    assert row_heads[1] == "चाय (chai, “tea”)"


def test_static_figure_has_a_text_alternative_and_a_beam_per_weight(
    examples: dict[str, Any],
) -> None:
    out = render({"id": "lookback"}, ctx(examples))
    tree = Tree(out)
    (svg, _), *_ = tree.find("svg", role="img")
    assert svg["aria-labelledby"] == "lookback-fig-title lookback-fig-desc"
    ((title, title_text),) = tree.find("title")
    assert title["id"] == "lookback-fig-title"
    assert title_text == "Alignment of “I drink tea” with the Hindi “main chai peeta hoon”"
    ((_, desc),) = tree.find("desc")
    assert "chai looks at tea (0.736)" in desc
    assert "hoon looks at I (0.422) and drink (0.422)" in desc
    beams = tree.find("line", **{"class": "tl-fig-beam"})
    assert len(beams) == 12
    widths = sorted(float(a["stroke-width"] or 0) for a, _ in beams)
    assert widths[0] == pytest.approx(1 + 9 * 0.0996, abs=0.01)
    assert widths[-1] == pytest.approx(1 + 9 * 0.7361, abs=0.01)


def test_state_json_is_valid_and_engine_computed(examples: dict[str, Any]) -> None:
    ex = examples["lookback"]
    out = render({"id": "lookback", "select": "2"}, ctx(examples))
    m = re.search(r'<script type="application/json" data-state>(.*?)</script>', out)
    assert m is not None
    state = json.loads(m.group(1))
    assert state["english"] == ["I", "drink", "tea"]
    assert [h["word"] for h in state["hindi"]] == ["मैं", "चाय", "पीता", "हूँ"]
    assert state["hindi"][1] == {"word": "चाय", "translit": "chai", "gloss": "tea"}
    assert state["notes"] == ex["notes"] and state["states"] == ex["states"]
    assert state["sure"] == {"min": 0.0, "max": 3.0, "step": 0.1, "default": 1.0}
    assert state["selected"] == 1
    np.testing.assert_array_equal(state["map"], alignment_map(ex["states"], ex["notes"]))
    np.testing.assert_allclose(np.sum(state["map"], axis=1), 1.0, rtol=0, atol=1e-15)
    np.testing.assert_array_equal(state["contexts"], np.array(state["map"]) @ ex["notes"])
    assert state["summary"] == [0.0, 0.0, 1.0]
    # The selected word's button is pressed, the others not.
    tree = Tree(out)
    pressed = [a["aria-pressed"] for a, _ in tree.find("button", **{"class": "tl-word"})]
    assert pressed == ["false", "true", "false", "false"]


def test_state_json_cannot_close_its_script_element(examples: dict[str, Any]) -> None:
    ex = copy.deepcopy(examples)
    ex["lookback"]["hindi"][0]["gloss"] = "</script><script>alert(1)</script>&<!--"
    out = render({"id": "lookback"}, ctx(ex))
    assert out.count("</script>") == 1
    assert "<script>alert" not in out
    m = re.search(r"data-state>(.*?)</script>", out)
    assert m is not None
    assert json.loads(m.group(1))["hindi"][0]["gloss"] == ex["lookback"]["hindi"][0]["gloss"]


def test_devanagari_is_always_inside_lang_hi(examples: dict[str, Any]) -> None:
    out = render({"id": "lookback"}, ctx(examples))
    body = re.sub(r"<script type=\"application/json\".*?</script>", "", out, flags=re.S)
    tree = Tree(body)
    found = 0
    for text, stack in tree.texts:
        if DEVANAGARI.search(text):
            found += 1
            assert any(a.get("lang") == "hi" for _, a in stack), (text, [t for t, _ in stack])
    assert found >= 4 * 3  # the figure, the stage and the table show every word
    # ...and every Hindi word is followed by its transliteration somewhere visible.
    for translit in ("main", "chai", "peeta", "hoon"):
        assert f"({translit}" in body


def test_controls_that_need_javascript_are_hidden_in_the_markup(examples: dict[str, Any]) -> None:
    out = render({"id": "lookback"}, ctx(examples))
    tree = Tree(out)
    js_only = [a for (_, a, _) in tree.elements if "data-js" in a]
    assert {a.get("class") for a in js_only} == {
        "tl-toolbar",
        "tl-stage",
        "tl-sure",
        "tl-context",
        "tl-status",
    }
    assert all("hidden" in a for a in js_only)
    controls = [(tag, a, up) for (tag, a, up) in tree.ancestry if tag in ("button", "input")]
    assert len(controls) == 1 + 4 + 2  # ▶ translate, four words, the slider, the switch
    for tag, a, up in controls:
        assert any("data-js" in u and "hidden" in u for _, u in up), (tag, a)
    # ...while the fallback (figure and map) is not hidden; the script hides the figure.
    ((_, figure, up),) = [e for e in tree.ancestry if e[0] == "figure"]
    assert (
        "data-nojs" in figure and "hidden" not in figure and not any("hidden" in u for _, u in up)
    )
    the_map, summary = [e for e in tree.ancestry if e[0] == "table"]
    assert not any("hidden" in u for _, u in the_map[2])
    assert any("hidden" in u for _, u in summary[2])  # shown by the no-attention switch


def test_without_attention_every_row_is_the_same_summary(examples: dict[str, Any]) -> None:
    tree = Tree(render({"id": "w1"}, ctx(examples)))
    (summary,) = tree.find("table", id="w1-summary")
    assert summary[1].startswith(
        "Without attention: the vector each Hindi word is written from. Every row is the same "
        "summary, the last note htea"
    )
    cells = [t for (a, t) in tree.find("td")[12:]]
    assert cells == ["0.000", "0.000", "1.000"] * 4
    assert [t for (a, t) in tree.find("th", scope="col")][4:] == ["written", "c1", "c2", "c3"]


def test_slider_and_switch_markup(examples: dict[str, Any]) -> None:
    out = render({"id": "w1"}, ctx(examples))
    tree = Tree(out)
    ((rng, _),) = tree.find("input", type="range")
    assert (rng["min"], rng["max"], rng["step"], rng["value"]) == ("0", "3", "0.1", "1")
    assert tree.find("label", **{"for": "w1-sure"})[0][1] == "how sure"
    assert tree.find("output", **{"for": "w1-sure"})[0][1] == "1.0"
    ((sw, _),) = tree.find("input", type="checkbox")
    assert sw["role"] == "switch"
    assert "no attention (Unit 17)" in out
    # The visible status line is not a live region (a slider speaks its own aria-valuetext);
    # the kit's hidden live region next to it announces what the element says.
    ((status, _),) = tree.find("p", data_target="status")
    assert "role" not in status and "aria-live" not in status
    ((live, _),) = tree.find("p", role="status")
    assert live["data-target"] == "live" and live["class"] == "visually-hidden"
    assert tree.find("translate-lookback")[0][0]["id"] == "w1"


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"id": "lookback", "colour": "red"}, "unknown option(s) colour"),
        ({"id": "lookback", "example": "nope"}, "unknown example 'nope'"),
        ({"id": "lookback", "select": "5"}, ":select: must be a word number from 1 to 4"),
        ({"id": "lookback", "select": "0"}, ":select: must be ≥ 1, got 0"),
        ({"id": "lookback", "select": "chai"}, ":select: must be a whole number ≥ 1, got 'chai'"),
        ({"id": "look back"}, ":id: 'look back' must be letters"),
        ({"id": '"><script>'}, ":id:"),
    ],
)
def test_bad_options_raise_widget_option_error(
    examples: dict[str, Any], options: dict[str, str], message: str
) -> None:
    with pytest.raises(WidgetOptionError, match=re.escape(message)):
        render(options, ctx(examples))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda ex: ex.pop("states"), "lacks states"),
        (lambda ex: ex["states"].pop(), "4 Hindi words for 3 decoder states"),
        (lambda ex: ex["notes"].__setitem__(0, [1.0, 0.0]), "notes and states must be numbers"),
        (lambda ex: ex["states"].__setitem__(0, [1.0, 0.0]), "notes and states must be numbers"),
        (lambda ex: ex["notes"].__setitem__(0, [float("nan"), 0.0, 0.0]), "must be finite"),
        (lambda ex: ex["hindi"][0].pop("translit"), "needs word and translit"),
        (lambda ex: ex.__setitem__("sure_default", 9), "sure_min <= sure_default <= sure_max"),
    ],
)
def test_malformed_example_raises_widget_option_error(
    examples: dict[str, Any], change: Any, message: str
) -> None:
    ex = copy.deepcopy(examples)
    change(ex["lookback"])
    with pytest.raises(WidgetOptionError, match=re.escape(message)):
        render({"id": "lookback"}, ctx(ex))


def test_id_falls_back_to_the_context(examples: dict[str, Any]) -> None:
    c = WidgetContext(examples=examples, figures={}, unit_slug="u", source="t.md:1", id="from-ctx")
    assert render({}, c).startswith('<translate-lookback id="from-ctx"')
