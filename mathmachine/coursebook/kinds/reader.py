"""The answer reader: what a learner typed, read leniently into numbers with a shape.

    0.936   .936   93.6%   ≈ 0.936   −0.462   1/3   2.5e1   १०५०   1,050   1,05,000   ₹26   Rs. 26
    Rs. 26/-   26/-
    (0.1, 0.2, 0.7)   0.1 0.2 0.7   [0.1;0.2;0.7]
    [[1, 2], [3, 4]]   (1, 2), (3, 4)   1 2; 3 4   rows on separate lines

A comma separates numbers, never decimals: "0,017, 0,047" is read as a decimal-comma slip and
reported as such. Reading never raises: text that cannot be read gives an Unreadable with a
reason the kinds turn into their own message. Used by every numeric kind, and by the compiler
for the keys it reads from the source.
"""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass
from fractions import Fraction

MAX_ANSWER_CHARS = 200

_MINUS = dict.fromkeys(map(ord, "\u2212\u2012\u2013\u2014\ufe63\uff0d"), "-")
_PREFIXES = ("≈", "~", "=", "≃", "about")
# A price typed with its currency (₹26, Rs. 26, INR 26): the sign goes, the number stays.
_CURRENCY = re.compile(r"^(?:₹|rs\.?|inr)\s*(?=[\d.+-])", re.I)
# "26/-", the Indian way of writing a price in whole rupees ("Rs. 26/-"): the "/-" goes.
_WHOLE_RUPEES = re.compile(r"(?<=\d)\s*/\s*-$")
_OPEN = "([{⟨<"
_CLOSE = ")]}⟩>"
_PAIRS = dict(zip(_OPEN, _CLOSE, strict=True))
_NUMBER = re.compile(r"^([+-]?)(\d+\.?\d*|\.\d+)(?:[eE]([+-]?\d+))?(%?)$")
_FRACTION = re.compile(r"^([+-]?)(\d+)/(\d+)$")
# 1,050 / 12,345,678.5 (western) and 1,05,000 (Indian); the first group may not start with 0.
_THOUSANDS = re.compile(r"^[+-]?(?:[1-9]\d{0,2}(?:,\d{3})+|[1-9]\d?(?:,\d{2})+,\d{3})(?:\.\d+)?$")
_SEPARATORS = re.compile(r"[,\s]+")
_ROW_SEPARATORS = re.compile(r"\s*[;\n]\s*")
_DECIMAL_COMMA = re.compile(r"(?<=\d),(?=\d)")
_GROUP = re.compile(r"[(\[{⟨<]([^()\[\]{}⟨⟩<>]*)[)\]}⟩>]")


@dataclass(frozen=True)
class Num:
    """One number as typed. places: digits after the point as typed (93.6% has 3; 2.5e1 has 0);
    None for a fraction "1/3", which is exact. exact: the value as a Fraction (always known:
    every form we read is a finite decimal or a fraction)."""

    value: float
    places: int | None
    exact: Fraction


@dataclass(frozen=True)
class Numbers:
    """Numbers read from one box. rows: one row for a number or a flat list; several when the
    text was written row by row (";", new lines, nested brackets). comma_decimal: the text with
    its decimal-looking commas as points ("0,936" -> "0.936"), when it has any, so a kind can
    say "use a point" when that reading is the one that fits."""

    rows: tuple[tuple[Num, ...], ...]
    nested: bool
    comma_decimal: str | None = None

    @property
    def flat(self) -> tuple[Num, ...]:
        return tuple(n for row in self.rows for n in row)

    @property
    def values(self) -> tuple[float, ...]:
        return tuple(n.value for n in self.flat)

    @property
    def shape(self) -> tuple[int, ...]:
        """() one number, (n,) a list, (rows, columns) a table of rows."""
        if self.nested:
            return (len(self.rows), len(self.rows[0]))
        count = len(self.rows[0])
        return () if count == 1 else (count,)


@dataclass(frozen=True)
class Unreadable:
    """Why a box could not be read. reason: "empty", "too-long", "not-a-number" (detail: the
    token), "zero-denominator", "ragged" (rows of different lengths), "decimal-comma" (detail:
    the text with points)."""

    reason: str
    detail: str = ""


def _ascii_digits(text: str) -> str:
    out = []
    for ch in text:
        if ch.isdigit() and not ("0" <= ch <= "9"):
            d = unicodedata.decimal(ch, None)
            out.append(str(d) if d is not None else ch)
        else:
            out.append(ch)
    return "".join(out)


