"""Unit 18 §6, the attention lab: every figure the prose prints against the model's numbers,
recomputed here from its weight matrices with plain numpy (not through neuron_view), counts from
their closed forms, and the compiled page printing them."""

from __future__ import annotations

import html as html_lib
from pathlib import Path

import numpy as np
import pytest

from mathmachine.coursebook import compile_unit
from mathmachine.coursebook.passes.load import load_figures
from mathmachine.engine.pretrained import load_minilm

UNIT_DIR = (
    Path(__file__).resolve().parents[2] / "content" / "units" / "18-attention-and-transformers"
)
MINUS = "\u2212"
FIGURES = load_figures(UNIT_DIR, 18)
F = FIGURES.values
MODEL = load_minilm()


def d(x: float, places: int = 3) -> str:
    text = f"{x:.{places}f}"
    return (text.lstrip("-") if float(text) == 0 else text).replace("-", MINUS)


def numbers(text: str) -> list[float]:
    return [float(x) for x in text.strip("()").replace(MINUS, "-").split(",")]


def scaled_scores(text: str, layer: int, head: int) -> tuple[list[str], np.ndarray]:
    """softmax input of one head, from the layer's input and its W_q, W_k columns (float64)."""
    run = MODEL.run(text)
    x = run.hidden[layer].astype(np.float64)
    p = MODEL.layers[layer]
    cols = slice(32 * head, 32 * (head + 1))
    q = x @ np.asarray(p["W_q"], dtype=np.float64)[:, cols] + p["b_q"][cols]
    k = x @ np.asarray(p["W_k"], dtype=np.float64)[:, cols] + p["b_k"][cols]
    return run.tokens, q @ k.T / np.sqrt(32)


def weights_of(s: np.ndarray) -> np.ndarray:
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def test_the_model_and_the_running_example_counts() -> None:
    assert (F["lab_layers"], F["lab_heads"], F["lab_all_heads"]) == ("6", "12", "72")
    assert (F["lab_width"], F["lab_dk"]) == ("384", "32")
    tokens = MODEL.run("I drink tea").tokens
    assert tokens == ["[CLS]", "i", "drink", "tea", "[SEP]"]
    n = len(tokens)
    assert (F["lab_tea_n"], F["lab_tea_n2"], F["lab_tea_all"]) == (str(n), str(n * n), "1,800")
    assert 12 * 6 * n * n == 1800


def test_by_hand_the_row_of_tea_and_how_its_weight_came_about() -> None:
    tokens, s = scaled_scores("I drink tea", 0, 2)  # layer 1, head 3 on the page
    tea, drink = tokens.index("tea"), tokens.index("drink")
    row = numbers(F["lab_tea_row"])
    w = weights_of(s[tea])
    assert np.max(np.abs(np.array(row) - w)) <= 1e-3 and round(sum(row) * 1000) == 1000
    assert F["lab_tea_on_drink"] == d(w[drink]) and w[drink] == max(w)
    assert float(F["lab_nv_scaled"]) == pytest.approx(s[tea, drink], abs=0.005)
    assert float(F["lab_nv_score"]) == pytest.approx(s[tea, drink] * np.sqrt(32), abs=0.005)
    assert F["lab_nv_sqrt"] == "5.657"
    assert np.allclose(numbers(F["lab_nv_row"]), s[tea], atol=0.005)
    gap = s[tea, drink] - np.sort(s[tea])[-2]
    assert float(F["lab_nv_gap"]) == pytest.approx(gap, abs=0.005) and np.exp(gap) > 100


def test_check_rows_the_missing_weight_is_what_the_row_leaves() -> None:
    tokens, s = scaled_scores("I drink tea", 0, 0)
    w = weights_of(s[tokens.index("drink")])
    shown = numbers(F["lab_rows_shown"])
    assert np.max(np.abs(np.array(shown) - w[:-1])) <= 1e-3
    assert float(F["lab_rows_answer"]) == pytest.approx(w[-1], abs=1e-3)
    assert round(1000 * (sum(shown) + float(F["lab_rows_answer"]))) == 1000
    assert F["lab_rows_sum_shown"] == f"{sum(shown):.3f}" and F["lab_rows_mean"] == "0.200"


