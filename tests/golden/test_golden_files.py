"""The committed golden vectors are exactly what the widgets' declarations write now (else the
client modules are being held to stale numbers). Regenerate with `make golden`
(`python -m mathmachine.coursebook golden`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from mathmachine.coursebook import widgets
from mathmachine.coursebook.__main__ import main
from mathmachine.coursebook.golden import collect, golden_files
from mathmachine.coursebook.widgets._golden import difference
from mathmachine.engine import alignment_map, softmax

HERE = Path(__file__).parent


def _same(committed: Any, written: Any, where: str) -> None:
    """The comparison `make golden` and `golden --check` use (_golden.difference): equal
    structure, text and integers; floats to their last bits only (BLAS kernels differ between
    CPUs in the last bit: np.dot gives -1.625 on one machine, -1.6249999999999998 on another)."""
    found = difference(committed, written, where)
    assert found is None, found


def test_committed_golden_files_equal_what_the_registry_writes() -> None:
    files = golden_files()
    assert set(files) == {p.name for p in HERE.glob("*.json")}
    for name, text in files.items():
        committed = json.loads((HERE / name).read_text(encoding="utf-8"))
        _same(committed, json.loads(text), f"tests/golden/{name} is stale (run make golden): ")


def test_the_staleness_check_is_not_blind() -> None:
    _same({"a": [1.0, "x"]}, {"a": [1.0 + 1e-16, "x"]}, "last bit")
    for other in ({"a": [1.001, "x"]}, {"a": [1.0, "y"]}, {"a": [1.0]}, {"b": [1.0, "x"]}):
        with pytest.raises(AssertionError):
            _same(other, {"a": [1.0, "x"]}, "changed")


def test_every_widget_that_declares_golden_vectors_has_a_file_from_its_uses() -> None:
    declared = {n for n in widgets.names() if widgets.get(n).golden is not None}  # type: ignore[union-attr]
    assert "translate-lookback" in declared
    collected = collect()
    assert declared <= set(collected), declared - set(collected)
    for name in declared:
        groups = collected[name]
        assert groups and all(g["cases"] for g in groups), name
        assert all(g["module"].startswith("widgets/") for g in groups)


def test_writer_is_deterministic_and_check_mode_detects_staleness(tmp_path: Path) -> None:
    assert golden_files() == golden_files()
    assert main(["golden", "--out", str(tmp_path)]) == 0
    assert main(["golden", "--check", "--out", str(tmp_path)]) == 0
    (tmp_path / "translate-lookback.json").write_text("{}", encoding="utf-8")
    assert main(["golden", "--check", "--out", str(tmp_path)]) == 1
    # a file that differs from the new one only in the last bit of a float is left alone, by
    # write and by check (written on another CPU); one off by more is rewritten
    assert main(["golden", "--out", str(tmp_path)]) == 0
    path = tmp_path / "math.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    case = data["groups"][0]["cases"][0]
    case["out"][0] = case["out"][0] * (1 + 4e-16)
    bit_off = json.dumps(data)
    path.write_text(bit_off, encoding="utf-8")
    assert main(["golden", "--check", "--out", str(tmp_path)]) == 0
    assert main(["golden", "--out", str(tmp_path)]) == 0
    assert path.read_text(encoding="utf-8") == bit_off
    case["out"][0] = case["out"][0] * (1 + 1e-9)
    path.write_text(json.dumps(data), encoding="utf-8")
    assert main(["golden", "--check", "--out", str(tmp_path)]) == 1
    main(["golden", "--out", str(tmp_path)])
    assert main(["golden", "--check", "--out", str(tmp_path)]) == 0
    (tmp_path / "gone-widget.json").write_text("{}", encoding="utf-8")
    main(["golden", "--out", str(tmp_path)])  # rewrites, and removes what nothing declares
    assert not (tmp_path / "gone-widget.json").exists()
    assert main(["golden", "--check", "--out", str(tmp_path)]) == 0


def test_lookback_vectors_hold_the_section_figures() -> None:
    data = json.loads(golden_files()["translate-lookback.json"])
    group, printing = data["groups"]
    assert group["source"] == printing["source"] == "attention-and-transformers §1 #w1"
    assert group["module"] == "widgets/math.js" and printing["module"] == "widgets/printing.js"
    rows = [c for c in group["cases"] if c["fn"] == "alignmentRow"]
    assert len(rows) == 4 * 5  # every word at every "how sure" mark
    printed = [c["out"] for c in printing["cases"] if c["fn"] == "dec"]
    at = 3 * (5 * 1 + 3)  # three weights per (word, sure): चाय is word 1, 2.0 is the 4th mark
    assert printed[at : at + 3] == ["0.017", "0.047", "0.936"]
    (amap,) = [c for c in group["cases"] if c["fn"] == "alignmentMap"]
    states, notes = amap["args"]
    np.testing.assert_allclose(amap["out"], alignment_map(states, notes), rtol=0, atol=0)
    kit = json.loads(golden_files()["math.json"])
    softmaxes = [c for c in kit["groups"][0]["cases"] if c["fn"] == "softmax"]
    for case in softmaxes:
        assert case["out"] == softmax(np.array(case["args"][0])).tolist()
    assert any(max(c["args"][0]) >= 700 for c in softmaxes)
