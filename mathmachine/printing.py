"""How the course prints a number: the one printer for the units' figures, the widgets' renderers,
the check kinds and billing's rupees (standard library only, importing nothing of the project).

    from mathmachine.printing import count, dec, matrix, plain, rupees, vec

    dec(-0.0251)            -> "−0.025"     computed numbers: fixed places, a real minus sign
    dec(-0.0001)            -> "0.000"      never "−0.000"
    plain(2.0), plain(-0.5) -> "2", "−0.5"  numbers as an author typed them
    compact(2.0), compact(0.25) -> "2", "0.250"   whole numbers whole, others dec
    vec([0.1, -0.2])        -> "(0.100, −0.200)"       vec(xs, plain), vec(xs, 2) also
    matrix([[1, -2]], plain)-> "[[1, −2]]"  as the answer boxes read a matrix
    pmatrix([[1, -2]], plain)-> "\\begin{pmatrix} 1 & −2 \\end{pmatrix}"   for a formula
    count(1048576)          -> "1,048,576"  count(1048576, indian=True) -> "10,48,576"
    percent(1.0), percent(0.9865)  -> "100%", "98.6%"   a share as a percentage
    rupees(26), rupees(19.3)-> "₹26", "₹19.30"  paise(29950) -> "₹299.50" (Indian grouping)

Every printed minus sign is U+2212 (MINUS), the one a reader and a screen reader take for minus;
the answer boxes read it, and a hyphen, alike (coursebook/kinds/reader.py). ``tex(text)`` turns a
printed figure back into what LaTeX wants (an ASCII "-"). Decimals are Python's correctly rounded
ones (half to even on the number's exact binary value: dec(0.125, 2) is "0.12").

The browser's printer, static/widgets/printing.js, exports the same functions; golden cases this
module writes (tests/golden/printing.json, `make golden`) hold it to these answers in Node, and
tests/test_printing.py runs the same cases here.

Why here, beside the engine and not inside it or the coursebook: the unit's figures may import only
the engine and this module, the coursebook's renderers and kinds print with it, and billing (the
web layer) prints prices with it, so it must sit below all three and import none of them
(docs/architecture.md, "One printer").
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from decimal import Decimal
from typing import SupportsFloat, SupportsIndex

__all__ = [
    "MINUS",
    "RUPEE",
    "compact",
    "count",
    "dec",
    "matrix",
    "paise",
    "percent",
    "plain",
    "pmatrix",
    "printer",
    "rupees",
    "signed",
    "tex",
    "vec",
]

MINUS = "\u2212"  # the printed minus sign
RUPEE = "\u20b9"  # ₹

Number = SupportsFloat | SupportsIndex
#: How vec() and matrix() print an entry: a function of the number, a count of decimal places
#: (dec with that many), or None (plain).
Entry = Callable[[float], str] | int | None


def signed(text: str) -> str:
    """Text with every hyphen-minus printed as a minus sign: "(-1, -2)" -> "(−1, −2)"."""
    return text.replace("-", MINUS)


def tex(text: str) -> str:
    """A printed figure as LaTeX wants it inside $…$: every minus sign an ASCII "-"."""
    return text.replace(MINUS, "-")


def _finite(x: Number) -> float:
    xf = float(x)
    if not math.isfinite(xf):
        raise ValueError(f"cannot print {xf!r}: a printed figure must be a finite number")
    return xf


def dec(x: Number, places: int = 3) -> str:
    """A computed number as printed: fixed places, a real minus sign, never "−0.000"."""
    text = f"{_finite(x):.{int(places)}f}"
    if float(text) == 0.0:
        text = text.lstrip("-")
    return signed(text)


def plain(x: Number) -> str:
    """A number as an author typed it: 2 not 2.0, 0.5 as is, a real minus sign."""
    xf = _finite(x)
    text = str(int(xf)) if xf.is_integer() else repr(xf)
    return signed(text)


def compact(x: Number, places: int = 3) -> str:
    """A whole number as it is ("2", "−1"), any other to ``places`` decimals ("0.250"): an entry
    someone may have typed, or one computed from such entries (within 1e-9 of whole is whole)."""
    xf = _finite(x)
    whole = round(xf)
    return plain(whole) if abs(xf - whole) < 1e-9 else dec(xf, places)


def percent(share: Number, places: int = 1) -> str:
    """A share (0.986…) as a percentage: "100%" and "60%" when the percentage is whole (within
    1e-9), else to ``places`` decimals ("98.6%"); a real minus sign."""
    p = 100 * _finite(share)
    whole = round(p)
    return (plain(whole) if abs(p - whole) < 1e-9 else dec(p, places)) + "%"


def printer(fmt: Entry) -> Callable[[float], str]:
    """The function vec(), matrix() and the kit's tables print an entry with: ``fmt`` itself if
    it is a function, dec with that many places if it is a number, plain if it is None."""
    if fmt is None:
        return plain
    if isinstance(fmt, int) and not isinstance(fmt, bool):
        places = fmt
        return lambda x: dec(x, places)
    if callable(fmt):
        return fmt
    raise TypeError(f"an entry prints with a function, a number of places or None, not {fmt!r}")


def vec(xs: Iterable[Number], fmt: Entry = dec) -> str:
    """A vector as printed: "(0.100, 0.164, 0.736)"; entries by ``fmt`` (dec by default)."""
    show = printer(fmt)
    return "(" + ", ".join(show(float(x)) for x in xs) + ")"


def matrix(rows: Iterable[Iterable[Number]], fmt: Entry = dec) -> str:
    """A matrix as the answer boxes read it and the page prints it: "[[0.500, −1.000], [2.000,
    0.000]]"; entries by ``fmt`` (dec by default)."""
    show = printer(fmt)
    return "[" + ", ".join("[" + ", ".join(show(float(x)) for x in r) + "]" for r in rows) + "]"


