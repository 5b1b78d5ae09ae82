"""Widget 14 (§11, "Family picker"), server side: the three families in order, each mask drawn
and tabled as its definition (every pair; the lower triangle with its diagonal), the training
examples from the corpus, and the learned map: the tiny translator's own cross-attention, head
average and each head, as printed; example data that cannot work is refused."""

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
from mathmachine.engine import tiny

STATE = re.compile(r'<script type="application/json" data-state>(.*?)</script>', re.S)


@pytest.fixture(scope="module")
def examples() -> dict[str, Any]:
    return unit18_examples()


def render(examples: dict[str, Any], **options: str) -> str:
    ctx = widget_context(examples)
    widget = widgets.get("family-picker")
    assert widget is not None
    return widget({"id": "w14", **options}, ctx)


def state(html: str) -> dict[str, Any]:
    m = STATE.search(html)
    assert m is not None
    return json.loads(m.group(1))  # type: ignore[no-any-return]


def table_cells(html: str, caption_start: str) -> list[list[str]]:
    m = re.search(rf"<caption>{re.escape(caption_start)}.*?</caption>(.*?)</table>", html, re.S)
    assert m is not None, caption_start
    body = m.group(1).split("<tbody>", 1)[1]
    return [
        re.findall(r"<td[^>]*>([^<]*)</td>", row) for row in body.split("</tr>") if "<td" in row
    ]


def test_three_panels_in_order_each_with_its_masks(examples: dict[str, Any]) -> None:
    html = render(examples)
    panels = re.findall(
        r'<section class="fp-panel" data-target="panel" data-family="([^"]+)"', html
    )
    assert panels == ["encoder", "decoder", "encoder-decoder"]
    assert "data-js hidden" in html.split('data-target="family"')[0].rsplit("<div", 1)[1]
    # the encoder's mask: every pair; the decoder's: the lower triangle with its diagonal
    enc = table_cells(html, "Self-attention: ✓ allowed")
    assert enc == [["✓"] * 3] * 3
    dec = table_cells(html, "Masked self-attention: ✓ allowed")
    assert dec == [["✓" if j <= i else "·" for j in range(3)] for i in range(3)]
    dec5 = table_cells(html, "Decoder masked self-attention: ✓ allowed")
    assert dec5 == [["✓" if j <= i else "·" for j in range(5)] for i in range(5)]
    cross = table_cells(html, "Cross-attention: ✓ allowed")
    assert cross == [["✓"] * 3] * 5  # five Hindi places, three English words, no mask
    assert "15 of 25 pairs" in html and "every cell allowed: 9 pairs" in html
    assert "input “I <code>[MASK]</code> tea”, guess the hidden word: “drink”" in html
    assert "after “I drink tea” comes the end of the text" in html


def test_the_learned_map_is_the_tiny_translators(examples: dict[str, Any]) -> None:
    html = render(examples)
    t = tiny.load().translate("she eats rice")
    views = state(html)["cross"]
    assert [v["name"] for v in views] == [
        "the four heads' average",
        *(f"head {k}" for k in range(1, 5)),
    ]
    np.testing.assert_allclose(views[0]["values"], t.cross_attention, atol=0.0015)
    for k in range(4):
        np.testing.assert_allclose(
            views[k + 1]["values"], t.cross_attention_per_head[k], atol=0.0015
        )
    for v in views:
        assert [round(sum(r), 9) for r in v["values"]] == [1.0] * 4  # printed rows add up to 1
        assert v["rows"] == ["वह", "चावल", "खाती", "है"] and v["cols"] == ["she", "eats", "rice"]
    printed = table_cells(html, "Cross-attention of the tiny translator, the four heads' average")
    assert printed == [[f"{w:.3f}" for w in r] for r in views[0]["values"]]
    assert "खाती looks mostly at “eats”" in views[0]["desc"]


def test_bad_example_data_is_refused(examples: dict[str, Any]) -> None:
    broken = copy.deepcopy(examples)
    broken["family_picker"]["families"].reverse()
    with pytest.raises(WidgetOptionError, match="the three families, in order"):
        render(broken)
