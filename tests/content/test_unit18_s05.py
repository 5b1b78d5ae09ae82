"""Unit 18 §5: every figure the prose prints, recomputed here from the definitions. The toy with
math.exp and plain sums; the real model's cosines from the hidden states the engine's MiniLM
gives (cosines written out, the mean token vector summed by hand), to the printed places. The
compiled page prints them, in the order of its blocks, and no check is answered before it is
asked."""

from __future__ import annotations

import html as html_lib
import math
import re
from pathlib import Path

import numpy as np
import pytest

from mathmachine.coursebook import compile_unit
from mathmachine.coursebook.feedback import feedback_for
from mathmachine.coursebook.grading import grade
from mathmachine.coursebook.passes.answers import visible_text
from mathmachine.coursebook.passes.load import load_figures
from mathmachine.engine.pretrained import load_minilm

UNIT_DIR = (
    Path(__file__).resolve().parents[2] / "content" / "units" / "18-attention-and-transformers"
)
MINUS = "\u2212"
FIGURES = load_figures(UNIT_DIR, 18)
EX = FIGURES.examples
TOY = EX["bank_toy"]
REAL = EX["bank_real"]
VECTORS = {w["word"]: w["vector"] for w in TOY["words"]} | {"bank": TOY["vector"]}


@pytest.fixture(scope="module")
def figs() -> dict[str, str]:
    return FIGURES.values


def d(x: float, places: int = 3) -> str:
    text = f"{x:.{places}f}"
    return (text.lstrip("-") if float(text) == 0 else text).replace("-", MINUS)


def v(xs: list[float], places: int = 3) -> str:
    return "(" + ", ".join(d(x, places) for x in xs) + ")"


def near(printed: str, exact: float) -> bool:
    """A printed figure is its exact value rounded (floats through BLAS: half a last digit, and
    a hair more)."""
    places = len(printed.split(".")[1]) if "." in printed else 0
    return abs(float(printed.replace(MINUS, "-")) - exact) <= 0.5 * 10**-places + 1e-7


def bank_row(sentence: list[str]) -> tuple[list[float], list[float], list[float]]:
    """The scores, weights and output of "bank" with W_Q = W_K = W_V = I, unscaled."""
    q = VECTORS["bank"]
    scores = [q[0] * VECTORS[w][0] + q[1] * VECTORS[w][1] for w in sentence]
    e = [math.exp(s) for s in scores]
    weights = [x / sum(e) for x in e]
    out = [sum(a * VECTORS[w][c] for a, w in zip(weights, sentence, strict=True)) for c in (0, 1)]
    return scores, weights, out


def cos(u: np.ndarray, w: np.ndarray) -> float:
    return float(sum(u * w) / math.sqrt(sum(u * u)) / math.sqrt(sum(w * w)))


# ---------------------------------------------------------------- the toy, by hand


def test_the_toy_vectors_are_the_sections(figs: dict[str, str]) -> None:
    assert figs["mm_x_bank"] == "(1, 1)" and figs["mm_x_river"] == "(3, 0)"
    assert figs["mm_x_loan"] == "(0, 3)" and figs["mm_x_money"] == "(0, 2)"
    # every water word mirrors a money word: the plane is fair to both senses
    water = sorted(tuple(w["vector"]) for w in TOY["words"] if w["group"] == "water")
    money = sorted(tuple(w["vector"][::-1]) for w in TOY["words"] if w["group"] == "money")
    assert water == money


def test_river_bank_and_bank_loan_by_hand(figs: dict[str, str]) -> None:
    scores, weights, out = bank_row(["river", "bank"])
    assert (
        (figs["mm_s_river"], figs["mm_s_self"]) == ("3", "2") == tuple(str(int(s)) for s in scores)
    )
    assert figs["mm_exp_river"] == d(math.exp(3)) == "20.086"
    assert figs["mm_exp_self"] == d(math.exp(2)) == "7.389"
    assert figs["mm_exp_total"] == d(math.exp(3) + math.exp(2)) == "27.475"
    assert (figs["mm_w_river"], figs["mm_w_self"]) == (d(weights[0]), d(weights[1]))
    assert figs["mm_out_river"] == v(out) == "(2.462, 0.269)"
    # the blend of the printed weights gives the printed output
    w_r, w_s = float(figs["mm_w_river"]), float(figs["mm_w_self"])
    assert v([3 * w_r + w_s, w_s]) == figs["mm_out_river"]
    _, weights2, out2 = bank_row(["bank", "loan"])
    assert figs["mm_s_loan"] == "3" and figs["mm_w_loan"] == d(weights2[1]) == figs["mm_w_river"]
    assert figs["mm_out_loan"] == v(out2) == "(0.269, 2.462)"
    assert figs["mm_in_cos"] == "1.000"
    assert near(figs["mm_out_cos"], cos(np.array(out), np.array(out2)))
    assert figs["mm_out_cos"] == "0.216"


