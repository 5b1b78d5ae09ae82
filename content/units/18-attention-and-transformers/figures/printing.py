"""How the unit prints a number: the helpers every section's figures module formats with."""

from __future__ import annotations

from collections.abc import Callable, Iterable

MINUS = "\u2212"  # the printed minus sign


def dec(x: float, places: int = 3) -> str:
    """A computed number as printed: fixed places, a real minus sign, never "−0.000"."""
    text = f"{float(x):.{places}f}"
    if float(text) == 0.0:
        text = text.lstrip("-")
    return text.replace("-", MINUS)


def plain(x: float) -> str:
    """An input number as printed: 2 not 2.0, 0.5 as is, a real minus sign."""
    xf = float(x)
    text = str(int(xf)) if xf.is_integer() else repr(xf)
    return text.replace("-", MINUS)


def vec(xs: Iterable[float], fmt: Callable[[float], str] = dec) -> str:
    """A vector as printed: "(0.100, 0.164, 0.736)"."""
    return "(" + ", ".join(fmt(x) for x in xs) + ")"
