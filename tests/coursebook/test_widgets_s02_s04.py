"""Widgets 2-5 (§2-§4), server side: each fallback prints the engine's numbers for the unit's own
example, the state carries what the script needs, and example data that cannot work is refused
with a message that names the problem (the compiler adds file:line)."""

from __future__ import annotations

import copy
import json
import re
from typing import Any

import numpy as np
import pytest
from support import unit18_examples, widget_context

from mathmachine.coursebook import widgets
from mathmachine.coursebook.widgets import WidgetOptionError
from mathmachine.coursebook.widgets.dot_products_grow import draws
from mathmachine.engine.lookup import soft_lookup
from mathmachine.engine.scaling import dot_product_samples, slope_size, softmax_slope
from mathmachine.engine.self_attention import self_attention_steps

STATE = re.compile(r'<script type="application/json" data-state>(.*?)</script>', re.S)


@pytest.fixture(scope="module")
def examples() -> dict[str, Any]:
    return unit18_examples()


def render(name: str, examples: dict[str, Any], **options: str) -> str:
    ctx = widget_context(examples)
    widget = widgets.get(name)
    assert widget is not None
    return widget({"id": "w", **options}, ctx)


def state(html: str) -> dict[str, Any]:
    m = STATE.search(html)
    assert m is not None
    return json.loads(m.group(1))  # type: ignore[no-any-return]


def cells(html: str, target: str) -> list[str]:
    return re.findall(rf'data-target="{target}"[^>]*>([^<]*)<', html)


def test_soft_dictionary_prints_the_engines_weights(examples: dict[str, Any]) -> None:
    html = render("soft-dictionary", examples)
    ex = examples["soft_lookup"]
    keys = [it["key"] for it in ex["items"]]
    values = [it["value"] for it in ex["items"]]
    got = soft_lookup(ex["query"], keys, values, ex["beta"])
    assert cells(html, "weight") == [f"{w:.3f}" for w in got.weights]
    assert cells(html, "score") == ["1.50", "0.50", "−0.50", "−1.50"]
    assert cells(html, "answer") == ["₹19.30"]
    s = state(html)
    assert s["query"] == [1.0, 0.5] and s["betaMax"] == 10.0
    assert [it["value"] for it in s["items"]] == values
    # lines as thick as the weights, in the static figure
    widths = [float(x) for x in re.findall(r'data-target="beam"[^>]*stroke-width="([\d.]+)"', html)]
    assert widths == pytest.approx([1 + 8 * w for w in got.weights], abs=0.01)


def test_self_attention_calculator_shows_every_stage(examples: dict[str, Any]) -> None:
    html = render("self-attention-calculator", examples)
    ex = examples["self_attention"]
    st = self_attention_steps(ex["X"], ex["W_Q"], ex["W_K"], ex["W_V"])
    for key, places in (("q", None), ("scores", None), ("weights", 3), ("output", 3)):
        got = re.findall(rf'data-stage="{key}" data-r="\d" data-c="\d"[^>]*>([^<]*)<', html)
        want = [
            (f"{x:g}" if places is None else f"{x:.{places}f}").replace("-", "−")
            for x in getattr(st, "q" if key == "q" else key).ravel()
        ]
        assert got == want, key
    assert cells(html, "weights-rowsum") == ["1.000"] * 3
    s = state(html)
    assert [p["id"] for p in s["presets"]] == ["worked", "identity", "equal"]
    equal = s["presets"][2]
    assert equal["W_K"] == [[0.0, 0.0], [0.0, 0.0]] and equal["X"] == ex["X"]


def test_dot_products_grow_states_every_width_from_the_engine(examples: dict[str, Any]) -> None:
    html = render("dot-products-grow", examples)
    ex = examples["dot_growth"]
    s = state(html)
    assert s["dims"] == [2**k for k in range(11)] and s["dims"][s["index"]] == 64
    got = dot_product_samples(ex["seed"], ex["samples"], tuple(ex["dims"]))
    for item, raw, scaled in zip(
        s["draws"], got.variances(), got.variances(scaled=True), strict=True
    ):
        assert item["raw"]["variance"] == pytest.approx(raw, rel=1e-12)
        assert item["scaled"]["variance"] == pytest.approx(scaled, rel=1e-12)
        for name in ("raw", "scaled"):
            h = item[name]
            assert sum(h["counts"]) + h["below"] + h["above"] == ex["samples"]
    assert cells(html, "raw-var") == [f"{got.variances()[6]:.1f}"]
    # widths beyond the raw axis spill over its edges: at d = 1024 (std 32) against ±48
    top = s["draws"][-1]["raw"]
    assert top["below"] + top["above"] > 0
    assert draws(ex, ex["seed"]) == s["draws"]


def test_saturated_softmax_prints_the_slope(examples: dict[str, Any]) -> None:
    html = render("saturated-softmax", examples)
    row = np.asarray(examples["saturation"]["scores"])
    J = softmax_slope(row)
    assert cells(html, "slope") == [f"{x:.3f}".replace("-", "−") for x in J.ravel()]
    assert cells(html, "size") == [f"{slope_size(row):.4f}"]
    assert state(html)["reference"] == pytest.approx(slope_size(row), rel=1e-15)


@pytest.mark.parametrize(
    ("name", "key", "change", "message"),
    [
        ("soft-dictionary", "soft_lookup", {"query": [3.0, 0.0]}, "must lie within ±query_max"),
        ("soft-dictionary", "soft_lookup", {"beta": 99.0}, "need 0 <= beta <= beta_max"),
        ("soft-dictionary", "soft_lookup", {"items": [{"name": "chai"}]},
         "needs a key and a value"),
        ("self-attention-calculator", "self_attention", {"W_Q": [[1.0, 0.0]]},
         "the W matrices be 2 × 2"),
        ("self-attention-calculator", "self_attention", {"X": [[10.0, 0.0]] * 3},
         "every entry must lie in -9..9"),
        ("self-attention-calculator", "self_attention", {"presets": [{"id": "x"}]},
         "every preset needs an id and a label"),
        ("dot-products-grow", "dot_growth", {"dims": [4, 2]}, "dims must be increasing"),
        ("dot-products-grow", "dot_growth", {"d_default": 3}, "d_default must be one of the dims"),
        ("saturated-softmax", "saturation", {"scores": [1.0, 2.0]}, "one finite score per word"),
        ("saturated-softmax", "saturation", {"scale_default": 99.0}, "need 0 <= scale_default"),
    ],
)  # fmt: skip
def test_bad_examples_are_refused_by_name(
    examples: dict[str, Any], name: str, key: str, change: dict[str, Any], message: str
) -> None:
    broken = copy.deepcopy(examples)
    broken[key] = {**broken[key], **change}
    with pytest.raises(WidgetOptionError, match=re.escape(message)):
        render(name, broken)


def test_an_unknown_example_is_refused(examples: dict[str, Any]) -> None:
    with pytest.raises(WidgetOptionError, match="unknown example 'nope'"):
        render("soft-dictionary", examples, example="nope")
