"""The attention lab (Unit 18 §6, widget 7): a learner's sentence through all-MiniLM-L6-v2.

The numbers come from the engine's own model (:mod:`mathmachine.engine.pretrained`); this module
reads what the learner typed, refuses what the lab cannot show (with a message that says why),
runs the model, keeps the results for a while and cuts them into what a phone is sent:

- one head's map: every weight rounded to PLACES decimals so that each row still sums to exactly
  1 at that precision (largest remainders), never the whole [6, 12, n, n] tensor;
- the 72 heads as thumbnails: one digit a weight (round(9 w)), and each head's share on [CLS]
  and [SEP];
- the "neuron view" of one (query, key) pair: q, k, q * k, the score, ÷ √d, the softmax of the row.

What is typed is never saved: no database row, no log line (the JSON API takes it in a POST
body; the page without JavaScript is a GET form whose query the access logs leave out,
deploy/gunicorn.conf.py and deploy/nginx.conf.in). What the lab computes for a text is kept for
the learner who sent it only: in this process (an LRU of RUN_CACHE_SIZE model runs, keyed by
learner and text) and, when LAB_REDIS_URL is set, in the lab's own cache (a Redis apart from the
one holding sign-in limits; caches["lab"]) for CACHE_SECONDS, under a keyed hash (HMAC with the
site's secret) of the learner and the text, each entry compressed and at most
MAX_ENTRY_BYTES. So another learner's repeat of a sentence is never faster for it (no one can
tell what others sent by timing), and a reader of the cache cannot test a guessed sentence. The
shared cache degrades to a miss while Redis is down (mathmachine/web/cache.py). The model is
loaded once per process on first use (load_minilm, thread-safe): about 0.3 s and 205 MB
resident (docs/architecture.md).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import threading
import unicodedata
import zlib
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import numpy as np
from django.conf import settings
from django.core.cache import caches
from django.utils.safestring import SafeString, mark_safe
from numpy.typing import NDArray

from mathmachine.coursebook import html as _html
from mathmachine.coursebook.widgets.attention_lab import (
    MAX_CHARS,
    MAX_TOKENS,
    PLACES,
    head_map,
    neuron_numbers,
    token_label,
)
from mathmachine.engine import shares_rounded
from mathmachine.engine.pretrained import MODEL_SHA256, MiniLM, MiniLMRun, load_minilm
from mathmachine.printing import dec

from .widget_api import ASKER, WidgetInputError

#: The widget whose section's gate the lab shares (through the kit's server route, widget_api.py).
WIDGET = "attention-lab"
#: Decimals a head's weights are sent (and printed) with; thumbnails use one digit, round(9 w).
THUMB_LEVELS = 9
#: Model runs kept in this process (a 48-token run is about 1.2 MB: attention and hidden states).
RUN_CACHE_SIZE = 32
#: How long the lab's shared cache keeps a payload.
CACHE_SECONDS = 600
#: A payload larger than this, compressed, is not put in the shared cache (all 72 heads of a
#: 40-token text: 119 KB of JSON, 10 KB compressed; one head's map: 12 KB, 2.4 KB).
MAX_ENTRY_BYTES = 24_576
MODEL_NAME = "all-MiniLM-L6-v2"

SPECIAL = ("[CLS]", "[SEP]")

# ZWNJ and ZWJ are format characters that Hindi writing uses; every other one is refused.
_ALLOWED_FORMAT = frozenset({"\u200c", "\u200d"})
# Letters and symbols that draw nothing, though Unicode does not class them as format
# characters: the Hangul fillers and the blank Braille pattern (refused as invisible too).
_BLANK = frozenset({"\u115f", "\u1160", "\u3164", "\uffa0", "\u2800"})
_MARKUP = re.compile(r"<\s*/?\s*[A-Za-z!?]|&(?:#[0-9]+|#[xX][0-9A-Fa-f]+|[A-Za-z][A-Za-z0-9]*);")
# Emoji and pictographs (Unicode's emoji blocks, the symbol blocks they share, the emoji
# variation selector, the keycap mark and tag characters). Approximate by block, on purpose: a
# star or a tick is refused with the faces, and the message names the character.
_EMOJI = (
    (0x1F000, 0x1FAFF),
    (0x2600, 0x27BF),
    (0x2B00, 0x2BFF),
    (0x2300, 0x23FF),
    (0xFE0F, 0xFE0F),
    (0x20E3, 0x20E3),
    (0xE0020, 0xE007F),
)


class LabInputError(WidgetInputError):
    """What the learner sent cannot be shown; the message says why, in words for them."""


def _is_emoji(ch: str) -> bool:
    cp = ord(ch)
    return any(lo <= cp <= hi for lo, hi in _EMOJI)


def _name(ch: str) -> str:
    return unicodedata.name(ch, "").lower() or "unnamed"


def clean_text(raw: object) -> str:
    """The learner's text, stripped of spaces at its ends, or LabInputError saying what is wrong:
    nothing typed, too many characters, a control or invisible formatting character (NUL
    included; the blank Hangul fillers and Braille pattern too), markup, an emoji, or a
    character no text may hold. The token limit is checked by :func:`tokens_of` (it needs the
    tokeniser)."""
    if not isinstance(raw, str):
        raise LabInputError("Send the sentence as text.")
    text = raw.strip()
    if not text:
        raise LabInputError("Type a sentence first: the box is empty.")
    if len(text) > MAX_CHARS:
        raise LabInputError(
            f"Your text is {len(text)} characters long; the lab takes at most {MAX_CHARS} "
            f"characters and {MAX_TOKENS} tokens. Try a shorter sentence."
        )
    for i, ch in enumerate(text, start=1):
        cat = unicodedata.category(ch)
        where = f"character {i}, U+{ord(ch):04X}"
        if cat == "Cc":
            raise LabInputError(
                f"Your text holds a control character ({where}, {_control_name(ch)}). "
                "Type or paste plain words on one line."
            )
        if (cat == "Cf" and ch not in _ALLOWED_FORMAT) or ch in _BLANK:
            raise LabInputError(
                f"Your text holds an invisible formatting character ({where}, {_name(ch)}). "
                "Retype the sentence without it."
            )
        if cat in ("Cs", "Co", "Cn"):
            raise LabInputError(
                f"Your text holds a character the lab cannot read ({where}). Remove it."
            )
        if _is_emoji(ch):
            raise LabInputError(
                f"Your text holds an emoji or symbol ({ch}, {_name(ch)}). The model reads "
                "words, and its vocabulary has no emoji: remove it and try again."
            )
    found = _MARKUP.search(text)
    if found:
        raise LabInputError(
            f"Your text looks like markup (“{found.group(0)}”). The lab reads plain "
            "sentences: leave out tags and entities such as <b> or &amp;."
        )
    return text


def _control_name(ch: str) -> str:
    names = {"\x00": "NUL", "\t": "a tab", "\n": "a line break", "\r": "a line break"}
    return names.get(ch, "a control code")


#: Digits a layer, head or place may have (leading zeros aside): int() refuses strings of more
#: than 4,300 digits with a ValueError, so a long one is refused before it gets there.
_MAX_DIGITS = 6


def _small_number(raw: object) -> int | None:
    """A whole number of at most _MAX_DIGITS ASCII digits, else None."""
    if isinstance(raw, bool) or not isinstance(raw, (str, int)):
        return None
    text = raw.strip() if isinstance(raw, str) else str(raw) if 0 <= raw < 10**_MAX_DIGITS else ""
    digits = text.lstrip("0") or "0"  # int() counts leading zeros towards its limit too
    if not text.isascii() or not text.isdigit() or len(digits) > _MAX_DIGITS:
        return None
    return int(digits)


def parse_choice(raw: object, name: str, top: int) -> int:
    """A layer or head as the learner counts it, 1..top, or LabInputError."""
    value = _small_number(raw)
    if value is None or not 1 <= value <= top:
        raise LabInputError(f"Choose a {name} from 1 to {top}.", field=name)
    return value


def parse_position(raw: object, name: str, n: int) -> int:
    """A token position 0..n-1 ([CLS] is 0), or LabInputError."""
    value = _small_number(raw)
    if value is None or not 0 <= value < n:
        raise LabInputError(
            f"Choose the {name} token by its place, 0 ([CLS]) to {n - 1} ([SEP]).", field=name
        )
    return value


# -- running the model, once per text ------------------------------------------------------------


class _Runs:
    """An LRU of model runs by text, computing each text once even when many ask at once."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._runs: OrderedDict[tuple[str, str], MiniLMRun] = OrderedDict()
        self._lock = threading.Lock()
        self._making: dict[tuple[str, str], threading.Lock] = {}

    def get(self, text: str, model: MiniLM) -> MiniLMRun:
        key = (ASKER.get(), text)  # kept for the learner who sent it, never another's repeat
        with self._lock:
            run = self._runs.get(key)
            if run is not None:
                self._runs.move_to_end(key)
                return run
            making = self._making.setdefault(key, threading.Lock())
        with making:  # one thread runs the model for this text; the others wait for it
            with self._lock:
                run = self._runs.get(key)
            if run is None:
                try:
                    run = model.run(text)
                finally:
                    with self._lock:
                        self._making.pop(key, None)
                with self._lock:
                    self._runs[key] = run
                    while len(self._runs) > self.size:
                        self._runs.popitem(last=False)
        return run

    def clear(self) -> None:
        with self._lock:
            self._runs.clear()


