"""Unit 18 §11: the masks' counts agree with the closed forms (n², n(n + 1)/2, T·S), the mask
patterns with their definitions, and the cross-attention map with the tiny translator's own."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from mathmachine.coursebook.passes.load import load_figures
from mathmachine.engine import tiny

UNIT_DIR = (
    Path(__file__).resolve().parents[2] / "content" / "units" / "18-attention-and-transformers"
)
FIGURES = load_figures(UNIT_DIR, 18)
F = FIGURES.values
EX = FIGURES.examples["family_picker"]


def test_the_counts_by_hand_and_in_the_check() -> None:
    n, t = 3, 5  # "I drink tea"; the decoder reads <s> and four Hindi words
    assert (F["fam_n"], F["fam_t"]) == (str(n), str(t))
    assert F["fam_full"] == str(n * n) and F["fam_causal"] == str(n * (n + 1) // 2)
    assert F["fam_dec_causal"] == str(t * (t + 1) // 2) and F["fam_cross"] == str(t * n)
    assert F["fam_enc_dec_total"] == str(n * n + t * (t + 1) // 2 + t * n)
    m, slots, en = 6, 6, 4  # the check: 6 tokens; "my mother drinks tea" -> 6 slots, 4 notes
    assert (F["fam_ck_full"], F["fam_ck_causal"], F["fam_ck_cross"]) == (
        str(m * m),
        str(m * (m + 1) // 2),
        str(slots * en),
    )
    assert F["fam_ckm_strict"] == str(m * (m - 1) // 2)
    assert F["fam_ckm_cross_masked"] == str(sum(min(i + 1, en) for i in range(slots)))
    keys = {F["fam_ck_full"], F["fam_ck_causal"], F["fam_ck_cross"]}
    assert F["fam_ckm_cross_masked"] not in keys and F["fam_ckm_strict"] not in keys


def test_every_mask_pattern_is_its_definition() -> None:
    for fam in EX["families"]:
        for m in fam["maps"]:
            a = np.asarray(m["allowed"])
            assert a.shape == (len(m["rows"]), len(m["cols"]))
            if "masked" in m["title"]:
                assert np.array_equal(a, np.tril(np.ones_like(a)))  # itself and the words before
            else:
                assert a.all()  # no mask: every pair
    enc_dec = next(f for f in EX["families"] if f["id"] == "encoder-decoder")
    assert [m["title"] for m in enc_dec["maps"]] == [
        "encoder self-attention",
        "decoder masked self-attention",
        "cross-attention",
    ]
    bert = next(f for f in EX["families"] if f["id"] == "encoder")
    assert bert["example"] == {"input": ["I", "[MASK]", "tea"], "target": ["drink"]}


def test_the_cross_attention_map_is_the_tiny_translators() -> None:
    t = tiny.load().translate("she eats rice")
    cross = EX["cross"]
    assert [h["word"] for h in cross["hindi"]] == t.hindi == ["वह", "चावल", "खाती", "है"]
    avg = np.asarray(cross["average"]) / 1000
    assert np.all(np.asarray(cross["average"]).sum(axis=1) == 1000)
    np.testing.assert_allclose(avg, t.cross_attention, atol=0.0015)
    np.testing.assert_allclose(
        np.asarray(cross["heads"]) / 1000, t.cross_attention_per_head, atol=0.0015
    )
    # the bend: वह on "she", चावल on "rice", खाती back on "eats"
    assert [int(np.argmax(r)) for r in avg[:3]] == [0, 2, 1]
    for i in range(1, 5):
        assert (
            F[f"fam_map_row{i}"]
            == "(" + ", ".join(f"{u / 1000:.3f}" for u in cross["average"][i - 1]) + ")"
        )
