"""dot_product.py (engine.attention and the multi-head functions): the unit's closed forms (§3,
§4, §7, §10) and every backward against finite differences."""

from __future__ import annotations

import importlib
import re

import numpy as np
import pytest
from gradcheck import assert_gradients

# the package exports the function ``attention``, which shadows the submodule's attribute name
A = importlib.import_module("mathmachine.engine.dot_product")


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(7)


def _mha_params(rng: np.random.Generator, d: int, d_model: int, biases: bool = True) -> dict:
    p = {
        "W_q": rng.standard_normal((d, d_model)) / np.sqrt(d),
        "W_k": rng.standard_normal((d, d_model)) / np.sqrt(d),
        "W_v": rng.standard_normal((d, d_model)) / np.sqrt(d),
        "W_o": rng.standard_normal((d_model, d)) / np.sqrt(d_model),
    }
    if biases:
        p |= {k: 0.1 * rng.standard_normal(d_model) for k in ("b_q", "b_k", "b_v")}
        p["b_o"] = 0.1 * rng.standard_normal(d)
    return p


# ---------------------------------------------------------------- closed forms


def test_rows_sum_to_1_and_output_is_the_weighted_blend(rng: np.random.Generator) -> None:
    q, k, v = rng.standard_normal((4, 8)), rng.standard_normal((6, 8)), rng.standard_normal((6, 3))
    out, w = A.attention(q, k, v)
    assert w.shape == (4, 6) and out.shape == (4, 3)
    assert np.allclose(w.sum(-1), 1.0, atol=1e-12)
    s = q @ k.T / np.sqrt(8)
    expected = np.exp(s) / np.exp(s).sum(-1, keepdims=True)
    assert np.allclose(w, expected, atol=1e-14)
    assert np.allclose(out, expected @ v, atol=1e-14)


def test_variance_of_q_dot_k_is_d_and_scaling_brings_it_to_1() -> None:
    rng = np.random.default_rng(64)
    d, n = 64, 20000
    dots = np.einsum("nd,nd->n", rng.standard_normal((n, d)), rng.standard_normal((n, d)))
    # Var = d = 64 (std 8); the sample variance of 20000 draws is within 5% of it
    assert abs(dots.var() - 64) < 0.05 * 64
    assert abs((dots / np.sqrt(d)).var() - 1) < 0.05


def test_causal_mask_n5_allows_15_pairs_and_future_weights_are_exactly_0(
    rng: np.random.Generator,
) -> None:
    m = A.causal_mask(5)
    assert m.sum() == 15
    assert m.tolist()[1] == [True, True, False, False, False]
    x = rng.standard_normal((5, 4))
    _, w = A.attention(x, x, x, mask=m)
    assert np.all(w[~m] == 0.0)
    assert np.allclose(w.sum(-1), 1.0)
    assert w[0, 0] == 1.0  # the first word can only look at itself


def test_no_peeking_editing_a_later_word_leaves_earlier_outputs_unchanged(
    rng: np.random.Generator,
) -> None:
    params = _mha_params(rng, 8, 8)
    x = rng.standard_normal((6, 8))
    out, _ = A.multi_head_attention(x, x, params, 2, mask=A.causal_mask(6))
    x2 = x.copy()
    x2[4] += 10.0
    out2, _ = A.multi_head_attention(x2, x2, params, 2, mask=A.causal_mask(6))
    assert np.array_equal(out[:4], out2[:4])
    assert not np.allclose(out[4], out2[4])


def test_padding_mask_and_combination_with_causal() -> None:
    pm = A.padding_mask([2, 3], 3)
    assert pm.shape == (2, 1, 3)
    assert pm[:, 0].tolist() == [[True, True, False], [True, True, True]]
    both = A.causal_mask(3) & pm
    assert both.shape == (2, 3, 3)
    assert both[0, 2].tolist() == [True, True, False]


def test_self_attention_without_positions_is_permutation_equivariant(
    rng: np.random.Generator,
) -> None:
    params = _mha_params(rng, 8, 8)
    x = rng.standard_normal((5, 8))
    perm = np.array([3, 0, 4, 1, 2])
    out, w = A.multi_head_attention(x, x, params, 4)
    out_p, w_p = A.multi_head_attention(x[perm], x[perm], params, 4)
    assert np.allclose(out_p, out[perm], atol=1e-12)
    assert np.allclose(w_p, w[:, perm][:, :, perm], atol=1e-12)


