"""§13 A tiny transformer, whole: the engine's trained English → Hindi translator
(mathmachine.engine.tiny): its corpus and shape, its weights counted, "I drink tea" walked
through every tensor, the held-out sentence, the training history (history.json) and the four
ablation runs (mathmachine.engine.tiny.ablations, their kept histories). Every printed number
from the engine or from the histories its training runs wrote.

Heads count from 1 on the page (the engine counts from 0).
"""

from __future__ import annotations

import json
import math
from functools import cache
from typing import Any

import numpy as np

from mathmachine.engine import block_weight_count, shares_rounded, sinusoidal_positions, tiny
from mathmachine.engine.anatomy import model_weight_count
from mathmachine.engine.tiny import ablations
from mathmachine.engine.tiny.corpus import (
    MAX_ENGLISH,
    OBJECTS,
    SUBJECTS,
    VERB_OBJECTS,
    VERBS,
    all_pairs,
    provenance,
    split,
    vocab,
)
from mathmachine.engine.tiny.training import HISTORY_PATH, TrainSettings
from mathmachine.printing import count, dec, percent, vec

RUNNING = "I drink tea"
HELD_OUT = "the girl writes stories"  # a held-out pair the history watches
#: sentences the walk offers: training pairs, held-out pairs, and two the corpus never makes
PRESETS = (
    RUNNING,
    "she eats rice",
    "my mother drinks tea",
    HELD_OUT,
    "the children buy mangoes",
    "Ravi reads poems",
    "tea drink I",
    "I drink books",
)
FIRST = 4  # the page prints the first four of a vector's 32 numbers


@cache
def _model() -> tiny.TinyTranslator:
    return tiny.load()


@cache
def _history() -> dict[str, Any]:
    out: dict[str, Any] = json.loads(HISTORY_PATH.read_text(encoding="utf-8"))
    return out


def pct(x: float) -> str:
    """An accuracy as printed: 100%, 98.6%."""
    return percent(x)


def row(weights: np.ndarray) -> str:
    """A row of attention weights as printed: three decimals adding up to exactly 1."""
    return vec([u / 1000 for u in shares_rounded(weights, 3)])


def first(xs: np.ndarray) -> str:
    """The first four of a vector's numbers, and an ellipsis for the rest."""
    return "(" + ", ".join(dec(x) for x in xs[:FIRST]) + ", …)"


def _curve(loss: list[float], every: int = 5) -> list[list[float]]:
    """[step, loss] points for a plot: every ``every``-th step and the last (steps from 1)."""
    steps = sorted({*range(every, len(loss) + 1, every), 1, len(loss)})
    return [[s, loss[s - 1]] for s in steps]


def _checkpoints(hist: dict[str, Any]) -> list[dict[str, Any]]:
    """The watched sentences' maps at each checkpoint, as a widget draws them."""
    out = []
    for c in hist["checkpoints"]:
        sentences = []
        for s in c["sentences"]:
            key = "cross_attention" if "cross_attention" in s else "attention_on_english"
            sentences.append(
                {
                    "english": s["english"],
                    "hindi": s["hindi"],
                    "map": s[key],
                    "written": s["greedy_output"],
                }
            )
        out.append(
            {
                "step": c["step"],
                "train_accuracy": c["train_accuracy"],
                "held_out_accuracy": c["held_out_accuracy"],
                "sentences": sentences,
            }
        )
    return out


def _runs() -> list[dict[str, Any]]:
    """The committed model and the four ablations, as widget 17 compares them."""
    full = _history()
    runs = [
        {
            "name": "full",
            "title": "the full model",
            "removed": "Nothing: the model of this section.",
            "weights": _model().weight_count()["total"],
            "final_loss": full["loss"][-1],
            "held_out_accuracy": full["checkpoints"][-1]["held_out_accuracy"],
            "train_accuracy": full["checkpoints"][-1]["train_accuracy"],
            "curve": _curve(full["loss"]),
            "checkpoints": _checkpoints(full),
            "held_out_mistakes": [],
            "order_test": [
                {"english": t, "written": _model().translate(t).hindi} for t in ablations.ORDER_TEST
            ],
        }
    ]
    for a in ablations.ABLATIONS:
        h = ablations.committed(a.name)
        sm = ablations.summary(h)
        runs.append(
            {
                "name": a.name,
                "title": a.title,
                "removed": a.removed,
                "weights": sm["weights"],
                "final_loss": sm["final_loss"],
                "held_out_accuracy": sm["held_out_accuracy"],
                "train_accuracy": sm["train_accuracy"],
                "curve": _curve(h["loss"]),
                "checkpoints": _checkpoints(h),
                "held_out_mistakes": h["held_out_mistakes"],
                "order_test": h["order_test"],
            }
        )
    return runs


