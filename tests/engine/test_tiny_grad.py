"""The whole tiny translator's gradient (every op's hand-written backward, wired together) against
central finite differences in float64."""

from __future__ import annotations

import numpy as np
import pytest
from gradcheck import assert_gradients

from mathmachine.engine.tiny.corpus import encode, split, vocab
from mathmachine.engine.tiny.model import TinyConfig, init_params, loss, loss_and_grads
from mathmachine.engine.train import flatten

# float64 central differences (h = 1e-6) agree with a correct backward to ~1e-9 relative;
# a wrong term in any backward shows up as 1e-2 or worse.
TOL = 1e-6


@pytest.mark.parametrize(
    ("pre_norm", "activation", "layers"), [(False, "relu", 1), (True, "gelu", 2)]
)
def test_whole_model_gradient_matches_finite_differences(
    pre_norm: bool, activation: str, layers: int
) -> None:
    v = vocab()
    cfg = TinyConfig(
        src_vocab=len(v.english),
        tgt_vocab=len(v.hindi),
        d_model=8,
        n_heads=2,
        d_ff=12,
        enc_layers=layers,
        dec_layers=layers,
        activation=activation,
        pre_norm=pre_norm,
        emb_std=1.0,
    )
    rng = np.random.default_rng(3)
    params = init_params(cfg, rng)
    # non-trivial biases and gains, so their gradients are exercised away from the init values
    for key, a in flatten(params).items():
        if key.rsplit(".", 1)[-1].startswith(("b", "ln")):
            a += 0.3 * rng.standard_normal(a.shape)
    train, held = split()
    # sentences of 3 and 4 English words and 5 and 6 Hindi positions: padding on both sides
    mother = next(p for p in held if p.subject.english == "my mother")
    pairs = (train[0], mother, train[-1])
    batch = encode(pairs)
    assert len(set(batch.src_len.tolist())) == 2 and len(set(batch.tgt_len.tolist())) == 2

    value, grads = loss_and_grads(params, cfg, batch)
    assert np.isfinite(value) and value > 0
    assert value == loss(params, cfg, batch)
    flat_p, flat_g = flatten(params), flatten(grads)
    assert flat_p.keys() == flat_g.keys()

    def f() -> float:
        return loss(params, cfg, batch)

    assert_gradients(f, flat_p, flat_g, tol=TOL, max_entries=24)
    # rows of words that are not in the batch get exactly zero gradient
    unused = np.setdiff1d(np.arange(cfg.src_vocab), batch.src)
    assert np.all(grads["src_emb"][unused] == 0)


def test_gradient_check_catches_a_broken_backward() -> None:
    """The check above can fail: a gradient off by a small factor is caught."""
    v = vocab()
    cfg = TinyConfig(len(v.english), len(v.hindi), d_model=8, n_heads=2, d_ff=12, emb_std=1.0)
    params = init_params(cfg, np.random.default_rng(0))
    batch = encode(split()[0][:2])
    _, grads = loss_and_grads(params, cfg, batch)
    wrong = {"dec.0.cross_W_q": grads["dec"]["0"]["cross_W_q"] * 1.01}

    def f() -> float:
        return loss(params, cfg, batch)

    with pytest.raises(AssertionError, match="off"):
        assert_gradients(f, {"dec.0.cross_W_q": params["dec"]["0"]["cross_W_q"]}, wrong, tol=TOL)
