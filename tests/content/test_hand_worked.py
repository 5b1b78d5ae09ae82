"""The practice arena worked by hand (issue 13, part 1): over seeds 1-300 of every problem whose
solution rounds as it goes, a learner who carries the worked solution's printed numbers to the
end, rounding as the problem asks, is graded right; so is one who keeps every digit.

Each path below is written here, apart from the figures modules, from the numbers the page
prints (the variant's figures, each checked to stand in the solution's text):

- "as printed": the solution's own steps with its printed intermediates (its printed total of
  the exponentials, its printed context vector, its printed matrix I + (h1 - c) q^T ...);
- "own sums": the same steps, the learner adding and multiplying the printed numbers themselves;
- "every digit": the problem's inputs, nothing rounded before the end (closed forms).

Run as a script, it prints how many of each are marked wrong per problem (the issue's figure
on main before the fix: 695 of 1,800 "as printed"):

    .venv/bin/python tests/content/test_hand_worked.py [SEEDS]
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest

if __name__ == "__main__":  # run as a script: the repository and tests/ on the path
    sys.path[:0] = [str(Path(__file__).resolve().parents[2]), str(Path(__file__).parents[1])]

from gradables import at_seed

from mathmachine.coursebook import CheckDef
from mathmachine.coursebook.grading import grade
from mathmachine.coursebook.passes.answers import visible_text
from mathmachine.coursebook.passes.load import load_figures

UNIT_DIR = (
    Path(__file__).resolve().parents[2] / "content" / "units" / "18-attention-and-transformers"
)
SEEDS = range(1, 301)
MINUS = "\u2212"
Figures = dict[str, str]
Path_ = Callable[[Figures], list[str]]


def num(text: str) -> float:
    return float(text.replace(MINUS, "-"))


def vec(text: str) -> np.ndarray:
    return np.array([num(x) for x in text.strip("()").split(",")])


def pmatrix(tex: str) -> np.ndarray:
    body = tex.replace(MINUS, "-").removeprefix(r"\begin{pmatrix}").removesuffix(r"\end{pmatrix}")
    return np.array([[float(x) for x in row.split("&")] for row in body.split(r"\\")])


def rounded(x: Any, places: int = 3) -> np.ndarray:
    """What a learner writes down: x to the places asked (half away from zero, as by hand)."""
    a = np.asarray(x, dtype=float)
    return np.sign(a) * np.floor(np.abs(a) * 10**places + 0.5 + 1e-9) / 10**places


def typed(x: Any, places: int = 3) -> str:
    """An answer as a learner types it: "(0.1, 0.2)" or "[[1, 2], [3, 4]]" or "0.5"."""
    a = rounded(x, places)
    if a.ndim == 0:
        return f"{float(a):.{places}f}"
    if a.ndim == 1:
        return "(" + ", ".join(f"{v:.{places}f}" for v in a) + ")"
    return (
        "[" + ", ".join(typed(row, places).replace("(", "[").replace(")", "]") for row in a) + "]"
    )


def softmax(s: np.ndarray) -> np.ndarray:
    e = np.exp(s - s.max())
    return e / e.sum()


# ------------------------------------------------------------------ the paths, problem by problem


def weights_as_printed(f: Figures, exps: np.ndarray) -> list[str]:
    return [typed(exps / num(f["total"]))]


def weights_own_sum(exps: np.ndarray) -> list[str]:
    return [typed(exps / rounded(exps.sum()))]


def p1_exps(f: Figures) -> np.ndarray:
    return np.array([num(f[f"e{i}"]) for i in (1, 2, 3)])


def p2(f: Figures) -> list[str]:
    w = np.array([num(f[f"w{i}"]) for i in (1, 2, 3)])
    v = np.array([num(f[f"v{i}"]) for i in (1, 2, 3)])
    return [typed(w @ v, 2)]


def p2_exact(f: Figures) -> list[str]:
    keys = np.array([vec(f[f"k{i}"]) for i in (1, 2, 3)])
    v = np.array([num(f[f"v{i}"]) for i in (1, 2, 3)])
    return [typed(softmax(keys @ vec(f["query"])) @ v, 2)]


def p3(f: Figures) -> list[str]:
    v = vec(f["v"])
    return [typed([vec(f["tanh1"]) @ v, vec(f["tanh2"]) @ v])]


def p3_exact(f: Figures) -> list[str]:
    v = vec(f["v"])
    return [typed([np.tanh(vec(f["in1"])) @ v, np.tanh(vec(f["in2"])) @ v])]


def p5_as_printed(f: Figures) -> list[str]:
    return [typed(num(f["a1"]) * pmatrix(f["inner"]))]


def p5_own(f: Figures) -> list[str]:
    h1, h2, q, w = vec(f["h1"]), vec(f["h2"]), vec(f["q"]), vec(f["weights"])
    c = rounded(w[0] * h1 + w[1] * h2)
    return [typed(w[0] * (np.eye(2) + np.outer(h1 - c, q)))]


def p5_exact(f: Figures) -> list[str]:
    h1, h2, q = vec(f["h1"]), vec(f["h2"]), vec(f["q"])
    a = softmax(np.array([q @ h1, q @ h2]))
    c = a[0] * h1 + a[1] * h2
    return [typed(a[0] * (np.eye(2) + np.outer(h1 - c, q)))]


def p6_exact(f: Figures) -> list[str]:
    x, wq, wk = pmatrix(f["X"]), pmatrix(f["WQ"]), pmatrix(f["WK"])
    i = ["I", "drink", "tea"].index(f["word"])
    return [typed(softmax((x @ wk) @ (x[i] @ wq)))]


def p7(f: Figures) -> list[str]:
    w = np.array([num(f[f"w_{j}"]) for j in range(3)])
    v = np.array([vec(f[f"v_{j}"]) for j in range(3)])
    return [typed(w @ v)]


def p7_exact(f: Figures) -> list[str]:
    q, k, v = pmatrix(f["Q"]), pmatrix(f["K"]), pmatrix(f["V"])
    i = ["I", "drink", "tea"].index(f["word"])
    return [typed(softmax(k @ q[i]) @ v)]


def p13_as_printed(f: Figures) -> list[str]:
    return [typed(vec(f["gain"]) * vec(f["normalised"]) + vec(f["bias"]))]


def p13_own(f: Figures) -> list[str]:
    x_hat = rounded(vec(f["centred"]) / num(f["std"]))
    return [typed(vec(f["gain"]) * x_hat + vec(f["bias"]))]


def p13_exact(f: Figures) -> list[str]:
    x = vec(f["x"])
    x_hat = (x - x.mean()) / np.sqrt(np.mean((x - x.mean()) ** 2))
    return [typed(vec(f["gain"]) * x_hat + vec(f["bias"]))]


def p11_as_printed(f: Figures) -> list[str]:
    angle = num(f["angle"])  # the printed angle: the speed is a power of ten, so it is exact
    return [typed(np.sin(angle)), typed(np.cos(angle))]


def p11_exact(f: Figures) -> list[str]:
    angle = int(f["pos"]) / 10000 ** (2 * int(f["i"]) / int(f["d"]))
    return [typed(np.sin(angle)), typed(np.cos(angle))]


def p12_as_printed(f: Figures) -> list[str]:
    return [typed(num(f["cos"]) * num(f["qk"]) + num(f["sin"]) * num(f["cross"]), 2)]


def p12_own(f: Figures) -> list[str]:
    """The learner turns k by the gap with the printed cosine and sine, writes the turned key
    down to three decimals, and takes its dot product with q."""
    c, s, k = num(f["cos"]), num(f["sin"]), vec(f["k"])
    turned = rounded([k[0] * c - k[1] * s, k[0] * s + k[1] * c])
    return [typed(vec(f["q"]) @ turned, 2)]


def p12_exact(f: Figures) -> list[str]:
    def turn(v: np.ndarray, degrees: float) -> np.ndarray:
        a = np.radians(degrees)
        return np.array([v[0] * np.cos(a) - v[1] * np.sin(a), v[0] * np.sin(a) + v[1] * np.cos(a)])

    deg = int(f["theta"])
    return [typed(turn(vec(f["q"]), int(f["m"]) * deg) @ turn(vec(f["k"]), int(f["n"]) * deg), 2)]


def p15_as_printed(f: Figures) -> list[str]:
    e = vec(f["exps"])
    return [typed(np.append(e / num(f["total"]), 0.0))]


def p15_own(f: Figures) -> list[str]:
    e = vec(f["exps"])
    return [typed(np.append(e / rounded(e.sum()), 0.0))]


def p15_exact(f: Figures) -> list[str]:
    s = vec(f["scores"])
    e = np.exp(s[:3] - s[:3].max())
    return [typed(np.append(e / e.sum(), 0.0))]


# problem -> (variant function, the figures each path reads, {path name: path})
PROBLEMS: dict[str, tuple[str, tuple[str, ...], dict[str, Path_]]] = {
    "p15-soft-weights": (
        "soft_weights",
        ("e1", "e2", "e3", "total"),
        {
            "as printed": lambda f: weights_as_printed(f, p1_exps(f)),
            "own sums": lambda f: weights_own_sum(p1_exps(f)),
            "every digit": lambda f: [typed(softmax(vec(f["q"])))],
        },
    ),
    "p15-soft-output": (
        "soft_output",
        ("w1", "w2", "w3"),
        {"as printed": p2, "own sums": p2, "every digit": p2_exact},
    ),
    "p15-additive": (
        "additive",
        ("tanh1", "tanh2", "in1", "in2"),
        {"as printed": p3, "own sums": p3, "every digit": p3_exact},
    ),
    "p15-gradient": (
        "gradient",
        ("a1", "weights"),
        {"as printed": p5_as_printed, "own sums": p5_own, "every digit": p5_exact},
    ),
    "p15-attention-row": (
        "attention_row",
        ("exps", "total"),
        {
            "as printed": lambda f: weights_as_printed(f, vec(f["exps"])),
            "own sums": lambda f: weights_own_sum(vec(f["exps"])),
            "every digit": p6_exact,
        },
    ),
    "p15-attention-output": (
        "attention_output",
        ("w_0", "w_1", "w_2"),
        {"as printed": p7, "own sums": p7, "every digit": p7_exact},
    ),
    # §9's LayerNorm: the normalised vector is printed (to the digits it needs: its spreads
    # divide a power of ten), then times the gain plus the bias; a learner who divides the
    # printed centred numbers by the printed spread, rounding to three decimals, lands there too
    "p15-pe-entries": (
        "pe_entries",
        ("angle",),
        {"as printed": p11_as_printed, "own sums": p11_as_printed, "every digit": p11_exact},
    ),
    "p15-rotary-score": (
        "rotary_score",
        ("cos", "sin", "qk", "cross"),
        {"as printed": p12_as_printed, "own sums": p12_own, "every digit": p12_exact},
    ),
    "p15-layer-norm": (
        "layer_norm_affine",
        ("centred", "std", "normalised"),
        {"as printed": p13_as_printed, "own sums": p13_own, "every digit": p13_exact},
    ),
    "p15-masked-row": (
        "masked_row",
        ("exps", "total"),
        {"as printed": p15_as_printed, "own sums": p15_own, "every digit": p15_exact},
    ),
}
PATHS = ("as printed", "own sums", "every digit")


@cache
def _variants() -> dict[str, Any]:
    return load_figures(UNIT_DIR, 18).variants


def _check(problem: str, seed: int) -> CheckDef:
    return at_seed("attention-and-transformers", problem, seed)


def _printed_in(check: CheckDef, figure: str) -> bool:
    flat = re.sub(r"\s+", "", visible_text(check.solution_html))
    text = figure.strip("()").replace(MINUS, "−")
    return all(part.strip() in flat for part in text.split(","))


def marked_wrong(problem: str, seeds: range = SEEDS) -> dict[str, list[int]]:
    """Path name -> the seeds on which that path's answer is not graded right."""
    function, read, paths = PROBLEMS[problem]
    wrong: dict[str, list[int]] = {name: [] for name in paths}
    for seed in seeds:
        check = _check(problem, seed)
        f = _variants()[function](seed)
        for name in read:
            if name in ("in1", "in2", "weights"):
                continue  # inputs of the exact path or the learner's own sums
            assert _printed_in(check, f[name]), (problem, seed, name, f[name])
        for name, path in paths.items():
            answer = path(f)
            g = grade(check, answer)
            if not (g.ok and g.correct):
                wrong[name].append(seed)
    return wrong