def pmatrix(rows: Iterable[Iterable[Number]], fmt: Entry = dec) -> str:
    """A matrix as LaTeX for a formula, "\\begin{pmatrix} 2 & 0 \\\\ 0 & −1 \\end{pmatrix}" (the
    math pass reads the printed minus sign as TeX's "-"); entries by ``fmt`` (dec by default)."""
    show = printer(fmt)
    body = r" \\ ".join(" & ".join(show(float(x)) for x in r) for r in rows)
    return r"\begin{pmatrix} " + body + r" \end{pmatrix}"


def _grouped(digits: str, indian: bool) -> str:
    """Digits with thousands separators: 1,048,576, or Indian 10,48,576 (lakhs, crores)."""
    if len(digits) <= 3:
        return digits
    head, tail = digits[:-3], digits[-3:]
    size = 2 if indian else 3
    groups: list[str] = []
    while len(head) > size:
        groups.insert(0, head[-size:])
        head = head[:-size]
    return ",".join([head, *groups, tail])


def count(n: Number, *, indian: bool = False) -> str:
    """A whole number as printed: "1,048,576", or with Indian grouping "10,48,576"."""
    xf = _finite(n)
    if not xf.is_integer():
        raise ValueError(f"a count is a whole number, got {xf!r}")
    value = int(n) if isinstance(n, int) else int(xf)
    sign = MINUS if value < 0 else ""
    return sign + _grouped(str(abs(value)), indian)


def _money(total_paise: int, *, decimals: bool) -> str:
    sign = MINUS if total_paise < 0 else ""
    whole, rest = divmod(abs(total_paise), 100)
    text = f"{sign}{RUPEE}{_grouped(str(whole), indian=True)}"
    return text + (f".{rest:02d}" if rest or decimals else "")


def paise(amount: int, *, exact: bool = False) -> str:
    """An amount in paise (billing's integers) as rupees: 29900 -> "₹299", 29950 -> "₹299.50",
    Indian grouping ("₹1,00,000"); ``exact`` always shows the paise ("₹299.00"), and a negative
    amount (a day's net) has a minus sign in front: "−₹299.00"."""
    if isinstance(amount, bool) or not isinstance(amount, int):
        raise TypeError(f"paise are a whole number, got {amount!r}")
    return _money(amount, decimals=exact)


def rupees(value: Number | Decimal, *, exact: bool = False) -> str:
    """A computed price in rupees: "₹26" when it is whole, else two decimals ("₹19.30", and
    "₹12.00" for 11.996: the decimals say it is not a whole number of rupees); ``exact`` always
    shows two decimals. Indian grouping, a minus sign in front of ₹."""
    xf = _finite(value)
    whole = round(xf)
    if abs(xf - whole) < 1e-9:
        return _money(int(whole) * 100, decimals=exact)
    return _money(int(Decimal(dec(abs(xf), 2)) * 100) * (-1 if xf < 0 else 1), decimals=True)
