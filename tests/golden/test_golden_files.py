"""The committed golden vectors are exactly what the engine writes now (else math.js is being held
to stale numbers). Regenerate with `python -m mathmachine.engine.golden`."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from mathmachine.engine import alignment_map, softmax
from mathmachine.engine.golden import GOLDEN_DIR, golden_files, main

HERE = Path(__file__).parent


def test_committed_golden_files_equal_what_the_engine_writes() -> None:
    files = golden_files()
    assert set(files) == {p.name for p in HERE.glob("*.json")}
    for name, text in files.items():
        assert (HERE / name).read_text(encoding="utf-8") == text, (
            f"tests/golden/{name} is stale: run python -m mathmachine.engine.golden"
        )


def test_writer_is_deterministic_and_check_mode_detects_staleness(tmp_path: Path) -> None:
    assert golden_files() == golden_files()
    assert main(["--out", str(tmp_path)]) == 0
    assert main(["--check", "--out", str(tmp_path)]) == 0
    (tmp_path / "lookback.json").write_text("{}", encoding="utf-8")
    assert main(["--check", "--out", str(tmp_path)]) == 1
    assert GOLDEN_DIR == HERE


def test_lookback_vectors_hold_the_section_figures() -> None:
    data = json.loads(golden_files()["lookback.json"])
    assert data["tolerance"] == 1e-12
    lb = data["lookback"]
    rows = {(r["word"], r["sure"]): r for r in lb["rows"]}
    assert len(rows) == 4 * 5
    assert rows[(1, 2.0)]["printed"] == ["0.017", "0.047", "0.936"]
    assert rows[(1, 0.0)]["printed"] == ["0.333", "0.333", "0.333"]
    assert rows[(1, 1.0)]["printed"] == ["0.100", "0.164", "0.736"]
    np.testing.assert_allclose(lb["map"], alignment_map(lb["states"], lb["notes"]), rtol=0, atol=0)
    for case in data["softmax"]:
        assert case["y"] == softmax(np.array(case["x"])).tolist()
    assert any(max(c["x"]) >= 700 for c in data["softmax"])
