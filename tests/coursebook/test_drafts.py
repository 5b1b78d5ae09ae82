"""Draft sections (issue 13, part 2): a section lands a widget at a time.

A section whose unit.toml entry says ``draft = true`` is compiled and checked like any other,
may hold fewer widgets, checks and problems than it publishes (never more), and stands among
the unit's sections as an unwritten placeholder: the compiled draft is kept in
CompiledUnit.drafts, which only staff are served (CompiledUnit.with_drafts). Once ``draft`` is
gone, the published counts hold exactly.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from mathmachine.coursebook import CompileErrors, compile_unit
from mathmachine.coursebook.golden import collect
from mathmachine.coursebook.keys import current_keys

from .conftest import FIXTURES
from .test_widget_conformance import widget_uses

GOOD = FIXTURES / "units" / "good" / "01-demo"
SECOND = """# Not written yet

The second section, a widget at a time.

:::{widget} demo-widget
:id: w-draft
:::

:::{summary}
One widget so far.
:::
"""


def draft_unit(tmp_path: Path, *, entry: str = "draft = true", body: str = SECOND) -> Path:
    """The good demo unit with its §2 (published: 1 widget, 2 checks) written as ``body``, its
    entry ending with ``entry``."""
    folder = tmp_path / "01-demo"
    shutil.copytree(GOOD, folder)
    (folder / "02-second.md").write_text(body, encoding="utf-8")
    figures = folder / "figures.py"
    figures.write_text(
        figures.read_text(encoding="utf-8").replace(
            'EXAMPLES = {"scores": [0.0, 0.5, 2.0]}',
            'EXAMPLES = {"scores": [0.0, 0.5, 2.0], "demo": {"size": 3}}',
        ),
        encoding="utf-8",
    )
    toml = folder / "unit.toml"
    text = toml.read_text(encoding="utf-8")
    second = 'title = "Not written yet"\n'
    assert second in text
    toml.write_text(
        text.replace(second, f'{second}file = "02-second.md"\n{entry}\n'), encoding="utf-8"
    )
    return folder


def errors_of(folder: Path) -> list[str]:
    with pytest.raises(CompileErrors) as info:
        compile_unit(folder)
    return [f"{e.path.name}:{e.line}: {e.message}" for e in info.value.errors]


def test_a_draft_with_one_widget_compiles_and_stands_aside(tmp_path: Path, test_widgets) -> None:
    unit = compile_unit(draft_unit(tmp_path))
    _, second = unit.sections
    # Among the sections, the draft is exactly what an unwritten section is.
    assert not second.written and not second.draft and not second.published
    assert (second.html, second.checks, second.widgets, second.problems) == ("", (), (), ())
    assert (second.published_widgets, second.published_checks) == (1, 2)
    (draft,) = unit.drafts
    assert draft.number == 2 and draft.written and draft.draft and not draft.published
    assert [w.name for w in draft.widgets] == ["demo-widget"] and draft.checks == ()
    assert '<demo-widget id="w-draft"' in draft.html
    assert draft.scripts == ("widgets/demo-widget.js",)
    # Counted nowhere: the unit's contents are those of a unit whose §2 is not written.
    contents = unit.contents
    assert contents.written == (1,) and contents.unwritten == (2,)
    assert (contents.widgets, contents.checks, contents.problems) == (0, 1, 0)
    assert (contents.planned_widgets, contents.planned_checks) == (1, 3)
    assert not contents.complete
    # Nor among the recorded keys (a draft's key may change freely until it is published).
    assert set(current_keys(unit)) == {"top-share"}


def test_staff_read_the_unit_with_its_drafts_in_place(tmp_path: Path, test_widgets) -> None:
    unit = compile_unit(draft_unit(tmp_path))
    staff = unit.with_drafts()
    assert staff.sections[1] is unit.drafts[0] and staff.sections[0] is unit.sections[0]
    assert staff.drafts == () and staff.with_drafts() is staff
    # Nothing rendered for staff can be kept under the learners' keys.
    assert staff.source_hash != unit.source_hash
    # Even the staff's copy counts published sections only.
    assert staff.contents == unit.contents
    assert staff.problems_per_section == unit.problems_per_section
    # A unit without drafts is its own staff copy.
    plain = compile_unit(GOOD)
    assert plain.drafts == () and plain.with_drafts() is plain


def test_a_draft_widget_counts_as_used_and_is_golden_collected(
    tmp_path: Path, test_widgets
) -> None:
    """The conformance test takes its uses from the units with their drafts: a widget that
    only a draft uses is no dead code, and its HTML is held to the rules like any use."""
    unit = compile_unit(draft_unit(tmp_path))
    uses = widget_uses([unit])
    assert [(u.section.number, u.section.draft, u.widget.id) for u in uses] == [
        (2, True, "w-draft")
    ]
    assert uses[0].html.startswith('<demo-widget id="w-draft"')


def test_golden_vectors_are_collected_from_drafts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, test_widgets
) -> None:
    """A widget whose script recomputes declares golden vectors: its uses in drafts give them
    (make golden writes them, the golden tests check them) before the section is published."""
    from mathmachine.coursebook import widgets

    monkeypatch.setenv("MATHMACHINE_CACHE_DIR", str(tmp_path / "cache"))

    def golden(opts, ctx):
        g = widgets.Golden("widgets/math.js")
        g.case("softmax", [0.0, 1.0], out=[0.2689414213699951, 0.7310585786300049])
        return g

    @widgets.register("golden-demo", scripts=("widgets/golden-demo.js",), control="x",
                      golden=golden)  # fmt: skip
    def render(opts, ctx):
        table = widgets.kit.table(caption="c", columns=["a", "b"], rows=[("x", ["1"])])
        return widgets.kit.element("golden-demo", opts["id"], {}, table)

    body = SECOND.replace("{widget} demo-widget", "{widget} golden-demo")
    draft_unit(tmp_path / "units", body=body)
    groups = collect(tmp_path / "units")
    assert [g["source"] for g in groups["golden-demo"]] == ["demo §2 #w-draft"]


def test_a_draft_holds_at_most_what_it_publishes(tmp_path: Path, test_widgets) -> None:
    two = SECOND.replace(
        ":::\n\n:::{summary}", ":::\n\n:::{widget} demo-widget\n:id: w-more\n:::\n\n:::{summary}"
    )
    errors = errors_of(draft_unit(tmp_path, body=two))
    assert errors == [
        "unit.toml:16: section 2 is a draft of a section that publishes widgets = 1, but "
        "02-second.md has 2 already: raise the count in unit.toml if the plan changed"
    ]


def test_a_draft_is_compiled_like_any_section(tmp_path: Path, test_widgets) -> None:
    """Errors in a draft are errors: it is checked, not skipped."""
    errors = errors_of(draft_unit(tmp_path, body=SECOND.replace("so far.", "so far, 0.5.")))
    assert len(errors) == 1 and errors[0].startswith("02-second.md:10: hand-typed figure")


def test_publishing_enforces_the_published_counts(tmp_path: Path, test_widgets) -> None:
    errors = errors_of(draft_unit(tmp_path, entry="draft = false"))
    assert errors == [
        "unit.toml:16: section 2 publishes checks = 2, but 02-second.md has 0 (a section "
        "still being written can land as a draft: draft = true)"
    ]


def test_a_draft_needs_its_file(tmp_path: Path) -> None:
    folder = tmp_path / "01-demo"
    shutil.copytree(GOOD, folder)
    toml = folder / "unit.toml"
    toml.write_text(toml.read_text(encoding="utf-8") + "draft = true\n", encoding="utf-8")
    assert errors_of(folder) == [
        "unit.toml:22: section 2 is a draft but has no file: a draft is a section being "
        "written, so give it its file (file = ...)"
    ]
