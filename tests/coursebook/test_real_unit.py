"""The real Unit 18 compiles cleanly, and its section 1 has the shape SPEC §1 asks for."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from mathmachine.coursebook import CompiledUnit, cache, compile_unit, load_unit, widgets
from mathmachine.coursebook.grading import grade
from mathmachine.coursebook.html import DEVANAGARI_RUN

REPO = Path(__file__).resolve().parents[2]
CONTENT = REPO / "content" / "units"
UNIT = CONTENT / "18-attention-and-transformers"


@pytest.fixture(scope="module")
def unit() -> CompiledUnit:
    return compile_unit(UNIT)  # raises CompileErrors listing path:line: message


class Page(HTMLParser):
    """Collects, for a fragment: text runs with their open elements, ids, headings, math."""

    VOID = frozenset({"br", "img", "input", "hr", "meta", "link", "source", "wbr", "col"})

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, dict[str, str | None]]] = []
        self.texts: list[tuple[str, list[tuple[str, dict[str, str | None]]]]] = []
        self.ids: list[str] = []
        self.headings: list[int] = []
        self.maths: list[dict[str, str | None]] = []
        self.feed(html)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if a.get("id"):
            self.ids.append(str(a["id"]))
        if re.fullmatch(r"h[1-6]", tag):
            self.headings.append(int(tag[1]))
        if tag == "math":
            self.maths.append(a)
        if tag not in self.VOID:
            self.stack.append((tag, a))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if a.get("id"):
            self.ids.append(str(a["id"]))

    def handle_endtag(self, tag: str) -> None:
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i][0] == tag:
                del self.stack[i:]
                break

    def handle_data(self, data: str) -> None:
        self.texts.append((data, list(self.stack)))


def test_every_unit_in_the_content_root_compiles() -> None:
    folders = cache.unit_folders(CONTENT)
    assert UNIT in folders
    for folder in folders:
        compile_unit(folder)  # raises CompileErrors listing path:line: message


def test_table_of_contents(unit: CompiledUnit) -> None:
    assert (unit.number, unit.slug) == (18, "attention-and-transformers")
    assert [s.number for s in unit.sections] == list(range(1, 16))
    first = unit.sections[0]
    assert first.written and first.free and first.title
    assert all(s.title and not s.free for s in unit.sections[1:])
    assert sum(s.published_widgets for s in unit.sections) == 18  # SPEC: 18 widgets
    assert sum(s.published_checks for s in unit.sections) == 31  # SPEC: 31 checks


def test_section_one_blocks(unit: CompiledUnit) -> None:
    s = unit.sections[0]
    assert [w.name for w in s.widgets] == ["translate-lookback"]
    # The page's assets are exactly what the widget (and the proof) declared.
    declared = widgets.get("translate-lookback")
    assert declared is not None
    assert s.scripts[0] == declared.scripts[0] == "widgets/translate-lookback.js"
    assert s.styles == declared.styles
    assert "widgets/translate-lookback.css" in s.styles
    assert (len(s.checks), len(s.widgets)) == (s.published_checks, s.published_widgets) == (2, 1)
    for kind in (
        "imagine",
        "question",
        "byhand",
        "try",
        "why",
        "rule",
        "trap",
        "realization",
        "road",
        "summary",
    ):
        assert f'class="callout callout-{kind}"' in s.html, kind
    assert s.html.rstrip().endswith("</section>")
    assert s.html.count('class="callout callout-summary"') == 1
    assert '<details class="proof">' in s.html and '<ol class="proof-steps">' in s.html
    assert 'class="formula-box"' in s.html
    for check in s.checks:
        assert s.html.count(f"<!--check:{check.id}-->") == 1
    assert s.summary_html.startswith("<p>")


def test_math_is_mathml_rendered_on_the_server(unit: CompiledUnit) -> None:
    s = unit.sections[0]
    page = Page(s.html)
    assert "<math" in s.html and "$" not in s.html and "{{" not in s.html
    assert page.maths and all(m.get("alttext") for m in page.maths)
    assert any(m.get("display") == "block" for m in page.maths)
    assert "\\" not in re.sub(r'alttext="[^"]*"', "", s.html.split("<translate-lookback")[0])


def test_devanagari_is_marked_hindi_everywhere(unit: CompiledUnit) -> None:
    page = Page(unit.sections[0].html)
    seen = 0
    for text, stack in page.texts:
        if not DEVANAGARI_RUN.search(text):
            continue
        tags = [t for t, _ in stack]
        if "script" in tags or "math" in tags:
            continue  # JSON state for the widget; MathML text (not wrapped by design)
        seen += 1
        assert any(a.get("lang") == "hi" for _, a in stack), text
    assert seen >= 10


def test_outline_and_ids(unit: CompiledUnit) -> None:
    page = Page(unit.sections[0].html)
    assert page.headings[0] == 2 and 1 not in page.headings
    for before, after in zip(page.headings, page.headings[1:], strict=False):
        assert after <= before + 1
    assert len(page.ids) == len(set(page.ids)), "duplicate id attributes"


def test_answer_key_is_not_in_the_page(unit: CompiledUnit) -> None:
    s = unit.sections[0]
    for check in s.checks:
        hidden = [check.feedback_correct_html, check.solution_html, *check.hints_html]
        hidden += [m.html for m in check.mistakes]
        if check.feedback_wrong_html:
            hidden.append(check.feedback_wrong_html)
        for fragment in hidden:
            assert fragment.strip() and fragment not in s.html


def test_checks_grade_the_spec_answers(unit: CompiledUnit) -> None:
    checks = {c.id: c for c in unit.sections[0].checks}
    sharpen = next(c for c in checks.values() if len(c.fields) == 1)
    assert sharpen.fields[0].kind == "vector"
    assert sharpen.fields[0].key.values == pytest.approx((0.017, 0.047, 0.936), abs=5e-4)
    assert grade(sharpen, ["0.017 0.047 0.936"]).correct
    old = grade(sharpen, ["(0.100, 0.164, 0.736)"])
    assert old.ok and not old.correct and old.mistakes == ("unchanged",)
    count = next(c for c in checks.values() if len(c.fields) == 2)
    assert [f.kind for f in count.fields] == ["integer", "integer"]
    assert [f.key.values for f in count.fields] == [(35.0,), (1050.0,)]
    assert grade(count, ["35", "1,050"]).correct
    assert grade(count, ["३५", "१०५०"]).correct


def test_load_unit_caches(unit: CompiledUnit, tmp_path: Path) -> None:
    cache.clear_memo()
    try:
        loaded = load_unit("attention-and-transformers", root=CONTENT, cache_dir=tmp_path)
        assert loaded.sections == unit.sections
        assert list(tmp_path.glob("*.pickle")) == [tmp_path / f"{loaded.source_hash}.pickle"]
    finally:
        cache.clear_memo()
