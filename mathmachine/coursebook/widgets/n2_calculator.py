"""Widget 15 of Unit 18, "The n² calculator" (SPEC §12), rendered on the server.

    :::{widget} n2-calculator
    :id: w15
    :example: n2_calculator   (optional: a key of figures.EXAMPLES; default "n2_calculator")
    :::

Four sliders: the text's length n (powers of two, 128 to 32,768 tokens), the heads (each
``head_width`` numbers wide, so d_model = heads × head_width), the layers and the bytes a number
takes (1, 2, 4 or 8). For that setting: the scores (n² h L, and per layer), their memory held
at once, the multiplications of attention's two n × n products (2 n² d_model L), the KV cache a
model keeps while it writes (2 L n d_model numbers, and its memory) and an RNN's n steps. Two
plots against n, the kit's line plot: memory on linear axes (the score matrices' curve bends up,
the KV cache's stays a straight line near the floor) and the three counts on log axes (slopes 2,
2 and 1), the chosen n ringed; a table of every length.

The script (static/widgets/n2-calculator.js) recomputes every number with cost-math.js, held
to mathmachine.engine.cost by golden vectors (``golden`` below), and prints with printing.js.
Without JavaScript: the readout, both plots and the table at the page's starting setting.
"""

from __future__ import annotations

from typing import Any

from mathmachine.engine import (
    attention_multiplications,
    attention_score_bytes,
    attention_score_count,
    kv_cache_bytes,
    kv_cache_count,
    rnn_steps,
)
from mathmachine.printing import count, dec

from . import Golden, WidgetContext, WidgetOptionError, kit, option, parts, register

NAME = "n2-calculator"
MODULE = "widgets/cost-math.js"
NEEDS = (
    "lengths",
    "bytes",
    "head_width",
    "heads_max",
    "layers_max",
    "n",
    "heads",
    "layers",
    "bytes_per_number",
)
UNITS = ("bytes", "KiB", "MiB", "GiB", "TiB")
GIB = 1024**3

h = kit.h


def memory_text(nbytes: int) -> str:
    """A memory as printed, in the largest binary unit that keeps it at least 1: "512 MiB",
    "12 GiB", "1.5 GiB", "12.8 GiB", "1.06 MiB" (cost-math.js's memoryText)."""
    if not isinstance(nbytes, int) or nbytes < 0:
        raise ValueError(f"bytes must be a whole number >= 0, got {nbytes!r}")
    u, v = 0, float(nbytes)
    while u < len(UNITS) - 1 and v >= 1024:
        v /= 1024
        u += 1
    shown = (
        count(int(v)) if v.is_integer() else dec(v, 1 if v >= 10 or (v * 10).is_integer() else 2)
    )
    return f"{shown} {UNITS[u]}"


def cost_at(n: int, heads: int, layers: int, nbytes: int, head_width: int) -> dict[str, int]:
    """Everything the calculator shows for one setting, from the engine (costAt)."""
    d = heads * head_width
    return {
        "dModel": d,
        "scores": attention_score_count(n, heads, layers),
        "perLayer": attention_score_count(n, heads, 1),
        "scoreBytes": attention_score_bytes(n, heads, nbytes, layers),
        "perLayerBytes": attention_score_bytes(n, heads, nbytes, 1),
        "multiplications": attention_multiplications(n, d, layers),
        "kv": kv_cache_count(n, d, layers),
        "kvBytes": kv_cache_bytes(n, d, layers, nbytes),
        "rnnSteps": rnn_steps(n),
    }


def curves(
    lengths: list[int], heads: int, layers: int, nbytes: int, head_width: int
) -> dict[str, list[float]]:
    """The plots' lines at every length (cost-math.js's curves)."""
    at = [cost_at(n, heads, layers, nbytes, head_width) for n in lengths]
    return {
        "scoresGiB": [c["scoreBytes"] / GIB for c in at],
        "kvGiB": [c["kvBytes"] / GIB for c in at],
        "scoresMillions": [c["scores"] / 1e6 for c in at],
        "multiplicationsMillions": [c["multiplications"] / 1e6 for c in at],
        "kvMillions": [c["kv"] / 1e6 for c in at],
    }


def _inputs(opts: dict[str, Any]) -> dict[str, Any]:
    ex, key = opts["example"], opts["example_key"]
    lengths, sizes = list(ex["lengths"]), list(ex["bytes"])
    for name, xs in (("lengths", lengths), ("bytes", sizes)):
        if not xs or any(not isinstance(x, int) or x < 1 for x in xs) or xs != sorted(set(xs)):
            raise WidgetOptionError(f"example {key!r}: {name} must be increasing whole numbers")
    for name in ("head_width", "heads_max", "layers_max", "heads", "layers"):
        if not isinstance(ex[name], int) or ex[name] < 1:
            raise WidgetOptionError(f"example {key!r}: {name} must be a whole number >= 1")
    if ex["n"] not in lengths or ex["bytes_per_number"] not in sizes:
        raise WidgetOptionError(f"example {key!r}: n and bytes_per_number must be on the menus")
    if ex["heads"] > ex["heads_max"] or ex["layers"] > ex["layers_max"]:
        raise WidgetOptionError(f"example {key!r}: heads and layers must be within their maxima")
    if len(lengths) < 2:
        raise WidgetOptionError(f"example {key!r}: a plot needs at least two lengths")
    return ex


