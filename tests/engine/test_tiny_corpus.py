"""The tiny translator's corpus: size, Hindi agreement, and a held-out split that hides no word."""

from __future__ import annotations

import unicodedata
from collections import Counter

import pytest

from mathmachine.engine.tiny.corpus import (
    OBJECTS,
    SUBJECTS,
    VERB_OBJECTS,
    VERBS,
    all_pairs,
    split,
    tokenize_english,
)


def _pair(english: str) -> tuple[str, str]:
    for p in all_pairs():
        if p.english_text == english:
            return p.hindi_text, p.translit_text
    raise AssertionError(f"{english!r} is not in the corpus")


def test_sizes() -> None:
    assert (len(SUBJECTS), len(VERBS), len(OBJECTS)) == (12, 8, 14)
    assert sum(len(v) for v in VERB_OBJECTS.values()) == 34
    assert len(all_pairs()) == 408
    assert len({p.english for p in all_pairs()}) == 408
    # every object is used by some verb
    assert {o for objs in VERB_OBJECTS.values() for o in objs} == {o.english for o in OBJECTS}


@pytest.mark.parametrize(
    ("english", "hindi", "translit"),
    [
        ("I drink tea", "मैं चाय पीता हूँ", "main chai peeta hoon"),
        ("she eats rice", "वह चावल खाती है", "vah chaaval khaati hai"),
        ("he eats rice", "वह चावल खाता है", "vah chaaval khaata hai"),
        ("you drink water", "तुम पानी पीते हो", "tum paani peete ho"),
        ("we read books", "हम किताबें पढ़ते हैं", "ham kitaaben padhte hain"),
        ("they watch films", "वे फ़िल्में देखते हैं", "ve filmen dekhte hain"),
        ("Ravi buys mangoes", "रवि आम ख़रीदता है", "Ravi aam khareedta hai"),
        ("Sita writes letters", "सीता चिट्ठियाँ लिखती है", "Sita chitthiyaan likhti hai"),
        ("the boy brings milk", "लड़का दूध लाता है", "ladka doodh laata hai"),
        ("the girl makes tea", "लड़की चाय बनाती है", "ladki chai banaati hai"),
        ("my mother makes sweets", "मेरी माँ मिठाई बनाती है", "meri maa mithaai banaati hai"),
        ("the children watch TV", "बच्चे टीवी देखते हैं", "bachche TV dekhte hain"),
    ],
)
def test_agreement_examples(english: str, hindi: str, translit: str) -> None:
    assert _pair(english) == (unicodedata.normalize("NFC", hindi), translit)


def test_every_sentence_is_well_formed() -> None:
    aux_by_ending = {"ता": {"हूँ", "है"}, "ती": {"है"}, "ते": {"हो", "हैं"}}
    for p in all_pairs():
        assert all(unicodedata.is_normalized("NFC", w) for w in p.hindi)
        assert len(p.hindi) == len(p.translit)
        verb, aux = p.hindi[-2], p.hindi[-1]
        assert verb.startswith(p.verb.stem)
        assert aux in aux_by_ending[verb[len(p.verb.stem) :]]
        assert p.hindi[-3] == p.obj.hindi  # subject–object–verb order
        assert p.english[p.english_verb_position()] in (p.verb.base, p.verb.third)


def test_held_out_split_is_about_18_percent_and_hides_no_word() -> None:
    train, held = split()
    assert len(train) + len(held) == 408
    assert 0.17 <= len(held) / 408 <= 0.19
    assert not {p.index for p in train} & {p.index for p in held}
    train_en = {w for p in train for w in p.english}
    train_hi = {w for p in train for w in p.hindi}
    for p in held:
        assert set(p.english) <= train_en
        assert set(p.hindi) <= train_hi
    # every subject and every verb–object combination keeps most of its sentences in training
    by_subject = Counter(p.subject.english for p in train)
    assert min(by_subject.values()) >= 27
    by_combo = Counter((p.verb.base, p.obj.english) for p in train)
    assert len(by_combo) == 34 and min(by_combo.values()) >= 9
    # the unit's own examples are training sentences
    train_text = {p.english_text for p in train}
    assert {"I drink tea", "she eats rice"} <= train_text


def test_split_is_deterministic() -> None:
    assert [p.index for p in split()[1]] == [p.index for p in split.__wrapped__()[1]]


def test_tokenize_english() -> None:
    assert tokenize_english("  I drink Tea. ") == ["i", "drink", "tea"]
    assert tokenize_english("") == []


def test_provenance_says_where_a_sentence_stands() -> None:
    from mathmachine.engine.tiny.corpus import HELD_OUT, NOT_IN_CORPUS, TRAINING, provenance

    train, held = split()
    assert provenance(train[0].english_text) == (train[0], TRAINING)
    assert provenance(held[0].english_text.upper() + ".") == (held[0], HELD_OUT)
    for text in ("tea drink I", "I drink books", "I drink", ""):
        assert provenance(text) == (None, NOT_IN_CORPUS)
    assert sum(provenance(p.english_text)[1] == HELD_OUT for p in all_pairs()) == len(held)
