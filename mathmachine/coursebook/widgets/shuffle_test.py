"""Widget 9 of Unit 18, "Shuffle test" (SPEC §8), rendered on the server.

    :::{widget} shuffle-test
    :id: w9
    :example: shuffle   (optional: a key of figures.EXAMPLES; default "shuffle")
    :::

Three words ("dog bites man") and §3's three matrices. The learner picks another order of the
same words ("man bites dog" first) and switches positions on or off. Two tables: the outputs of
self-attention for the first sentence, and for the shuffled one, each row beside whether that
word's output is the same vector as in the first sentence, to the printed digits. Without
positions every word keeps its output (the rows only move); with the sinusoidal encoding of
each place added (d = 2, mathmachine.engine.positions), they change.

Every number from mathmachine.engine.order.shuffle_test. The script
(static/widgets/shuffle-test.js) recomputes with position-math.js's shuffleTest, held to the
engine by golden vectors (every order, with and without positions). Without JavaScript: the
tables for "man bites dog" without positions, then with them.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
from numpy.typing import NDArray

from mathmachine.engine import sinusoidal_positions
from mathmachine.engine.order import ShuffleTest, shuffle_test
from mathmachine.printing import vec

from . import Golden, WidgetContext, WidgetOptionError, kit, option, register

NAME = "shuffle-test"
MODULE = "widgets/position-math.js"
NEEDS = ("words", "X", "W_Q", "W_K", "W_V", "default_order")

h = kit.h


def _inputs(opts: dict[str, Any]) -> tuple[dict[str, Any], NDArray[np.float64]]:
    ex, key = opts["example"], opts["example_key"]
    words = ex["words"]
    try:
        x = np.asarray(ex["X"], dtype=np.float64)
        if x.ndim != 2 or x.shape[0] != len(words) or x.shape[1] % 2:
            raise ValueError("X needs one row per word and an even width")
        pe = sinusoidal_positions(len(words), x.shape[1])
        shuffle_test(x, ex["W_Q"], ex["W_K"], ex["W_V"], ex["default_order"], positions=pe)
    except (TypeError, ValueError) as exc:
        raise WidgetOptionError(f"example {key!r}: not a shuffle test ({exc})") from exc
    if not 2 <= len(words) <= 4:
        raise WidgetOptionError(f"example {key!r}: 2 to 4 words (every order is a button)")
    if list(ex["default_order"]) == list(range(len(words))):
        raise WidgetOptionError(f"example {key!r}: default_order must change the order")
    return ex, pe


def _test(ex: dict[str, Any], order: list[int], pe: NDArray[np.float64] | None) -> ShuffleTest:
    return shuffle_test(ex["X"], ex["W_Q"], ex["W_K"], ex["W_V"], order, positions=pe)


def golden(opts: dict[str, Any], ctx: WidgetContext) -> list[Golden]:
    """shuffleTest at every order of the words, with and without the positions; permuteRows."""
    ex, pe = _inputs(opts)
    g = Golden(MODULE)
    n = len(ex["words"])
    for order in itertools.permutations(range(n)):
        for positions in (None, pe):
            t = _test(ex, list(order), positions)
            g.case("shuffleTest", ex["X"], ex["W_Q"], ex["W_K"], ex["W_V"], list(order),
                   positions, True, out={"original": t.original.output,
                                         "shuffled": t.shuffled.output,
                                         "expected": t.expected})  # fmt: skip
    g.case("permuteRows", ex["X"], list(ex["default_order"]),
           out=np.asarray(ex["X"])[list(ex["default_order"])])  # fmt: skip
    return [g]


@register(
    NAME,
    scripts=("widgets/shuffle-test.js",),
    styles=("widgets/controls.css", "widgets/position.css"),
    options=(option.example(default="shuffle", needs=NEEDS),),
    control="positions",
    golden=golden,
)
def render(opts: dict[str, Any], ctx: WidgetContext) -> str:
    uid = opts["id"]
    ex, pe = _inputs(opts)
    words = list(ex["words"])
    order = [int(i) for i in ex["default_order"]]
    orders = [list(o) for o in itertools.permutations(range(len(words)))]
    state = {
        "words": words,
        "X": ex["X"],
        "W_Q": ex["W_Q"],
        "W_K": ex["W_K"],
        "W_V": ex["W_V"],
        "positions": pe.tolist(),
        "order": order,
    }
    plain_t, pos_t = _test(ex, order, None), _test(ex, order, pe)
    return kit.element(
        NAME,
        uid,
        state,
        _controls(uid, words, orders, order),
        _pair(uid, words, order, plain_t, live=True),
        kit.status(class_="wk-status"),
        h("div",
          h("p", "The same two sentences with the position of each place added to its word:",
            class_="wk-note"),
          _pair(uid, words, order, pos_t, live=False, with_positions=True),
          nojs=True),
        _note(uid, pe),
        class_="wk st",
    )  # fmt: skip


def _sentence(words: list[str], order: list[int]) -> str:
    return " ".join(words[i] for i in order)


def _controls(uid: str, words: list[str], orders: list[list[int]], order: list[int]) -> kit.HTML:
    buttons = [
        h("button", _sentence(words, o), type="button", class_="wk-button st-order",
          target="order", data_order=",".join(map(str, o)),
          aria_pressed="true" if o == order else "false")
        for o in orders if o != list(range(len(words)))
    ]  # fmt: skip
    return h(
        "div",
        h("div", h("span", f"Shuffle “{_sentence(words, list(range(len(words))))}” into:",
                   class_="st-label", id=f"{uid}-pick"),
          buttons, class_="wk-toolbar st-orders", role="group", aria_labelledby=f"{uid}-pick"),
        h("div",
          h("label",
            h("input", type="checkbox", role="switch", id=f"{uid}-positions",
              target="positions", aria_describedby=f"{uid}-pos-help"),
            h("span", "add positions"), class_="wk-switch"),
          h("span", "each place's encoding is added to the word that stands there",
            id=f"{uid}-pos-help", class_="wk-note st-help"),
          class_="wk-toolbar st-switch"),
        js=True,
    )  # fmt: skip


def _pair(
    uid: str,
    words: list[str],
    order: list[int],
    t: ShuffleTest,
    *,
    live: bool,
    with_positions: bool = False,
) -> kit.HTML:
    """The first sentence's outputs, then the shuffled sentence's, each word beside whether its
    output is the same as in the first sentence (to the printed digits)."""
    first = _sentence(words, list(range(len(words))))
    how = "with positions" if with_positions else "without positions"
    t1 = {"target": "out1"} if live else {}
    rows1 = [(h("span", w, class_="st-word"), [h("span", vec(t.original.output[i]), **t1)])
             for i, w in enumerate(words)]  # fmt: skip
    same = t.same_outputs()
    rows2 = []
    for place, i in enumerate(order):
        attrs_w = {"target": "word2"} if live else {}
        attrs_o = {"target": "out2"} if live else {}
        attrs_s = {"target": "same"} if live else {}
        rows2.append(
            (h("span", words[i], class_="st-word", **attrs_w),
             [h("span", vec(t.shuffled.output[place]), **attrs_o),
              h("span", _same(same[place]), class_="st-same" + ("" if same[place] else " st-diff"),
                **attrs_s)])
        )  # fmt: skip
    cap1 = kit.join([f"“{first}”, {how}"]) if not live else kit.join(
        [f"“{first}”, ", h("span", how, target="how1")])  # fmt: skip
    shuffled = _sentence(words, order)
    cap2 = (
        kit.join(
            ["“", h("span", shuffled, target="sentence"), "”, ", h("span", how, target="how2")]
        )
        if live
        else f"“{shuffled}”, {how}"
    )
    table1 = kit.table(caption=cap1, columns=["word", "its output"], rows=rows1,
                       class_="wk-table st-table")  # fmt: skip
    table2 = kit.table(caption=cap2, columns=["word", "its output", "same as in the first?"],
                       rows=rows2, class_="wk-table st-table")  # fmt: skip
    return h("div", table1, table2, class_="st-pair")


def _same(same: bool) -> str:
    return "yes, the same" if same else "no, changed"


def _note(uid: str, pe: NDArray[np.float64]) -> kit.HTML:
    return h(
        "p",
        "Self-attention with the matrices of §3, scaled by √2; the outputs are printed to three "
        f"decimals. The positions are the sinusoidal encoding of the next part of this section, "
        f"{pe.shape[1]} numbers wide, one vector for each of the {pe.shape[0]} places.",
        class_="wk-note",
    )
