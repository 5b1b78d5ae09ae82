"""block.py: weight counts (§9), pre-/post-LN blocks, the encoder and decoder stacks, and every
backward against finite differences."""

from __future__ import annotations

import importlib
import re

import numpy as np
import pytest
from gradcheck import assert_gradients

from mathmachine.engine import block as B
from mathmachine.engine import layers as L

A = importlib.import_module("mathmachine.engine.dot_product")


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(11)


def _perturbed(p: dict, rng: np.random.Generator) -> dict:
    """Non-trivial gains and biases so their gradients are really exercised."""
    return {k: v + 0.1 * rng.standard_normal(v.shape) for k, v in p.items()}


def test_weight_counts() -> None:
    assert B.block_weight_count(768) == 7_077_888 == 12 * 768**2
    assert B.block_weight_count(512, 2048) == 4 * 512**2 + 2 * 512 * 2048
    assert B.block_weight_count(4, 8, bias=True, norm=True) == 64 + 64 + (16 + 8 + 4) + 16
    p = B.init_block_params(np.random.default_rng(0), 4, 8)
    assert sum(v.size for v in p.values()) == B.block_weight_count(4, 8, bias=True, norm=True)
    assert set(p) == set(B.BLOCK_KEYS)
    dp = B.init_decoder_block_params(np.random.default_rng(0), 4, 8, d_memory=6)
    assert set(dp) == set(B.DECODER_BLOCK_KEYS)
    assert dp["cross_W_k"].shape == (6, 4)


@pytest.mark.parametrize("pre_norm", [True, False])
def test_block_matches_the_formula_written_out(rng: np.random.Generator, pre_norm: bool) -> None:
    p = _perturbed(B.init_block_params(rng, 8, 16), rng)
    x = rng.standard_normal((2, 5, 8))
    mask = A.causal_mask(5)
    out, cache = B.transformer_block_forward(x, p, 2, mask=mask, pre_norm=pre_norm, eps=1e-6)

    def mha(h: np.ndarray) -> np.ndarray:
        return A.multi_head_attention(h, h, p, 2, mask)[0]

    def ln(h: np.ndarray, i: int) -> np.ndarray:
        return L.layer_norm(h, p[f"ln{i}_g"], p[f"ln{i}_b"], eps=1e-6)

    def ffn(h: np.ndarray) -> np.ndarray:
        return L.feed_forward(h, p)

    if pre_norm:
        x1 = x + mha(ln(x, 1))
        expected = x1 + ffn(ln(x1, 2))
    else:
        x1 = ln(x + mha(x), 1)
        expected = ln(x1 + ffn(x1), 2)
    assert np.allclose(out, expected, atol=1e-12)
    assert cache["weights"].shape == (2, 2, 5, 5)
    assert np.all(cache["weights"][..., ~mask] == 0)
    assert np.array_equal(cache["stages"]["out"], out)


@pytest.mark.parametrize("pre_norm", [True, False])
@pytest.mark.parametrize("activation", ["gelu", "relu"])
def test_block_backward(rng: np.random.Generator, pre_norm: bool, activation: str) -> None:
    p = _perturbed(B.init_block_params(rng, 6, 12), rng)
    x = rng.standard_normal((2, 4, 6))
    mask = A.padding_mask([4, 3], 4)
    probe = rng.standard_normal(x.shape)
    kw = {"pre_norm": pre_norm, "eps": 1e-5, "activation": activation}
    _, cache = B.transformer_block_forward(x, p, 3, mask=mask, **kw)
    dx, dp = B.transformer_block_backward(probe, cache)
    assert set(dp) == set(p)
    assert_gradients(
        lambda: float(np.sum(B.transformer_block(x, p, 3, mask=mask, **kw) * probe)),
        {"x": x, **p},
        {"x": dx, **dp},
    )


def test_block_without_biases_or_norm_params(rng: np.random.Generator) -> None:
    p = B.init_block_params(rng, 4, 8, bias=False)
    for k in ("ln1_g", "ln1_b", "ln2_g", "ln2_b"):
        del p[k]
    x = rng.standard_normal((3, 4))
    probe = rng.standard_normal(x.shape)
    dx, dp = B.transformer_block_backward(probe, B.transformer_block_forward(x, p, 2)[1])
    assert set(dp) == set(p) == {"W_q", "W_k", "W_v", "W_o", "W1", "W2"}
    assert_gradients(
        lambda: float(np.sum(B.transformer_block(x, p, 2) * probe)),
        {"x": x, **p},
        {"x": dx, **dp},
    )


