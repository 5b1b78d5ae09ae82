"""The lean inference kernels (ops.foo, run by ``for_backward=False``; fused Q/K/V) against
the forwards that training uses (ops.foo_forward), each within a stated tolerance:

- float32 GELU (one exp, x / (1 + exp(x R(x^2)))): within 3e-7 * max(1, |x|) of the exact value
  at the float32 input (math.erfc in float64); float64 inference GELU: the same bits as gelu().
- LayerNorm by matrix-vector row sums: float64 within 1e-13 of the cached path (relative to the
  largest output), float32 within 2e-6.
- the one softmax (ops.softmax, which attention runs in place on its scores): the very bits of
  the public softmax().
- fused Q/K/V (fuse_qkv): float64 within 1e-12 of three products, float32 within 1e-5; a stale
  W_qkv is never used.
- whole encoder stacks: float64 within 1e-12, float32 within 1e-5 (relative to the largest
  value), MiniLM's inference against its own cached forward within 2e-5 on the hidden states
  and 2e-6 on the attention weights (the PyTorch fixture tests hold both to 1e-5 / 1e-4).
"""

from __future__ import annotations

import importlib
import math
import warnings

import numpy as np
import pytest

from mathmachine.engine import block as B
from mathmachine.engine import layers as L
from mathmachine.engine import normal, ops
from mathmachine.engine.pretrained import load_minilm

# the package exports the functions ``attention`` and ``softmax``, which shadow the submodules
A = importlib.import_module("mathmachine.engine.dot_product")
S = importlib.import_module("mathmachine.engine.shares")


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(2024)


def _close(got: np.ndarray, want: np.ndarray, rel: float) -> None:
    """max |got - want| <= rel * max |want| (and the same shape and dtype)."""
    assert got.shape == want.shape and got.dtype == want.dtype
    scale = max(1.0, float(np.abs(want).max()))
    err = float(np.abs(got.astype(np.float64) - want).max())
    assert err <= rel * scale, f"max |diff| {err:.3e} > {rel:.1e} * {scale:.3g}"


def _exact_gelu(x: np.ndarray) -> np.ndarray:
    return np.array([v * 0.5 * math.erfc(-v / math.sqrt(2.0)) for v in x.astype(np.float64)])


# ---------------------------------------------------------------- GELU


def test_float32_inference_gelu_matches_math_erf_on_a_dense_grid() -> None:
    xs = np.linspace(-12, 12, 240_001).astype(np.float32)
    got = ops.gelu(xs.copy())
    assert got.dtype == np.float32
    err = np.abs(got - _exact_gelu(xs)) / np.maximum(1.0, np.abs(xs.astype(np.float64)))
    assert err.max() < 3e-7
    # and it agrees with the cached (erfcx series) float32 path to the same order
    assert np.max(np.abs(got - L.gelu(xs)) / np.maximum(1.0, np.abs(xs))) < 4e-7


def test_float32_inference_gelu_polynomial_is_negative_everywhere() -> None:
    coefs = np.array(normal.GELU_R32)
    assert coefs[0] == pytest.approx(-4.0 / math.sqrt(2.0 * math.pi), rel=1e-6)  # R(0)
    assert coefs[-1] < 0  # so R(s) -> -inf as s -> inf ...
    roots = np.roots(coefs[::-1])  # ... and R has no root on s >= 0, so R < 0 for every s >= 0
    assert not any(abs(r.imag) < 1e-9 and r.real >= 0 for r in roots)


