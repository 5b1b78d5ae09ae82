"""§9 The transformer block: LayerNorm by hand, one token ("tea" in "I drink tea") through the
tiny translator's trained encoder block stage by stage, the gradient through residuals, and the
weights of a block and of a whole model (one engine function: model_weight_count). Every printed
number from mathmachine.engine.anatomy and the tiny translator."""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np

from mathmachine.engine import tiny
from mathmachine.engine.anatomy import (
    BlockWalk,
    block_walk,
    layer_norm_steps,
    model_weight_count,
    residual_gradient,
)
from mathmachine.printing import count, dec, plain, vec

from .variants import distinct, draw

EXAMPLES: dict[str, Any] = {
    # the check and the by-hand
    "layer_norm": {
        "x": [1.0, 2.0, 3.0],
        "gain": [2.0, 2.0, 2.0],
        "bias": [1.0, 1.0, 1.0],
        "constant": [5.0, 5.0, 5.0],
        "eps": 1e-5,
    },
    # widget 12: the tiny translator's encoder block on its own sentence, the word it follows
    # first, and its weight counter's widths (d_ff = 4 d) with the one it starts at
    "block": {
        "sentence": "I drink tea",
        "token": 2,
        "widths": [32, 64, 128, 256, 384, 512, 768, 1024, 1280, 1600, 2048, 4096, 8192, 12288],
        "d_default": 768,
    },
    # the models the prose counts
    "check_d": 768,
    "gpt2": {"d_model": 768, "layers": 12, "heads": 12, "vocab": 50257, "positions": 1024},
    # the gradient highway: six sublayers' own slopes at some point
    "slopes": [0.3, -0.2, 0.1, -0.4, 0.2, -0.1],
    "check_slope": 0.1,
    "check_layers": 3,
}


def tiny_walk(token: int | None = None, *, pre_norm: bool | None = None) -> BlockWalk:
    """One token of the example sentence through the tiny translator's encoder block, run as it
    was trained (post-LN) unless ``pre_norm`` says otherwise."""
    model = tiny.load()
    ex = EXAMPLES["block"]
    x = model.walk(ex["sentence"])["encoder"]["input"]
    cfg = model.config
    return block_walk(
        x,
        model.params["enc"]["0"],
        cfg.n_heads,
        ex["token"] if token is None else token,
        pre_norm=cfg.pre_norm if pre_norm is None else pre_norm,
        activation=cfg.activation,
    )


def _spread(v: np.ndarray) -> float:
    return float(np.sqrt(np.mean((v - v.mean()) ** 2)))