@pytest.mark.parametrize("pre_norm", [True, False])
def test_decoder_block_backward_and_causality(rng: np.random.Generator, pre_norm: bool) -> None:
    p = _perturbed(B.init_decoder_block_params(rng, 6, 12, d_memory=5), rng)
    x, mem = rng.standard_normal((2, 4, 6)), rng.standard_normal((2, 3, 5))
    tgt_mask = A.padding_mask([4, 2], 4)
    mem_mask = A.padding_mask([3, 2], 3)
    kw = {"pre_norm": pre_norm, "eps": 1e-5}
    out, cache = B.decoder_block_forward(
        x, mem, p, 2, self_mask=tgt_mask, memory_mask=mem_mask, **kw
    )
    assert cache["self_weights"].shape == (2, 2, 4, 4)
    assert cache["cross_weights"].shape == (2, 2, 4, 3)
    assert np.all(cache["self_weights"][..., ~A.causal_mask(4)] == 0)
    assert np.all(cache["cross_weights"][1, :, :, 2] == 0)  # source padding never looked at
    x2 = x.copy()
    x2[:, 3] += 5.0
    out2 = B.decoder_block(x2, mem, p, 2, self_mask=tgt_mask, memory_mask=mem_mask, **kw)
    assert np.array_equal(out[:, :3], out2[:, :3])
    probe = rng.standard_normal(x.shape)
    dx, dmem, dp = B.decoder_block_backward(probe, cache)
    assert set(dp) == set(p)
    assert_gradients(
        lambda: float(
            np.sum(
                B.decoder_block(x, mem, p, 2, self_mask=tgt_mask, memory_mask=mem_mask, **kw)
                * probe
            )
        ),
        {"x": x, "mem": mem, **p},
        {"x": dx, "mem": dmem, **dp},
    )


@pytest.mark.parametrize("pre_norm", [True, False])
def test_encoder_decoder_stacks_backward(rng: np.random.Generator, pre_norm: bool) -> None:
    enc = [_perturbed(B.init_block_params(rng, 4, 8), rng) for _ in range(2)]
    dec = [_perturbed(B.init_decoder_block_params(rng, 4, 8), rng) for _ in range(2)]
    src, tgt = rng.standard_normal((2, 5, 4)), rng.standard_normal((2, 3, 4))
    src_mask = A.padding_mask([5, 3], 5)
    kw = {"pre_norm": pre_norm}
    probe = rng.standard_normal(tgt.shape)

    def loss() -> float:
        mem = B.encoder_stack(src, enc, 2, mask=src_mask, **kw)
        return float(
            np.sum(
                B.decoder_stack(tgt, mem, dec, 2, self_mask=None, memory_mask=src_mask, **kw)
                * probe
            )
        )

    mem, ecache = B.encoder_stack_forward(src, enc, 2, mask=src_mask, **kw)
    _, dcache = B.decoder_stack_forward(
        tgt, mem, dec, 2, self_mask=None, memory_mask=src_mask, **kw
    )
    assert ecache["weights"].shape == (2, 2, 2, 5, 5)
    assert ecache["hidden"].shape == (3, 2, 5, 4)
    assert dcache["cross_weights"].shape == (2, 2, 2, 3, 5)
    dtgt, dmem, ddec = B.decoder_stack_backward(probe, dcache)
    dsrc, denc = B.encoder_stack_backward(dmem, ecache)
    arrays = {"src": src, "tgt": tgt}
    grads = {"src": dsrc, "tgt": dtgt}
    for i in range(2):
        arrays |= {f"e{i}{k}": v for k, v in enc[i].items()}
        grads |= {f"e{i}{k}": v for k, v in denc[i].items()}
        arrays |= {f"d{i}{k}": v for k, v in dec[i].items()}
        grads |= {f"d{i}{k}": v for k, v in ddec[i].items()}
    assert_gradients(loss, arrays, grads, max_entries=60)


