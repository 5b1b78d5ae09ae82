"""§15, the practice arena: the figures of a few seeds against independent closed forms, and
the page's count of its problems and its rules. (Every problem over 300 seeds, as every check:
tests/content/test_every_check.py; worked by hand: test_hand_worked.py.)"""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest

from mathmachine.coursebook import CompiledUnit, compile_unit
from mathmachine.coursebook.passes.answers import visible_text
from mathmachine.coursebook.passes.load import load_figures

UNIT_DIR = (
    Path(__file__).resolve().parents[2] / "content" / "units" / "18-attention-and-transformers"
)


@pytest.fixture(scope="module")
def unit() -> CompiledUnit:
    return compile_unit(UNIT_DIR)


def test_the_arena_is_locked_and_counts_its_problems(unit: CompiledUnit) -> None:
    section = unit.section(15)
    assert section.written and not section.free
    problems = section.problems
    assert problems and section.checks == ()
    assert unit.problems_per_section[15] == len(problems) <= section.planned_problems
    assert sum(unit.problems_per_section.values()) == len(problems)  # problems live in §15
    # each keeps the number the unit's plan gives it (the arena is written a few problems at a
    # time, by the sections they practise, so the numbers may skip until it is whole)
    titles = [re.match(r"Problem (\d+) · ", p.title) for p in problems]
    assert all(p.problem for p in problems) and all(titles), [p.title for p in problems]
    numbers = [int(m.group(1)) for m in titles if m]
    assert numbers == sorted(set(numbers)) and numbers[0] == 1  # in order, each once
    assert numbers[-1] <= section.planned_problems  # within the plan
    page = re.sub(r"\s+([:,.])", r"\1", re.sub(r"\s+", " ", visible_text(section.html)))
    assert (
        "Proficient: you have solved it at the first try on two different sets of numbers" in page
    )
    assert "the page takes both" in page  # the grading rule for answers worked by hand


# ------------------------------------------------------------------ seed 1 against closed forms


@pytest.fixture(scope="module")
def variants() -> dict:
    return load_figures(UNIT_DIR, 18).variants


def _vec(text: str) -> np.ndarray:
    return np.array([float(x) for x in text.replace("−", "-").strip("()").split(",")])


def _mat(text: str) -> np.ndarray:
    rows = re.findall(r"\[([^\[\]]+)\]", text.replace("−", "-"))
    return np.array([[float(x) for x in r.split(",")] for r in rows])


@pytest.mark.parametrize("seed", [1, 2, 17, 123])
def test_the_figures_agree_with_closed_forms(variants: dict, seed: int) -> None:
    f = variants["soft_weights"](seed)
    q = _vec(f["q"])
    w = np.exp(q) / np.exp(q).sum()
    np.testing.assert_allclose(_vec(f["weights"]), w, atol=5e-4)
    np.testing.assert_allclose(_vec(f["no_exp"]), q / q.sum(), atol=5e-4)

    f = variants["soft_output"](seed)
    keys = np.array([_vec(f[f"k{i}"]) for i in (1, 2, 3)])
    values = np.array([float(f[f"v{i}"]) for i in (1, 2, 3)])
    s = keys @ _vec(f["query"])
    expected = (np.exp(s) / np.exp(s).sum()) @ values
    assert abs(float(f["output"]) - expected) <= 5e-3
    assert float(f["mean"]) == pytest.approx(values.mean(), abs=5e-3)

    f = variants["gradient"](seed)
    h1, h2, qq = _vec(f["h1"]), _vec(f["h2"]), _vec(f["q"])
    a = np.exp([qq @ h1, qq @ h2])
    a = a / a.sum()
    c = a[0] * h1 + a[1] * h2
    closed = a[0] * (np.eye(2) + np.outer(h1 - c, qq))
    np.testing.assert_allclose(_mat(f["grad"]), closed, atol=5e-4)

    # ... and against finite differences of the context itself.
    def context(h: np.ndarray) -> np.ndarray:
        s = np.array([qq @ h, qq @ h2])
        w = np.exp(s - s.max())
        w = w / w.sum()
        return w[0] * h + w[1] * h2

    eps = 1e-6
    fd = np.column_stack(
        [(context(h1 + eps * e) - context(h1 - eps * e)) / (2 * eps) for e in np.eye(2)]
    )
    np.testing.assert_allclose(_mat(f["grad"]), fd, atol=5e-4)


