"""The toy English → Hindi corpus the tiny translator learns (Unit 18 §13).

It is built by code, not typed as a list of pairs: 12 subjects × 34 sensible verb–object pairs
(8 verbs, 14 objects) = 408 sentence pairs, each with correct Hindi agreement in Devanagari.

Hindi grammar used (present habitual, "I drink tea" = मैं चाय पीता हूँ):

    subject  object  verb-stem + ending  auxiliary

- Word order is subject–object–verb: the verb comes last, so the alignment with English
  (subject–verb–object) *bends*, as in §1's map.
- The ending agrees with the subject's gender and number: -ता (masculine singular),
  -ती (feminine, singular or plural), -ते (masculine plural, and the pronoun तुम).
- The auxiliary agrees with the subject's person and number: मैं … हूँ, तुम … हो,
  वह / a name / a noun … है, हम / वे / a plural noun … हैं.
- In the present habitual the verb agrees with the subject, never with the object (no ergative).

Conventions that keep each English sentence to exactly one Hindi sentence: "I" and "you" are
masculine; "you" is the informal तुम (which takes -ते हो); "he" and "she" are both वह (only the verb
ending shows the gender); "we" and "they" are masculine plural (-ते हैं). "vegetables" and "sweets"
are the idiomatic collective सब्ज़ी and मिठाई.

Every string is in Unicode NFC. Letters with a nukta (ढ़, ड़, ख़, ज़, फ़) are stored the way NFC
stores them: base letter + U+093C.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from functools import cache
from typing import Literal

import numpy as np
from numpy.typing import NDArray

Gender = Literal["m", "f"]
Aux = Literal["हूँ", "हो", "है", "हैं"]


def _nfc(s: str) -> str:
    return unicodedata.normalize("NFC", s)


@dataclass(frozen=True)
class Subject:
    """An English subject, its Hindi words, and what the Hindi verb agrees with."""

    english: str  # "the boy"
    hindi: str  # "लड़का"
    translit: str  # "ladka"
    gender: Gender
    plural: bool  # grammatical plural for the verb ending (तुम counts as plural)
    aux: Aux
    third_singular: bool  # English verb takes -s ("he drinks")


@dataclass(frozen=True)
class Verb:
    """An English verb (base and 3rd-person-singular form) and its Hindi stem."""

    base: str  # "drink"
    third: str  # "drinks"
    stem: str  # "पी"
    translit_stem: str  # "pee"


@dataclass(frozen=True)
class Obj:
    english: str
    hindi: str
    translit: str


@dataclass(frozen=True)
class Pair:
    """One sentence pair: ``english``/``hindi`` word tuples; ``index``, its corpus position."""

    index: int
    subject: Subject
    verb: Verb
    obj: Obj
    english: tuple[str, ...]
    hindi: tuple[str, ...]
    translit: tuple[str, ...]

    @property
    def english_text(self) -> str:
        return " ".join(self.english)

    @property
    def hindi_text(self) -> str:
        return " ".join(self.hindi)

    @property
    def translit_text(self) -> str:
        return " ".join(self.translit)

    def english_verb_position(self) -> int:
        """Index of the English verb among the English tokens."""
        return len(self.subject.english.split())

    def english_subject_positions(self) -> tuple[int, ...]:
        return tuple(range(len(self.subject.english.split())))

    def hindi_verb_position(self) -> int:
        """Index of the Hindi verb among the Hindi words (second to last; the auxiliary is last)."""
        return len(self.hindi) - 2

    def hindi_aux_position(self) -> int:
        return len(self.hindi) - 1


_AUX_TRANSLIT: dict[str, str] = {"हूँ": "hoon", "हो": "ho", "है": "hai", "हैं": "hain"}

SUBJECTS: tuple[Subject, ...] = tuple(
    Subject(e, _nfc(h), t, g, p, a, ts)  # type: ignore[arg-type]
    for e, h, t, g, p, a, ts in [
        ("I", "मैं", "main", "m", False, "हूँ", False),
        ("you", "तुम", "tum", "m", True, "हो", False),
        ("he", "वह", "vah", "m", False, "है", True),
        ("she", "वह", "vah", "f", False, "है", True),
        ("we", "हम", "ham", "m", True, "हैं", False),
        ("they", "वे", "ve", "m", True, "हैं", False),
        ("Ravi", "रवि", "Ravi", "m", False, "है", True),
        ("Sita", "सीता", "Sita", "f", False, "है", True),
        ("the boy", "लड़का", "ladka", "m", False, "है", True),
        ("the girl", "लड़की", "ladki", "f", False, "है", True),
        ("my mother", "मेरी माँ", "meri maa", "f", False, "है", True),
        ("the children", "बच्चे", "bachche", "m", True, "हैं", False),
    ]
)

VERBS: tuple[Verb, ...] = tuple(
    Verb(b, th, _nfc(s), ts)
    for b, th, s, ts in [
        ("drink", "drinks", "पी", "pee"),
        ("eat", "eats", "खा", "khaa"),
        ("read", "reads", "पढ़", "padh"),
        ("write", "writes", "लिख", "likh"),
        ("watch", "watches", "देख", "dekh"),
        ("buy", "buys", "ख़रीद", "khareed"),
        ("make", "makes", "बना", "banaa"),
        ("bring", "brings", "ला", "laa"),
    ]
)

OBJECTS: tuple[Obj, ...] = tuple(
    Obj(e, _nfc(h), t)
    for e, h, t in [
        ("tea", "चाय", "chai"),
        ("water", "पानी", "paani"),
        ("milk", "दूध", "doodh"),
        ("rice", "चावल", "chaaval"),
        ("bread", "रोटी", "roti"),
        ("mangoes", "आम", "aam"),
        ("vegetables", "सब्ज़ी", "sabzi"),
        ("sweets", "मिठाई", "mithaai"),
        ("books", "किताबें", "kitaaben"),
        ("letters", "चिट्ठियाँ", "chitthiyaan"),
        ("stories", "कहानियाँ", "kahaaniyaan"),
        ("poems", "कविताएँ", "kavitaayen"),
        ("films", "फ़िल्में", "filmen"),
        ("TV", "टीवी", "TV"),
    ]
)

# The 34 sensible verb–object pairs (one cannot drink rice or watch milk).
VERB_OBJECTS: dict[str, tuple[str, ...]] = {
    "drink": ("tea", "water", "milk"),
    "eat": ("rice", "bread", "mangoes", "vegetables", "sweets"),
    "read": ("books", "letters", "stories", "poems"),
    "write": ("letters", "stories", "poems", "books"),
    "watch": ("films", "TV"),
    "buy": ("tea", "milk", "rice", "mangoes", "vegetables", "sweets", "books"),
    "make": ("tea", "rice", "bread", "sweets", "films"),
    "bring": ("water", "milk", "mangoes", "books"),
}


def ending(subject: Subject) -> str:
    """The verb ending agreeing with the subject: ता (m sg), ती (f), ते (m pl and तुम)."""
    if subject.gender == "f":
        return "ती"
    return "ते" if subject.plural else "ता"


_ENDING_TRANSLIT = {"ता": "ta", "ती": "ti", "ते": "te"}


def hindi_verb(verb: Verb, subject: Subject) -> tuple[str, str]:
    """(Devanagari, transliteration) of the agreeing verb form, e.g. (पीता, peeta)."""
    e = ending(subject)
    return _nfc(verb.stem + e), verb.translit_stem + _ENDING_TRANSLIT[e]


def translate_by_rule(subject: Subject, verb: Verb, obj: Obj) -> Pair:
    """The pair for one (subject, verb, object), by the grammar above (index set to -1)."""
    v_en = verb.third if subject.third_singular else verb.base
    english = (*subject.english.split(), v_en, obj.english)
    v_hi, v_tr = hindi_verb(verb, subject)
    hindi = (*subject.hindi.split(), obj.hindi, v_hi, subject.aux)
    translit = (*subject.translit.split(), obj.translit, v_tr, _AUX_TRANSLIT[subject.aux])
    return Pair(-1, subject, verb, obj, english, hindi, translit)


@cache
def all_pairs() -> tuple[Pair, ...]:
    """Every pair, subjects outer, then verbs in VERBS order, then that verb's objects: 408."""
    verbs = {v.base: v for v in VERBS}
    objs = {o.english: o for o in OBJECTS}
    pairs: list[Pair] = []
    for s in SUBJECTS:
        for v_name, o_names in VERB_OBJECTS.items():
            for o_name in o_names:
                p = translate_by_rule(s, verbs[v_name], objs[o_name])
                pairs.append(
                    Pair(len(pairs), p.subject, p.verb, p.obj, p.english, p.hindi, p.translit)
                )
    return tuple(pairs)