def test_float32_block_stays_float32(rng: np.random.Generator) -> None:
    p = {k: v.astype(np.float32) for k, v in B.init_block_params(rng, 8, 16).items()}
    x = rng.standard_normal((3, 8)).astype(np.float32)
    out = B.transformer_block(x, p, 2, pre_norm=False, eps=1e-12)
    assert out.dtype == np.float32
    ref = B.transformer_block(
        x.astype(np.float64), {k: v.astype(np.float64) for k, v in p.items()}, 2, pre_norm=False
    )
    assert np.allclose(out, ref, atol=1e-4)


def _bad_block(key: str, value: object, **more: object) -> dict:
    p = B.init_block_params(np.random.default_rng(0), 4, 8)
    p[key] = value  # type: ignore[assignment]
    p |= more  # type: ignore[arg-type]
    return p


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: B.transformer_block(np.ones((3, 5)), _bad_block("ln1_g", 1.0), 2), "'W_q' must"),
        (
            lambda: B.transformer_block(
                np.ones((3, 4)), _bad_block("W2", np.ones((8, 5)), b2=np.ones(5)), 2
            ),
            "'W2' must map back to width 4",
        ),
        (
            lambda: B.transformer_block(np.ones((3, 4)), _bad_block("ln2_b", np.ones(3)), 2),
            "'ln2_b' must have shape (4,)",
        ),
        (
            lambda: B.transformer_block(np.ones((3, 4)), _bad_block("b1", np.full(8, np.inf)), 2),
            "b1 contains NaN or infinity",
        ),
        (
            lambda: B.transformer_block(np.full((3, 4), np.nan), _bad_block("b1", np.ones(8)), 2),
            "x contains NaN",
        ),
        (lambda: B.transformer_block(np.ones((0, 4)), _bad_block("b1", np.ones(8)), 2), "empty"),
        (lambda: B.transformer_block(np.ones((3, 4)), _bad_block("b1", np.ones(8)), 3), "divide"),
        (
            lambda: B.transformer_block(
                np.ones((3, 4)), _bad_block("b1", np.ones(8)), 2, activation="swish"
            ),
            "activation must be one of",
        ),
        (lambda: B.encoder_stack(np.ones((3, 4)), [], 2), "non-empty list"),
        (
            lambda: B.decoder_block(
                np.ones((3, 4)),
                np.ones((2, 5)),
                B.init_decoder_block_params(np.random.default_rng(0), 4, 8),
                2,
            ),
            "'W_k' must have shape (5, 4)",
        ),
        (
            lambda: B.decoder_block(
                np.ones((2, 3, 4)),
                np.ones((3, 2, 4)),
                B.init_decoder_block_params(np.random.default_rng(0), 4, 8),
                2,
            ),
            "leading (batch) axes",
        ),
    ],
)
def test_bad_input_raises_a_clear_value_error(call, message: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match=re.escape(message)):
        call()


def test_inference_forward_keeps_no_layer_caches(rng: np.random.Generator) -> None:
    enc = [B.init_block_params(rng, 4, 8) for _ in range(2)]
    x = rng.standard_normal((3, 4))
    full, cache = B.encoder_stack_forward(x, enc, 2)
    lean, lean_cache = B.encoder_stack_forward(x, enc, 2, for_backward=False)
    # the inference path's kernels sum in another order: equal to rounding, not bit for bit
    # (tests/engine/test_inference_paths.py holds every fast kernel to its reference)
    assert np.allclose(full, lean, rtol=0, atol=1e-12)
    assert np.array_equal(B.encoder_stack(x, enc, 2), lean)
    assert np.allclose(cache["weights"], lean_cache["weights"], rtol=0, atol=1e-12)
    assert lean_cache["layers"] is None
    with pytest.raises(ValueError, match="for_backward=False"):
        B.encoder_stack_backward(np.ones_like(lean), lean_cache)
    dec = [B.init_decoder_block_params(rng, 4, 8)]
    out, dcache = B.decoder_stack_forward(x, x, dec, 2, for_backward=False)
    assert np.array_equal(out, B.decoder_stack(x, x, dec, 2))
    assert dcache["cross_weights"].shape == (1, 2, 3, 3)
    with pytest.raises(ValueError, match="for_backward=False"):
        B.decoder_stack_backward(np.ones_like(out), dcache)
