"""Golden vectors: the engine's answers that the widgets' client math (static/widgets/math.js) must
reproduce to 1e-12.

    python -m mathmachine.engine.golden            # (re)write tests/golden/*.json
    python -m mathmachine.engine.golden --check    # exit 1 if a committed file is out of date

The output is deterministic (same inputs, same float repr, same key order), so the committed files
change only when the engine's numbers or the unit's example inputs change. tests/js/*.test.mjs read
them; tests/golden/test_golden_files.py asserts the committed files equal what this writes now.

The unit's example inputs are read from content/units/18-attention-and-transformers/figures/ (a
package, one module per section) by path (it imports only the engine), so the engine still imports
neither Django nor the coursebook.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

from .lookback import alignment_map, context_vector, look_back
from .scores import dot_scores
from .softmax import softmax

REPO = Path(__file__).resolve().parents[2]
GOLDEN_DIR = REPO / "tests" / "golden"
UNIT18_FIGURES = REPO / "content" / "units" / "18-attention-and-transformers" / "figures"

TOLERANCE = 1e-12
# The "how sure" slider's marks the vectors are taken at (the slider itself runs 0..3 in 0.1 steps).
SURE_VALUES = (0.0, 0.5, 1.0, 2.0, 3.0)
# Softmax inputs [n]: small, equal, a single entry, and large ones that overflow a naive exp().
SOFTMAX_INPUTS: tuple[tuple[float, ...], ...] = (
    (0.0, 0.5, 2.0),
    (1.0, 2.0, 3.0),
    (0.0, 0.0, 0.0),
    (5.0,),
    (3.5, -1.25, 0.0, 7.0, 2.0),
    (1000.0, 1001.0, 1002.0),
    (-1000.0, -999.0, -998.0),
    (710.0, 0.0, -710.0),
    (1e5, 1e5 - 1.0, 0.0, -1e5),
    (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2),
)


def load_examples(path: Path = UNIT18_FIGURES) -> dict[str, dict[str, Any]]:
    """EXAMPLES from a unit's figures package, loaded by path (unit folders are not packages)."""
    name = "_unit_figures_for_golden"
    spec = importlib.util.spec_from_file_location(
        name, path / "__init__.py", submodule_search_locations=[str(path)]
    )
    if spec is None or spec.loader is None:
        raise FileNotFoundError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # its section modules import through the package's name
    try:
        spec.loader.exec_module(module)
    finally:
        for key in [k for k in sys.modules if k == name or k.startswith(name + ".")]:
            del sys.modules[key]
    examples: dict[str, dict[str, Any]] = module.EXAMPLES
    return examples


def _floats(a: Any) -> Any:
    """numpy array / scalar -> nested lists of Python floats (exact repr in JSON)."""
    return np.asarray(a, dtype=np.float64).tolist()


def lookback_vectors(example: dict[str, Any]) -> dict[str, Any]:
    """Inputs and engine outputs for Widget 1 ("Translate with a look back").

    notes h [n_in, d], states q [n_out, d]. For every word t and every sure s in SURE_VALUES:
    q = s * q_t [d], scores [n_in], weights [n_in], context [d], and the weights as printed
    (3 places).
    Also the alignment map [n_out, n_in] at the default sure, and the no-attention summary [d].
    """
    notes = np.asarray(example["notes"], dtype=np.float64)  # [n_in, d]
    states = np.asarray(example["states"], dtype=np.float64)  # [n_out, d]
    rows = []
    for t, state in enumerate(states):
        for s in SURE_VALUES:
            q = s * state  # [d]
            lb = look_back(q, notes)
            rows.append(
                {
                    "word": t,
                    "sure": s,
                    "q": _floats(q),
                    "scores": _floats(lb.scores),
                    "weights": _floats(lb.weights),
                    "context": _floats(lb.context),
                    "printed": [f"{w:.3f}" for w in lb.weights],
                }
            )
    default = float(example["sure_default"])
    amap = alignment_map(default * states, notes)  # [n_out, n_in]
    return {
        "english": list(example["english"]),
        "hindi": [h["word"] for h in example["hindi"]],
        "notes": _floats(notes),
        "states": _floats(states),
        "sure_default": default,
        "rows": rows,
        "map": _floats(amap),
        "map_contexts": _floats(context_vector(amap, notes)),  # [n_out, d]
        "summary": _floats(notes[-1]),
    }


