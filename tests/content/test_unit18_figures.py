"""Unit 18 §1: every figure the prose prints agrees with an independent closed form, and the
compiled page shows them, without giving away the answers of its two checks.

The closed forms below are written out by hand from the definitions (softmax of one-hot notes,
tanh sums), not by calling the engine, so a wrong engine or a wrong formatter fails here.
"""

from __future__ import annotations

import html as html_lib
import math
import re
import shutil
import tomllib
from pathlib import Path

import pytest

from mathmachine.coursebook import CompileErrors, compile_unit
from mathmachine.coursebook.passes.load import load_figures

UNIT_DIR = (
    Path(__file__).resolve().parents[2] / "content" / "units" / "18-attention-and-transformers"
)
MINUS = "\u2212"

E = math.e
E_HALF = math.exp(0.5)
E_TWO = math.exp(2.0)


FIGURES = load_figures(UNIT_DIR, 18)  # the figures/ package, loaded as the compiler loads it


@pytest.fixture(scope="module")
def figs() -> dict[str, str]:
    return FIGURES.values


def d3(x: float) -> str:
    return f"{x:.3f}".replace("-", MINUS)


def v3(*xs: float) -> str:
    return "(" + ", ".join(d3(x) for x in xs) + ")"


def soft(*scores: float) -> tuple[float, ...]:
    total = sum(math.exp(s) for s in scores)
    return tuple(math.exp(s) / total for s in scores)


# ---------------------------------------------------------------- figures() against closed forms

DENOM = 1 + E_HALF + E_TWO  # softmax denominator for q = (0, 0.5, 2) against one-hot notes


def test_the_worked_look_back(figs: dict[str, str]) -> None:
    assert figs["q_tea"] == "(0, 0.5, 2)"
    assert figs["scores_tea"] == "(0, 0.5, 2)"
    assert (figs["exp_I"], figs["exp_drink"], figs["exp_tea"]) == ("1", "1.649", "7.389")
    assert figs["denominator"] == d3(DENOM) == "10.038"
    expected = v3(1 / DENOM, E_HALF / DENOM, E_TWO / DENOM)
    assert expected == "(0.100, 0.164, 0.736)"
    assert figs["weights_tea"] == expected
    # One-hot notes: the context is the weights themselves.
    assert figs["context_tea"] == expected
    assert (figs["w_I"], figs["w_drink"], figs["w_tea"]) == ("0.100", "0.164", "0.736")


def test_the_alignment_map_rows(figs: dict[str, str]) -> None:
    # Rows are softmax of the decoder state itself (the notes are one-hot).
    rows = {
        "main": soft(2, 0.5, 0),
        "chai": soft(0, 0.5, 2),
        "peeta": soft(0.5, 2, 0),
        "hoon": (E / (2 * E + 1), E / (2 * E + 1), 1 / (2 * E + 1)),
    }
    printed = {
        "main": "(0.736, 0.164, 0.100)",
        "chai": "(0.100, 0.164, 0.736)",
        "peeta": "(0.164, 0.736, 0.100)",
        "hoon": "(0.422, 0.422, 0.155)",
    }
    for name, row in rows.items():
        assert v3(*row) == printed[name]
        assert figs[f"row_{name}"] == printed[name]
    assert figs["row_hoon_I"] == figs["row_hoon_drink"] == "0.422"
    assert figs["row_hoon_tea"] == "0.155"
    assert figs["row_peeta_drink"] == figs["row_chai_tea"] == figs["row_main_I"] == "0.736"


def test_how_sure_and_check_1(figs: dict[str, str]) -> None:
    # q doubled to (0, 1, 4): weights (1, e, e^4) / (1 + e + e^4).
    denom2 = 1 + E + math.exp(4)
    sharp = (1 / denom2, E / denom2, math.exp(4) / denom2)
    assert v3(*sharp) == "(0.017, 0.047, 0.936)"
    assert figs["check1_answer"] == "(0.017, 0.047, 0.936)"
    assert figs["sure"] == "2"
    assert figs["sure_tea"] == figs["check1_tea"] == d3(sharp[2]) == "0.936"
    assert figs["q_double"] == figs["scores_double"] == "(0, 1, 4)"
    assert (figs["exp2_drink"], figs["exp2_tea"]) == (d3(E), d3(math.exp(4)))
    assert figs["denominator_double"] == d3(denom2) == "58.316"
    # e^(2s) = (e^s)^2: the printed exponentials of check 1 are the squares of the worked ones.
    assert math.isclose(E, E_HALF**2) and math.isclose(math.exp(4), E_TWO**2)
    assert figs["sure_zero_share"] == "1/3"
    # The two wrong answers that get their own feedback.
    assert figs["check1_unchanged"] == "(0.100, 0.164, 0.736)"
    assert figs["check1_doubled_weights"] == "(0.200, 0.328, 1.472)"


