"""Unit 18 §13: every figure the section prints agrees with the trained model, its history and the
ablation histories, read here directly (the model's walk, history.json, ablations/*.json), and
the weight counts with the arithmetic written out here part by part."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

from mathmachine.coursebook.passes.load import load_figures
from mathmachine.engine import tiny
from mathmachine.engine.tiny.training import HISTORY_PATH

UNIT_DIR = (
    Path(__file__).resolve().parents[2] / "content" / "units" / "18-attention-and-transformers"
)
FIGURES = load_figures(UNIT_DIR, 18)
F = FIGURES.values
ABLATIONS = HISTORY_PATH.parent / "ablations"


def three(x: float) -> str:
    return f"{x:.3f}".replace("-", "\u2212")


def row_of(weights: np.ndarray) -> str:
    """Thousandths adding up to exactly 1000 (largest remainders), as the page prints a row."""
    scaled = np.asarray(weights) * 1000 / np.sum(weights)
    units = np.floor(scaled).astype(int)
    for i in np.argsort(-(scaled - units), kind="stable")[: 1000 - units.sum()]:
        units[i] += 1
    return "(" + ", ".join(f"{u / 1000:.3f}" for u in units) + ")"


def test_the_weights_part_by_part() -> None:
    d, ff, v_en, v_hi = 32, 64, 45, 57
    attention = 4 * (d * d + d)  # W_Q, W_K, W_V, W_O and a bias each
    ffn = d * ff + ff + ff * d + d
    norm = 2 * d
    enc = attention + ffn + 2 * norm
    dec = 2 * attention + ffn + 3 * norm
    out = d * v_hi + v_hi
    total = v_en * d + v_hi * d + enc + dec + out
    assert (F["tt_w_enc_key"], F["tt_w_dec_key"], F["tt_w_total_key"]) == (
        str(enc),
        str(dec),
        str(total),
    )
    assert (F["tt_w_attention"], F["tt_w_ffn"], F["tt_w_norm"]) == ("4,224", "4,192", "64")
    assert F["tt_w_total"] == "26,521" == f"{tiny.load().weight_count()['total']:,}"
    # the named slips, each the count with one thing left out
    assert F["tt_wm_enc_no_bias"] == str(enc - (4 * d + ff + d))
    assert F["tt_wm_dec_no_bias"] == str(dec - (8 * d + ff + d))
    assert F["tt_wm_enc_no_norm"] == str(enc - 2 * norm)
    assert F["tt_wm_dec_no_norm"] == str(dec - 3 * norm)
    assert F["tt_wm_enc_12d2"] == str(12 * d * d)
    assert F["tt_wm_dec_no_cross"] == str(enc)
    assert F["tt_wm_total_no_emb"] == str(total - (v_en + v_hi) * d)
    assert F["tt_wm_total_no_out"] == str(total - out)
    keys = {F["tt_w_enc_key"], F["tt_w_dec_key"], F["tt_w_total_key"]}
    slips = [F[k] for k in F if k.startswith("tt_wm_")]
    assert not keys & set(slips) - {F["tt_wm_dec_no_cross"]}  # that one is the encoder's count
    assert F["tt_wm_dec_no_cross"] != F["tt_w_dec_key"]


def test_the_walk_of_i_drink_tea() -> None:
    model = tiny.load()
    w = model.walk("I drink tea")
    enc = w["encoder"]
    assert (F["tt_id_I"], F["tt_id_drink"], F["tt_id_tea"]) == tuple(
        str(i) for i in w["english_ids"]
    )
    first4 = "(" + ", ".join(three(x) for x in enc["embeddings"][1][:4]) + ", …)"
    assert F["tt_emb_drink"] == first4
    assert F["tt_pos_drink"].startswith(f"({three(math.sin(1))}, {three(math.cos(1))}, ")
    total = enc["embeddings"][1] + enc["positions"][1]
    assert F["tt_in_drink"] == "(" + ", ".join(three(x) for x in total[:4]) + ", …)"
    sa = enc["layers"][0]["self_attention"]
    head = int(F["tt_enc_subject_head"]) - 1
    assert np.argmax(sa[head, 1]) == 0 and F["tt_enc_drink_row"] == row_of(sa[head, 1])
    cross = w["decoder"]["layers"][0]["cross_attention"]
    avg = cross.mean(axis=0)
    for name, t in (("main", 0), ("chai", 1), ("peeta", 2), ("hoon", 3)):
        assert F[f"tt_cross_{name}"] == row_of(avg[t])
    assert np.argmax(avg[1]) == 2 and np.argmax(avg[2]) == 1  # tea for चाय, drink for पीता
    verb = int(F["tt_verb_head"]) - 1
    assert verb == int(np.argmax(cross[:, 2, 1])) and F["tt_cross_peeta_head"] == row_of(
        cross[verb, 2]
    )
    probs = w["probabilities"]
    for name, t in (("main", 0), ("chai", 1), ("peeta", 2), ("hoon", 3), ("end", 4)):
        assert F[f"tt_p_{name}"] == three(probs[t].max())
    assert F["tt_runner_peeta"] == "ख़रीदता"
    assert F["tt_held_hindi"] == "लड़की कहानियाँ लिखती है"
    assert F["tt_backwards_full"] == model.translate("tea drink I").text


def test_the_history_figures() -> None:
    hist = json.loads(HISTORY_PATH.read_text(encoding="utf-8"))
    assert F["tt_loss_first"] == three(hist["loss"][0])
    assert F["tt_loss_last"] == f"{hist['loss'][-1]:.4f}"
    assert F["tt_loss_uniform"] == three(math.log(57))
    by_step = {c["step"]: c for c in hist["checkpoints"]}
    assert F["tt_ck50_held_out"] == "लड़की कहानियाँ पढ़ता है"  # the verb for "reads", a boy's ending
    assert F["tt_ck100_held_out"] == "लड़की कहानियाँ लिखता है"  # the verb right, the ending not
    assert F["tt_ck200_held_out"] == " ".join(by_step[200]["sentences"][1]["greedy_output"])
    assert F["tt_ck0_peeta"] == row_of(np.asarray(by_step[0]["sentences"][0]["cross_attention"][2]))
    assert F["tt_ck200_peeta"] == row_of(
        np.asarray(by_step[200]["sentences"][0]["cross_attention"][2])
    )
    assert F["tt_ck200_held"] == f"{100 * by_step[200]['held_out_accuracy']:.1f}%"


def test_the_ablation_table() -> None:
    for name in ("no-positions", "no-layernorm", "one-head", "decoder-only"):
        h = json.loads((ABLATIONS / f"{name}.json").read_text(encoding="utf-8"))
        key = name.replace("-", "_")
        held = h["checkpoints"][-1]["held_out_accuracy"]
        printed = "100%" if held == 1 else f"{100 * held:.1f}%"
        assert F[f"tt_ab_{key}_held"] == printed
        assert F[f"tt_ab_{key}_loss"] == f"{h['loss'][-1]:.4f}"
        assert F[f"tt_ab_{key}_weights"] == f"{h['weight_count']['total']:,}"
        assert F[f"tt_ab_{key}_wrong"] == str(len(h["held_out_mistakes"]))
    assert F["tt_ab_no_layernorm_held"] == "98.6%" and F["tt_ab_no_layernorm_wrong"] == "1"
    assert F["tt_ab_noln_mistake_written"] == "मेरी माँ किताबें ख़रीदती है"
    assert F["tt_ab_nopos_backwards"] == "मैं चाय पीता हूँ"


def test_the_widgets_data_is_the_histories() -> None:
    learn = FIGURES.examples["tiny_learn"]
    names = [r["name"] for r in learn["runs"]]
    assert names == ["full", "no-positions", "no-layernorm", "one-head", "decoder-only"]
    hist = json.loads(HISTORY_PATH.read_text(encoding="utf-8"))
    full = learn["runs"][0]
    assert dict((s, v) for s, v in full["curve"])[600] == hist["loss"][-1]
    assert [c["step"] for c in full["checkpoints"]] == [0, 25, 50, 100, 200, 600]
    walk = FIGURES.examples["tiny_walk"]
    where = {p["english"]: p["where"] for p in walk["presets"]}
    assert where["I drink tea"] == "training" and where["the girl writes stories"] == "held out"
    assert where["tea drink I"] == "not in the corpus"
    assert len(walk["english_words"]) == 44


def test_the_ablations_verb_rows() -> None:
    for name in ("no-layernorm", "no-positions"):
        h = json.loads((ABLATIONS / f"{name}.json").read_text(encoding="utf-8"))
        verb = np.asarray(h["checkpoints"][-1]["sentences"][0]["cross_attention"][2])
        assert F[f"tt_ab_{name.replace('-', '_')}_peeta"] == row_of(verb)
    # without LayerNorm the verb's row hardly looks at "drink", yet the verb is written right
    h = json.loads((ABLATIONS / "no-layernorm.json").read_text(encoding="utf-8"))
    last = h["checkpoints"][-1]["sentences"][0]
    assert last["cross_attention"][2][1] < 0.1 and last["greedy_output"][2] == "पीता"


def test_the_hindi_the_prose_says_the_model_writes_is_what_it_writes() -> None:
    """The prose names what the model writes in Hindi (a {hi} role needs its transliteration
    typed beside it, so the words are typed); each is the figure computed from the model or its
    histories, so a retrained model that writes something else fails here."""
    text = (UNIT_DIR / "13-tiny-transformer.md").read_text(encoding="utf-8")
    said = {
        "tt_held_hindi": "the held-out sentence, by the trained model",
        "tt_ck50_held_out": "the held-out sentence at step 50",
        "tt_ck100_held_out": "the held-out sentence at step 100",
        "tt_ab_noln_mistake_written": "the mistake of the run without LayerNorm",
        "tt_ab_nopos_backwards": "'tea drink I' without positions",
        "tt_backwards_full": "'tea drink I' by the full model",
        "tt_runner_peeta": "the runner-up at the verb",
    }
    for name, what in said.items():
        assert f"{{hi}}`{F[name]}|" in text, f"{what}: the prose does not say {F[name]}"
    # at step 0 the model writes माँ over and over
    hist = json.loads(HISTORY_PATH.read_text(encoding="utf-8"))
    first = hist["checkpoints"][0]["sentences"][0]["greedy_output"]
    assert set(first) == {"माँ"} and "{hi}`माँ|maa` over and over" in text