_RUNS = _Runs(RUN_CACHE_SIZE)


def clear_caches() -> None:
    """Forget every kept run (tests)."""
    _RUNS.clear()


@dataclass(frozen=True)
class LabRun:
    """A checked text, its model run, and the model."""

    text: str
    run: MiniLMRun
    model: MiniLM

    @property
    def tokens(self) -> list[str]:
        return list(self.run.tokens)

    @property
    def n(self) -> int:
        return len(self.run.tokens)


def tokens_of(text: str) -> tuple[list[str], MiniLM]:
    """The WordPiece tokens of a cleaned text, or LabInputError when there are too many."""
    model = load_minilm()
    try:
        tokens, _ = model.tokenize(text)
    except ValueError as exc:  # more than the model's own limit, or nothing it can read
        if "tokens long" in str(exc):
            raise _too_many(int(str(exc).split()[2])) from exc
        raise LabInputError(
            "The model finds nothing to read in your text. Type a sentence in words."
        ) from exc
    if len(tokens) > MAX_TOKENS:
        raise _too_many(len(tokens))
    return tokens, model


def _too_many(n: int) -> LabInputError:
    return LabInputError(
        f"Your text is {n} tokens long (counting [CLS] and [SEP]); the lab takes at most "
        f"{MAX_TOKENS}. Try a shorter sentence."
    )