@pytest.mark.parametrize("problem", sorted(PROBLEMS))
def test_answers_worked_by_hand_or_with_every_digit_are_right(problem: str) -> None:
    wrong = marked_wrong(problem)
    assert all(not seeds for seeds in wrong.values()), {
        name: (len(seeds), seeds[:8]) for name, seeds in wrong.items()
    }


if __name__ == "__main__":
    seeds = range(1, int(sys.argv[1]) + 1) if len(sys.argv) > 1 else SEEDS
    totals = dict.fromkeys(PATHS, 0)
    print(f"marked wrong over seeds 1-{seeds[-1]}: " + " | ".join(PATHS))
    for problem in PROBLEMS:
        counts = {name: len(s) for name, s in marked_wrong(problem, seeds).items()}
        for name in PATHS:
            totals[name] += counts[name]
        print(f"  {problem:22} " + " | ".join(f"{counts[n]:4}" for n in PATHS))
    n = len(seeds) * len(PROBLEMS)
    print(f"  {'in all':22} " + " | ".join(f"{totals[p]:4}" for p in PATHS) + f"   (of {n} each)")


def test_the_sections_check_worked_by_hand_is_right() -> None:
    """§1's check s1-sharpen is worked by hand in its solution too: e raised to the doubled
    scores, their total, each share of it, from the numbers as printed."""
    f = load_figures(UNIT_DIR, 18).values
    check = at_seed("attention-and-transformers", "s1-sharpen", 1)
    names = ("exp2_I", "exp2_drink", "exp2_tea", "denominator_double")
    for name in names:
        assert _printed_in(check, f[name]), name
    exps = np.array([num(f[name]) for name in names[:3]])
    total = num(f["denominator_double"])
    assert rounded(exps.sum()) == total  # the printed total is the sum of the printed powers
    for answer in ([typed(exps / total)], [typed(softmax(vec(f["scores_double"])))]):
        g = grade(check, answer)
        assert g.ok and g.correct, (answer, g)
