"""The ablations of the tiny translator (§13): every variant's whole gradient against central
finite differences in float64, and the stacks without LayerNorm."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from gradcheck import assert_gradients

from mathmachine.engine import encoder_stack_backward, encoder_stack_forward, init_block_params
from mathmachine.engine.tiny import decoder_only
from mathmachine.engine.tiny.corpus import encode, split, vocab
from mathmachine.engine.tiny.model import DECODER_ONLY, TinyConfig, init_params, loss_and_grads
from mathmachine.engine.tiny.model import loss as enc_dec_loss
from mathmachine.engine.train import flatten

TOL = 1e-6  # as in test_tiny_grad.py


def _small(**changes: object) -> TinyConfig:
    v = vocab()
    cfg = TinyConfig(len(v.english), len(v.hindi), d_model=8, n_heads=2, d_ff=12, emb_std=1.0)
    return replace(cfg, **changes)  # type: ignore[arg-type]


def _batch():  # type: ignore[no-untyped-def]
    train, held = split()
    mother = next(p for p in held if p.subject.english == "my mother")
    b = encode((train[0], mother, train[-1]))  # 3 and 4 English words: padding on both sides
    assert len(set(b.src_len.tolist())) == 2
    return b


# The two ablations with backward code of their own: the residual without LayerNorm (ops) and
# the decoder-only wiring. Without positions and with one head the model runs paths that
# test_tiny_grad.py already checks (a constant not added; n_heads = 1).
@pytest.mark.parametrize(
    "changes",
    [{"layer_norm": False}, {"arch": DECODER_ONLY, "enc_layers": 0, "dec_layers": 2}],
    ids=["no-layernorm", "decoder-only"],
)
def test_ablation_gradient_matches_finite_differences(changes: dict[str, object]) -> None:
    cfg = _small(**changes)
    rng = np.random.default_rng(4)
    params = init_params(cfg, rng)
    for key, a in flatten(params).items():  # biases away from 0, so their gradients count
        if key.rsplit(".", 1)[-1].startswith(("b", "ln")):
            a += 0.3 * rng.standard_normal(a.shape)
    if not cfg.layer_norm:
        assert not any(".ln" in k for k in flatten(params))
    batch = _batch()
    if cfg.arch == DECODER_ONLY:
        value, grads = decoder_only.loss_and_grads(params, cfg, batch)
        assert value == decoder_only.loss(params, cfg, batch)

        def f() -> float:
            return decoder_only.loss(params, cfg, batch)

        assert "enc" not in params
    else:
        value, grads = loss_and_grads(params, cfg, batch)
        assert value == enc_dec_loss(params, cfg, batch)

        def f() -> float:
            return enc_dec_loss(params, cfg, batch)

    assert np.isfinite(value) and value > 0
    flat_p, flat_g = flatten(params), flatten(grads)
    assert flat_p.keys() == flat_g.keys()
    assert_gradients(f, flat_p, flat_g, tol=TOL, max_entries=12)


def test_decoder_only_slots_put_each_hindi_word_after_its_own_english() -> None:
    perm, hindi = decoder_only.slots(np.array([3, 4]), 4, 6)
    # row 0: 3 English words, then the 6 Hindi positions, then the English pad at the end
    assert perm[0].tolist() == [0, 1, 2, 4, 5, 6, 7, 8, 9, 3]
    assert perm[1].tolist() == list(range(10))
    assert hindi.tolist() == [[3, 4, 5, 6, 7, 8], [4, 5, 6, 7, 8, 9]]


def test_decoder_only_never_looks_at_later_slots_or_pads() -> None:
    """The causal mask: changing a later Hindi word or a pad changes no earlier slot's logits."""
    cfg = _small(arch=DECODER_ONLY, enc_layers=0, dec_layers=2)
    params = init_params(cfg, np.random.default_rng(1))
    b = _batch()
    logits, _ = decoder_only.forward(params, cfg, b.src, b.src_len, b.tgt_in)
    tgt = b.tgt_in.copy()
    tgt[:, 3] = 7  # the fourth Hindi input (a real word or a pad) becomes another word
    src = b.src.copy()
    src[b.src_len == 3, 3] = 5  # an English pad becomes a word: it sits after everything
    changed, _ = decoder_only.forward(params, cfg, src, b.src_len, tgt)
    np.testing.assert_array_equal(changed[:, :3], logits[:, :3])
    assert not np.allclose(changed[:, 3:], logits[:, 3:])


def test_without_positions_the_english_order_cannot_matter() -> None:
    """Self-attention and cross-attention without positions see the English as a bag: a
    shuffled sentence gives exactly the same Hindi logits, to rounding (§8's permutation test)."""
    cfg = _small(positions=False)
    params = init_params(cfg, np.random.default_rng(2))
    b = encode((split()[0][0],))
    shuffled = b.src.copy()
    shuffled[0, :3] = b.src[0, [2, 0, 1]]
    from mathmachine.engine.tiny.model import forward

    a, _ = forward(params, cfg, b.src, b.src_len, b.tgt_in)
    c, _ = forward(params, cfg, shuffled, b.src_len, b.tgt_in)
    np.testing.assert_allclose(a, c, rtol=0, atol=1e-12)
    with_pos = _small()
    a, _ = forward(params, with_pos, b.src, b.src_len, b.tgt_in)
    c, _ = forward(params, with_pos, shuffled, b.src_len, b.tgt_in)
    assert np.abs(a - c).max() > 1e-3


def test_a_stack_without_layernorm_is_the_plain_residual_and_refuses_norm_params() -> None:
    rng = np.random.default_rng(0)
    blk = init_block_params(rng, 8, 16)
    plain = {k: v for k, v in blk.items() if not k.startswith("ln")}
    x = rng.standard_normal((5, 8))
    out, cache = encoder_stack_forward(x, [plain], 2, layer_norm=False)
    stages = cache["layers"][0]["stages"]
    assert "ln1" not in stages and "ln2" not in stages
    np.testing.assert_allclose(stages["resid1"], x + stages["attn"], rtol=0, atol=1e-15)
    np.testing.assert_allclose(out, stages["resid1"] + stages["ffn"], rtol=0, atol=1e-15)
    # the same numbers through the lean inference kernels
    lean, _ = encoder_stack_forward(x, [plain], 2, layer_norm=False, for_backward=False)
    np.testing.assert_allclose(lean, out, rtol=0, atol=1e-12)
    probe = rng.standard_normal(out.shape)
    dx, (grads,) = encoder_stack_backward(probe, cache)

    def f() -> float:
        y, _ = encoder_stack_forward(x, [plain], 2, layer_norm=False)
        return float(np.sum(y * probe))

    assert_gradients(f, {"x": x, **plain}, {"x": dx, **grads}, tol=TOL, max_entries=12)
    with pytest.raises(ValueError, match="layer_norm=False"):
        encoder_stack_forward(x, [blk], 2, layer_norm=False)