def lab_run(raw: object) -> LabRun:
    """Check the text and run the model on it (once per text per process)."""
    return _run_checked(clean_text(raw))


def _run_checked(text: str) -> LabRun:
    _, model = tokens_of(text)
    return LabRun(text=text, run=_RUNS.get(text, model), model=model)


# -- what is sent ----------------------------------------------------------------------------------


def _decimals(units: NDArray[np.int64], places: int) -> list[list[float]]:
    scale = 10**places
    return [[round(int(u) / scale, places) for u in row] for row in units]


def _r(x: float, places: int) -> float:
    v = round(float(x), places)
    return 0.0 if v == 0 else v


def sink_share(weights: NDArray[np.floating]) -> float:
    """The mean share of a head's rows that goes to [CLS] (first) and [SEP] (last) together."""
    w = np.asarray(weights, dtype=np.float64)
    return float((w[..., 0] + w[..., -1]).mean())


def notes_for(text: str, tokens: list[str]) -> list[str]:
    """What the model did with the text, honestly: unknown pieces, dropped marks, split words."""
    notes = []
    unknown = tokens.count("[UNK]")
    if unknown:
        notes.append(
            f"{unknown} of the {len(tokens) - 2} pieces are [UNK]: the model's English vocabulary "
            "has no piece for them, so it reads them all as the same unknown token."
        )
    dropped = sorted(
        {ch for ch in unicodedata.normalize("NFD", text) if unicodedata.category(ch) == "Mn"}
    )
    if dropped:
        marks = " ".join(f"◌{ch}" for ch in dropped)
        notes.append(
            "The model's tokeniser is uncased: it lowercases and drops combining marks "
            f"({marks}), so it never sees them."
        )
    if any(t.startswith("##") for t in tokens):
        notes.append(
            "Pieces that start with ## continue the word before them: WordPiece splits a word "
            "it does not know into pieces it does."
        )
    if any(0x0900 <= ord(ch) <= 0x097F for ch in text):
        notes.append(
            "This model learned English. It reads Devanagari letter by letter, without the "
            "meaning of Hindi words: its maps for Hindi show pieces, not words."
        )
    return notes


