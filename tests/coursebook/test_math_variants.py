"""Styled letters (\\mathbf, \\mathsf, \\mathbb) become Unicode mathematical characters, since
MathML Core browsers ignore mathvariant other than "normal"."""

from mathmachine.coursebook.passes.math import to_mathml


def test_bold_letters_are_unicode_bold():
    out = to_mathml(r"\mathbf q\cdot\mathbf h_j", False)
    assert "𝐪" in out and "𝐡" in out
    assert 'mathvariant="bold"' not in out


def test_sans_serif_transpose_and_double_struck_holes():
    out = to_mathml(r"W^{\mathsf T} \in \mathbb R^{d}", False)
    assert "𝖳" in out and "ℝ" in out


def test_characters_without_a_styled_form_are_left_alone():
    out = to_mathml(r"\mathbf{\alpha}", False)
    assert "α" in out