def figures() -> dict[str, str]:
    """Every number §9 prints."""
    f: dict[str, str] = {}

    # --- LayerNorm by hand, and the check
    ex = EXAMPLES["layer_norm"]
    ln = layer_norm_steps(ex["x"])
    f["blk_ln_x"] = vec(ex["x"], plain)
    f["blk_ln_d"] = str(len(ex["x"]))
    f["blk_ln_mean"] = plain(ln.mean)
    f["blk_ln_centred"] = vec(ln.centred, plain)
    f["blk_ln_squares"] = " + ".join(plain(c * c) for c in ln.centred)
    var = Fraction(ln.variance).limit_denominator(100)
    f["blk_ln_var_frac"] = f"{var.numerator}/{var.denominator}"
    f["blk_ln_var"] = dec(ln.variance)
    f["blk_ln_std"] = dec(ln.std)
    f["blk_ln_answer"] = vec(ln.output)
    f["blk_ln_n1"] = vec(layer_norm_steps(ex["x"], ddof=1).output)  # divided by d - 1
    f["blk_ln_by_var"] = vec(ln.centred / ln.variance)  # forgot the square root
    f["blk_ln_uncentred"] = vec(ln.x / ln.std)  # divided without subtracting the mean
    if not distinct(f["blk_ln_answer"], f["blk_ln_n1"], f["blk_ln_by_var"], f["blk_ln_uncentred"]):
        raise AssertionError("the LayerNorm check's slips must print differently")
    gained = layer_norm_steps(ex["x"], ex["gain"], ex["bias"])
    f["blk_ln_gain"], f["blk_ln_bias"] = vec(ex["gain"], plain), vec(ex["bias"], plain)
    f["blk_ln_gained"] = vec(gained.output)
    f["blk_ln_const"] = vec(ex["constant"], plain)
    f["blk_ln_eps"] = "10^{" + plain(round(math.log10(ex["eps"]))) + "}"  # 10^{−5}, for a formula
    with_eps = layer_norm_steps(ex["x"], eps=ex["eps"])
    f["blk_ln_eps_top"] = dec(float(with_eps.output[-1]), 6)
    f["blk_ln_no_eps_top"] = dec(float(ln.output[-1]), 6)

    # --- one token through the trained block (post-LN), and the same weights run pre-LN
    model = tiny.load()
    cfg = model.config
    bex = EXAMPLES["block"]
    words = model.walk(bex["sentence"])["english"]
    post = tiny_walk()
    pre = tiny_walk(pre_norm=True)
    if cfg.pre_norm:
        raise AssertionError("the tiny translator is post-LN: the prose says so")
    f["blk_word"] = words[bex["token"]]
    f["blk_sentence"] = bex["sentence"]
    f["blk_d"], f["blk_heads"], f["blk_dff"] = str(cfg.d_model), str(cfg.n_heads), str(cfg.d_ff)
    f["blk_dk"] = str(cfg.d_model // cfg.n_heads)
    for name in post.names:
        v = post.stage(name)
        f[f"blk_post_{name}_head"] = vec(v[:3])
        f[f"blk_post_{name}_mean"] = dec(float(v.mean()), 2)
        f[f"blk_post_{name}_spread"] = dec(_spread(v), 2)
    for name in pre.names:
        v = pre.stage(name)
        f[f"blk_pre_{name}_spread"] = dec(_spread(v), 2)
    hidden = post.stage("hidden")
    f["blk_hidden_zero"] = str(int(np.sum(hidden == 0.0)))
    f["blk_hidden_kept"] = str(int(np.sum(hidden > 0.0)))
    f["blk_weights_tea"] = vec(post.weights.mean(axis=0))
    f["blk_enc_weights"] = count(model.weight_count()["encoder"])
    tiny_block = model_weight_count(cfg.d_model, d_ff=cfg.d_ff, heads=cfg.n_heads, bias=True,
                                    norm=True)  # fmt: skip
    if tiny_block.total != model.weight_count()["encoder"]:
        raise AssertionError("the count must be the tiny translator's encoder block")
    f["blk_enc_matrices"] = count(
        tiny_block.block["attention matrices"] + tiny_block.block["feed-forward matrices"]
    )
    f["blk_enc_small"] = count(
        tiny_block.total
        - tiny_block.block["attention matrices"]
        - tiny_block.block["feed-forward matrices"]
    )

    # --- the gradient highway
    slopes = EXAMPLES["slopes"]
    g = residual_gradient(slopes)
    f["blk_res_slopes"] = vec(slopes, plain)
    f["blk_res_layers"] = str(len(slopes))
    f["blk_res_paths"] = str(g.paths)
    f["blk_res_without"] = dec(g.without, 6)
    f["blk_res_with"] = dec(g.with_residual)
    f["blk_res_first"] = dec(float(g.by_crossings[1]))
    c_slope, c_n = EXAMPLES["check_slope"], EXAMPLES["check_layers"]
    gc = residual_gradient([c_slope] * c_n)
    one = residual_gradient([c_slope])
    f["blk_res_check_slope"] = plain(c_slope)
    f["blk_res_check_layers"] = str(c_n)
    f["blk_res_check_one"] = dec(one.with_residual, 1)
    f["blk_res_check_with"] = dec(gc.with_residual)
    f["blk_res_check_without"] = dec(gc.without)
    f["blk_res_check_sum"] = dec(1 + c_n * c_slope)  # added the slopes
    f["blk_res_check_times"] = dec(c_n * one.with_residual)  # times instead of to the power
    f["blk_res_check_crossings"] = vec(gc.by_crossings)

    # --- weights: a block at d = 768, and GPT-2 small
    d = EXAMPLES["check_d"]
    blk = model_weight_count(d)
    f["blk_check_d"] = str(d)
    f["blk_width_min"] = count(min(EXAMPLES["block"]["widths"]))
    f["blk_width_max"] = count(max(EXAMPLES["block"]["widths"]))
    f["blk_check_attn"] = count(blk.block["attention matrices"])
    f["blk_check_ffn"] = count(blk.block["feed-forward matrices"])
    f["blk_check_total"] = str(blk.total)
    f["blk_check_total_printed"] = count(blk.total)
    f["blk_check_dff"] = str(4 * d)
    f["blk_check_d2"] = count(d * d)
    f["blk_check_no_wo"] = str(blk.total - d * d)
    f["blk_check_no_w2"] = str(blk.total - d * 4 * d)
    f["blk_check_attn_only"] = str(blk.block["attention matrices"])
    f["blk_check_ffn_square"] = str(4 * d * d + 2 * d * d)  # d_ff = d
    with_b = model_weight_count(d, bias=True, norm=True)
    f["blk_check_biased"] = count(with_b.total)
    f["blk_check_bias_part"] = count(with_b.total - blk.total)
    gp = EXAMPLES["gpt2"]
    gpt2 = model_weight_count(gp["d_model"], layers=gp["layers"], heads=gp["heads"],
                              vocab=gp["vocab"], positions=gp["positions"], bias=True, norm=True,
                              final_norm=True)  # fmt: skip
    f["blk_gpt2_layers"] = str(gp["layers"])
    f["blk_gpt2_vocab"] = count(gp["vocab"])
    f["blk_gpt2_positions"] = count(gp["positions"])
    f["blk_gpt2_total"] = count(gpt2.total)
    f["blk_gpt2_blocks"] = count(gpt2.parts["blocks"])
    f["blk_gpt2_block"] = count(gpt2.block["total"])
    f["blk_gpt2_emb"] = count(gpt2.parts["token embeddings"])
    f["blk_gpt2_pos"] = count(gpt2.parts["position embeddings"])
    f["blk_gpt2_final"] = count(gpt2.parts["final LayerNorm"])
    f["blk_gpt2_blocks_share"] = f"{round(100 * gpt2.parts['blocks'] / gpt2.total)}%"
    f["blk_gpt2_12d2L"] = count(12 * gp["d_model"] ** 2 * gp["layers"])
    return f


# --------------------------------------------------------------------------------------------
# §15, the practice arena: LayerNorm with a gain and a bias, and a block's weights

# centred vectors of 4 or 5 whole numbers whose spread (1, 2, 4 or 5) divides a power of ten, so
# that x-hat has short decimals and a learner's hand path is exact; not all of one size, such as
# (-1, 1, 1, -1)
_SPREADS = (1, 2, 4, 5)


def _centred(d: int, top: int) -> list[tuple[int, ...]]:
    grid = np.stack(np.meshgrid(*[np.arange(-top, top + 1)] * d, indexing="ij"), -1).reshape(-1, d)
    grid = grid[grid.sum(axis=1) == 0]
    grid = grid[np.isin((grid * grid).sum(axis=1), [d * s * s for s in _SPREADS])]
    keep = [np.unique(np.abs(c)).size >= 2 for c in grid]
    return [tuple(int(v) for v in c) for c in grid[keep]]


_CENTRED = {4: _centred(4, 9), 5: _centred(5, 7)}
_GAINS = (0.5, 1.0, 1.5, 2.0, 3.0, -1.0)
_BIASES = (-1.0, -0.5, 0.0, 0.5, 1.0, 2.0)


def layer_norm_affine(seed: int) -> dict[str, str]:
    """Problem 13: LayerNorm of four or five numbers with a gain and a bias (eps ignored)."""

    def make(rng: np.random.Generator) -> dict[str, str] | None:
        d = int(rng.choice([4, 5]))
        options = _CENTRED[d]
        centred = np.asarray(options[int(rng.integers(len(options)))], dtype=float)
        x = centred + float(rng.integers(-3, 6))
        st = layer_norm_steps(x)
        std = st.std
        gain = rng.choice(_GAINS, size=d)
        bias = rng.choice(_BIASES, size=d)
        if np.all(gain == 1.0) or np.all(bias == 0.0):
            return None
        key = layer_norm_steps(x, gain, bias)
        slips = {
            "n_minus_1": layer_norm_steps(x, gain, bias, ddof=1).output,
            "no_gain_bias": st.normalised,
            "bias_first": gain * (st.normalised + bias),
            "by_variance": gain * st.centred / st.variance + bias,
        }
        printed = [vec(key.output), *(vec(v) for v in slips.values())]
        if not distinct(*printed) or int(np.sum(np.abs(key.output) < 1e-9)) > 1:
            return None
        return {
            "x": vec(x, plain),
            "gain": vec(gain, plain),
            "bias": vec(bias, plain),
            "d": str(d),
            "mean": plain(st.mean),
            "centred": vec(st.centred, plain),
            "squares": " + ".join(plain(c * c) for c in st.centred),
            "sum_squares": plain(float(np.sum(st.centred**2))),
            "variance": plain(st.variance),
            "std": plain(std),
            "normalised": vec(st.normalised, plain),
            "answer": vec(key.output),
            **{k: vec(v) for k, v in slips.items()},
        }

    return draw(seed, make)


# d_ff = d x ratio, never 4 (the check of §9 has d_ff = 4 d; here the 4 d habit is the slip);
# 8/3 is the width of LLaMA-style feed-forward layers
_FF_RATIOS = ((2, 1), (5, 2), (3, 1), (8, 3))


def block_weights(seed: int) -> dict[str, str]:
    """Problem 14: the weights of one block for given d and d_ff: attention, feed-forward, and
    the block with every bias and both LayerNorms."""

    def make(rng: np.random.Generator) -> dict[str, str] | None:
        d = 32 * int(rng.integers(6, 65))  # 192 .. 2048
        num, den = _FF_RATIOS[int(rng.integers(len(_FF_RATIOS)))]
        if (d * num) % den:
            return None
        d_ff = d * num // den
        c = model_weight_count(d, d_ff=d_ff)
        cb = model_weight_count(d, d_ff=d_ff, bias=True, norm=True)
        attn, ffn = c.block["attention matrices"], c.block["feed-forward matrices"]
        slips = {
            "no_wo": 3 * d * d,
            "one_ffn": d * d_ff,
            "four_d": 2 * d * 4 * d,  # used 4 d instead of the given d_ff
            "no_norms": c.total + 4 * d + d_ff + d,  # biases, but no LayerNorms
        }
        # each slip against the key of its own box (boxes may share a number: d_ff = 2 d)
        if not (
            distinct(str(attn), str(slips["no_wo"]))
            and distinct(str(ffn), str(slips["one_ffn"]), str(slips["four_d"]))
            and distinct(str(cb.total), str(slips["no_norms"]))
        ):
            return None
        return {
            "d": str(d),
            "d_ff": str(d_ff),
            "d2": str(d * d),
            "attn": str(attn),
            "ffn": str(ffn),
            "matrices": str(c.total),
            "attn_bias": str(4 * d),
            "ffn_bias": str(d_ff + d),
            "norms": str(4 * d),
            "total": str(cb.total),
            "no_wo": str(slips["no_wo"]),
            "one_ffn": str(slips["one_ffn"]),
            "four_d": str(slips["four_d"]),
            "no_norms": str(slips["no_norms"]),
            "ratio": f"{num}/{den}" if den != 1 else str(num),
        }

    return draw(seed, make)


VARIANTS: dict[str, Callable[[int], dict[str, str]]] = {
    "layer_norm_affine": layer_norm_affine,
    "block_weights": block_weights,
}

__all__ = ["EXAMPLES", "VARIANTS", "figures", "tiny_walk"]