def test_float32_inference_gelu_extremes_are_right_and_silent() -> None:
    big = [6.0, 10.0, 1e4, 1e19, 1e20, 3e38]
    x = np.array([0.0, -0.0, *big, *(-b for b in big)], dtype=np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow warnings leak out
        got = ops.gelu(x.copy())
    assert np.all(np.isfinite(got))
    assert got[0] == 0.0 and got[1] == 0.0
    n = len(big)
    assert np.all(got[2 : 2 + n] == x[2 : 2 + n])  # GELU(x) = x in float32 for x >= 6
    assert np.all(np.abs(got[2 + n :]) <= 1e-8)  # GELU(-6) = -5.9e-9, and less beyond


def test_float64_inference_gelu_and_relu_give_the_same_bits(rng: np.random.Generator) -> None:
    x = rng.standard_normal((4, 33)) * 3
    assert np.array_equal(ops.gelu(x.copy()), L.gelu(x))
    assert np.array_equal(ops.relu(x.copy()), L.relu(x))


@pytest.mark.parametrize("activation", ["gelu", "relu"])
def test_feed_forward_inference_path(rng: np.random.Generator, activation: str) -> None:
    p = {
        "W1": rng.standard_normal((8, 32)) / 3,
        "b1": rng.standard_normal(32),
        "W2": rng.standard_normal((32, 8)) / 6,
        "b2": rng.standard_normal(8),
    }
    x = rng.standard_normal((2, 5, 8))
    full = ops.feed_forward_forward(x, p, activation)[0]
    assert np.array_equal(ops.feed_forward(x, p, activation), full)  # float64: the same bits
    p32 = {k: v.astype(np.float32) for k, v in p.items()}
    x32 = x.astype(np.float32)
    _close(
        ops.feed_forward(x32, p32, activation),
        ops.feed_forward_forward(x32, p32, activation)[0],
        2e-6,
    )


# ---------------------------------------------------------------- LayerNorm


@pytest.mark.parametrize(("dtype", "rel"), [(np.float64, 1e-13), (np.float32, 2e-6)])
def test_layer_norm_inference_path(rng: np.random.Generator, dtype: type, rel: float) -> None:
    x = (rng.standard_normal((2, 5, 384)) * 3 + 10).astype(dtype)  # a mean far from 0
    g = rng.standard_normal(384).astype(dtype)
    b = rng.standard_normal(384).astype(dtype)
    full = ops.layer_norm_forward(x, g, b, 1e-12)[0]
    kept = x.copy()
    _close(ops.layer_norm(x, g, b, 1e-12), full, rel)
    assert np.array_equal(x, kept)  # x itself is left alone
    _close(ops.layer_norm(x, None, None, 0.0), L.layer_norm(x, eps=0.0), rel)
    with pytest.raises(ValueError, match="variance 0"):
        ops.layer_norm(np.ones((2, 4), dtype), None, None, 0.0)


# ---------------------------------------------------------------- softmax


def test_the_one_softmax_gives_the_public_softmax_bits(rng: np.random.Generator) -> None:
    for dtype in (np.float64, np.float32):
        s = (rng.standard_normal((3, 7, 9)) * 4).astype(dtype)
        s[0, :, 5:] = -np.inf
        want = S.softmax(s)
        work = s.copy()
        got = ops.softmax(work)
        assert got is work and got.dtype == dtype and np.array_equal(got, want)
        t = s[1:]  # no -inf along axis 1
        assert np.array_equal(ops.softmax(t.copy(), axis=1), S.softmax(t, axis=1))


# ---------------------------------------------------------------- fused Q, K, V


def _params(rng: np.random.Generator, d: int = 8, biases: bool = True) -> dict:
    return B.init_mha_params(rng, d, bias=biases) | (
        {k: 0.1 * rng.standard_normal(d) for k in ("b_q", "b_k", "b_v", "b_o")} if biases else {}
    )


@pytest.mark.parametrize("biases", [True, False])
def test_fuse_qkv_makes_views_and_keeps_the_rest(rng: np.random.Generator, biases: bool) -> None:
    p = _params(rng, biases=biases)
    f = A.fuse_qkv(p)
    assert f["W_qkv"].shape == (8, 24)
    assert np.array_equal(f["W_qkv"], np.concatenate([p["W_q"], p["W_k"], p["W_v"]], axis=1))
    for key in ("W_q", "W_k", "W_v"):
        assert np.shares_memory(f[key], f["W_qkv"]) and np.array_equal(f[key], p[key])
        assert not np.shares_memory(p[key], f["W_qkv"])  # the input dict is left alone
    assert f["W_o"] is p["W_o"]
    if biases:
        assert np.array_equal(f["b_qkv"], np.concatenate([p["b_q"], p["b_k"], p["b_v"]]))
        assert np.shares_memory(f["b_k"], f["b_qkv"]) and f["b_o"] is p["b_o"]
    else:
        assert "b_qkv" not in f
    assert A.mha_params(f, 8, 8, 2)["W_qkv"] is f["W_qkv"]  # the fused product is used
    assert A.mha_params(p, 8, 8, 2)["W_qkv"] is None


@pytest.mark.parametrize("biases", [True, False])
def test_fused_self_attention_equals_three_products(rng: np.random.Generator, biases: bool) -> None:
    p = _params(rng, biases=biases)
    f = A.fuse_qkv(p)
    x = rng.standard_normal((2, 5, 8))
    mask = A.padding_mask([5, 3], 5)
    out, w = A.multi_head_attention(x, x, p, 2, mask)
    out_f, w_f = A.multi_head_attention(x, x, f, 2, mask)
    _close(out_f, out, 1e-12)
    _close(w_f, w, 1e-12)
    # float32 (the pretrained model's case)
    p32 = {k: v.astype(np.float32) for k, v in p.items()}
    x32 = x.astype(np.float32)
    out32 = A.multi_head_attention(x32, x32, A.fuse_qkv(p32), 2, mask)[0]
    _close(out32, A.multi_head_attention(x32, x32, p32, 2, mask)[0], 1e-5)
    # cross-attention (x_q is not x_kv) ignores the fused array and is exact
    y = rng.standard_normal((2, 3, 8))
    assert np.array_equal(
        A.multi_head_attention(y, x, f, 2)[0], A.multi_head_attention(y, x, p, 2)[0]
    )


def test_fused_backward_gives_the_unfused_gradients(rng: np.random.Generator) -> None:
    p = _params(rng)
    f = A.fuse_qkv(p)
    x = rng.standard_normal((5, 8))
    probe = rng.standard_normal((5, 8))
    _, cache = A.multi_head_attention_forward(x, x, p, 2, A.causal_mask(5))
    _, cache_f = A.multi_head_attention_forward(x, x, f, 2, A.causal_mask(5))
    dq, dkv, grads = A.multi_head_attention_backward(probe, cache)
    dq_f, dkv_f, grads_f = A.multi_head_attention_backward(probe, cache_f)
    assert sorted(grads_f) == sorted(grads)  # W_q, W_k, W_v ... (no W_qkv)
    _close(dq_f + dkv_f, dq + dkv, 1e-12)
    for key, g in grads.items():
        _close(grads_f[key], g, 1e-12)


def test_a_stale_fused_array_is_never_used(rng: np.random.Generator) -> None:
    f = A.fuse_qkv(_params(rng))
    x = rng.standard_normal((4, 8))

    def unfused(params: dict) -> np.ndarray:
        plain = {k: np.array(v) for k, v in params.items() if not k.endswith("qkv")}
        return A.multi_head_attention(x, x, plain, 2)[0]

    # editing a view in place edits W_qkv too: the fused path stays in step
    f["W_k"][:] *= 2.0
    assert A.mha_params(f, 8, 8, 2)["W_qkv"] is not None
    _close(A.multi_head_attention(x, x, f, 2)[0], unfused(f), 1e-12)
    # replacing a view by another array (here an equal one, then a different one) drops W_qkv
    f["W_q"] = f["W_q"].copy()
    assert A.mha_params(f, 8, 8, 2)["W_qkv"] is None
    f["W_q"] = f["W_q"] * 3.0
    assert np.array_equal(A.multi_head_attention(x, x, f, 2)[0], unfused(f))
    g = A.fuse_qkv(_params(rng))
    g["b_v"] = g["b_v"] + 1.0  # a replaced bias too
    assert A.mha_params(g, 8, 8, 2)["W_qkv"] is None
    h = A.fuse_qkv(_params(rng))
    h["W_qkv"] = h["W_qkv"].copy()  # a W_qkv that fuse_qkv did not make
    assert A.mha_params(h, 8, 8, 2)["W_qkv"] is None


def test_fuse_qkv_bad_input(rng: np.random.Generator) -> None:
    p = _params(rng)
    with pytest.raises(ValueError, match="lack 'W_k'"):
        A.fuse_qkv({k: v for k, v in p.items() if k != "W_k"})
    with pytest.raises(ValueError, match="all of b_q, b_k, b_v or none"):
        A.fuse_qkv({k: v for k, v in p.items() if k != "b_v"})
    with pytest.raises(ValueError, match="same number of rows"):
        A.fuse_qkv(p | {"W_v": np.ones((6, 8))})
    with pytest.raises(ValueError, match="b_k must have shape"):
        A.fuse_qkv(p | {"b_k": np.ones(7)})
    with pytest.raises(ValueError, match="dict of arrays"):
        A.fuse_qkv([1, 2])  # type: ignore[arg-type]


# ---------------------------------------------------------------- whole stacks


@pytest.mark.parametrize("pre_norm", [True, False])
@pytest.mark.parametrize("activation", ["gelu", "relu"])
def test_encoder_stack_inference_path_float64(
    rng: np.random.Generator, pre_norm: bool, activation: str
) -> None:
    enc = [B.init_block_params(rng, 8, 32) for _ in range(3)]
    enc = [{k: v + 0.1 * rng.standard_normal(v.shape) for k, v in p.items()} for p in enc]
    x = rng.standard_normal((2, 6, 8))
    mask = A.padding_mask([6, 4], 6)
    for layers in (enc, [A.fuse_qkv(p) for p in enc]):
        full, c = B.encoder_stack_forward(
            x, layers, 2, mask=mask, pre_norm=pre_norm, eps=1e-5, activation=activation
        )
        lean, lc = B.encoder_stack_forward(
            x,
            layers,
            2,
            mask=mask,
            pre_norm=pre_norm,
            eps=1e-5,
            activation=activation,
            for_backward=False,
        )
        _close(lean, full, 1e-12)
        _close(lc["weights"], c["weights"], 1e-12)
        _close(lc["hidden"], c["hidden"], 1e-12)
        assert np.all(lc["weights"][:, 1, :, :, 4:] == 0)  # padding still gets exactly 0
        assert lc["hidden"][-1] is not lean and np.array_equal(lc["hidden"][-1], lean)


def test_encoder_stack_inference_path_float32(rng: np.random.Generator) -> None:
    enc = [
        {k: v.astype(np.float32) for k, v in A.fuse_qkv(B.init_block_params(rng, 48, 96)).items()}
        for _ in range(2)
    ]
    x = rng.standard_normal((7, 48)).astype(np.float32)
    full, c = B.encoder_stack_forward(x, enc, 4, mask=None, pre_norm=False, eps=1e-12)
    lean, lc = B.encoder_stack_forward(
        x, enc, 4, mask=None, pre_norm=False, eps=1e-12, for_backward=False
    )
    assert lean.dtype == lc["weights"].dtype == lc["hidden"].dtype == np.float32
    _close(lean, full, 1e-5)
    _close(lc["weights"], c["weights"], 1e-6)
    # float32 input with float64 weights: computed in float64 either way
    mixed = [{k: v.astype(np.float64) for k, v in p.items()} for p in enc]
    out64, c64 = B.encoder_stack_forward(
        x, mixed, 4, mask=None, pre_norm=False, eps=1e-12, for_backward=False
    )
    assert out64.dtype == c64["hidden"].dtype == np.float64
    _close(
        out64, B.encoder_stack_forward(x, mixed, 4, mask=None, pre_norm=False, eps=1e-12)[0], 1e-12
    )


def test_minilm_runs_fused_and_its_inference_matches_its_cached_forward() -> None:
    model = load_minilm()
    p0 = model.layers[0]
    assert A.mha_params(p0, 384, 384, 12)["W_qkv"] is p0["W_qkv"]
    run = model.run("The bank of the river was muddy after the rain.")
    x = run.hidden[0]
    _, cache = B.encoder_stack_forward(
        x, model.layers, 12, mask=None, pre_norm=False, eps=model.eps, for_backward=True
    )
    _close(run.hidden, cache["hidden"], 2e-5)
    assert np.max(np.abs(run.attention - cache["weights"])) <= 2e-6