def golden_files() -> dict[str, str]:
    """File name -> exact text of every golden file (deterministic)."""
    examples = load_examples()
    softmax_cases = [{"x": list(x), "y": _floats(softmax(np.array(x)))} for x in SOFTMAX_INPUTS]
    dot_cases = [
        {"q": q, "notes": h, "y": _floats(dot_scores(q, h))}
        for q, h in (
            ([0.0, 0.5, 2.0], [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]),
            ([0.5, -0.5], [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]),
            ([1.5, -2.25, 3.0, 0.125], [[0.3, 0.1, -0.7, 2.0], [-1.0, 4.5, 0.25, 0.0]]),
        )
    ]
    # Notes that are not one-hot, so that a context differs from its weights.
    mixed_notes = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]  # [3, 2]
    mixed_states = [[0.5, -0.5], [2.0, 1.0], [-1.5, 3.0]]  # [3, 2]
    context_cases = [
        {"weights": w, "notes": mixed_notes, "y": _floats(context_vector(w, mixed_notes))}
        for w in ([0.2, 0.3, 0.5], [0.195, 0.315, 0.49], [1.0, 0.0, 0.0])
    ]
    alignment_cases = [
        {
            "states": mixed_states,
            "notes": mixed_notes,
            "map": _floats(alignment_map(mixed_states, mixed_notes)),
            "contexts": _floats(
                context_vector(alignment_map(mixed_states, mixed_notes), mixed_notes)
            ),
        }
    ]
    lookback = {
        "about": (
            "Written by `python -m mathmachine.engine.golden` from mathmachine.engine; "
            "do not edit. static/widgets/math.js must reproduce every number to the tolerance."
        ),
        "tolerance": TOLERANCE,
        "softmax": softmax_cases,
        "dot": dot_cases,
        "context": context_cases,
        "alignment": alignment_cases,
        "lookback": lookback_vectors(examples["lookback"]),
    }
    return {"lookback.json": _dump(lookback) + "\n"}


def _dump(obj: Any, indent: str = "") -> str:
    """JSON with one line per leaf record: dicts and lists of records are broken over lines, a
    dict or list holding only numbers, strings or lists of those stays on one line (diffable)."""

    def flat(o: Any) -> bool:
        if isinstance(o, dict):
            return all(not isinstance(v, dict) and flat(v) for v in o.values())
        if isinstance(o, list):
            return all(not isinstance(v, dict) and flat(v) for v in o)
        return True

    if flat(obj):
        return json.dumps(obj, ensure_ascii=False, separators=(", ", ": "))
    inner = indent + " "
    if isinstance(obj, dict):
        items = [f"{inner}{json.dumps(k)}: {_dump(v, inner)}" for k, v in obj.items()]
        return "{\n" + ",\n".join(items) + "\n" + indent + "}"
    items = [inner + _dump(v, inner) for v in obj]
    return "[\n" + ",\n".join(items) + "\n" + indent + "]"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="fail if a file is out of date")
    parser.add_argument("--out", type=Path, default=GOLDEN_DIR, help="directory (tests/golden)")
    args = parser.parse_args(argv)
    stale = []
    for name, text in golden_files().items():
        path = args.out / name
        if args.check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                stale.append(path)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path}")
    for path in stale:
        print(f"out of date: {path} (run python -m mathmachine.engine.golden)", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    raise SystemExit(main())
