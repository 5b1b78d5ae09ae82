"""The one printer (mathmachine/printing.py): its golden cases run here as in Node, what it refuses,
and where it sits (a leaf: the figures, the coursebook and billing import it; it imports none of
them)."""

from __future__ import annotations

import ast
import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from mathmachine import printing
from mathmachine.printing import (
    MINUS,
    compact,
    count,
    dec,
    matrix,
    paise,
    percent,
    plain,
    pmatrix,
    rupees,
    signed,
    tex,
    vec,
)

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests" / "golden" / "printing.json"
FIGURES = ROOT / "content" / "units" / "18-attention-and-transformers" / "figures"


def _call(fn: str, args: list[Any]) -> str:
    """A golden case as the Python printer answers it (JS passes options as a trailing object)."""
    kwargs: dict[str, Any] = {}
    if args and isinstance(args[-1], dict):
        kwargs = args[-1]
        args = args[:-1]
    result: str = getattr(printing, fn)(*args, **kwargs)
    return result


def test_every_golden_case_is_what_this_printer_prints() -> None:
    """The cases Node runs against printing.js (tests/js/golden.test.mjs), run against the server's
    printer from the committed file: both sides print the same text."""
    data = json.loads(GOLDEN.read_text(encoding="utf-8"))
    (group,) = data["groups"]
    assert group["module"] == "widgets/printing.js"
    fns = {c["fn"] for c in group["cases"]}
    assert fns >= {"dec", "plain", "compact", "vec", "matrix", "count", "rupees", "signed"}
    for c in group["cases"]:
        assert _call(c["fn"], c["args"]) == c["out"], c


def test_the_one_true_minus_sign_everywhere() -> None:
    assert dec(-0.0251) == f"{MINUS}0.025"
    assert dec(-0.0001) == "0.000" and dec(-0.0) == "0.000"
    assert vec([-1, -2], plain) == f"({MINUS}1, {MINUS}2)"  # every sign, not only the first
    assert matrix([[1, -2], [-3, 4.5]], plain) == f"[[1, {MINUS}2], [{MINUS}3, 4.5]]"
    assert signed("(-1, -2)") == f"({MINUS}1, {MINUS}2)"
    assert tex(vec([-1, 2], plain)) == "(-1, 2)"
    assert (
        pmatrix([[2, 0], [0, -1]], plain)
        == rf"\begin{{pmatrix}} 2 & 0 \\ 0 & {MINUS}1 \end{{pmatrix}}"
    )
    assert "-" not in "".join(
        [dec(-1.5, 1), plain(-2), compact(-3), count(-1000), rupees(-19.3), paise(-100)]
    )


def test_decimals_round_half_to_even_on_the_binary_value() -> None:
    assert dec(0.125, 2) == "0.12" and dec(0.375, 2) == "0.38" and dec(2.5, 0) == "2"
    assert dec(2.675, 2) == "2.67"  # 2.675 is 2.67499999… in binary: not a tie
    assert dec(0.9995, 3) == "1.000" and dec(9.9999, 3) == "10.000"  # carries


def test_plain_and_compact() -> None:
    assert [plain(x) for x in (2.0, 0.5, -0.5, 0.1, 1024)] == [
        "2",
        "0.5",
        f"{MINUS}0.5",
        "0.1",
        "1024",
    ]
    assert compact(2.0000000001) == "2" and compact(0.25) == "0.250" and compact(0.25, 1) == "0.2"


def test_counts_and_money() -> None:
    assert count(1_048_576) == "1,048,576" and count(1_048_576, indian=True) == "10,48,576"
    assert count(999) == "999" and count(100_000, indian=True) == "1,00,000"
    assert count(10**12 + 7) == "1,000,000,000,007"  # exact for large integers, no float
    assert paise(29900) == "₹299" and paise(29950) == "₹299.50"
    assert (
        paise(12345678, exact=True) == "₹1,23,456.78"
        and paise(-29900, exact=True) == f"{MINUS}₹299.00"
    )
    assert rupees(26) == "₹26" and rupees(19.299999999999997) == "₹19.30"
    assert rupees(11.996) == "₹12.00"  # not whole: the decimals say so
    assert rupees(26, exact=True) == "₹26.00" and rupees(100000) == "₹1,00,000"


