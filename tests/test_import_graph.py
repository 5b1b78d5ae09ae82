"""The import graph of mathmachine: no module of the site, the coursebook or the engine imports
itself back through others (imports inside functions counted: one there only hides a circle),
and the contracts of pyproject.toml's [tool.importlinter] hold (the apps depend one way; nothing the
coursebook's cache calls reaches back up to it)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import grimp

REPO = Path(__file__).resolve().parents[1]


# Every package (the engine's own rule, numpy only, is tests/engine's).
CHECKED = (
    "accounts", "billing", "coursebook", "engine", "learning", "mail", "printing", "units", "web",
)  # fmt: skip


def test_no_module_imports_itself_back() -> None:
    graph = grimp.build_graph("mathmachine")
    checked = [m for m in graph.modules if m.split(".")[1:2] and m.split(".")[1] in CHECKED]
    assert len(checked) > 100
    circles = []
    for module in sorted(checked):
        for imported in sorted(graph.find_modules_directly_imported_by(module)):
            back = graph.find_shortest_chain(importer=imported, imported=module)
            if back:
                circles.append(" -> ".join((module, *back)))
    assert not circles, "import circles:\n" + "\n".join(circles)


def test_the_import_contracts_hold() -> None:
    lint = Path(sys.executable).with_name("lint-imports")
    result = subprocess.run(
        [str(lint), str(REPO / "pyproject.toml"), "--no-cache"],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
