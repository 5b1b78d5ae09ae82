"""``:kind: words`` — a word or a short list of words/tokens: which English word पीता looks at
("drink"). Read without regard to case, quotes or a final full stop; a word may have
alternatives (``:answer: drink/drinks``); with ``:order: any`` a list may come in any order.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Any

from .base import FieldSpec, KeyFormatError, Kind, Mark, Refusal, avoid, register, spelled
from .reader import MAX_ANSWER_CHARS

_SPLIT = re.compile(r"[,;\s]+")
_STRIP = "\"'“”‘’«»()[]{}.!?:"


def word_form(text: str) -> str:
    """A word as compared: NFC (Devanagari kept whole), case folded, quotes and stops dropped."""
    return unicodedata.normalize("NFC", text).strip(_STRIP).casefold()


def words_of(text: str) -> list[str]:
    return [w for w in (word_form(t) for t in _SPLIT.split(text.strip())) if w]


@dataclass(frozen=True)
class WordsKey:
    text: str
    words: tuple[frozenset[str], ...]  # per place: the accepted forms
    any_order: bool


@register
class WordsKind(Kind):
    name = "words"
    template = "learning/kinds/words.html"
    example = "drink/drinks"
    options = frozenset({"order"})

    def key(self, text: str, spec: FieldSpec) -> WordsKey:
        order = spec.options.get("order", "as-written").strip()
        if order not in ("as-written", "any"):
            raise KeyFormatError(f":order: is as-written or any (got {order!r})")
        places = [t for t in _SPLIT.split(text.strip()) if t]
        words = tuple(
            frozenset(w for w in (word_form(a) for a in p.split("/")) if w) for p in places
        )
        if not words or any(not w for w in words):
            raise KeyFormatError(f"the answer {text!r} has no words")
        return WordsKey(text.strip(), words, order == "any")

    def mistake(self, text: str, key: Any, spec: FieldSpec) -> WordsKey:
        got = self.key(text, spec)
        if len(got.words) != len(key.words):
            raise KeyFormatError(
                f"the mistake {text!r} has {len(got.words)} word(s); "
                f"the answer has {len(key.words)}"
            )
        return WordsKey(got.text, got.words, key.any_order)

    def help_text(self, key: WordsKey) -> str:
        taken = [w for forms in key.words for w in forms]
        if len(key.words) == 1:
            return f"Type one word, like {avoid(('river', 'window', 'seven'), taken)}."
        return f"Type {spelled(len(key.words))} words, separated by commas."

    def read(self, raw: str, key: WordsKey) -> tuple[str, ...] | Refusal:
        if not isinstance(raw, str) or not raw.strip():
            return Refusal(self.help_text(key))
        if len(raw) > MAX_ANSWER_CHARS:
            return Refusal(f"That answer is too long: keep it under {MAX_ANSWER_CHARS} characters.")
        got = words_of(raw)
        if len(got) != len(key.words):
            want = "one word" if len(key.words) == 1 else f"{spelled(len(key.words))} words"
            return Refusal(f"This answer is {want}; you gave {len(got)}. {self.help_text(key)}")
        return tuple(got)

    def _same(self, value: tuple[str, ...], target: WordsKey) -> bool:
        if not target.any_order:
            return all(w in forms for w, forms in zip(value, target.words, strict=True))
        left = list(target.words)
        for w in value:
            match = next((f for f in left if w in f), None)
            if match is None:
                return False
            left.remove(match)
        return True

    def mark(self, value: tuple[str, ...], key: WordsKey) -> Mark:
        return Mark(self._same(value, key))

    def matches(self, value: tuple[str, ...], mistake: WordsKey) -> bool:
        return self._same(value, mistake)

    def printed(self, key: WordsKey) -> tuple[str, ...]:
        return ()

    def typed(self, key: WordsKey) -> str:
        places = [t for t in _SPLIT.split(key.text) if t]
        return ", ".join(p.split("/")[0].strip() for p in places)

    def input_attrs(self, key: Any) -> dict[str, Any]:
        return {"inputmode": "text"}