def test_the_swap_check_and_the_try(figs: dict[str, str]) -> None:
    _, w_start, start = bank_row(["river", "bank", "loan"])
    assert figs["mm_swap_start"] == v(start) == "(1.422, 1.422)"
    assert figs["mm_swap_start_weights"] == v(w_start)
    scores, w_after, after = bank_row(["river", "bank", "money"])
    assert figs["mm_swap_s_money"] == str(int(scores[2])) == "2"
    assert figs["mm_swap_weights"] == v(w_after)
    assert figs["mm_swap_after"] == v(after) and after[0] - after[1] > TOY["margin"]
    assert figs["mm_alone_out"] == v(bank_row(["bank"])[2]) == "(1.000, 1.000)"
    _, w_fish, fish = bank_row(["fish", "by", "the", "bank"])
    assert figs["mm_fish_out"] == v(fish) and figs["mm_fish_w_fish"] == d(w_fish[0])


# ---------------------------------------------------------------- the real model


@pytest.fixture(scope="module")
def real() -> dict[str, object]:
    """From the model's hidden states: each "bank" vector at layer 0 and the last layer, the
    mean of every last-layer token vector (summed here), and the raw and centred cosines."""
    model = load_minilm()
    runs = [model.run(s["text"]) for s in REAL["sentences"]]
    at = [r.tokens.index("bank") for r in runs]
    inputs = [r.hidden[0, i].astype(np.float64) for r, i in zip(runs, at, strict=True)]
    outputs = [r.hidden[-1, i].astype(np.float64) for r, i in zip(runs, at, strict=True)]
    total, count = np.zeros(384), 0
    for r in runs:
        for row in r.hidden[-1].astype(np.float64):
            total, count = total + row, count + 1
    mean = total / count
    m = len(runs)
    pairs = [(i, j) for i in range(m) for j in range(i + 1, m)]
    senses = [s["sense"] for s in REAL["sentences"]]
    return {
        "at": at,
        "inputs": inputs,
        "outputs": outputs,
        "mean": mean,
        "senses": senses,
        "pairs": pairs,
        "in": {p: cos(inputs[p[0]], inputs[p[1]]) for p in pairs},
        "raw": {p: cos(outputs[p[0]], outputs[p[1]]) for p in pairs},
        "c": {p: cos(outputs[p[0]] - mean, outputs[p[1]] - mean) for p in pairs},
    }


def split(real: dict, kind: str) -> tuple[list[float], list[float]]:
    same = [real[kind][p] for p in real["pairs"] if real["senses"][p[0]] == real["senses"][p[1]]]
    across = [real[kind][p] for p in real["pairs"] if real["senses"][p[0]] != real["senses"][p[1]]]
    return same, across


def test_raw_cosines_are_all_high(figs: dict[str, str], real: dict) -> None:
    same, across = split(real, "raw")
    assert near(figs["mm_raw_same"], float(np.mean(same)))
    assert near(figs["mm_raw_across"], float(np.mean(across)))
    assert near(figs["mm_raw_across_min"], min(across))
    assert near(figs["mm_raw_across_max"], max(across))
    assert near(figs["mm_raw_gap"], float(np.mean(same) - np.mean(across)))
    # SPEC's facts: raw cosines across the senses are all high (0.76-0.80 on its sentences)
    assert min(across) > 0.7 and max(across) < 0.85
    assert 0.75 < float(np.mean(across)) < 0.81


def test_centred_cosines_separate_the_senses(figs: dict[str, str], real: dict) -> None:
    same, across = split(real, "c")
    assert near(figs["mm_c_same"], float(np.mean(same)))
    assert near(figs["mm_c_across"], float(np.mean(across)))
    assert near(figs["mm_c_gap"], float(np.mean(same) - np.mean(across)))
    # SPEC's facts: same sense about 0.78, across about 0.64
    assert float(np.mean(same)) > float(np.mean(across))
    assert 0.74 < float(np.mean(same)) < 0.86 and 0.58 < float(np.mean(across)) < 0.70
    # centring widens the gap between the senses
    raw_same, raw_across = split(real, "raw")
    assert np.mean(same) - np.mean(across) > np.mean(raw_same) - np.mean(raw_across)


