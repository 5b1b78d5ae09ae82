"""The keys a unit's checks were last accepted with, so a content change that changes a key is
reported rather than silently regrading nobody (answers keep the verdict they were given).

    content/units/NN-slug/keys.toml        one table per check or problem: its version and key

``python -m mathmachine.coursebook check`` compares the compiled unit with this file and fails
on a changed, new or removed key; ``python -m mathmachine.coursebook keys`` records the keys as
they are now (after you have looked at the change). A check with fresh numbers is recorded at
the seed the unit compiles it with.
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass
from pathlib import Path

from .model import CheckDef, CompiledUnit

KEYS_FILE = "keys.toml"


@dataclass(frozen=True)
class KeyChange:
    """what: "changed", "new" or "removed". old/new: the key text (empty when absent)."""

    what: str
    check_id: str
    old: str
    new: str
    source: str

    def format(self) -> str:
        if self.what == "changed" and self.old == self.new:
            return (
                f"{self.source}: how {self.check_id} is graded changed (its tolerance or named "
                f"mistakes; its key {self.new} did not); record it with "
                f"`python -m mathmachine.coursebook keys`"
            )
        if self.what == "changed":
            return (
                f"{self.source}: the key of {self.check_id} changed from {self.old} to "
                f"{self.new}: answers given before keep the verdict they were given against "
                f"the old key; if this is meant, record it with "
                f"`python -m mathmachine.coursebook keys`"
            )
        if self.what == "new":
            return (
                f"{self.source}: {self.check_id} is new (key {self.new}): record its key with "
                f"`python -m mathmachine.coursebook keys`"
            )
        return (
            f"{self.source}: {self.check_id} (key {self.old}) is gone: answers stored for it stay "
            f"in the database; record this with `python -m mathmachine.coursebook keys`"
        )


def _key_text(check: CheckDef) -> str:
    return " | ".join(f.answer_text for f in check.fields)


def current_keys(unit: CompiledUnit) -> dict[str, dict[str, str]]:
    return {
        c.id: {"version": c.version, "key": _key_text(c), "source": c.source}
        for s in unit.sections
        for c in s.gradables
    }


def read_keys(folder: Path) -> dict[str, dict[str, str]]:
    path = folder / KEYS_FILE
    if not path.is_file():
        return {}
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    return {k: v for k, v in data.items() if isinstance(v, dict)}


def write_keys(folder: Path, unit: CompiledUnit) -> Path:
    lines = [
        "# The keys of this unit's checks and problems as last accepted (see coursebook/keys.py).",
        "# Written by `python -m mathmachine.coursebook keys`; `... check` reports a change.",
    ]
    for check_id, rec in sorted(current_keys(unit).items()):
        lines += ["", f"[{json.dumps(check_id)}]"]
        lines += [f"version = {json.dumps(rec['version'])}", f"key = {json.dumps(rec['key'])}"]
    path = folder / KEYS_FILE
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def key_changes(folder: Path, unit: CompiledUnit) -> list[KeyChange]:
    """Every difference between the recorded keys and the compiled unit's."""
    recorded = read_keys(folder)
    now = current_keys(unit)
    changes = []
    for check_id, rec in sorted(now.items()):
        old = recorded.get(check_id)
        if old is None:
            changes.append(KeyChange("new", check_id, "", rec["key"], rec["source"]))
        elif old.get("version") != rec["version"]:
            changes.append(
                KeyChange("changed", check_id, str(old.get("key", "")), rec["key"], rec["source"])
            )
    for check_id in sorted(set(recorded) - set(now)):
        where = str(folder / KEYS_FILE)
        changes.append(
            KeyChange("removed", check_id, str(recorded[check_id].get("key")), "", where)
        )
    return changes