def golden(opts: dict[str, Any], ctx: WidgetContext) -> list[Golden]:
    """cost-math.js against the engine: every count at the page's setting, at the sliders' ends
    and between; memories as printed, whole and not; the plots' lines."""
    ex = _inputs(opts)
    g = Golden(MODULE)
    w = int(ex["head_width"])
    settings = {
        (ex["n"], ex["heads"], ex["layers"], ex["bytes_per_number"]),
        (ex["lengths"][0], 1, 1, ex["bytes"][0]),
        (ex["lengths"][-1], ex["heads_max"], ex["layers_max"], ex["bytes"][-1]),
        (ex["lengths"][3], 3, 7, 4),
        (ex["lengths"][-2], 17, 1, 1),
    }
    for n, hh, L, b in sorted(settings):
        d = hh * w
        g.case("scoreCount", n, hh, L, out=attention_score_count(n, hh, L))
        g.case("scoreBytes", n, hh, L, b, out=attention_score_bytes(n, hh, b, L))
        g.case("multiplications", n, d, L, out=attention_multiplications(n, d, L))
        g.case("kvCacheCount", n, d, L, out=kv_cache_count(n, d, L))
        g.case("kvCacheBytes", n, d, L, b, out=kv_cache_bytes(n, d, L, b))
        c = g.case("costAt", n, hh, L, b, w, out=cost_at(n, hh, L, b, w))
        for key in ("scoreBytes", "perLayerBytes", "kvBytes"):
            g.case("memoryText", c[key], out=memory_text(c[key]))
        g.case("curves", ex["lengths"], hh, L, b, w, out=curves(ex["lengths"], hh, L, b, w))
    for nbytes in (0, 1, 1023, 1024, 1536, 17 * 2**16, 3 * 2**30, 1536 * 2**30, 12 * 2**40,
                   2**50, 11 * 2**20 + 1):  # fmt: skip
        g.case("memoryText", nbytes, out=memory_text(nbytes))
    return [g]


# --------------------------------------------------------------------------------------------
# the parts


def _model_text(heads: int, layers: int, b: int, d: int) -> str:
    """The model's part of the setting (n2-calculator.js writes the same words)."""
    return (
        f"{heads} {'head' if heads == 1 else 'heads'} (d_model = {count(d)}), "
        f"{layers} {'layer' if layers == 1 else 'layers'}, "
        f"{b} {'byte' if b == 1 else 'bytes'} a number"
    )


def _setting_text(n: int, heads: int, layers: int, b: int, d: int) -> str:
    return f"{count(n)} tokens, {_model_text(heads, layers, b, d)}"


def _controls(uid: str, ex: dict[str, Any]) -> kit.HTML:
    lengths, sizes = ex["lengths"], ex["bytes"]
    at_n, at_b = lengths.index(ex["n"]), sizes.index(ex["bytes_per_number"])
    n, b = ex["n"], ex["bytes_per_number"]
    return h(
        "div",
        parts.slider(uid, "n", "Tokens n", value=at_n, lo=0, hi=len(lengths) - 1, step=1,
                     shown=count(n), valuetext=f"{count(n)} tokens",
                     help="The text's length: " + ", ".join(count(x) for x in lengths) + "."),
        parts.slider(uid, "heads", "Heads h", value=ex["heads"], lo=1, hi=ex["heads_max"],
                     step=1, shown=str(ex["heads"]), valuetext=f"{ex['heads']} heads",
                     help=f"Each head is {ex['head_width']} numbers wide, so d_model = "
                     f"{ex['head_width']} × h."),
        parts.slider(uid, "layers", "Layers L", value=ex["layers"], lo=1, hi=ex["layers_max"],
                     step=1, shown=str(ex["layers"]), valuetext=f"{ex['layers']} layers"),
        parts.slider(uid, "bytes", "Bytes b", value=at_b, lo=0, hi=len(sizes) - 1,
                     step=1, shown=str(b), valuetext=f"{b} bytes, {8 * b} bits",
                     help="Bytes per number: 1 (8-bit), 2 (16-bit), 4 (32-bit) or 8 (64-bit)."),
        class_="n2-controls",
        js=True,
    )  # fmt: skip


