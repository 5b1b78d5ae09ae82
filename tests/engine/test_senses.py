"""One word across sentences (engine.pretrained.senses): cosines against their definition, the
centring, and word_senses against the model's own hidden states."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mathmachine.engine.pretrained import (
    cosine_matrix,
    group_means,
    load_minilm,
    word_index,
    word_senses,
)


def cos(u: list[float], v: list[float]) -> float:
    """The definition, in plain Python."""
    dot = sum(a * b for a, b in zip(u, v, strict=True))
    return dot / math.sqrt(sum(a * a for a in u)) / math.sqrt(sum(b * b for b in v))


def test_cosine_matrix_is_the_definition() -> None:
    rng = np.random.default_rng(5)
    v = rng.normal(size=(5, 7))
    c = cosine_matrix(v)
    for i in range(5):
        for j in range(5):
            assert c[i, j] == pytest.approx(cos(list(v[i]), list(v[j])), abs=1e-12)
    assert np.array_equal(np.diag(c), np.ones(5))
    assert np.array_equal(c, c.T)
    # a cosine ignores length: scaling a row changes nothing
    scaled = v * np.array([[1.0], [3.0], [0.5], [10.0], [2.0]])
    assert np.allclose(cosine_matrix(scaled), c, atol=1e-12)


def test_cosine_matrix_refuses_what_has_no_direction() -> None:
    with pytest.raises(ValueError, match="zeros"):
        cosine_matrix([[1.0, 0.0], [0.0, 0.0]])
    with pytest.raises(ValueError, match="finite"):
        cosine_matrix([[1.0, np.nan]])
    with pytest.raises(ValueError, match="matrix"):
        cosine_matrix([1.0, 2.0])


def test_group_means_split_pairs_by_group() -> None:
    c = np.array([[1, 0.9, 0.2, 0.1], [0.9, 1, 0.3, 0.4], [0.2, 0.3, 1, 0.8], [0.1, 0.4, 0.8, 1]])
    same, across = group_means(c, ["a", "a", "b", "b"])
    assert same == pytest.approx((0.9 + 0.8) / 2)
    assert across == pytest.approx((0.2 + 0.1 + 0.3 + 0.4) / 4)
    with pytest.raises(ValueError, match="groups"):
        group_means(c, ["a", "b"])
    with pytest.raises(ValueError, match="two members"):
        group_means(c[:2, :2], ["a", "b"])


def test_word_index_wants_the_word_once() -> None:
    assert word_index(["[CLS]", "the", "bank", "[SEP]"], "bank") == 2
    with pytest.raises(ValueError, match="not in the tokens"):
        word_index(["[CLS]", "banks", "[SEP]"], "bank")
    with pytest.raises(ValueError, match="2 times"):
        word_index(["bank", "bank"], "bank")


SENTENCES = (
    "I sat on the bank of the river.",
    "The river overflowed its bank.",
    "The bank approved my loan.",
    "He paid the cash into the bank.",
)


def test_word_senses_against_the_models_hidden_states() -> None:
    model = load_minilm()
    got = word_senses(SENTENCES, "bank")
    assert word_senses(list(SENTENCES), "bank") is got  # cached by the sentences
    runs = [model.run(s) for s in SENTENCES]
    every = np.concatenate([r.hidden[-1].astype(np.float64) for r in runs])
    mean = every.mean(axis=0)
    assert np.allclose(got.mean, mean, atol=1e-9)
    for i, (ri, pi) in enumerate(zip(runs, got.positions, strict=True)):
        assert ri.tokens[pi] == "bank" and got.tokens[i] == tuple(ri.tokens)
        for j, (rj, pj) in enumerate(zip(runs, got.positions, strict=True)):
            a_in, b_in = ri.hidden[0, pi].astype(float), rj.hidden[0, pj].astype(float)
            a, b = ri.hidden[-1, pi].astype(float), rj.hidden[-1, pj].astype(float)
            assert got.input_cosines[i, j] == pytest.approx(cos(list(a_in), list(b_in)), abs=1e-9)
            assert got.raw[i, j] == pytest.approx(cos(list(a), list(b)), abs=1e-9)
            want = cos(list(a - mean), list(b - mean))
            assert got.centred[i, j] == pytest.approx(want, abs=1e-9)
    # the arrays are shared by the cache: read-only
    with pytest.raises(ValueError):
        got.raw[0, 1] = 0.0
    # "bank" at the same place (the second and the fourth sentence): the same input vector
    assert got.positions[1] == got.positions[3]
    assert np.array_equal(got.inputs[1], got.inputs[3])


def test_word_senses_with_a_given_model_is_not_cached_and_agrees() -> None:
    fresh = word_senses(SENTENCES[:2], "bank", model=load_minilm())
    assert fresh is not word_senses(SENTENCES[:2], "bank", model=load_minilm())
    assert np.allclose(fresh.raw, word_senses(SENTENCES[:2], "bank").raw, atol=1e-12)


def test_word_senses_refuses_bad_input() -> None:
    with pytest.raises(ValueError, match="at least two"):
        word_senses(["The bank approved my loan."])
    with pytest.raises(ValueError, match="not in the tokens"):
        word_senses(["The bank approved my loan.", "I drink tea."])
    with pytest.raises(ValueError, match="strings"):
        word_senses(["The bank approved my loan.", 3])  # type: ignore[list-item]
