"""Widget 17 (§13, "Watch it learn"), server side: every number it sends is the training runs'
own (history.json and the four ablation histories, read here directly), the full model first;
the map of each run, step and sentence as printed; the loss curve's points are the histories'
losses; the fallback holds the full model's map at every saved step and every run's score."""

from __future__ import annotations

import json
import re
from typing import Any

import numpy as np
import pytest
from support import unit18_examples, widget_context

from mathmachine.coursebook import widgets
from mathmachine.coursebook.widgets import WidgetOptionError
from mathmachine.engine.tiny.training import HISTORY_PATH

STATE = re.compile(r'<script type="application/json" data-state>(.*?)</script>', re.S)
ABLATIONS = HISTORY_PATH.parent / "ablations"
NAMES = ["full", "no-positions", "no-layernorm", "one-head", "decoder-only"]


@pytest.fixture(scope="module")
def examples() -> dict[str, Any]:
    return unit18_examples()


@pytest.fixture(scope="module")
def histories() -> dict[str, Any]:
    out = {"full": json.loads(HISTORY_PATH.read_text(encoding="utf-8"))}
    for n in NAMES[1:]:
        out[n] = json.loads((ABLATIONS / f"{n}.json").read_text(encoding="utf-8"))
    return out


def render(examples: dict[str, Any]) -> str:
    ctx = widget_context(examples)
    widget = widgets.get("tiny-learn")
    assert widget is not None
    return widget({"id": "w17"}, ctx)


def state(html: str) -> dict[str, Any]:
    m = STATE.search(html)
    assert m is not None
    return json.loads(m.group(1))  # type: ignore[no-any-return]


def pct(x: float) -> str:
    return "100%" if x == 1 else f"{100 * x:.1f}%".replace(".0%", "%")


def test_every_number_is_the_histories(examples: dict[str, Any], histories: dict[str, Any]) -> None:
    s = state(render(examples))
    assert [r["name"] for r in s["runs"]] == NAMES
    assert s["steps"] == [0, 25, 50, 100, 200, 600] and s["step"] == 5
    for r in s["runs"]:
        hist = histories[r["name"]]
        x, y = r["curve"]["x"], r["curve"]["y"]
        assert x[0] == 1 and x[-1] == 600 and {25, 50, 100, 200} <= set(x)
        assert y == [round(hist["loss"][t - 1], 6) for t in x]  # step t: the loss of batch t
        assert [x[i] for i in r["marks"]] == [1, 25, 50, 100, 200, 600]
        for cp, kept in zip(r["checkpoints"], hist["checkpoints"], strict=True):
            assert cp["step"] == kept["step"]
            assert cp["held"] == pct(kept["held_out_accuracy"])
            for view, sentence in zip(cp["maps"], kept["sentences"], strict=True):
                key = "attention_on_english" if r["name"] == "decoder-only" else "cross_attention"
                np.testing.assert_allclose(view["values"], sentence[key], atol=5e-4)
                assert view["written"] == " ".join(sentence["greedy_output"]) or (
                    view["written"] == "(nothing)" and not sentence["greedy_output"]
                )
                assert view["rows"] == [w if w != "</s>" else "end" for w in sentence["hindi"]]
    full, no_ln = s["runs"][0], s["runs"][2]
    assert full["weights"] == "26,521" and no_ln["weights"] == "26,201"
    assert no_ln["held_out"] == "98.6%" and no_ln["final_loss"] == "0.0003"
    assert no_ln["mistakes"] == [
        "“my mother buys milk”: writes मेरी माँ किताबें ख़रीदती है (right: मेरी माँ दूध ख़रीदती है)"
    ]
    assert s["runs"][1]["order"] == ["“I drink tea” → मैं चाय पीता हूँ", "“tea drink I” → मैं चाय पीता हूँ"]
    assert "A row adds up to less than 1" in s["runs"][4]["checkpoints"][5]["maps"][0]["desc"]


def test_the_fallback(examples: dict[str, Any], histories: dict[str, Any]) -> None:
    html = render(examples)
    for c in histories["full"]["checkpoints"]:
        written = " ".join(c["sentences"][0]["greedy_output"])
        assert (
            f'<caption>Step {c["step"]}: writes <span lang="hi">{written}</span></caption>' in html
        )
    scores = re.search(r"<caption>Held-out sentences translated right.*?</table>", html, re.S)
    assert scores is not None
    for n in NAMES:
        row = [pct(c["held_out_accuracy"]) for c in histories[n]["checkpoints"]]
        assert all(f"<td>{v}</td>" in scores.group(0) for v in row)
    assert "Training loss: the full model" in html and "data-nojs" in html


def test_bad_example_data_is_refused(examples: dict[str, Any]) -> None:
    broken = json.loads(json.dumps(examples["tiny_learn"]))
    broken["runs"] = broken["runs"][1:]
    with pytest.raises(WidgetOptionError, match="the full model comes first"):
        render({**examples, "tiny_learn": broken})
    broken = json.loads(json.dumps(examples["tiny_learn"]))
    broken["runs"][2]["checkpoints"].pop()
    with pytest.raises(WidgetOptionError, match="saved steps differ"):
        render({**examples, "tiny_learn": broken})