def is_held_out(subject_index: int, combo_index: int) -> bool:
    """The held-out rule: (5·subject + combo) mod 11 ∈ {3, 8}, i.e. 2 in 11 ≈ 18% of pairs.

    ``combo_index`` numbers the 34 verb–object pairs 0..33. The rule is a fixed diagonal pattern,
    so each subject loses 6 or 7 of its 34 combinations and each combination loses 2 or 3 of its
    12 subjects: every subject, verb, object and verb form still appears in training (tested).
    "I drink tea" and "she eats rice" (the unit's examples) stay in training.
    """
    return (5 * subject_index + combo_index) % 11 in (3, 8)


@cache
def split() -> tuple[tuple[Pair, ...], tuple[Pair, ...]]:
    """(train, held_out): 334 and 74 pairs."""
    n_combos = sum(len(v) for v in VERB_OBJECTS.values())
    train: list[Pair] = []
    held: list[Pair] = []
    for p in all_pairs():
        si, ci = divmod(p.index, n_combos)
        (held if is_held_out(si, ci) else train).append(p)
    return tuple(train), tuple(held)


def tokenize_english(text: str) -> list[str]:
    """Lower-case words; a final full stop and surrounding spaces are ignored."""
    t = text.strip()
    if t.endswith("."):
        t = t[:-1]
    return [w.lower() for w in t.split()]


