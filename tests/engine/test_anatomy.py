"""anatomy.py (§9): LayerNorm step by step against layer_norm and the closed form of (1, 2, 3);
the block walk against the block's own forward and the tiny translator's encoder; the residual
gradient against every path enumerated and a finite difference through a stack of sublayers;
the weight count against the arrays of real parameter dicts, the tiny translator and GPT-2
small's published 124,439,808."""

from __future__ import annotations

import math
from itertools import combinations

import numpy as np
import pytest

from mathmachine.engine import anatomy as A
from mathmachine.engine import (
    encoder_stack_forward,
    init_block_params,
    init_decoder_block_params,
    layer_norm,
    tiny,
    transformer_block,
)


def test_layer_norm_of_1_2_3_by_hand() -> None:
    st = A.layer_norm_steps([1.0, 2.0, 3.0])
    assert st.mean == 2.0 and st.centred.tolist() == [-1.0, 0.0, 1.0]
    assert st.variance == pytest.approx(2 / 3) and st.std == pytest.approx(math.sqrt(2 / 3))
    r = 1 / math.sqrt(2 / 3)
    assert st.output.tolist() == pytest.approx([-r, 0.0, r])
    assert st.output.round(3).tolist() == [-1.225, 0.0, 1.225]
    # the sample variance (d - 1) is the slip: (-1, 0, 1)
    assert A.layer_norm_steps([1.0, 2.0, 3.0], ddof=1).output.tolist() == pytest.approx([-1, 0, 1])


def test_layer_norm_steps_equal_layer_norm_with_gain_bias_and_eps() -> None:
    rng = np.random.default_rng(2)
    for d in (2, 5, 32):
        x, g, b = rng.standard_normal(d), rng.standard_normal(d), rng.standard_normal(d)
        for eps in (0.0, 1e-5, 0.3):
            st = A.layer_norm_steps(x, g, b, eps)
            assert np.allclose(st.output, layer_norm(x, g, b, eps=eps), rtol=0, atol=1e-13)
            assert st.normalised.mean() == pytest.approx(0.0, abs=1e-14)
            if eps == 0.0:
                assert np.mean(st.normalised**2) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="constant"):
        A.layer_norm_steps([2.0, 2.0, 2.0])
    with pytest.raises(ValueError, match="shape \\(3,\\)"):
        A.layer_norm_steps([1.0, 2.0, 3.0], gain=[1.0, 2.0])


@pytest.mark.parametrize("pre_norm", [True, False])
@pytest.mark.parametrize("activation", ["gelu", "relu"])
def test_the_walk_is_the_blocks_forward(pre_norm: bool, activation: str) -> None:
    rng = np.random.default_rng(3)
    params = init_block_params(rng, 8, 32)
    params["b1"] = rng.standard_normal(32) * 0.3
    x = rng.standard_normal((5, 8))
    out = transformer_block(x, params, 2, pre_norm=pre_norm, activation=activation)
    for token in range(5):
        w = A.block_walk(x, params, 2, token, pre_norm=pre_norm, activation=activation)
        assert w.stages[0].name == "x" and np.array_equal(w.stage("x"), x[token])
        assert np.allclose(w.stage("out"), out[token], rtol=0, atol=1e-12)
        assert w.weights.shape == (2, 5) and np.allclose(w.weights.sum(axis=1), 1)
        # each stage by its formula

        def ln(v: np.ndarray, i: int) -> np.ndarray:
            return layer_norm(v, params[f"ln{i}_g"], params[f"ln{i}_b"])

        if pre_norm:
            assert np.allclose(w.stage("ln1"), ln(x[token], 1))
            assert np.allclose(w.stage("resid1"), x[token] + w.stage("attn"))
            assert np.allclose(w.stage("ln2"), ln(w.stage("resid1"), 2))
            assert np.allclose(w.stage("out"), w.stage("resid1") + w.stage("ffn"))
            ffn_in = w.stage("ln2")
        else:
            assert np.allclose(w.stage("resid1"), x[token] + w.stage("attn"))
            assert np.allclose(w.stage("ln1"), ln(w.stage("resid1"), 1))
            assert np.allclose(w.stage("resid2"), w.stage("ln1") + w.stage("ffn"))
            assert np.allclose(w.stage("out"), ln(w.stage("resid2"), 2))
            ffn_in = w.stage("ln1")
        hid = ffn_in @ params["W1"] + params["b1"]
        assert np.allclose(w.stage("hidden_in"), hid)
        if activation == "relu":
            assert np.array_equal(w.stage("hidden"), np.maximum(hid, 0))
        assert np.allclose(w.stage("ffn"), w.stage("hidden") @ params["W2"] + params["b2"])
    with pytest.raises(ValueError, match="token must be"):
        A.block_walk(x, params, 2, 5)


def test_the_walk_through_the_tiny_translators_encoder() -> None:
    model = tiny.load()
    walk = model.walk("I drink tea")
    x = walk["encoder"]["input"]
    block = model.params["enc"]["0"]
    cfg = model.config
    for token in range(3):
        w = A.block_walk(x, block, cfg.n_heads, token, pre_norm=cfg.pre_norm,
                         activation=cfg.activation)  # fmt: skip
        assert np.allclose(w.stage("out"), walk["encoder"]["output"][token], atol=1e-12)
        assert np.allclose(w.weights, walk["encoder"]["layers"][0]["self_attention"][:, token])


