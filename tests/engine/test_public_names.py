"""The engine's public names: no function hides the module it lives in, and the block functions
take everything after ``n_heads`` by keyword (two booleans in a row, ``causal`` and
``pre_norm``, can never be swapped by position)."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import numpy as np
import pytest

import mathmachine.engine as engine
from mathmachine.engine import block

MODULES = sorted(
    m.name for m in pkgutil.walk_packages(engine.__path__, prefix="mathmachine.engine.")
)
BLOCK_FUNCTIONS = [
    "transformer_block",
    "transformer_block_forward",
    "decoder_block",
    "decoder_block_forward",
    "encoder_stack",
    "encoder_stack_forward",
    "decoder_stack",
    "decoder_stack_forward",
]


@pytest.mark.parametrize("name", MODULES)
def test_no_public_name_shadows_a_module(name: str) -> None:
    module = importlib.import_module(name)
    parent, _, leaf = name.rpartition(".")
    assert getattr(importlib.import_module(parent), leaf) is module, (
        f"{parent}.{leaf} is not the module {name}: a name exported by {parent} hides it"
    )


def test_attention_and_softmax_are_the_functions_and_their_modules_have_other_names() -> None:
    assert inspect.isfunction(engine.attention) and inspect.isfunction(engine.softmax)
    assert engine.attention.__module__ == "mathmachine.engine.dot_product"
    assert engine.softmax.__module__ == "mathmachine.engine.shares"
    assert "mathmachine.engine.attention" not in MODULES
    assert "mathmachine.engine.softmax" not in MODULES


@pytest.mark.parametrize("name", BLOCK_FUNCTIONS)
def test_every_argument_after_n_heads_is_keyword_only(name: str) -> None:
    params = list(inspect.signature(getattr(block, name)).parameters.values())
    after = params[[p.name for p in params].index("n_heads") + 1 :]
    assert after, name
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in after), [
        (p.name, p.kind.name) for p in after if p.kind is not inspect.Parameter.KEYWORD_ONLY
    ]
    assert getattr(engine, name) is getattr(block, name)


def test_a_mask_passed_by_position_is_refused() -> None:
    rng = np.random.default_rng(0)
    params = block.init_block_params(rng, 4, 8)
    x = rng.standard_normal((3, 4))
    with pytest.raises(TypeError):
        block.transformer_block(x, params, 2, engine.causal_mask(3))  # type: ignore[misc]
    masked = block.transformer_block(x, params, 2, mask=engine.causal_mask(3))
    assert masked.shape == (3, 4)
