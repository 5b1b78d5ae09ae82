"""docs/writing-content.md walks a newcomer through a real widget: every code block of its
widget chapter that
names a file on its first line (``# mathmachine/...py``, ``// mathmachine/...js``) is
that file's code, line for line and in order ("..." stands for lines left out), so the walk
cannot drift from the widget it quotes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "writing-content.md"
BLOCK = re.compile(r"```(?:python|js)\n(.*?)```", re.S)
NAMED = re.compile(r"^(?:#|//) (mathmachine/\S+\.(?:py|js))\n")


def quoted() -> list[tuple[str, list[str]]]:
    """The named code blocks of the widget chapter ("## Adding a widget" to the next "## ")."""
    text = DOC.read_text(encoding="utf-8")
    start = text.index("\n## Adding a widget")
    end = text.find("\n## ", start + 1)
    out = []
    for m in BLOCK.finditer(text[start : end if end > 0 else len(text)]):
        named = NAMED.match(m.group(1))
        if named:
            lines = m.group(1)[named.end() :].rstrip("\n").split("\n")
            out.append((named.group(1), lines))
    return out


def unquoted(path: str, lines: list[str]) -> list[str]:
    """The quoted lines not found, in order, in the file ("..." skips any number of lines)."""
    source = (REPO / path).read_text(encoding="utf-8").split("\n")
    at, missing = 0, []
    for line in lines:
        if line.strip() in ("", "..."):
            continue
        try:
            at = source.index(line, at) + 1
        except ValueError:
            missing.append(line)
    return missing


def test_the_walk_quotes_real_files() -> None:
    blocks = quoted()
    files = {path for path, _ in blocks}
    assert "mathmachine/coursebook/widgets/saturated_softmax.py" in files
    assert "mathmachine/static/widgets/saturated-softmax.js" in files


@pytest.mark.parametrize(("path", "lines"), quoted(), ids=lambda v: v if isinstance(v, str) else "")
def test_every_quoted_line_is_in_its_file_in_order(path: str, lines: list[str]) -> None:
    assert unquoted(path, lines) == [], f"docs/writing-content.md quotes {path} wrongly"


def test_the_check_can_fail() -> None:
    path = "mathmachine/static/widgets/saturated-softmax.js"
    assert unquoted(path, ["  upgrade(s) {", "...", "export class SaturatedSoftmaxElement"]) != []
    assert unquoted(path, ["  upgrade(s) {", "    this.#c = s.spread.value + 1"]) != []