def normalize(raw: str) -> str:
    """Unicode digits -> ASCII, minus signs -> "-", a leading "≈"/"about" and a rupee sign
    dropped, spaces before "%" and around "/" removed, and one pair of brackets around the whole
    text removed."""
    text = unicodedata.normalize("NFKC", raw)
    text = _ascii_digits(text).translate(_MINUS).strip()
    for prefix in _PREFIXES:
        if text.lower().startswith(prefix):
            text = text[len(prefix) :].strip()
    text = _CURRENCY.sub("", text)
    text = _WHOLE_RUPEES.sub("", text)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = re.sub(r"[ \t]+%", "%", text)
    text = re.sub(r"[ \t]*/[ \t]*", "/", text)
    if _encloses(text):
        text = text[1:-1].strip()
    return text


def _encloses(text: str) -> bool:
    """Is the whole text one bracketed group, "(…)" or "[[…], […]]" (not "(1, 2), (3, 4)")?"""
    if len(text) < 2 or _PAIRS.get(text[0]) != text[-1]:
        return False
    depth = 0
    for i, ch in enumerate(text):
        if ch in _OPEN:
            depth += 1
        elif ch in _CLOSE:
            depth -= 1
            if depth == 0 and i < len(text) - 1:
                return False
    return depth == 0


def read_number(token: str) -> Num | Unreadable:
    """One token: "0.936", ".5", "93.6%", "-1/3", "2.5e1"."""
    m = _FRACTION.match(token)
    if m:
        num, den = int(m.group(2)), int(m.group(3))
        if den == 0:
            return Unreadable("zero-denominator")
        exact = Fraction(num, den) * (-1 if m.group(1) == "-" else 1)
        return Num(float(exact), None, exact)
    m = _NUMBER.match(token)
    if not m:
        return Unreadable("not-a-number", token)
    sign, digits, exponent, percent = m.groups()
    if len(digits) > MAX_ANSWER_CHARS or (exponent and abs(int(exponent)) > 30):
        return Unreadable("not-a-number", token)  # no real answer has that many digits
    if len(digits) > 1 and digits[0] == "0" and digits[1].isdigit():
        return Unreadable("not-a-number", token)  # "017": the tail of a decimal comma
    places = len(digits.split(".", 1)[1]) if "." in digits else 0
    exact = Fraction(digits)
    if exponent:
        exact *= Fraction(10) ** int(exponent)
        places -= int(exponent)
    if percent:
        exact /= 100
        places += 2
    if sign == "-":
        exact = -exact
    value = float(exact)
    if not math.isfinite(value):
        return Unreadable("not-a-number", token)
    return Num(value, max(places, 0), exact)


def _read_row(text: str) -> tuple[Num, ...] | Unreadable:
    if _THOUSANDS.match(text):
        tokens = [text.replace(",", "")]
    else:
        tokens = [t for t in _SEPARATORS.split(text) if t]
    if not tokens:
        return Unreadable("empty")
    nums: list[Num] = []
    for token in tokens:
        n = read_number(token)
        if isinstance(n, Unreadable):
            return n
        nums.append(n)
    return tuple(nums)


def _rows_of(text: str) -> tuple[list[str], bool]:
    """The text cut into rows, and whether it was written as rows at all."""
    groups = _GROUP.findall(text)
    if groups:
        rest = _GROUP.sub(" ", text)
        if rest.strip(" ,;\n\t"):
            return [text], False  # brackets mixed with loose numbers: let the tokens fail
        return groups, True
    if _ROW_SEPARATORS.search(text.strip()):
        return [r for r in _ROW_SEPARATORS.split(text.strip()) if r.strip()], True
    return [text], False


def read_numbers(raw: object) -> Numbers | Unreadable:
    """Read one answer box. Never raises."""
    if not isinstance(raw, str):
        return Unreadable("empty")
    if len(raw) > MAX_ANSWER_CHARS:
        return Unreadable("too-long")
    text = normalize(raw)
    if not text.strip(" ,;\n\t"):
        return Unreadable("empty")
    comma = None
    if _DECIMAL_COMMA.search(text) and not _THOUSANDS.match(text):
        comma = _DECIMAL_COMMA.sub(".", text)
    pieces, nested = _rows_of(text)
    rows: list[tuple[Num, ...]] = []
    for piece in pieces:
        row = _read_row(piece.strip())
        if isinstance(row, Unreadable):
            if comma is not None and row.reason == "not-a-number":
                return Unreadable("decimal-comma", comma)
            return row
        rows.append(row)
    if nested and len({len(r) for r in rows}) > 1:
        return Unreadable("ragged")
    if nested and len(rows) == 1:
        nested = False  # "[1 2 3]" with brackets left over is a flat list
    return Numbers(tuple(rows), nested, comma)


def printed_places(text: str) -> int:
    """Digits after the point of a printed number ("0.936" -> 3, "1,050" -> 0, "2.5e1" -> 0)."""
    n = read_number(normalize(text).replace(",", ""))
    return 0 if isinstance(n, Unreadable) or n.places is None else n.places