def test_the_inputs_and_the_pair_with_the_same_place(figs: dict[str, str], real: dict) -> None:
    assert near(figs["mm_in_min"], min(real["in"].values())) and min(real["in"].values()) > 0.9
    ids = [s["id"] for s in REAL["sentences"]]
    p = (ids.index("R3"), ids.index("M2"))
    assert real["at"][p[0]] == real["at"][p[1]]
    assert np.array_equal(real["inputs"][p[0]], real["inputs"][p[1]])
    assert figs["mm_pair_in"] == "1.000"
    assert near(figs["mm_pair_raw"], real["raw"][p]) and near(figs["mm_pair_c"], real["c"][p])
    assert real["c"][p] < real["raw"][p] < 1


def test_the_shared_part(figs: dict[str, str], real: dict) -> None:
    mean = real["mean"]
    assert near(figs["mm_mean_len"], math.sqrt(sum(mean * mean)))
    lengths = [math.sqrt(sum(o * o)) for o in real["outputs"]]
    assert near(figs["mm_bank_len"], sum(lengths) / len(lengths))
    with_mean = [cos(o, mean) for o in real["outputs"]]
    assert near(figs["mm_bank_mean_cos_min"], min(with_mean))
    assert near(figs["mm_bank_mean_cos_max"], max(with_mean))
    assert figs["mm_d"] == "384"


# ---------------------------------------------------------------- the compiled page


def _visible(page: str) -> str:
    no_comments = re.sub(r"<!--.*?-->", "", page, flags=re.S)
    text = html_lib.unescape(re.sub(r"<[^>]+>", "", no_comments))
    return re.sub(r"\s+", "", text)


@pytest.fixture(scope="module")
def section():  # type: ignore[no-untyped-def]
    return compile_unit(UNIT_DIR).section(5)


def test_section_5_has_its_blocks_widget_checks_and_figures(section, figs) -> None:  # type: ignore[no-untyped-def]
    assert section.written and not section.free
    assert (section.published_widgets, section.published_checks) == (1, 2)
    assert [w.name for w in section.widgets] == ["bank-by-the-river"]
    assert [c.id for c in section.checks] == ["s5-lookup", "s5-swap"]
    html = section.html
    blocks = ("imagine", "question", "byhand", "try", "why", "trap", "realization", "road")
    for block in (f"callout-{b}" for b in blocks):
        assert block in html, block
    assert section.summary_html
    visible = _visible(html)
    for name in ("mm_out_river", "mm_out_loan", "mm_out_cos", "mm_c_same", "mm_c_across",
                 "mm_raw_across_min", "mm_raw_across_max", "mm_pair_raw", "mm_pair_c"):  # fmt: skip
        assert figs[name].replace(" ", "") in visible, name
    # the order: the lookup check, then by hand, the swap check, then the widget and its Try
    marks = (
        "<!--check:s5-lookup-->",
        "callout-byhand",
        "<!--check:s5-swap-->",
        "<bank-by-the-river",
        "callout-try",
        "callout-trap",
        "callout-realization",
    )
    order = [html.index(m) for m in marks]
    assert order == sorted(order)
    # the cross-references to the written sections it builds on are links
    for n in (3, 4):
        assert f'class="sec-ref" href="/units/attention-and-transformers/{n}/"' in html


def test_no_check_is_answered_before_it_is_asked(section, figs) -> None:  # type: ignore[no-untyped-def]
    html = section.html
    before_swap = _visible(html[: html.index("<!--check:s5-swap-->")])
    # the worked answer of the swap: the output after it, and the weights that make it
    for figure in (figs["mm_swap_after"], figs["mm_swap_weights"]):
        assert figure.replace(" ", "") not in before_swap
    before_lookup = html[: html.index("<!--check:s5-lookup-->")]
    assert "one row for “bank”" not in before_lookup


def test_the_swap_check_explains_its_worked_output_only_once_answered(section, figs) -> None:  # type: ignore[no-untyped-def]
    """s5-swap asks where bank's output goes once 'loan' becomes 'money': no first wrong answer
    (any option, or a words-free mistake) prints the worked output or its weights; the right
    answer's words give the output, the worked answer the weights too."""
    swap = next(c for c in section.checks if c.id == "s5-swap")
    worked = (figs["mm_swap_after"], figs["mm_swap_weights"])
    for option in swap.fields[0].key.options:
        g = grade(swap, [option])
        if g.correct:
            continue
        shown = feedback_for(
            swap, correct=False, mistakes=g.mistakes, fields_right=g.fields_right,
            wrong_attempts=1, revealed=False,
        )  # fmt: skip
        for figure in worked:
            assert figure not in visible_text(shown.body_html), (option, figure)
    assert figs["mm_swap_after"] in visible_text(swap.feedback_correct_html)
    assert all(figure in visible_text(swap.solution_html) for figure in worked)
