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


def test_operatorname_is_set_like_sin_with_no_operator_spacing():
    # latex2mathml writes \operatorname{Concat} as an <mo>, which a browser spaces as an unknown
    # operator ("Concat ( head"); it becomes an upright <mi>, as \sin does.
    out = to_mathml(r"\operatorname{Concat}(\operatorname{head}_1, \dots)\,W_O", True)
    assert "<mi>Concat</mi><mo" in out and "<msub><mi>head</mi><mn>1</mn></msub>" in out
    assert "<mo>Concat</mo>" not in out and "<mo>head</mo>" not in out
    assert "<mrow><mi>sin</mi>" in to_mathml(r"\sin x", False)


def test_operators_with_limits_keep_their_mo():
    assert "<mo>max</mo>" in to_mathml(r"\max_j s_j", True)
    assert "<mo>lim</mo>" in to_mathml(r"\lim_{n} a_n", True)
    out = to_mathml(r"\operatorname*{argmax}_j s_j", True)
    assert '<mo movablelimits="true">argmax</mo>' in out