def _base(lr: LabRun) -> dict[str, Any]:
    return {
        "model": MODEL_NAME,
        "tokens": lr.tokens,
        "n": lr.n,
        "layers": lr.model.n_layers,
        "heads": lr.model.n_heads,
        "limits": {"tokens": MAX_TOKENS, "characters": MAX_CHARS},
    }


def head_payload(lr: LabRun, layer: int, head: int) -> dict[str, Any]:
    """One head's map (layer and head counted from 1), rows summing to 1 at PLACES decimals."""
    w = lr.run.attention[layer - 1, head - 1]
    return {
        **_base(lr),
        "view": "head",
        "layer": layer,
        "head": head,
        "places": PLACES,
        "weights": _decimals(shares_rounded(w, PLACES), PLACES),
        "sink": _r(sink_share(w), 2),
        "notes": notes_for(lr.text, lr.tokens),
    }


def thumbnails_payload(lr: LabRun) -> dict[str, Any]:
    """All 72 heads, one digit a weight (round(9 w): 0 below 0.056, 9 above 0.944), row by row,
    with each head's share on [CLS] and [SEP] (2 decimals)."""
    att = np.asarray(lr.run.attention, dtype=np.float64)
    digits = np.clip(np.rint(att * THUMB_LEVELS), 0, THUMB_LEVELS).astype(np.int64)
    heads = []
    for layer in range(att.shape[0]):
        for head in range(att.shape[1]):
            cells = "".join(map(str, digits[layer, head].ravel().tolist()))
            heads.append(
                {
                    "layer": layer + 1,
                    "head": head + 1,
                    "cells": cells,
                    "sink": _r(sink_share(att[layer, head]), 2),
                }
            )
    return {**_base(lr), "view": "heads", "levels": THUMB_LEVELS, "thumbnails": heads}


def neuron_payload(lr: LabRun, layer: int, head: int, query: int, key: int) -> dict[str, Any]:
    """How the weight of (query, key) in one head came about (mathmachine.engine's neuron_view)."""
    v = lr.model.neuron_view(lr.run, layer - 1, head - 1, query, key)
    return {**_base(lr), "view": "neuron", "layer": layer, "head": head, **neuron_numbers(v)}


def echo(raw: object) -> str:
    """The text to put back in the form for the learner to correct: control characters left out,
    cut at twice the limit."""
    if not isinstance(raw, str):
        return ""
    return "".join(ch for ch in raw if unicodedata.category(ch) != "Cc")[: 2 * MAX_CHARS]


@dataclass(frozen=True)
class TableRow:
    token: str
    cells: tuple[str, ...]
    top: str
    top_weight: str


@dataclass(frozen=True)
class Token:
    """A token as the page shows it (token_label: "##◌ा"), with lang="hi" for Devanagari."""

    label: str
    lang: str | None


@dataclass(frozen=True)
class HeadTable:
    """One head's map for the page without JavaScript (learning/lab.html): the shaded map the
    widget draws, drawn here on the server (an SVG, its numbers as a table under it)."""

    layer: int
    head: int
    tokens: tuple[Token, ...]
    rows: tuple[TableRow, ...]
    sink: str
    notes: tuple[str, ...]
    figure: SafeString

    @property
    def n(self) -> int:
        return len(self.tokens)