PAD, BOS, EOS = "<pad>", "<s>", "</s>"


@dataclass(frozen=True)
class Vocab:
    """Word-level vocabularies. English: <pad> then every English word; Hindi: <pad>, <s> (begin),
    </s> (end), then every Hindi word; both in order of first appearance in the corpus."""

    english: tuple[str, ...]
    hindi: tuple[str, ...]

    @property
    def en_index(self) -> dict[str, int]:
        return {w: i for i, w in enumerate(self.english)}

    @property
    def hi_index(self) -> dict[str, int]:
        return {w: i for i, w in enumerate(self.hindi)}

    def english_ids(self, text: str) -> tuple[list[str], list[int]]:
        """English text -> (the vocabulary's spelling of each word, ids). Case-insensitive.

        Raises ValueError for empty input or a word the model has never seen (naming it).
        """
        words = tokenize_english(text)
        if not words:
            raise ValueError("empty input: give an English sentence such as 'I drink tea'")
        lower = {w.lower(): (w, i) for i, w in enumerate(self.english) if i > 0}
        out_words: list[str] = []
        ids: list[int] = []
        for w in words:
            if w not in lower:
                raise ValueError(
                    f"unknown English word {w!r}: the tiny translator knows only "
                    f"{', '.join(sorted(k for k in lower))}"
                )
            spelled, i = lower[w]
            out_words.append(spelled)
            ids.append(i)
        return out_words, ids


@cache
def vocab() -> Vocab:
    en: dict[str, None] = {PAD: None}
    hi: dict[str, None] = {PAD: None, BOS: None, EOS: None}
    for p in all_pairs():
        en.update(dict.fromkeys(p.english))
        hi.update(dict.fromkeys(p.hindi))
    return Vocab(tuple(en), tuple(hi))


MAX_ENGLISH = max(len(p.english) for p in all_pairs())  # 4 ("my mother drinks tea")
MAX_HINDI = max(len(p.hindi) for p in all_pairs()) + 1  # 6: <s> + 5 words, or 5 words + </s>


@dataclass(frozen=True)
class Batch:
    """Padded id arrays for a set of pairs (pad id 0 everywhere).

    src     [B, S]  English ids                       S = MAX_ENGLISH
    src_len [B]     number of real English words
    tgt_in  [B, T]  <s> w1 … wn (decoder input)       T = MAX_HINDI
    tgt_out [B, T]  w1 … wn </s> (what to predict)
    tgt_len [B]     n + 1 (real positions in tgt_in / tgt_out)
    """

    src: NDArray[np.int64]
    src_len: NDArray[np.int64]
    tgt_in: NDArray[np.int64]
    tgt_out: NDArray[np.int64]
    tgt_len: NDArray[np.int64]

    def take(self, idx: NDArray[np.int64]) -> Batch:
        return Batch(
            self.src[idx], self.src_len[idx], self.tgt_in[idx], self.tgt_out[idx], self.tgt_len[idx]
        )


def encode(pairs: tuple[Pair, ...] | list[Pair], v: Vocab | None = None) -> Batch:
    """Pairs -> a padded Batch (see Batch for shapes)."""
    v = v or vocab()
    en, hi = v.en_index, v.hi_index
    n = len(pairs)
    src = np.zeros((n, MAX_ENGLISH), dtype=np.int64)
    tgt_in = np.zeros((n, MAX_HINDI), dtype=np.int64)
    tgt_out = np.zeros((n, MAX_HINDI), dtype=np.int64)
    src_len = np.zeros(n, dtype=np.int64)
    tgt_len = np.zeros(n, dtype=np.int64)
    for r, p in enumerate(pairs):
        e = [en[w] for w in p.english]
        h = [hi[w] for w in p.hindi]
        src[r, : len(e)] = e
        src_len[r] = len(e)
        tgt_in[r, : len(h) + 1] = [hi[BOS], *h]
        tgt_out[r, : len(h) + 1] = [*h, hi[EOS]]
        tgt_len[r] = len(h) + 1
    return Batch(src, src_len, tgt_in, tgt_out, tgt_len)


TRAINING, HELD_OUT, NOT_IN_CORPUS = "training", "held out", "not in the corpus"


@cache
def _by_english() -> dict[tuple[str, ...], tuple[Pair, str]]:
    train, held = split()
    out = {tuple(w.lower() for w in p.english): (p, TRAINING) for p in train}
    out |= {tuple(w.lower() for w in p.english): (p, HELD_OUT) for p in held}
    return out


def provenance(text: str) -> tuple[Pair | None, str]:
    """Where an English sentence stands: (its pair, TRAINING) when the model learned from it,
    (its pair, HELD_OUT) when it is in the corpus but was kept from training, (None,
    NOT_IN_CORPUS) otherwise (known words in an order or a combination the grammar never makes,
    e.g. "tea drink I" or "I drink books"). Case and a final full stop do not matter."""
    return _by_english().get(tuple(tokenize_english(text)), (None, NOT_IN_CORPUS))