def _pmatrix(tex: str) -> np.ndarray:
    """A matrix the page prints as LaTeX, \\begin{pmatrix} a & b \\\\ c & d \\end{pmatrix}."""
    body = tex.replace("−", "-").removeprefix(r"\begin{pmatrix}").removesuffix(r"\end{pmatrix}")
    return np.array([[float(x) for x in row.split("&")] for row in body.split(r"\\")])


def _softmax(s: np.ndarray) -> np.ndarray:
    e = np.exp(s - s.max())
    return e / e.sum()


WORDS = ["I", "drink", "tea"]


@pytest.mark.parametrize("seed", [1, 2, 17, 123, 4821])
def test_self_attention_problems_agree_with_loops(variants: dict, seed: int) -> None:
    f = variants["attention_row"](seed)
    x, wq, wk = _pmatrix(f["X"]), _pmatrix(f["WQ"]), _pmatrix(f["WK"])
    i = WORDS.index(f["word"])
    q = [sum(x[i, a] * wq[a, b] for a in range(2)) for b in range(2)]
    keys = [[sum(x[j, a] * wk[a, b] for a in range(2)) for b in range(2)] for j in range(3)]
    scores = np.array([q[0] * k[0] + q[1] * k[1] for k in keys])
    np.testing.assert_allclose(_vec(f["weights"]), _softmax(scores), atol=5e-4)
    np.testing.assert_allclose(_vec(f["scores"]), scores)
    np.testing.assert_allclose(_pmatrix(f["K"]), np.array(keys))
    np.testing.assert_allclose(_vec(f["no_exp"]), scores / scores.sum(), atol=5e-4)
    raw = np.array([x[i] @ x[j] for j in range(3)])
    np.testing.assert_allclose(_vec(f["no_matrices"]), _softmax(raw), atol=5e-4)

    f = variants["attention_output"](seed)
    qm, km, vm = _pmatrix(f["Q"]), _pmatrix(f["K"]), _pmatrix(f["V"])
    i = WORDS.index(f["word"])
    w = _softmax(np.array([qm[i] @ km[j] for j in range(3)]))
    out = sum(w[j] * vm[j] for j in range(3))
    np.testing.assert_allclose(_vec(f["output"]), out, atol=5e-4)
    np.testing.assert_allclose(
        _vec(f["keys_blended"]), sum(w[j] * km[j] for j in range(3)), atol=5e-4
    )
    col = _softmax(np.array([qm[j] @ km[i] for j in range(3)]))
    np.testing.assert_allclose(_vec(f["column"]), sum(col[j] * vm[j] for j in range(3)), atol=5e-4)


@pytest.mark.parametrize("seed", range(1, 41))
def test_the_scaled_spread_agrees_with_counting(variants: dict, seed: int) -> None:
    """Var(q.k) for independent entries, by the definition: with entries +-sqrt(v) (average 0,
    variance v), average the square of the score over every sign pattern of a few pieces, then
    scale to d pieces (the pieces' variances add)."""
    f = variants["scaled_spread"](seed)
    d, vq, vk = int(f["d"]), float(f["vq"]), float(f["vk"])
    pieces = 3
    total = 0.0
    for pattern in range(4**pieces):
        signs = [(pattern >> (2 * p)) & 3 for p in range(pieces)]
        score = sum(
            (1 if s & 1 else -1) * math.sqrt(vq) * (1 if s & 2 else -1) * math.sqrt(vk)
            for s in signs
        )
        total += score**2
    var_per_piece = total / 4**pieces / pieces
    assert float(f["var"]) == pytest.approx(d * var_per_piece)
    assert float(f["scaled_std"]) == pytest.approx(math.sqrt(d * var_per_piece / d))
    assert float(f["sqrt_d"]) ** 2 == d
    assert float(f["scaled_std"]) != 1