def test_the_residual_gradient_path_by_path() -> None:
    rng = np.random.default_rng(4)
    for n in (1, 3, 6):
        s = rng.uniform(-0.6, 0.6, n)
        r = A.residual_gradient(s)
        subsets = [
            sum(np.prod([s[i] for i in c]) if c else 1.0 for c in combinations(range(n), j))
            for j in range(n + 1)
        ]
        assert r.by_crossings.tolist() == pytest.approx(subsets)
        assert r.by_crossings[0] == 1.0 and r.by_crossings[-1] == pytest.approx(r.without)
        assert r.by_crossings.sum() == pytest.approx(r.with_residual)
        assert r.paths == 2**n
    r = A.residual_gradient([0.1, 0.1, 0.1])
    assert (r.with_residual, r.without) == pytest.approx((1.331, 0.001))


def test_the_residual_gradient_is_the_slope_of_a_real_stack() -> None:
    """Three scalar sublayers y = x + F_l(x), F_l = a tanh(b x + c): the finite-difference slope
    of the stack is the product of (1 + F_l'(x_l)) at the points the forward visits."""
    params = [(0.7, 1.3, 0.2), (-0.4, 0.9, -0.5), (0.5, -1.1, 0.3)]

    def stack(x: float, residual: bool) -> tuple[float, list[float]]:
        slopes = []
        for a, b, c in params:
            f = a * math.tanh(b * x + c)
            slopes.append(a * b * (1 - math.tanh(b * x + c) ** 2))
            x = x + f if residual else f
        return x, slopes

    for x0 in (-1.0, 0.3, 2.0):
        for residual in (True, False):
            _, slopes = stack(x0, residual)
            h = 1e-6
            fd = (stack(x0 + h, residual)[0] - stack(x0 - h, residual)[0]) / (2 * h)
            r = A.residual_gradient(slopes)
            assert fd == pytest.approx(r.with_residual if residual else r.without, rel=1e-7)


def _size(params: dict[str, np.ndarray]) -> int:
    return sum(int(v.size) for v in params.values())


@pytest.mark.parametrize("d,d_ff", [(8, 32), (16, 24), (32, 128)])
def test_a_blocks_count_is_its_arrays(d: int, d_ff: int) -> None:
    rng = np.random.default_rng(0)
    enc = init_block_params(rng, d, d_ff)
    dec = init_decoder_block_params(rng, d, d_ff)
    c = A.model_weight_count(d, layers=1, d_ff=d_ff, bias=True, norm=True)
    assert c.block["total"] == _size(enc) == c.total
    assert c.block["attention matrices"] == 4 * d * d
    assert c.block["feed-forward matrices"] == 2 * d * d_ff
    bare = A.model_weight_count(d, d_ff=d_ff)
    assert bare.total == _size({k: v for k, v in enc.items() if k.startswith("W")})
    ed = A.model_weight_count(d, layers=1, decoder_layers=1, d_ff=d_ff, bias=True, norm=True)
    assert ed.decoder_block["total"] == _size(dec)
    # heads change nothing (only whether they divide d)
    assert A.model_weight_count(d, d_ff=d_ff, heads=4).total == bare.total
    with pytest.raises(ValueError, match="heads must divide"):
        A.model_weight_count(d, heads=3)


def test_twelve_d_squared_and_whole_models() -> None:
    c = A.model_weight_count(768)
    assert c.total == 12 * 768**2 == 7_077_888
    assert c.block["attention matrices"] == 4 * 768**2
    assert c.block["feed-forward matrices"] == 8 * 768**2
    # GPT-2 small (Radford et al. 2019; the released checkpoint's parameter count)
    gpt2 = A.model_weight_count(768, layers=12, heads=12, vocab=50257, positions=1024,
                                bias=True, norm=True, final_norm=True)  # fmt: skip
    assert gpt2.total == 124_439_808
    assert gpt2.parts["token embeddings"] == 50257 * 768 and "output layer" not in gpt2.parts
    assert gpt2.blocks == 12 * gpt2.block["total"]
    untied = A.model_weight_count(
        768, layers=12, vocab=50257, positions=1024, norm=True, shared_embeddings=False
    )
    assert untied.parts["output layer"] == 768 * 50257
    # the tiny translator, part by part
    model = tiny.load()
    cfg = model.config
    t = A.model_weight_count(cfg.d_model, layers=cfg.enc_layers, decoder_layers=cfg.dec_layers,
                             d_ff=cfg.d_ff, heads=cfg.n_heads, vocab=cfg.src_vocab,
                             target_vocab=cfg.tgt_vocab, bias=True, norm=True,
                             shared_embeddings=False)  # fmt: skip
    wc = model.weight_count()
    assert t.total == wc["total"] == 26521
    assert t.parts["encoder blocks"] == wc["encoder"] and t.parts["decoder blocks"] == wc["decoder"]
    assert t.parts["output layer"] == wc["output layer"]
    # a stack of real blocks has the count's weights
    rng = np.random.default_rng(1)
    blocks = [init_block_params(rng, 8, 32) for _ in range(3)]
    assert sum(_size(b) for b in blocks) == A.model_weight_count(
        8, layers=3, d_ff=32, bias=True, norm=True).total  # fmt: skip
    out, _ = encoder_stack_forward(rng.standard_normal((4, 8)), blocks, 2)
    assert out.shape == (4, 8)
    with pytest.raises(ValueError, match="at least one block"):
        A.model_weight_count(8, layers=0)
    with pytest.raises(ValueError, match="one vocabulary"):
        A.model_weight_count(8, decoder_layers=1, vocab=10, target_vocab=12)
