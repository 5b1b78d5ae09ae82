"""Widget 3 of Unit 18, "Self-attention calculator" (SPEC §3), rendered on the server.

    :::{widget} self-attention-calculator
    :id: w3
    :example: self_attention  (optional: a key of figures.EXAMPLES; default "self_attention")
    :::

Without JavaScript the element is the whole worked computation as tables, each with its shape:
the inputs X, W_Q, W_K, W_V, then Q, K, V, the scores QKᵀ, the weights (with their row sums) and
the output. static/widgets/self-attention-calculator.js replaces the input tables with editable
grids and presets, reveals the stages one step at a time, and explains on hover or focus which
row and which column made each number; it recomputes with attention-math.js (selfAttention),
held to mathmachine.engine.self_attention by golden vectors.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from mathmachine.engine.self_attention import self_attention_steps
from mathmachine.printing import compact, dec

from . import Golden, WidgetContext, WidgetOptionError, kit, option, parts, register
from ._golden import MATH_MODULE

NAME = "self-attention-calculator"
MODULE = "widgets/attention-math.js"
NEEDS = ("words", "X", "W_Q", "W_K", "W_V", "presets", "entry_min", "entry_max")
INPUTS = ("X", "W_Q", "W_K", "W_V")
# The stages, in the order the "next step" button reveals them: (key, name, how it is made, in
# words for the status line).
STAGES = (
    ("q", "Q", "X times the query matrix"),
    ("k", "K", "X times the key matrix"),
    ("v", "V", "X times the value matrix"),
    ("scores", "scores", "Q times K transposed"),
    ("weights", "weights A", "softmax of each row of the scores"),
    ("output", "output", "A times V"),
)

h = kit.h


def _matrices(ex: dict[str, Any], key: str) -> dict[str, NDArray[np.float64]]:
    try:
        m = {name: np.asarray(ex[name], dtype=np.float64) for name in INPUTS}
    except (TypeError, ValueError) as exc:
        raise WidgetOptionError(f"example {key!r}: X and the W matrices must be numbers") from exc
    n, d = m["X"].shape if m["X"].ndim == 2 else (0, 0)
    if n != len(ex["words"]) or any(m[w].shape != (d, d) for w in INPUTS[1:]):
        raise WidgetOptionError(
            f"example {key!r}: X must have one row per word and the W matrices be {d} × {d}"
        )
    lo, hi = ex["entry_min"], ex["entry_max"]
    if not all(np.all((lo <= a) & (a <= hi)) for a in m.values()):
        raise WidgetOptionError(f"example {key!r}: every entry must lie in {lo}..{hi}")
    return m


def _presets(ex: dict[str, Any], key: str, base: dict[str, NDArray[np.float64]]) -> list[dict]:
    """Every preset with all four matrices filled in (a preset names only what it changes)."""
    out = []
    for p in ex["presets"]:
        if "id" not in p or "label" not in p:
            raise WidgetOptionError(f"example {key!r}: every preset needs an id and a label")
        merged = {name: p.get(name, base[name].tolist()) for name in INPUTS}
        _matrices({**ex, **merged}, key)
        out.append({"id": p["id"], "label": p["label"], **merged})
    return out


def golden(opts: dict[str, Any], ctx: WidgetContext) -> list[Golden]:
    """selfAttention for every preset, plain and scaled (as in §4), and the weights' row sums
    the table prints (math.js's rowSums)."""
    ex = opts["example"]
    base = _matrices(ex, opts["example_key"])
    g = Golden(MODULE)
    m = Golden(MATH_MODULE)
    for p in _presets(ex, opts["example_key"], base):
        for scaled in (False, True):
            st = self_attention_steps(p["X"], p["W_Q"], p["W_K"], p["W_V"], scaled=scaled)
            g.case(
                "selfAttention", p["X"], p["W_Q"], p["W_K"], p["W_V"], scaled,
                out={"q": st.q, "k": st.k, "v": st.v, "scores": st.scores, "scale": st.scale,
                     "weights": st.weights, "output": st.output},
            )  # fmt: skip
            m.case("rowSums", st.weights, out=st.weights.sum(axis=1))
    return [g, m]


@register(
    NAME,
    scripts=("widgets/self-attention-calculator.js",),
    styles=("widgets/controls.css", "widgets/plots.css", "widgets/self-attention-calculator.css"),
    options=(option.example(default="self_attention", needs=NEEDS),),
    control="preset",
    golden=golden,
)
def render(opts: dict[str, Any], ctx: WidgetContext) -> str:
    uid = opts["id"]
    ex = opts["example"]
    m = _matrices(ex, opts["example_key"])
    presets = _presets(ex, opts["example_key"], m)
    st = self_attention_steps(m["X"], m["W_Q"], m["W_K"], m["W_V"])
    words = list(ex["words"])
    state = {
        "words": words,
        "presets": presets,
        "entry": {"min": ex["entry_min"], "max": ex["entry_max"]},
        "stages": [{"key": k, "name": n, "how": how} for k, n, how in STAGES],
        "step": 1,
    }
    return kit.element(
        NAME,
        uid,
        state,
        _presets_bar(uid, presets),
        _inputs_static(words, m),
        _inputs_live(uid, words, m, ex),
        _steps_bar(),
        _stages(uid, words, st),
        h("p", "Tap or focus a number to see how it was made.", class_="sa-explain",
          target="explain", js=True),
        kit.status(class_="wk-status"),
        class_="wk sa",
    )  # fmt: skip


def _presets_bar(uid: str, presets: list[dict]) -> kit.HTML:
    options = [h("option", p["label"], value=p["id"]) for p in presets]
    return h(
        "div",
        h("label", "preset", for_=f"{uid}-preset"),
        h("select", options, target="preset", id=f"{uid}-preset"),
        class_="wk-toolbar sa-preset",
        js=True,
    )


def _steps_bar() -> kit.HTML:
    return h(
        "div",
        h("button", "◀ back", type="button", class_="wk-button", target="back"),
        h("button", "next step ▶", type="button", class_="wk-button wk-button-main", target="next"),
        h("button", "show all", type="button", class_="wk-button", target="all"),
        class_="wk-toolbar",
        js=True,
    )  # fmt: skip


def _matrix_table(
    caption: kit.HTML | str,
    rows: list[str],
    cols: list[str],
    values: NDArray[np.float64],
    *,
    places: int | None,
    stage: str = "",
    extra: tuple[str, list[str]] | None = None,
    class_: str = "sa-matrix",
) -> kit.HTML:
    """A matrix as the kit's table: entries to `places` decimals (None: whole numbers as they
    are). Cells of a stage carry data-stage/-r/-c for the explanations; the weights are shaded on
    the kit's palette."""

    def cell(i: int, j: int, value: float) -> dict[str, Any]:
        return {"target": "cell", "data_stage": stage, "data_r": str(i), "data_c": str(j)}

    more = None
    if extra is not None:
        header, sums = extra
        more = (header, [kit.cell(t, class_="sa-rowsum", target=f"{stage}-rowsum") for t in sums])
    return parts.matrix_table(
        values, rows=rows, cols=cols, caption=caption, fmt=compact if places is None else places,
        cell=cell if stage else None, shade=parts.WEIGHTS if stage == "weights" else None,
        extra=more, class_=class_,
    )  # fmt: skip


def _w(name: str) -> kit.HTML:
    """W_Q as W with a subscript Q."""
    return kit.join(["W", h("sub", name[-1])])


def _made(key: str) -> kit.HTML:
    """How a stage is made, for its caption: XW_Q, QKᵀ, softmax by rows, AV."""
    return {
        "q": kit.join(["X", _w("W_Q")]),
        "k": kit.join(["X", _w("W_K")]),
        "v": kit.join(["X", _w("W_V")]),
        "scores": kit.text("QKᵀ"),
        "weights": kit.text("softmax of each row of QKᵀ"),
        "output": kit.text("AV"),
    }[key]


def _shape(a: NDArray[np.float64]) -> str:
    return f"{a.shape[0]} × {a.shape[1]}"


def _inputs_static(words: list[str], m: dict[str, NDArray[np.float64]]) -> kit.HTML:
    d = m["X"].shape[1]
    cols = [str(c + 1) for c in range(d)]
    tables = [
        _matrix_table(f"X, the words' vectors ({_shape(m['X'])})", words, cols, m["X"],
                      places=None)
    ]  # fmt: skip
    for name in INPUTS[1:]:
        tables.append(
            _matrix_table(kit.join([_w(name), f" ({_shape(m[name])})"]), cols, cols, m[name],
                          places=None)
        )  # fmt: skip
    return h("div", tables, class_="sa-inputs", nojs=True)


def _inputs_live(
    uid: str, words: list[str], m: dict[str, NDArray[np.float64]], ex: dict[str, Any]
) -> kit.HTML:
    """Editable grids of number inputs, one per input matrix (shown by the script)."""
    grids = []
    lo, hi = ex["entry_min"], ex["entry_max"]
    for name in INPUTS:
        a = m[name]
        label = name.replace("_", "")
        rows = words if name == "X" else [str(r + 1) for r in range(a.shape[0])]
        cells = []
        for i in range(a.shape[0]):
            cells.append(h("span", rows[i], class_="sa-grid-row"))
            for j in range(a.shape[1]):
                cells.append(
                    h("input", type="number", inputmode="decimal", step="any", min=f"{lo:g}",
                      max=f"{hi:g}", value=f"{a[i, j]:g}", target="entry", data_m=name,
                      data_r=str(i), data_c=str(j), class_="sa-entry",
                      aria_label=f"{label}, row {rows[i]}, column {j + 1}")
                )  # fmt: skip
        grids.append(
            h(
                "fieldset",
                h(
                    "legend",
                    _w(name) if name != "X" else "X",
                    " ",
                    h("span", _shape(a), class_="sa-shape"),
                ),
                h("div", cells, class_=f"sa-grid sa-cols-{a.shape[1]}"),
                # a bad entry is told here, under its own grid (not in the status line at the
                # bottom of the widget, off a phone's screen)
                h(
                    "p",
                    class_="sa-entry-error",
                    target="entry-error",
                    data_m=name,
                    id=f"{uid}-{name}-error",
                    hidden=True,
                ),
                class_="sa-input",
            )
        )
    note = h("p", f"Each entry: a number from {compact(lo)} to {compact(hi)}.", class_="wk-note",
             id=f"{uid}-entry-help")  # fmt: skip
    return h("div", h("div", grids, class_="sa-inputs"), note, js=True)


def _stages(uid: str, words: list[str], st: Any) -> kit.HTML:
    d_k, d_v = st.q.shape[1], st.v.shape[1]
    kcols = [str(c + 1) for c in range(d_k)]
    vcols = [str(c + 1) for c in range(d_v)]
    sums = [dec(s, 3) for s in st.weights.sum(axis=1)]
    made = {
        "q": (st.q, kcols, None, None),
        "k": (st.k, kcols, None, None),
        "v": (st.v, vcols, None, None),
        "scores": (st.scores, words, None, None),
        "weights": (st.weights, words, 3, ("row sum", sums)),
        "output": (st.output, vcols, 3, None),
    }
    boxes = []
    for n, (key, name, _how) in enumerate(STAGES, start=1):
        values, cols, places, extra = made[key]
        caption = kit.join(
            [h("b", f"{n}. {name}"), " = ", _made(key), " · ",
             h("span", _shape(values), target=f"{key}-shape")]
        )  # fmt: skip
        boxes.append(
            parts.scroll_box(
                _matrix_table(caption, words, cols, values, places=places, stage=key,
                              extra=extra, class_="sa-matrix sa-stage-table"),
                f"step {n}, {name}, as a table",
                target="stage",
                data_stage=key,
            )
        )  # fmt: skip
    return h("div", boxes, class_="sa-stages", id=f"{uid}-stages")