def test_percentages() -> None:
    assert percent(1.0) == "100%" and percent(0.6) == "60%" and percent(73 / 74) == "98.6%"
    assert percent(45 / 74) == "60.8%" and percent(45 / 74, 0) == "61%"
    assert percent(-0.125) == f"{MINUS}12.5%" and percent(0.0) == "0%"


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf")])
def test_what_cannot_be_printed_is_refused(bad: float) -> None:
    for fn in (dec, plain, compact, count, rupees):
        with pytest.raises(ValueError):
            fn(bad)
    with pytest.raises(ValueError):
        vec([1.0, bad])


def test_a_count_is_whole_and_paise_are_integers() -> None:
    with pytest.raises(ValueError):
        count(1.5)
    for bad in (299.5, "29900", True):
        with pytest.raises(TypeError):
            paise(bad)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        vec([1.0], "3")  # type: ignore[arg-type]


# -- where the printer sits ---------------------------------------------------------------------


def _imports(path: Path) -> set[str]:
    """The modules a Python file imports (absolute names; relative ones as '.name')."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            found.add("." * node.level + (node.module or ""))
    return found


def test_the_printer_is_a_leaf_of_the_standard_library() -> None:
    names = _imports(ROOT / "mathmachine" / "printing.py")
    assert all(n.split(".")[0] in sys.stdlib_module_names for n in names), names


def test_the_figures_import_only_the_engine_the_printer_and_their_own_package() -> None:
    for path in sorted(FIGURES.glob("*.py")):
        for name in _imports(path):
            top = name.split(".")[0]
            ok = (
                name.startswith(".")
                or name == "mathmachine.printing"
                or name == "mathmachine.engine"
                or name.startswith("mathmachine.engine.")
                or top in sys.stdlib_module_names
                or top == "numpy"
            )
            assert ok, f"{path.name} imports {name}: figures may use the engine and the printer"


def test_no_copy_of_the_printer_is_left() -> None:
    """Every module that prints a number uses mathmachine.printing: no local minus-sign
    replacement or thousands separator is left in the figures, the renderers, the kinds or
    billing (the reader of answers, which undoes them, excepted)."""
    roots = [FIGURES, *(ROOT / "mathmachine" / p for p in ("coursebook", "billing", "learning"))]
    for root in roots:
        for path in sorted(root.rglob("*.py")):
            if path.name == "reader.py" or "migrations" in path.parts:
                continue
            source = path.read_text(encoding="utf-8")
            for pattern in (
                '.replace("-", "\\u2212")',
                ".replace('-', '\\u2212')",
                ':,}"',
                "'₹' +",
            ):
                assert pattern not in source, f"{path.relative_to(ROOT)} prints with {pattern!r}"


# A number formatted in place with a precision (f"{x:.3f}", f"{p:.1f}%", "{:.2e}".format): a copy
# of dec() that prints a hyphen for a negative number.
_PRECISION = re.compile(r"\{[^{}]*:[-+ ]?[,_]?[0-9]*\.[0-9]+[fFeEgG%]\}")


def test_no_number_is_printed_by_a_format_precision() -> None:
    """The figures, the check kinds and the web apps print every number through the printer:
    no format precision is left in them (a renderer's SVG coordinates are not printed numbers,
    and the coursebook's own timing messages are not the unit's)."""
    roots = [
        FIGURES,
        *(ROOT / "mathmachine" / p for p in ("coursebook/kinds", "learning", "billing")),
    ]
    found = []
    for root in roots:
        for path in sorted(root.rglob("*.py")):
            if "migrations" in path.parts:
                continue
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if _PRECISION.search(line):
                    found.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert found == [], (
        "print these with mathmachine.printing (dec, vec, percent ...):\n" + "\n".join(found)
    )


def test_the_precision_rule_finds_what_it_forbids() -> None:
    for line in (
        'f"{x:.3f}"',
        'f"{p:.0f}%"',
        'f"{share:.1%}"',
        '"{:.2e}".format(x)',
        'f"{-x:+.2f}"',
    ):
        assert _PRECISION.search(line), line
    for line in ('f"{x}"', 'f"{n:,}"', 'f"{name!r}"', 'f"{{x:.3f}}" is an example', "dec(x, 3)"):
        assert not _PRECISION.search(line.replace("{{", "").replace("}}", "")), line