def _readout(ex: dict[str, Any], c: dict[str, int]) -> kit.HTML:
    n, hh, L, b = ex["n"], ex["heads"], ex["layers"], ex["bytes_per_number"]

    def row(term: str, *value: kit.Child) -> kit.HTML:
        return h("div", h("dt", term), h("dd", *value), class_="n2-row")

    return h(
        "div",
        h("p", "For ", h("span", _setting_text(n, hh, L, b, c["dModel"]), target="setting"), ":",
          class_="n2-setting"),
        h("dl",
          row("Scores, n² · h · L", h("b", count(c["scores"]), target="scores"),
              " (", h("span", count(c["perLayer"]), target="per-layer"), " a layer)"),
          row("Their memory, held at once", h("b", memory_text(c["scoreBytes"]),
                                              target="memory"),
              " (", h("span", memory_text(c["perLayerBytes"]), target="per-layer-memory"),
              " a layer; ", h("span", count(c["scoreBytes"]), target="memory-bytes"), " bytes)"),
          row("Multiplications, 2 · n² · d_model · L",
              h("b", count(c["multiplications"]), target="mults")),
          row("KV cache, 2 · L · n · d_model", h("b", count(c["kv"]), target="kv"),
              " numbers, ", h("b", memory_text(c["kvBytes"]), target="kv-memory")),
          row("An RNN", h("b", count(c["rnnSteps"]), target="rnn"),
              " steps, one after another"),
          class_="n2-readout"),
        class_="n2-numbers",
    )  # fmt: skip


def _plots(uid: str, ex: dict[str, Any]) -> kit.HTML:
    lengths = ex["lengths"]
    cv = curves(lengths, ex["heads"], ex["layers"], ex["bytes_per_number"], ex["head_width"])
    linear = parts.line_plot(
        [
            parts.Series("score matrices", lengths, cv["scoresGiB"], fmt=3),
            parts.Series("KV cache", lengths, cv["kvGiB"], fmt=3),
        ],
        uid=f"{uid}-linear",
        title="Memory against the text's length, linear axes",
        desc="The score matrices' memory in GiB curves up like n squared; the KV cache's grows "
        "in a straight line and stays near the floor",
        caption="Memory (GiB) against n, linear axes: the score matrices of every layer, and "
        "the KV cache",
        x_label="tokens n",
        y_label="GiB",
        numbers=None,
        target="plot-linear",
        class_="n2-plot",
    )
    log = parts.line_plot(
        [
            parts.Series("multiplications", lengths, cv["multiplicationsMillions"], fmt=3),
            parts.Series("scores", lengths, cv["scoresMillions"], fmt=3),
            parts.Series("KV cache numbers", lengths, cv["kvMillions"], fmt=3),
        ],
        uid=f"{uid}-log",
        title="Counts against the text's length, log axes",
        desc="On log axes each count is a straight line: the multiplications and the scores "
        "climb two steps for each step of n (n squared), the KV cache's numbers one step (n)",
        caption="Millions of multiplications, scores and KV cache numbers against n, log axes",
        x_label="tokens n",
        y_label="millions",
        x_log=True,
        y_log=True,
        numbers=None,
        target="plot-log",
        class_="n2-plot",
    )
    return h("div", linear, log, class_="n2-plots")


def _table(uid: str, ex: dict[str, Any]) -> kit.HTML:
    rows = []
    attrs = []
    for n in ex["lengths"]:
        c = cost_at(n, ex["heads"], ex["layers"], ex["bytes_per_number"], ex["head_width"])
        rows.append(
            (
                count(n),
                [
                    h("span", count(c["scores"]), target="t-scores"),
                    h("span", memory_text(c["scoreBytes"]), target="t-memory"),
                    h("span", count(c["multiplications"]), target="t-mults"),
                    h("span", memory_text(c["kvBytes"]), target="t-kv"),
                ],
            )
        )
        attrs.append({"data_n": str(n)})
    table = kit.table(
        caption=h("span", "Every length, for ", h("span", _model_text(
            ex["heads"], ex["layers"], ex["bytes_per_number"], ex["heads"] * ex["head_width"]),
            target="table-setting")),
        columns=["tokens n", "scores", "their memory", "multiplications", "KV cache"],
        rows=rows,
        row_attrs=attrs,
        class_="wk-table n2-table",
        id=f"{uid}-table",
    )  # fmt: skip
    return parts.scroll_box(table, "every length, as a table")


@register(
    NAME,
    scripts=("widgets/n2-calculator.js",),
    styles=("widgets/controls.css", "widgets/plots.css", "widgets/n2-calculator.css"),
    options=(option.example(default="n2_calculator", needs=NEEDS),),
    control="n",
    golden=golden,
)
def render(opts: dict[str, Any], ctx: WidgetContext) -> str:
    uid = opts["id"]
    ex = _inputs(opts)
    c = cost_at(ex["n"], ex["heads"], ex["layers"], ex["bytes_per_number"], ex["head_width"])
    state = {
        "lengths": list(ex["lengths"]),
        "bytes": [{"bytes": b, "bits": 8 * b} for b in ex["bytes"]],
        "headWidth": int(ex["head_width"]),
        "n": ex["lengths"].index(ex["n"]),
        "heads": int(ex["heads"]),
        "layers": int(ex["layers"]),
        "b": ex["bytes"].index(ex["bytes_per_number"]),
    }
    return kit.element(
        NAME,
        uid,
        state,
        _controls(uid, ex),
        kit.status(class_="wk-status"),
        _readout(ex, c),
        _plots(uid, ex),
        _table(uid, ex),
        class_="wk n2",
    )
