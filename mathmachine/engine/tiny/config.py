"""The tiny translator's configuration (:class:`TinyConfig`), the ids every vocabulary starts
with, and what the saved files record of a configuration: a leaf that the encoder–decoder
(:mod:`.model`) and the decoder-only ablation (:mod:`.decoder_only`) both read, so neither needs
the other's module to know its shape (model -> decoder_only, one way).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from .._types import Array

__all__ = [
    "BOS_ID",
    "DECODER_ONLY",
    "ENCODER_DECODER",
    "EOS_ID",
    "PAD_ID",
    "TinyConfig",
    "config_dict",
    "without_norms",
]

BOS_ID, EOS_ID, PAD_ID = 1, 2, 0  # the Hindi vocabulary starts <pad>, <s>, </s>

ENCODER_DECODER, DECODER_ONLY = "encoder-decoder", "decoder-only"


@dataclass(frozen=True)
class TinyConfig:
    src_vocab: int
    tgt_vocab: int
    d_model: int = 32
    n_heads: int = 4
    d_ff: int = 64
    enc_layers: int = 1
    dec_layers: int = 1
    activation: str = "relu"
    pre_norm: bool = False  # post-LN, as in the 2017 transformer
    emb_std: float = 0.1  # embeddings start small next to the positions (amplitude 1)
    # The ablations of §13 ("what each part buys", :mod:`.ablations`); the committed model keeps
    # every default, and :func:`config_dict` leaves defaults out, so its files do not change.
    positions: bool = True  # False: no sinusoidal positions on either side
    layer_norm: bool = True  # False: every sublayer is x + f(x), no LayerNorm anywhere
    arch: str = ENCODER_DECODER  # or DECODER_ONLY (:mod:`.decoder_only`; dec_layers blocks)

    def __post_init__(self) -> None:
        if self.arch not in (ENCODER_DECODER, DECODER_ONLY):
            raise ValueError(f"arch must be {ENCODER_DECODER!r} or {DECODER_ONLY!r}")


#: The fields added for the ablations, with their defaults (left out of the saved config).
_ABLATION_DEFAULTS = {"positions": True, "layer_norm": True, "arch": ENCODER_DECODER}


def config_dict(cfg: TinyConfig) -> dict[str, Any]:
    """The config as saved in weights.npz and history.json: every field, except the ablation
    switches left at their defaults (so the committed model's files stay byte for byte what they
    were before the switches existed); ``TinyConfig(**config_dict(cfg)) == cfg``."""
    return {
        k: v
        for k, v in asdict(cfg).items()
        if k not in _ABLATION_DEFAULTS or v != _ABLATION_DEFAULTS[k]
    }


def without_norms(params: Mapping[str, Array]) -> dict[str, Array]:
    """A block's params without its LayerNorm gains and biases (for layer_norm=False)."""
    return {k: v for k, v in params.items() if not k.startswith("ln")}