def test_the_additive_example(figs: dict[str, str]) -> None:
    th = math.tanh
    scores = (th(1.5) + th(-0.5), th(0.5) + th(0.5), th(1.5) + th(0.5))
    assert v3(*scores) == "(0.443, 0.924, 1.367)"
    assert figs["add_scores"] == "(0.443, 0.924, 1.367)"
    assert v3(*soft(*scores)) == "(0.195, 0.315, 0.490)"
    assert figs["add_weights"] == "(0.195, 0.315, 0.490)"
    assert figs["add_top"] == "0.490"
    assert figs["add_q"] == f"(0.5, {MINUS}0.5)"
    assert [figs[f"add_sum_{j}"] for j in (1, 2, 3)] == [
        f"(1.5, {MINUS}0.5)",
        "(0.5, 0.5)",
        "(1.5, 0.5)",
    ]
    assert [figs[f"add_tanh_{j}"] for j in (1, 2, 3)] == [
        v3(th(1.5), th(-0.5)),
        v3(th(0.5), th(0.5)),
        v3(th(1.5), th(0.5)),
    ]
    assert figs["add_tanh_1"] == f"(0.905, {MINUS}0.462)"
    assert [figs[f"add_note_{j}"] for j in (1, 2, 3)] == ["(1, 0)", "(0, 1)", "(1, 1)"]
    assert figs["add_v"] == "(1, 1)"


def test_check_2_and_the_proof(figs: dict[str, str]) -> None:
    assert (figs["count_in"], figs["count_out"]) == ("30", "35")
    assert figs["check2_contexts"] == "35"
    assert figs["check2_numbers"] == str(35 * 30) == "1050"
    assert (figs["check2_square_in"], figs["check2_square_out"]) == ("900", "1225")
    # dc/dh_tea = alpha_tea (I + (h_tea - c) q^T): the note of "tea" gets blame at its share.
    assert figs["blame_tea"] == d3(E_TWO / DENOM) == "0.736"


def test_printed_negatives_use_a_real_minus_and_nothing_is_blank(figs: dict[str, str]) -> None:
    for name, text in figs.items():
        # kept() (figures/variants.py) is a solution's last words when its by-hand and exact
        # answers print differently, and nothing when they agree: the one figure that may be blank
        assert text.strip() or name.endswith("_kept"), name
        assert "-" not in text, f"{name} prints a hyphen for a minus: {text!r}"


