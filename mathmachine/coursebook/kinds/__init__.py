"""The registry of check kinds: ``:kind: NAME`` on a check picks one.

    number    one number (0.936, .936, 93.6%, 1/3)
    integer   a whole number, e.g. a count (35, 1,050)
    vector    an ordered list of numbers, its length checked ((0.1, 0.2, 0.7))
    matrix    a table of numbers, its shape checked, a transposed answer named
    fraction  an exact fraction (1/3; 0.333 to the printed precision)
    choice    multiple choice, one answer or several, feedback per option
    words     a word or a short list of words (drink)

Each kind is one module here and one template in templates/learning/kinds/. To add one, see
docs/writing-content.md ("Adding a check kind").
"""

from __future__ import annotations

from . import choice, fraction, integer, matrix, number, vector, words  # noqa: F401  (register)
from .base import KINDS, FieldSpec, KeyFormatError, Kind, Mark, Option, Refusal, register

__all__ = ["KINDS", "FieldSpec", "KeyFormatError", "Kind", "Mark", "Option", "Refusal", "register"]