def head_table(lr: LabRun, layer: int, head: int) -> HeadTable:
    """The weights of one head as printed (PLACES decimals, rows summing to 1), with each row's
    largest weight named."""
    payload = head_payload(lr, layer, head)
    units = shares_rounded(lr.run.attention[layer - 1, head - 1], PLACES)
    rows = []
    labels = [token_label(t) for t in lr.tokens]
    for i, token in enumerate(labels):
        j = int(np.argmax(units[i]))
        cells = tuple(dec(u / 10**PLACES, PLACES) for u in units[i])
        rows.append(TableRow(token, cells, f"{labels[j]} (place {j})", cells[j]))
    figure = head_map("lab-map", lr.tokens, units, layer, head, numbers="table")
    return HeadTable(
        layer=layer,
        head=head,
        tokens=tuple(Token(t, "hi" if _html.has_devanagari(t) else None) for t in labels),
        rows=tuple(rows),
        sink=dec(payload["sink"], 2),
        notes=tuple(payload["notes"]),
        figure=mark_safe(figure),
    )


def _shared_key(text: str, *parts: object) -> str:
    """The lab cache's key for what ``text`` gives the learner asking (ASKER): a keyed hash
    (HMAC with the site's secret) of the model, the learner and the text, so an entry serves
    only its own learner and the key tells nothing about the text without the secret."""
    secret = hashlib.sha256(f"mathmachine.lab.cache\x1f{settings.SECRET_KEY}".encode()).digest()
    message = f"{MODEL_SHA256}\x1f{ASKER.get()}\x1f{text}".encode()
    digest = hmac.new(secret, message, hashlib.sha256).hexdigest()[:40]
    return "lab:v2:" + digest + ":" + ":".join(str(p) for p in parts)


def _shared(text: str, parts: tuple[object, ...], make: Any) -> dict[str, Any]:
    """``make()``, kept in the lab's cache (caches["lab"], when LAB_REDIS_URL is set) for the
    learner asking: compressed, and only when it is at most MAX_ENTRY_BYTES; a miss while that
    Redis is down. Nobody known asking (no ASKER): nothing is kept."""
    if not settings.LAB_REDIS_URL or not ASKER.get():
        result: dict[str, Any] = make()
        return result
    lab_cache = caches["lab"]
    key = _shared_key(text, *parts)
    found = lab_cache.get(key)
    if isinstance(found, bytes):
        try:
            kept = json.loads(zlib.decompress(found))
        except (zlib.error, ValueError):
            kept = None
        if isinstance(kept, dict):
            return kept
    result = make()
    packed = zlib.compress(json.dumps(result, separators=(",", ":")).encode(), 6)
    if len(packed) <= MAX_ENTRY_BYTES:
        lab_cache.set(key, packed, CACHE_SECONDS)
    return result


def answer(data: Any) -> dict[str, Any]:
    """The JSON payload for a lab request (QueryDict or dict): ``text``, ``view`` (head, heads
    or neuron), ``layer`` 1..6 and ``head`` 1..12, ``query`` and ``key`` token positions.
    LabInputError for anything the lab cannot answer."""
    view = str(data.get("view", "head") or "head")
    if view not in ("head", "heads", "neuron"):
        raise LabInputError("Ask for view head, heads or neuron.", field="view")
    text = clean_text(data.get("text", ""))
    tokens, model = tokens_of(text)
    if view == "heads":
        return _shared(text, ("heads",), lambda: thumbnails_payload(_run_checked(text)))
    layer = parse_choice(data.get("layer", "1"), "layer", model.n_layers)
    head = parse_choice(data.get("head", "1"), "head", model.n_heads)
    if view == "head":
        return _shared(
            text, ("head", layer, head), lambda: head_payload(_run_checked(text), layer, head)
        )
    query = parse_position(data.get("query", ""), "query", len(tokens))
    key = parse_position(data.get("key", ""), "key", len(tokens))
    return _shared(
        text,
        ("neuron", layer, head, query, key),
        lambda: neuron_payload(_run_checked(text), layer, head, query, key),
    )
