"""The pretrained MiniLM, run by the engine's transformer_block, against PyTorch's numbers.

tests/fixtures/minilm/reference.npz was written by scripts/make_minilm_reference.py (PyTorch +
transformers, eager attention); see docs/engine.md.
"""

from __future__ import annotations

import re
import threading
from pathlib import Path

import numpy as np
import pytest

from mathmachine.engine.pretrained import MAX_TOKENS, MODEL_SHA256, MiniLM, load_minilm, model_dir

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "minilm" / "reference.npz"


@pytest.fixture(scope="module")
def model() -> MiniLM:
    return load_minilm()


@pytest.fixture(scope="module")
def ref() -> dict[str, np.ndarray]:
    with np.load(FIXTURE) as data:
        return {k: data[k] for k in data.files}


def test_shapes_and_rows_sum_to_1(model: MiniLM) -> None:
    run = model.run("The bank of the river was muddy.")
    n = len(run.tokens)
    assert run.tokens[0] == "[CLS]" and run.tokens[-1] == "[SEP]" and "bank" in run.tokens
    assert run.attention.shape == (6, 12, n, n)
    assert run.hidden.shape == (7, n, 384)
    assert np.allclose(run.attention.sum(axis=-1), 1.0, atol=1e-5)
    assert np.all(run.attention >= 0)


def test_tokens_match_the_reference_tokenizer(model: MiniLM, ref: dict) -> None:
    for text, ids, n in zip(ref["sentences"], ref["ids"], ref["n_tokens"], strict=True):
        assert model.tokenize(str(text))[1].tolist() == ids[:n].tolist()


def test_embeddings_match_pytorch_to_1e_5(model: MiniLM, ref: dict) -> None:
    for text, expected in zip(ref["sentences"], ref["embeddings"], strict=True):
        got = model.embed(str(text))
        assert got.shape == (384,)
        assert np.linalg.norm(got) == pytest.approx(1.0, abs=1e-12)
        assert np.max(np.abs(got - expected)) <= 1e-5, text


def test_attention_and_last_hidden_state_match_pytorch(model: MiniLM, ref: dict) -> None:
    run = model.run(str(ref["sentences"][int(ref["attention_sentence"])]))
    layers = ref["attention_layers"].tolist()
    assert np.max(np.abs(run.attention[layers] - ref["attention"])) <= 1e-5
    assert np.max(np.abs(run.hidden[-1] - ref["hidden_last"])) <= 1e-4


def test_paraphrases_are_closer_than_unrelated_sentences(model: MiniLM) -> None:
    a = model.embed("A man is playing a guitar.")
    b = model.embed("Someone is playing an acoustic guitar.")
    for other in ("She deposited her salary at the bank.", "I drink tea every morning."):
        assert a @ b > a @ model.embed(other) + 0.2
    tea = model.embed("I drink tea every morning.")
    assert tea @ model.embed("Every morning I have a cup of tea.") > tea @ b


def test_devanagari_input_runs(model: MiniLM) -> None:
    run = model.run("मैं चाय पीता हूँ")
    assert len(run.tokens) > 2
    assert np.all(np.isfinite(run.hidden))
    assert np.allclose(run.attention.sum(axis=-1), 1.0, atol=1e-5)


def test_the_length_limit_is_stated_and_enforced(model: MiniLM) -> None:
    fits = " ".join(["word"] * (MAX_TOKENS - 2))
    assert len(model.run(fits).tokens) == MAX_TOKENS
    with pytest.raises(ValueError, match=f"129 tokens long; the limit is {MAX_TOKENS} tokens"):
        model.run(fits + " word")
    with pytest.raises(ValueError, match="characters long; the limit is"):
        model.run("a " * 20_000)


@pytest.mark.parametrize(
    ("text", "message"),
    [("", "text is empty"), ("   \n", "text is empty"), (None, "text must be a string")],
)
def test_empty_or_non_text_input_is_refused(model: MiniLM, text: object, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        model.run(text)  # type: ignore[arg-type]


def test_load_is_shared_and_thread_safe() -> None:
    got: list[MiniLM] = []
    threads = [threading.Thread(target=lambda: got.append(load_minilm())) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len({id(m) for m in got}) == 1 and got[0] is load_minilm()


def test_a_different_weight_file_is_refused() -> None:
    assert len(MODEL_SHA256) == 64
    with pytest.raises(ValueError, match=r"has sha256 53aa5117.*expected 0000"):
        MiniLM(model_dir(), expected_sha256="0" * 64)


def test_concurrent_runs_give_the_same_answer(model: MiniLM) -> None:
    texts = ["A man is playing a guitar.", "मैं चाय पीता हूँ", "The bank of the river."] * 2
    alone = [model.embed(t) for t in texts]
    together: dict[int, np.ndarray] = {}

    def work(i: int) -> None:
        together[i] = model.embed(texts[i])

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(texts))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i, e in enumerate(alone):
        assert np.max(np.abs(together[i] - e)) < 1e-6


def test_the_neuron_view_rebuilds_each_weight_from_q_and_k(model: MiniLM, ref: dict) -> None:
    """softmax(q·k / sqrt(32)) over the row is the attention the forward pass computed, in every
    layer, and matches PyTorch's weights for the reference sentence."""
    run = model.run(str(ref["sentences"][int(ref["attention_sentence"])]))
    n = len(run.tokens)
    for layer in range(6):
        for head in (0, 7, 11):
            view = model.neuron_view(run, layer, head, query=n - 2, key=1)
            assert view.q.shape == view.k.shape == view.products.shape == (32,)
            assert view.sqrt_d == pytest.approx(np.sqrt(32))
            assert view.score == pytest.approx(float(view.q @ view.k), abs=1e-9)
            assert view.scaled == pytest.approx(view.row[1], abs=1e-9)
            assert np.max(np.abs(view.weights - run.attention[layer, head, n - 2])) <= 1e-5
            assert view.weight == pytest.approx(
                float(run.attention[layer, head, n - 2, 1]), abs=1e-5
            )
    layers = ref["attention_layers"].tolist()
    q, k = model.queries_keys(run, layers[0], 3)
    scores = q @ k.T / np.sqrt(32)
    rebuilt = np.exp(scores - scores.max(axis=1, keepdims=True))
    rebuilt /= rebuilt.sum(axis=1, keepdims=True)
    assert np.max(np.abs(rebuilt - ref["attention"][0, 3])) <= 1e-5


@pytest.mark.parametrize(
    ("where", "message"),
    [
        ({"layer": 6}, "layer must be 0..5"),
        ({"head": -1}, "head must be 0..11"),
        ({"query": 99}, "query must be a token position 0..4"),
        ({"key": 5}, "key must be a token position 0..4"),
    ],
)
def test_the_neuron_view_refuses_positions_out_of_range(
    model: MiniLM, where: dict, message: str
) -> None:
    run = model.run("I drink tea")
    args = {"layer": 0, "head": 0, "query": 0, "key": 0, **where}
    with pytest.raises(ValueError, match=re.escape(message)):
        model.neuron_view(run, **args)
