"""One word in many sentences: how far apart the model puts its senses (Unit 18 §5).

A word's input vector is (nearly) the same in every sentence; the model's last layer gives it a
different vector in each. To compare those vectors we use cosines, and two kinds of them:

    raw        cos(u, v) = u·v / (|u| |v|)
    centred    cos(u − m, v − m), m = the mean token vector

where m is the mean of every token vector (``[CLS]`` and ``[SEP]`` included) that the layer
made for the sentences compared. Raw cosines between the vectors of one word run high whatever
the sense, because every token vector of the layer shares a large common part (m); subtracting
it leaves what tells the vectors apart (Ethayarajh 2019, "How Contextual are Contextualized Word
Representations?", measures this anisotropy; centring is the usual remedy, e.g. Mu & Viswanath
2018, "All-but-the-Top").

    >>> from mathmachine.engine.pretrained import word_senses
    >>> s = word_senses(("I sat on the bank of the river.", "The bank approved my loan."))
    >>> s.raw.shape, s.centred.shape, s.positions
    ((2, 2), (2, 2), (5, 2))
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .minilm import MiniLM, load_minilm

__all__ = ["WordSenses", "cosine_matrix", "group_means", "word_index", "word_senses"]


def cosine_matrix(vectors: ArrayLike) -> NDArray[np.float64]:
    """[m, d] rows -> [m, m] cosines of every pair of rows (1 on the diagonal).

    ValueError for a row of zeros (its cosine is undefined) or non-finite entries.
    """
    v = np.asarray(vectors, dtype=np.float64)
    if v.ndim != 2 or v.shape[0] == 0:
        raise ValueError(f"need a matrix of row vectors, got shape {v.shape}")
    if not np.isfinite(v).all():
        raise ValueError("vectors must be finite")
    norms = np.linalg.norm(v, axis=1)
    if np.any(norms == 0):
        raise ValueError("a vector of zeros has no direction: its cosine is undefined")
    unit = v / norms[:, None]
    c = unit @ unit.T
    np.fill_diagonal(c, 1.0)  # exactly 1, not 1 ± rounding
    return np.clip(c, -1.0, 1.0)


def group_means(matrix: ArrayLike, groups: Sequence[object]) -> tuple[float, float]:
    """The mean of the entries above the diagonal of a symmetric [m, m] matrix whose row and
    column are in the same group, and the mean of those in different groups: (same, across)."""
    c = np.asarray(matrix, dtype=np.float64)
    m = len(groups)
    if c.shape != (m, m):
        raise ValueError(f"a {c.shape} matrix for {m} groups")
    same: list[float] = []
    across: list[float] = []
    for i in range(m):
        for j in range(i + 1, m):
            (same if groups[i] == groups[j] else across).append(float(c[i, j]))
    if not same or not across:
        raise ValueError("need at least two members in one group and two groups")
    return float(np.mean(same)), float(np.mean(across))


def word_index(tokens: Sequence[str], word: str) -> int:
    """Where ``word`` is in the WordPiece tokens; ValueError unless it is there exactly once
    (as one whole token: "banks" or "bank" split into pieces does not count)."""
    hits = [i for i, t in enumerate(tokens) if t == word]
    if len(hits) != 1:
        shown = " ".join(tokens)
        how = "not" if not hits else f"{len(hits)} times"
        raise ValueError(f"{word!r} is {how} in the tokens [{shown}]: it must be there once")
    return hits[0]


@dataclass(frozen=True)
class WordSenses:
    """One word in m sentences, through the model.

    sentences  the m texts; tokens: each one's WordPiece tokens; positions: where the word is
    inputs     [m, d] the word's vector at the input (layer 0: embedding + position, normalised)
    outputs    [m, d] the word's vector at the last layer
    mean       [d] the mean of every last-layer token vector of the m sentences
    input_cosines, raw, centred   [m, m] cosines of the inputs, of the outputs, and of the
               outputs minus ``mean``
    """

    sentences: tuple[str, ...]
    word: str
    tokens: tuple[tuple[str, ...], ...]
    positions: tuple[int, ...]
    inputs: NDArray[np.float64]
    outputs: NDArray[np.float64]
    mean: NDArray[np.float64]
    input_cosines: NDArray[np.float64]
    raw: NDArray[np.float64]
    centred: NDArray[np.float64]


def _senses(model: MiniLM, sentences: tuple[str, ...], word: str) -> WordSenses:
    if len(sentences) < 2:
        raise ValueError("compare the word in at least two sentences")
    tokens, positions, inputs, outputs, every = [], [], [], [], []
    for text in sentences:
        run = model.run(text)
        i = word_index(run.tokens, word)
        tokens.append(tuple(run.tokens))
        positions.append(i)
        inputs.append(run.hidden[0, i])
        outputs.append(run.hidden[-1, i])
        every.append(run.hidden[-1])
    x_in = np.asarray(inputs, dtype=np.float64)
    x_out = np.asarray(outputs, dtype=np.float64)
    mean = np.concatenate(every).astype(np.float64).mean(axis=0)
    arrays = [x_in, x_out, mean, cosine_matrix(x_in), cosine_matrix(x_out),
              cosine_matrix(x_out - mean)]  # fmt: skip
    for a in arrays:
        a.setflags(write=False)  # shared by the cache: nobody may change them
    return WordSenses(sentences, word, tuple(tokens), tuple(positions), *arrays)


@functools.lru_cache(maxsize=8)
def _shared(sentences: tuple[str, ...], word: str) -> WordSenses:
    return _senses(load_minilm(), sentences, word)


def word_senses(
    sentences: Sequence[str], word: str = "bank", *, model: MiniLM | None = None
) -> WordSenses:
    """``word`` in each of ``sentences`` through all-MiniLM-L6-v2 (the shared model unless
    ``model`` is given): its input and last-layer vectors and their raw and centred cosines.
    With the shared model the result is cached by (sentences, word)."""
    key = tuple(sentences)
    if not all(isinstance(s, str) for s in key):
        raise ValueError("sentences must be strings")
    if model is None:
        return _shared(key, word)
    return _senses(model, key, word)