def test_multi_head_shapes_counts_and_the_concatenation(rng: np.random.Generator) -> None:
    assert A.head_dim(512, 8) == 64
    assert A.attention_weight_count(512) == 1_048_576
    assert A.attention_weight_count(768) == 4 * 768**2
    assert A.attention_weight_count(4, bias=True) == 64 + 16
    params = _mha_params(rng, 12, 12)
    x = rng.standard_normal((2, 5, 12))
    out, w = A.multi_head_attention(x, x, params, 3)
    assert out.shape == (2, 5, 12) and w.shape == (2, 3, 5, 5)
    # one head by hand: columns 4..7 of Q and K make head 1
    q = x @ params["W_q"] + params["b_q"]
    k = x @ params["W_k"] + params["b_k"]
    s = q[..., 4:8] @ np.swapaxes(k[..., 4:8], -1, -2) / 2.0
    e = np.exp(s - s.max(-1, keepdims=True))
    assert np.allclose(w[:, 1], e / e.sum(-1, keepdims=True), atol=1e-12)
    assert A.merge_heads(A.split_heads(x, 3)).tolist() == x.tolist()


def test_the_price_of_every_pair() -> None:
    assert A.attention_score_count(10) == 100
    assert A.attention_score_count(20) == 4 * A.attention_score_count(10)  # double n -> 4x
    assert A.attention_score_count(10, heads=12, layers=6) == 7200
    assert A.attention_score_bytes(4096, 16, bytes_per_number=2) == 512 * 2**20
    with pytest.raises(ValueError, match="heads must be a positive integer"):
        A.attention_score_count(10, heads=0)


def test_cross_attention_shapes(rng: np.random.Generator) -> None:
    params = _mha_params(rng, 8, 8)
    params["W_k"] = rng.standard_normal((6, 8))
    params["W_v"] = rng.standard_normal((6, 8))
    out, w = A.multi_head_attention(
        rng.standard_normal((4, 8)), rng.standard_normal((7, 6)), params, 2
    )
    assert out.shape == (4, 8) and w.shape == (2, 4, 7)


def test_float32_stays_float32(rng: np.random.Generator) -> None:
    x = rng.standard_normal((3, 4)).astype(np.float32)
    out, w = A.attention(x, x, x)
    assert out.dtype == np.float32 and w.dtype == np.float32


# ---------------------------------------------------------------- gradients


@pytest.mark.parametrize("masked", [False, True])
def test_attention_backward(rng: np.random.Generator, masked: bool) -> None:
    q = rng.standard_normal((2, 4, 3))
    k = rng.standard_normal((2, 5, 3))
    v = rng.standard_normal((2, 5, 2))
    bias = rng.standard_normal((4, 5))
    mask = np.tril(np.ones((4, 5), dtype=bool), k=1) if masked else None
    probe = rng.standard_normal((2, 4, 2))
    _, cache = A.attention_forward(q, k, v, mask, bias)
    dq, dk, dv, dbias = A.attention_backward(probe, cache)
    assert_gradients(
        lambda: float(np.sum(A.attention(q, k, v, mask, bias)[0] * probe)),
        {"q": q, "k": k, "v": v, "bias": bias},
        {"q": dq, "k": dk, "v": dv, "bias": dbias},
    )
    if masked:
        assert np.all(dbias[~mask] == 0)


def test_attention_backward_with_broadcast_keys(rng: np.random.Generator) -> None:
    q = rng.standard_normal((3, 2, 4))  # batch of 3 query sets over one shared k, v
    k, v = rng.standard_normal((5, 4)), rng.standard_normal((5, 2))
    probe = rng.standard_normal((3, 2, 2))
    dq, dk, dv, dbias = A.attention_backward(probe, A.attention_forward(q, k, v)[1])
    assert dk.shape == k.shape and dbias is None
    assert_gradients(
        lambda: float(np.sum(A.attention(q, k, v)[0] * probe)),
        {"q": q, "k": k, "v": v},
        {"q": dq, "k": dk, "v": dv},
    )


