"""Every registered check kind holds to the same rules, as every widget does
(test_widget_conformance.py): nothing here lists a kind, so a new one is covered when it is
registered. Each kind declares an example key (``example``, and ``example_options`` for one
that uses choices); from it a check is compiled as a section would write it, and:

- its template exists and draws one named, labelled box per field (answer-N, check-ID-N);
- the key typed back is right, the kind's own mistakes typed back are named and wrong;
- no text at all makes it raise, an unreadable answer is never right, and no message it gives
  prints the key;
- the options it reads and the mistakes it names are declared, each with its words.
"""

from __future__ import annotations

from functools import cache
from html.parser import HTMLParser
from pathlib import Path

import pytest
from django.template.loader import render_to_string
from hypothesis import given, settings
from hypothesis import strategies as st

from mathmachine.coursebook.grading import grade
from mathmachine.coursebook.kinds import KINDS, Kind
from mathmachine.coursebook.model import CheckDef
from mathmachine.coursebook.passes.answers import telling_figures

from .test_grading import make_check

TEMPLATES = Path(__file__).resolve().parents[2] / "mathmachine" / "templates"
NAMES = sorted(KINDS)
JUNK = [
    "",
    "   ",
    "abc",
    "1/0",
    "(1, 2",
    "[[1, 2], [3]]",
    "1e999",
    "nan",
    "∞",
    "−",
    "0,5",
    "१२३४",
    "₹",
    "<script>alert(1)</script>",
    "9" * 400,
    "1, 2, 3, 4, 5, 6, 7, 8, 9, 10",
    "dot, general, additive",
    "\x00\u202e",
]


@cache
def _compiled(name: str) -> CheckDef:
    kind = KINDS[name]
    options = "".join(f":::{{option}} {o}\nOption {o}\n:::\n" for o in kind.example_options)
    return make_check(options, options=f":kind: {kind.name}\n:answer: {kind.example}")


def check_of(kind: Kind) -> CheckDef:
    """A check of the kind with its example key, compiled from Markdown."""
    return _compiled(kind.name)


@pytest.mark.parametrize("name", NAMES)
def test_it_declares_what_the_compiler_and_the_page_need(name: str) -> None:
    kind = KINDS[name]
    assert kind.name == name
    assert (TEMPLATES / kind.template).is_file(), kind.template
    assert isinstance(getattr(kind, "example", None), str) and kind.example.strip(), (
        f"{name}: declare an example key (class attribute example)"
    )
    assert bool(kind.example_options) == kind.uses_choices
    for builtin, html in kind.builtins.items():
        assert builtin and html.startswith("<p>"), (name, builtin)


@pytest.mark.parametrize("name", NAMES)
def test_a_check_of_the_kind_compiles_and_takes_its_key(name: str) -> None:
    kind = KINDS[name]
    check = check_of(kind)
    (f,) = check.fields
    assert f.kind == name and f.answer_text == kind.example
    g = grade(check, [kind.typed(f.key)])
    assert g.ok and g.correct, (kind.typed(f.key), g)
    assert kind.describe(f.key)
    assert all(isinstance(p, str) and p for p in kind.printed(f.key))
    assert isinstance(kind.input_attrs(f.key), dict)


@pytest.mark.parametrize("name", NAMES)
def test_its_own_mistakes_typed_back_are_named(name: str) -> None:
    kind = KINDS[name]
    check = check_of(kind)
    examples = kind.builtin_examples(check.fields[0].key)
    assert set(examples) <= set(kind.builtins)
    for builtin, typed in examples.items():
        g = grade(check, [typed])
        assert g.ok and not g.correct and builtin in g.mistakes, (typed, g)
        assert check.mistake(builtin) is not None  # the check carries its words


@pytest.mark.parametrize("name", NAMES)
def test_its_template_draws_one_labelled_box(name: str) -> None:
    kind = KINDS[name]
    check = check_of(kind)
    field = {
        "index": 0,
        "label": check.fields[0].label,
        "template": kind.template,
        "value": "",
        "attrs": kind.input_attrs(check.fields[0].key),
        "options": [{"id": o.id, "html": o.html, "checked": False} for o in check.options],
    }
    html = render_to_string(kind.template, {"check": check, "field": field})
    boxes = Boxes()
    boxes.feed(html)
    assert boxes.inputs, html
    for attrs, in_label in boxes.inputs:  # each box is labelled, by for= or by its <label>
        assert in_label or (attrs.get("id") and attrs["id"] in boxes.label_for), (attrs, html)
        if not in_label:
            assert attrs["id"] == "check-c-0", attrs
    assert len(boxes.inputs) == 1 or boxes.legend, "a group of boxes needs a <legend>"


class Boxes(HTMLParser):
    """The answer inputs of a rendered box (name answer-N), and how each is labelled."""

    def __init__(self) -> None:
        super().__init__()
        self.inputs: list[tuple[dict[str, str | None], bool]] = []
        self.label_for: set[str | None] = set()
        self.legend = False
        self._labels = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "label":
            self._labels += 1
            self.label_for.add(a.get("for"))
        elif tag == "legend":
            self.legend = True
        elif tag in ("input", "textarea", "select") and a.get("name") == "answer-0":
            self.inputs.append((a, self._labels > 0))

    def handle_endtag(self, tag: str) -> None:
        if tag == "label":
            self._labels -= 1


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("raw", JUNK)
def test_no_junk_makes_it_raise_or_right_or_tell_the_key(name: str, raw: str) -> None:
    check = check_of(KINDS[name])
    g = grade(check, [raw])
    assert not g.correct, (raw, check.fields[0].answer_text)  # junk is never right
    for figure in telling_figures(check):
        assert figure not in g.message, (raw, g.message)


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=150, deadline=None)
@given(raw=st.text(max_size=60))
def test_no_text_makes_it_raise(name: str, raw: str) -> None:
    check = check_of(KINDS[name])
    g = grade(check, [raw])  # never raises
    assert g.ok or not g.correct  # an answer it cannot read is never right