def test_the_sinks_layer_by_layer() -> None:
    run = MODEL.run("The bank of the river was muddy after the rain.")
    a = run.attention.astype(np.float64)
    sinks = (a[..., 0] + a[..., -1]).mean(axis=(1, 2))
    for i, s in enumerate(sinks, start=1):
        assert F[f"lab_sink_{i}"] == f"{s:.2f}"
    assert sinks[1:5].min() > 0.5 > sinks[0]  # the prose: layers 2-5 give them more than half
    assert F["lab_sentence_n"] == str(len(run.tokens)) == "13"


def test_check_count_the_hindi_sentence() -> None:
    tokens = MODEL.run("मैं चाय पीता हूँ").tokens
    n = len(tokens)
    assert n == 11 and F["lab_hi_n"] == "11" and F["lab_hi_words"] == "4"
    assert F["lab_hi_pieces"] == " ".join(tokens[1:-1])
    assert (F["lab_hi_head"], F["lab_hi_model_key"], F["lab_hi_model"]) == ("121", "8712", "8,712")
    assert (F["lab_hi_words_head"], F["lab_hi_words_model"]) == ("16", str(16 * 72))
    assert (F["lab_hi_bare_head"], F["lab_hi_bare_model"]) == ("81", str(81 * 72))
    assert (F["lab_hi_linear"], F["lab_hi_layer_key"]) == (str(11 * 72), str(121 * 12))
    assert F["lab_tensor_mb"] == d(6 * 12 * 128 * 128 * 4 / 1e6, 1)


def test_the_lengths_the_model_was_tuned_on_has_places_for_and_the_lab_takes() -> None:
    assert (F["lab_trained_n"], F["lab_positions"], F["lab_max_tokens"]) == ("128", "512", "48")
    assert MODEL.position_embeddings.shape == (512, 384)


def test_the_pronoun_row_from_qk_recomputed() -> None:
    """Layer 4, head 2: the row of "it" for "tired" and for "wide", from W_q and W_k in float64
    (the issue's reading, 0.677 | 0.281 and 0.121, holds)."""
    assert (F["lab_coref_layer"], F["lab_coref_head"]) == ("4", "2")
    got = {}
    for name in ("tired", "wide"):
        sentence = F[f"lab_coref_{name}"]
        assert sentence.endswith(f"because it was too {name}.")
        tokens, s = scaled_scores(sentence, 3, 1)
        w = weights_of(s)[tokens.index("it")]
        for noun in ("animal", "street"):
            assert float(F[f"lab_coref_{name}_{noun}"]) == pytest.approx(
                w[tokens.index(noun)], abs=6e-4
            )
            got[name, noun] = F[f"lab_coref_{name}_{noun}"]
    assert got == {("tired", "animal"): "0.677", ("tired", "street"): "0.050",
                   ("wide", "animal"): "0.281", ("wide", "street"): "0.121"}  # fmt: skip
    # what the prose says of them: the weight on animal falls, street does not take the lead
    assert float(got["wide", "animal"]) < float(got["tired", "animal"])
    assert float(got["wide", "street"]) < float(got["wide", "animal"])


def test_the_page_prints_them_and_the_lab_is_there() -> None:
    section = compile_unit(UNIT_DIR).section(6)
    text = html_lib.unescape(section.html)
    for name in ("lab_tea_row", "lab_nv_score", "lab_nv_scaled", "lab_sink_3", "lab_tensor_mb",
                 "lab_coref_tired_animal", "lab_coref_wide_street", "lab_positions"):  # fmt: skip
        assert F[name] in text, name
    assert '<attention-lab id="w7"' in section.html
    assert [c.id for c in section.checks] == ["s6-rows", "s6-count"]