def _examples() -> dict[str, Any]:
    v = vocab()
    return {
        "tiny_walk": {
            "sentence": RUNNING,
            "presets": [{"english": p, "where": provenance(p)[1]} for p in PRESETS],
            "english_words": sorted(w for w in v.english[1:]),
            "max_words": MAX_ENGLISH,
        },
        "tiny_learn": {"runs": _runs(), "watch": list(_history()["watch_sentences"])},
    }


EXAMPLES: dict[str, Any] = _examples()


def figures() -> dict[str, str]:
    """Every number §13 prints."""
    model = _model()
    cfg = model.config
    v = vocab()
    train, held = split()
    f: dict[str, str] = {}

    # --- the corpus
    f["tt_subjects"], f["tt_verbs"], f["tt_objects"] = map(
        str, (len(SUBJECTS), len(VERBS), len(OBJECTS))
    )
    f["tt_combos"] = str(sum(len(o) for o in VERB_OBJECTS.values()))
    f["tt_pairs"], f["tt_train"], f["tt_held"] = map(str, (len(all_pairs()), len(train), len(held)))
    f["tt_held_pct"] = percent(len(held) / len(all_pairs()), 0)
    f["tt_en_words"], f["tt_hi_words"] = str(len(v.english) - 1), str(len(v.hindi) - 3)
    f["tt_en_vocab"], f["tt_hi_vocab"] = str(len(v.english)), str(len(v.hindi))
    f["tt_max_words"] = str(MAX_ENGLISH)

    # --- the model and its training
    f["tt_d"], f["tt_heads"], f["tt_dff"] = map(str, (cfg.d_model, cfg.n_heads, cfg.d_ff))
    f["tt_dk"] = str(cfg.d_model // cfg.n_heads)
    s = TrainSettings()
    hist = _history()
    if hist["settings"]["steps"] != s.steps or hist["config"]["d_model"] != cfg.d_model:
        raise AssertionError("history.json is not the committed run's")
    f["tt_steps"], f["tt_batch"] = str(s.steps), str(s.batch_size)
    f["tt_lr"], f["tt_lr_last"] = dec(s.lr, 3), dec(s.lr * s.final_lr_fraction, 4)
    last = hist["checkpoints"][-1]
    f["tt_acc_train"], f["tt_acc_held"] = (
        pct(last["train_accuracy"]),
        pct(last["held_out_accuracy"]),
    )
    f["tt_loss_first"], f["tt_loss_last"] = dec(hist["loss"][0]), dec(hist["loss"][-1], 4)
    f["tt_loss_uniform"] = dec(math.log(len(v.hindi)))  # -log(1/57): a guess spread evenly

    # --- check: the weights, counted by the engine from the configuration
    # (anatomy.model_weight_count) and held to the count of the real arrays
    def counted(**changes: Any) -> Any:
        kw: dict[str, Any] = {
            "layers": cfg.enc_layers,
            "decoder_layers": cfg.dec_layers,
            "d_ff": cfg.d_ff,
            "heads": cfg.n_heads,
            "vocab": len(v.english),
            "target_vocab": len(v.hindi),
            "bias": True,
            "norm": True,
            "shared_embeddings": False,
        }
        return model_weight_count(cfg.d_model, **(kw | changes))

    wc = counted()
    arrays = model.weight_count()
    enc_w, dec_w = wc.block["total"], wc.decoder_block["total"]
    if (enc_w, dec_w, wc.total) != (arrays["encoder"], arrays["decoder"], arrays["total"]):
        raise AssertionError("the count from the configuration must be the arrays' count")
    b = wc.block
    d = cfg.d_model
    parts = {
        "attention": (b["attention matrices"] + b["attention biases"]),
        "ffn": b["feed-forward matrices"] + b["feed-forward biases"],
        "norm": b["LayerNorm gains and biases"] // 2,
        "enc": enc_w,
        "dec": dec_w,
        "out": wc.parts["output layer"],
        "emb_en": wc.parts["token embeddings"],
        "emb_hi": wc.parts["target embeddings"],
        "total": wc.total,
    }
    if parts["attention"] != 4 * (d * d + d) or parts["norm"] != 2 * d:
        raise AssertionError("one attention is 4 (d² + d); one LayerNorm 2 d")
    for k, n in parts.items():
        f[f"tt_w_{k}"] = count(n)
    f["tt_w_enc_key"], f["tt_w_dec_key"], f["tt_w_total_key"] = map(str, (enc_w, dec_w, wc.total))
    no_bias, no_norm = counted(bias=False), counted(norm=False)
    f["tt_wm_enc_no_bias"] = str(no_bias.block["total"])
    f["tt_wm_dec_no_bias"] = str(no_bias.decoder_block["total"])
    f["tt_wm_enc_no_norm"] = str(no_norm.block["total"])
    f["tt_wm_dec_no_norm"] = str(no_norm.decoder_block["total"])
    f["tt_wm_enc_12d2"] = str(block_weight_count(d))  # the rule of thumb: d_ff = 4 d, no biases
    f["tt_wm_dec_no_cross"] = str(enc_w)  # the decoder counted like an encoder block
    f["tt_wm_total_no_emb"] = str(wc.total - parts["emb_en"] - parts["emb_hi"])
    f["tt_wm_total_no_out"] = str(wc.total - parts["out"])
    f["tt_w_d2"] = count(d * d)
    f["tt_w_d_dff"] = count(d * cfg.d_ff)

    # --- the walk, by hand: "I drink tea"
    walk = model.walk(RUNNING)
    enc, dec_ = walk["encoder"], walk["decoder"]
    words = walk["english"]
    for word, i in zip(words, walk["english_ids"], strict=True):
        f[f"tt_id_{word}"] = str(int(i))
    drink = words.index("drink")
    f["tt_emb_drink"] = first(enc["embeddings"][drink])
    f["tt_pos_drink"] = first(enc["positions"][drink])
    f["tt_in_drink"] = first(enc["input"][drink])
    pe = sinusoidal_positions(2, cfg.d_model)[1]
    if not np.allclose(pe, enc["positions"][drink]):
        raise AssertionError("'drink' stands at position 1 (counting from 0)")
    f["tt_sin1"], f["tt_cos1"] = dec(math.sin(1)), dec(math.cos(1))
    # encoder self-attention: the head in which "drink" looks hardest at "I"
    sa = enc["layers"][0]["self_attention"]  # [H, S, S]
    h_subj = int(np.argmax(sa[:, drink, 0]))
    f["tt_enc_subject_head"] = str(h_subj + 1)
    f["tt_enc_drink_row"] = row(sa[h_subj, drink])
    f["tt_enc_drink_on_I"] = dec(shares_rounded(sa[h_subj, drink], 3)[0] / 1000)
    f["tt_enc_out_drink"] = first(enc["output"][drink])
    # decoder: what it chooses at each position, and the cross-attention rows
    top = walk["top"]
    if walk["chosen"] != ["मैं", "चाय", "पीता", "हूँ", "</s>"]:
        raise AssertionError("the model must translate the running example")
    f["tt_p_main"] = dec(top[0][0][1])
    f["tt_p_chai"] = dec(top[1][0][1])
    f["tt_p_peeta"] = dec(top[2][0][1])
    f["tt_p_hoon"] = dec(top[3][0][1])
    f["tt_p_end"] = dec(top[4][0][1])
    f["tt_runner_peeta"] = top[2][1][0]
    f["tt_p_runner_peeta"] = dec(top[2][1][1])
    f["tt_logit_max"] = dec(float(walk["logits"][0].max()), 2)
    cross = dec_["layers"][0]["cross_attention"]  # [H, T, S]
    avg = cross.mean(axis=0)
    f["tt_cross_main"] = row(avg[0])
    f["tt_cross_chai"] = row(avg[1])
    f["tt_cross_peeta"] = row(avg[2])
    f["tt_cross_hoon"] = row(avg[3])
    h_verb = int(np.argmax(cross[:, 2, drink]))
    f["tt_verb_head"] = str(h_verb + 1)
    f["tt_cross_peeta_head"] = row(cross[h_verb, 2])
    h_aux = int(np.argmax(cross[:, 3, 0]))
    f["tt_aux_head"] = str(h_aux + 1)
    f["tt_cross_hoon_head"] = row(cross[h_aux, 3])
    if int(np.argmax(avg[2])) != drink or int(np.argmax(avg[1])) != words.index("tea"):
        raise AssertionError("the map must bend: चाय looks at tea, पीता at drink")

    # --- a sentence it never saw
    t = model.translate(HELD_OUT)
    pair, where = provenance(HELD_OUT)
    if where != "held out" or pair is None or t.hindi != list(pair.hindi):
        raise AssertionError(f"{HELD_OUT!r} is a held-out pair the model translates right")
    f["tt_held_en"] = HELD_OUT
    f["tt_held_hindi"] = t.text
    f["tt_held_translit"] = " ".join(t.translit)
    f["tt_backwards"] = ablations.ORDER_TEST[1]
    f["tt_backwards_full"] = model.translate(ablations.ORDER_TEST[1]).text

    # --- watch it learn: the checkpoints of history.json
    cps = {c["step"]: c for c in hist["checkpoints"]}
    for step, c in cps.items():
        f[f"tt_ck{step}_held"] = pct(c["held_out_accuracy"])
        f[f"tt_ck{step}_train"] = pct(c["train_accuracy"])
        run_s, held_s = c["sentences"]
        f[f"tt_ck{step}_run"] = " ".join(run_s["greedy_output"])
        f[f"tt_ck{step}_held_out"] = " ".join(held_s["greedy_output"])
        f[f"tt_ck{step}_peeta"] = row(np.asarray(run_s["cross_attention"][2]))
        f[f"tt_ck{step}_chai"] = row(np.asarray(run_s["cross_attention"][1]))
        f[f"tt_ck{step}"] = str(step)
    f["tt_ck0_first_word"] = cps[0]["sentences"][0]["greedy_output"][0]

    # --- the ablations
    for r in _runs():
        key = r["name"].replace("-", "_")
        f[f"tt_ab_{key}_held"] = pct(r["held_out_accuracy"])
        f[f"tt_ab_{key}_loss"] = dec(r["final_loss"], 4)
        f[f"tt_ab_{key}_weights"] = count(r["weights"])
        step100 = next(c for c in r["checkpoints"] if c["step"] == 100)
        f[f"tt_ab_{key}_held100"] = pct(step100["held_out_accuracy"])
        f[f"tt_ab_{key}_wrong"] = str(len(r["held_out_mistakes"]))
    no_ln = ablations.committed("no-layernorm")["held_out_mistakes"]
    f["tt_ab_noln_mistake_en"] = no_ln[0]["english"]
    f["tt_ab_noln_mistake_written"] = no_ln[0]["written"]
    f["tt_ab_noln_mistake_right"] = no_ln[0]["expected"]
    # the maps of the ablations at the end, for "I drink tea": the verb's row
    for name in ("no-layernorm", "no-positions"):
        cps = ablations.committed(name)["checkpoints"]
        verb_row = np.asarray(cps[-1]["sentences"][0]["cross_attention"][2])
        f[f"tt_ab_{name.replace('-', '_')}_peeta"] = row(verb_row)
    order = ablations.committed("no-positions")["order_test"]
    if order[0]["written"] != order[1]["written"]:
        raise AssertionError("without positions the backwards sentence must read the same")
    f["tt_ab_nopos_backwards"] = " ".join(order[1]["written"])
    return f


__all__ = ["EXAMPLES", "PRESETS", "figures"]