@pytest.mark.parametrize("biases", [True, False])
def test_multi_head_self_attention_backward(rng: np.random.Generator, biases: bool) -> None:
    params = _mha_params(rng, 6, 8, biases)
    x = rng.standard_normal((2, 4, 6))
    mask = A.causal_mask(4) & A.padding_mask([4, 3], 4)
    probe = rng.standard_normal((2, 4, 6))
    _, cache = A.multi_head_attention_forward(x, x, params, 2, mask)
    dxq, dxkv, dp = A.multi_head_attention_backward(probe, cache)
    assert set(dp) == set(params)
    assert_gradients(
        lambda: float(np.sum(A.multi_head_attention(x, x, params, 2, mask)[0] * probe)),
        {"x": x, **params},
        {"x": dxq + dxkv, **dp},
    )


def test_multi_head_cross_attention_backward(rng: np.random.Generator) -> None:
    params = _mha_params(rng, 6, 8)
    params["W_k"] = rng.standard_normal((5, 8))
    params["W_v"] = rng.standard_normal((5, 8))
    xq, mem = rng.standard_normal((2, 3, 6)), rng.standard_normal((2, 4, 5))
    mask = A.padding_mask([4, 2], 4)
    probe = rng.standard_normal((2, 3, 6))
    dxq, dmem, dp = A.multi_head_attention_backward(
        probe, A.multi_head_attention_forward(xq, mem, params, 4, mask)[1]
    )
    assert_gradients(
        lambda: float(np.sum(A.multi_head_attention(xq, mem, params, 4, mask)[0] * probe)),
        {"xq": xq, "mem": mem, **params},
        {"xq": dxq, "mem": dmem, **dp},
    )


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: A.attention(np.ones((2, 3)), np.ones((2, 4)), np.ones((2, 4))), "q has width 3"),
        (lambda: A.attention(np.ones((2, 3)), np.ones((4, 3)), np.ones((5, 3))), "4 keys but v"),
        (lambda: A.attention(np.ones(3), np.ones((4, 3)), np.ones((4, 3))), "q must have at least"),
        (
            lambda: A.attention(np.full((2, 3), np.nan), np.ones((4, 3)), np.ones((4, 3))),
            "q contains NaN",
        ),
        (lambda: A.attention(np.ones((0, 3)), np.ones((4, 3)), np.ones((4, 3))), "q is empty"),
        (
            lambda: A.attention(np.ones((2, 3)), np.ones((2, 3)), np.ones((2, 3)), np.ones((2, 2))),
            "mask must be boolean",
        ),
        (
            lambda: A.attention(
                np.ones((2, 3)), np.ones((2, 3)), np.ones((2, 3)), np.array([[True, False]] * 3)
            ),
            "does not fit the scores",
        ),
        (
            lambda: A.attention(
                np.ones((2, 3)),
                np.ones((2, 3)),
                np.ones((2, 3)),
                np.array([[True, True], [False, False]]),
            ),
            "mask leaves query row 1 with no key",
        ),
        (lambda: A.causal_mask(0), "n must be a positive integer"),
        (lambda: A.padding_mask([0, 2], 3), "every length must lie in 1..3"),
        (lambda: A.padding_mask([4], 3), "every length must lie in 1..3"),
        (lambda: A.head_dim(10, 3), "does not divide"),
        (
            lambda: A.multi_head_attention(
                np.ones((2, 4)), np.ones((2, 4)), {"W_q": np.eye(4), "W_k": np.eye(4)}, 2
            ),
            "lack 'W_v'",
        ),
        (
            lambda: A.multi_head_attention(
                np.ones((2, 4)),
                np.ones((2, 4)),
                {"W_q": np.eye(4), "W_k": np.eye(4), "W_v": np.eye(4), "W_o": np.eye(3)},
                2,
            ),
            "'W_o' must have shape (4, 3)",
        ),
        (
            lambda: A.multi_head_attention(
                np.ones((2, 4)),
                np.ones((2, 4)),
                {"W_q": np.eye(4), "W_k": np.eye(4), "W_v": np.eye(4), "W_o": np.eye(4)},
                3,
            ),
            "n_heads = 3 does not divide d_model = 4",
        ),
        (
            lambda: A.multi_head_attention(
                np.ones((2, 4)),
                np.ones((2, 4)),
                {"W_q": np.eye(4) * np.nan, "W_k": np.eye(4), "W_v": np.eye(4), "W_o": np.eye(4)},
                2,
            ),
            "W_q contains NaN",
        ),
    ],
)
def test_bad_input_raises_a_clear_value_error(call, message: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match=re.escape(message)):
        call()
