"""§6 The attention lab: "I drink tea" and two more sentences through all-MiniLM-L6-v2, run by
mathmachine.engine.pretrained; every printed number from the engine (weights rounded with
shares_rounded, so a printed row adds up to exactly 1.000)."""

from __future__ import annotations

from typing import Any

import numpy as np

from mathmachine.engine import shares_rounded
from mathmachine.engine.dot_product import attention_score_count
from mathmachine.engine.pretrained import load_minilm
from mathmachine.engine.pretrained.minilm import MAX_TOKENS as TRAINED_TOKENS
from mathmachine.printing import count, dec, vec

from .s03_self_attention import EXAMPLES as S3

#: Layers and heads count from 1 on the page (the engine counts from 0).
PREV_HEAD = (1, 3)  # a head that looks at the word before
NEXT_HEAD = (2, 9)  # a head that looks at the word after
ROW_HEAD = (1, 1)  # check s6-rows: a row of this head for "I drink tea"
COREF_HEAD = (4, 2)  # a head whose row of "it" leans on "animal"
COREF = {
    "tired": "The animal didn't cross the street because it was too tired.",
    "wide": "The animal didn't cross the street because it was too wide.",
}

_toy = S3["self_attention"]
EXAMPLES: dict[str, Any] = {
    "attention_lab": {
        "sentence": "The bank of the river was muddy after the rain.",
        "layer": 3,
        "head": 1,
        # the toy mode: §3's three words and its small matrices (weights unscaled, as in §3)
        "toy": {k: _toy[k] for k in ("words", "X", "W_Q", "W_K", "W_V")},
        # the longest text the lab takes, in tokens: what the prose says of it (the widget
        # refuses an example whose limit is not its own, MAX_TOKENS in its renderer)
        "max_tokens": 48,
    },
}
RUNNING = "I drink tea"
HINDI = "मैं चाय पीता हूँ"


def _row(weights: np.ndarray) -> list[str]:
    """A row of weights as printed: three decimals that add up to exactly 1.000."""
    return [dec(u / 1000) for u in shares_rounded(weights, 3)]


def figures() -> dict[str, str]:
    """Every number §6 prints."""
    model = load_minilm()
    f: dict[str, str] = {}
    L, H = model.n_layers, model.n_heads
    f["lab_layers"], f["lab_heads"], f["lab_all_heads"] = str(L), str(H), str(L * H)
    f["lab_width"], f["lab_dk"] = str(model.d_model), str(model.d_model // H)

    run = model.run(RUNNING)
    n = len(run.tokens)
    f["lab_tea_n"], f["lab_tea_n2"] = str(n), str(n * n)
    f["lab_tea_all"] = count(attention_score_count(n, H, L))

    # by hand: the row of "tea" in the previous-word head, and how its weight on "drink" came
    l0, h0 = PREV_HEAD[0] - 1, PREV_HEAD[1] - 1
    f["lab_prev_layer"], f["lab_prev_head"] = map(str, PREV_HEAD)
    f["lab_next_layer"], f["lab_next_head"] = map(str, NEXT_HEAD)
    tea, drink = run.tokens.index("tea"), run.tokens.index("drink")
    row = _row(run.attention[l0, h0, tea])
    f["lab_tea_row"] = "(" + ", ".join(row) + ")"
    f["lab_tea_on_drink"] = row[drink]
    view = model.neuron_view(run, l0, h0, tea, drink)
    f["lab_nv_score"] = dec(view.score, 2)
    f["lab_nv_sqrt"] = dec(view.sqrt_d)
    f["lab_nv_scaled"] = dec(view.scaled, 2)
    f["lab_nv_row"] = vec(view.row, lambda x: dec(x, 2))
    f["lab_nv_first"] = vec(view.products[:3], lambda x: dec(x, 2))
    f["lab_nv_gap"] = dec(view.scaled - np.sort(view.row)[-2], 2)

    # check s6-rows: four weights of a row shown, the fifth asked
    rl, rh = ROW_HEAD[0] - 1, ROW_HEAD[1] - 1
    f["lab_rows_layer"], f["lab_rows_head"] = map(str, ROW_HEAD)
    units = shares_rounded(run.attention[rl, rh, drink], 3)
    shown = units[:-1]
    f["lab_rows_shown"] = ", ".join(dec(u / 1000) for u in shown)
    f["lab_rows_answer"] = dec(units[-1] / 1000)
    f["lab_rows_sum_shown"] = dec(shown.sum() / 1000)
    f["lab_rows_mean"] = dec(1 / n)

    # the lab's own sentence: how much of each row goes to [CLS] and [SEP], layer by layer
    ex = EXAMPLES["attention_lab"]
    lab = model.run(ex["sentence"])
    att = lab.attention.astype(np.float64)
    sinks = (att[..., 0] + att[..., -1]).mean(axis=(1, 2))  # [layers]
    f["lab_sentence_n"] = str(len(lab.tokens))
    f["lab_sentence_words"] = str(len(lab.tokens) - 2)
    for i, s in enumerate(sinks, start=1):
        f[f"lab_sink_{i}"] = dec(s, 2)
    f["lab_sink_mid_lo"] = dec(sinks[1:5].min(), 2)
    f["lab_sink_mid_hi"] = dec(sinks[1:5].max(), 2)
    f["lab_tea_sink_1"] = dec((run.attention[0, :, :, 0] + run.attention[0, :, :, -1]).mean(), 2)

    # check s6-count: मैं चाय पीता हूँ through the tokeniser
    hindi = model.run(HINDI)
    m = len(hindi.tokens)
    words = len(HINDI.split())
    f["lab_hi_words"], f["lab_hi_n"] = str(words), str(m)
    f["lab_hi_pieces"] = " ".join(hindi.tokens[1:-1])
    f["lab_hi_head"], f["lab_hi_model"] = str(m * m), count(attention_score_count(m, H, L))
    f["lab_hi_model_key"] = str(attention_score_count(m, H, L))
    f["lab_hi_layer"] = count(attention_score_count(m, H, 1))
    f["lab_hi_words_head"] = str(words * words)
    f["lab_hi_words_model"] = str(attention_score_count(words, H, L))
    f["lab_hi_bare_head"] = str((m - 2) ** 2)
    f["lab_hi_bare_model"] = str(attention_score_count(m - 2, H, L))
    f["lab_hi_linear"] = str(m * H * L)
    f["lab_hi_layer_key"] = str(attention_score_count(m, H, 1))
    f["lab_tensor_mb"] = dec(attention_score_count(TRAINED_TOKENS, H, L) * 4 / 1e6, 1)
    f["lab_trained_n"] = str(TRAINED_TOKENS)
    f["lab_positions"] = str(model.position_embeddings.shape[0])
    f["lab_max_tokens"] = str(ex["max_tokens"])

    # a pronoun and its noun: the row of "it" in one head, for "tired" and for "wide"
    cl, ch = COREF_HEAD[0] - 1, COREF_HEAD[1] - 1
    f["lab_coref_layer"], f["lab_coref_head"] = map(str, COREF_HEAD)
    for name, sentence in COREF.items():
        r = model.run(sentence)
        it, animal, street = (r.tokens.index(w) for w in ("it", "animal", "street"))
        units = shares_rounded(r.attention[cl, ch, it], 3)
        f[f"lab_coref_{name}"] = sentence
        f[f"lab_coref_{name}_animal"] = dec(units[animal] / 1000)
        f[f"lab_coref_{name}_street"] = dec(units[street] / 1000)
    return f
