"""Parts shared by the widgets of §2-§4 (soft_dictionary, self_attention_calculator,
dot_products_grow, saturated_softmax), styled by static/widgets/controls.css."""

from __future__ import annotations

from typing import Any

from . import kit

h = kit.h


def scroll_box(content: kit.HTML, label: str, **attributes: Any) -> kit.HTML:
    """A table that may be wider than a phone, in a box that scrolls sideways. The box is a
    labelled region in the Tab order, so a keyboard can scroll it too (axe's
    scrollable-region-focusable)."""
    return h(
        "div", content, class_="wk-table-wrap", role="region", aria_label=label, tabindex="0",
        **attributes,
    )  # fmt: skip


def bar(weight: float) -> kit.HTML:
    """A share drawn as a bar (an SVG rect whose width attribute the script rewrites)."""
    return h(
        "svg",
        h("rect", class_="wk-bar-bg", x="0", y="0", width="100", height="10"),
        h("rect", class_="wk-bar", target="bar", x="0", y="0", width=f"{100 * weight:.1f}",
          height="10"),
        class_="wk-bar-svg", viewBox="0 0 100 10", preserveAspectRatio="none",
        aria_hidden="true", focusable="false",
    )  # fmt: skip