def test_examples_the_widget_reads_are_the_specs_inputs() -> None:
    lb = FIGURES.examples["lookback"]
    assert lb["english"] == ["I", "drink", "tea"]
    assert [w["word"] for w in lb["hindi"]] == ["मैं", "चाय", "पीता", "हूँ"]
    assert lb["notes"] == [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    assert lb["states"] == [[2.0, 0.5, 0.0], [0.0, 0.5, 2.0], [0.5, 2.0, 0.0], [1.0, 1.0, 0.0]]
    assert (lb["sure_min"], lb["sure_max"], lb["sure_default"]) == (0, 3, 1)
    ad = FIGURES.examples["additive"]
    assert ad["q"] == [0.5, -0.5] and ad["v"] == [1.0, 1.0]
    assert ad["W1"] == ad["W2"] == [[1.0, 0.0], [0.0, 1.0]]
    assert ad["notes"] == [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]


# ---------------------------------------------------------------- the source files


def test_unit_toml_matches_the_spec() -> None:
    unit = tomllib.loads((UNIT_DIR / "unit.toml").read_text(encoding="utf-8"))
    assert (unit["number"], unit["slug"]) == (18, "attention-and-transformers")
    assert unit["title"] == "Attention and Transformers"
    sections = unit["sections"]
    assert [s["number"] for s in sections] == list(range(1, 16))
    assert sections[0]["title"] == "The bottleneck, and the fix: look back"
    assert sections[14]["title"] == "Practice arena — sixteen problems, solved in full"
    assert [s["free"] for s in sections] == [True] + [False] * 14
    assert sum(s["widgets"] for s in sections) == 18
    assert sum(s["checks"] for s in sections) == 31
    # A written section's file is named by its number and slug; sections 1 and 15 are written.
    for s in sections:
        assert s.get("file", "") in ("", f"{s['number']:02d}-{s['slug']}.md"), s
    files = [s.get("file", "") for s in sections]
    assert files[0] == "01-look-back.md" and files[14] == "15-practice.md"
    assert len({s["slug"] for s in sections}) == 15


def test_every_figure_the_markdown_names_exists(figs: dict[str, str]) -> None:
    text = (UNIT_DIR / "01-look-back.md").read_text(encoding="utf-8")
    names = set(re.findall(r"\{\{\s*(\w+)\s*\}\}", text))
    assert names, "section 1 prints no figures?"
    assert names <= set(figs), sorted(names - set(figs))


# ---------------------------------------------------------------- the compiled page


def _compiled_section_1():  # type: ignore[no-untyped-def]
    return compile_unit(UNIT_DIR).sections[0]


def _visible(page: str) -> str:
    """The page's text with tags removed and all whitespace dropped (MathML splits numbers
    into <mn> elements, so "(0.100, 0.164, 0.736)" reads "(0.100,0.164,0.736)" here)."""
    no_comments = re.sub(r"<!--.*?-->", "", page, flags=re.S)
    text = html_lib.unescape(re.sub(r"<[^>]+>", "", no_comments))
    return re.sub(r"\s+", "", text)


def _shows(page: str, figure: str) -> bool:
    return figure in page or re.sub(r"\s+", "", figure) in _visible(page)


SPEC_FIGURES = [
    "(0.100, 0.164, 0.736)",
    "0.936",
    "(0.443, 0.924, 1.367)",
    "(0.195, 0.315, 0.490)",
]


def test_compiled_section_1_prints_the_spec_figures() -> None:
    sec = _compiled_section_1()
    assert sec.free and sec.written
    assert sec.title == "The bottleneck, and the fix: look back"
    for figure in SPEC_FIGURES:
        assert _shows(sec.html, figure), f"section 1 does not show {figure}"
    # 35 and 1050 belong to check 2: they live in its definition, not in the prose.
    count = {c.id: c for c in sec.checks}["s1-count"]
    assert [f.key.values for f in count.fields] == [(35.0,), (1050.0,)]
    assert "35" in count.prompt_html and "30" in count.prompt_html
    sharpen = {c.id: c for c in sec.checks}["s1-sharpen"]
    assert [f.key.values for f in sharpen.fields] == [(0.017, 0.047, 0.936)]
    assert "(0, 1, 4)" in sharpen.prompt_html


def test_compiled_section_1_hides_the_check_answers() -> None:
    sec = _compiled_section_1()
    assert {c.id for c in sec.checks} == {"s1-sharpen", "s1-count"}
    for check_id in ("s1-sharpen", "s1-count"):
        assert f"<!--check:{check_id}-->" in sec.html
    visible = _visible(sec.html)
    assert "(0.017, 0.047, 0.936)" not in sec.html
    assert "(0.017,0.047,0.936)" not in visible
    assert "0.017" not in visible and "0.047" not in visible
    assert "1050" not in sec.html and "1,050" not in sec.html
    for check in sec.checks:
        assert "0.017" not in check.prompt_html and "1050" not in check.prompt_html


def test_compiled_section_1_has_its_published_blocks() -> None:
    sec = _compiled_section_1()
    assert (sec.published_widgets, sec.published_checks) == (1, 2)
    assert [w.name for w in sec.widgets] == ["translate-lookback"]
    assert [w.id for w in sec.widgets] == ["w1"]
    assert '<span lang="hi">चाय</span>' in sec.html
    assert "<math" in sec.html


# ---------------------------------------------------------------- the figures package


def _copy_unit(tmp_path: Path) -> Path:
    unit = tmp_path / UNIT_DIR.name
    shutil.copytree(UNIT_DIR, unit, ignore=shutil.ignore_patterns("__pycache__"))
    return unit


def test_each_section_module_is_found_by_its_file_name(tmp_path: Path) -> None:
    unit = _copy_unit(tmp_path)
    (unit / "figures" / "s02_soft_lookup.py").write_text(
        'EXAMPLES = {"pairs": {"n": 2}}\n\n\ndef figures() -> dict[str, str]:\n'
        '    return {"pair_share": "0.5"}\n',
        encoding="utf-8",
    )
    loaded = load_figures(unit, 18)
    assert loaded.values["pair_share"] == "0.5" and loaded.values["w_tea"] == "0.736"
    assert loaded.examples["pairs"] == {"n": 2} and "lookback" in loaded.examples


def test_a_name_two_sections_define_is_an_error(tmp_path: Path) -> None:
    unit = _copy_unit(tmp_path)
    (unit / "figures" / "s02_soft_lookup.py").write_text(
        'def figures() -> dict[str, str]:\n    return {"w_tea": "0.5"}\n', encoding="utf-8"
    )
    with pytest.raises(CompileErrors) as info:
        load_figures(unit, 18)
    message = info.value.format()
    assert "figure 'w_tea' is defined by both s01_look_back and s02_soft_lookup" in message


def test_figures_py_beside_the_package_is_an_error(tmp_path: Path) -> None:
    unit = _copy_unit(tmp_path)
    (unit / "figures.py").write_text("def figures():\n    return {}\n", encoding="utf-8")
    with pytest.raises(CompileErrors) as info:
        load_figures(unit, 18)
    assert "figures.py and figures/ both exist" in info.value.format()
