"""order.py (§8): the shuffle test against self-attention written out with loops, the
sinusoidal dot product and shift matrix against the encoding's own rows and the addition
formulas, the rotary pair against positions.rotary and the closed form |q||k| cos."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from mathmachine.engine import order as O
from mathmachine.engine.positions import rotary, sinusoidal_positions


def attention_by_loops(x: list[list[float]], wq, wk, wv) -> list[list[float]]:
    """softmax(q_i . k_j / sqrt(d_k)) blended over v_j, from the definitions."""

    def mul(a, b):
        return [[sum(r[t] * b[t][c] for t in range(len(b))) for c in range(len(b[0]))] for r in a]

    q, k, v = mul(x, wq), mul(x, wk), mul(x, wv)
    dk = len(q[0])
    out = []
    for qi in q:
        s = [sum(a * b for a, b in zip(qi, kj, strict=True)) / math.sqrt(dk) for kj in k]
        e = [math.exp(t - max(s)) for t in s]
        w = [t / sum(e) for t in e]
        out.append([sum(w[j] * v[j][c] for j in range(len(v))) for c in range(len(v[0]))])
    return out


def test_without_positions_every_shuffle_only_reorders_the_outputs() -> None:
    rng = np.random.default_rng(8)
    x = rng.standard_normal((4, 3))
    wq, wk, wv = (rng.standard_normal((3, 3)) for _ in range(3))
    for perm in itertools.permutations(range(4)):
        t = O.shuffle_test(x, wq, wk, wv, perm)
        assert t.order == perm
        assert t.gap < 1e-12
        assert all(t.same_outputs())
        # and each is self-attention as the definition computes it
        ref = attention_by_loops(x[list(perm)].tolist(), wq.tolist(), wk.tolist(), wv.tolist())
        assert np.allclose(t.shuffled.output, ref, rtol=0, atol=1e-12)


def test_with_positions_a_shuffle_changes_the_outputs() -> None:
    rng = np.random.default_rng(9)
    x = rng.standard_normal((3, 4))
    wq, wk, wv = (rng.standard_normal((4, 4)) for _ in range(3))
    pe = sinusoidal_positions(3, 4)
    t = O.shuffle_test(x, wq, wk, wv, [2, 1, 0], positions=pe)
    assert t.gap > 1e-2
    assert not all(t.same_outputs())
    ref = attention_by_loops((x[[2, 1, 0]] + pe).tolist(), wq.tolist(), wk.tolist(), wv.tolist())
    assert np.allclose(t.shuffled.output, ref, rtol=0, atol=1e-12)
    # unscaled, as §3 computes it: the same reordering without positions
    assert O.shuffle_test(x, wq, wk, wv, [1, 2, 0], scaled=False).gap < 1e-12
    # the identity order changes nothing, with positions or without
    assert O.shuffle_test(x, wq, wk, wv, [0, 1, 2], positions=pe).gap == 0.0


def test_shuffle_test_refuses_bad_orders_and_positions() -> None:
    x = np.eye(3)
    with pytest.raises(ValueError, match=r"permutation of 0\.\.2"):
        O.shuffle_test(x, x, x, x, [0, 0, 1])
    with pytest.raises(ValueError, match="permutation"):
        O.shuffle_test(x, x, x, x, [0, 1])
    with pytest.raises(ValueError, match="positions must have X's shape"):
        O.shuffle_test(x, x, x, x, [0, 1, 2], positions=np.ones((2, 3)))


def test_frequencies_are_the_papers() -> None:
    w = O.pe_frequencies(8)
    assert w.tolist() == pytest.approx([1.0, 0.1, 0.01, 0.001], rel=1e-12)
    assert O.pe_frequencies(4).tolist() == pytest.approx([1.0, 0.01])
    # the encoding's column 2i is sin(omega_i pos), column 2i+1 cos(omega_i pos)
    pe = sinusoidal_positions(30, 8)
    pos = np.arange(30)[:, None]
    assert np.allclose(pe[:, 0::2], np.sin(pos * w), atol=1e-15)
    assert np.allclose(pe[:, 1::2], np.cos(pos * w), atol=1e-15)
    with pytest.raises(ValueError, match="even"):
        O.pe_frequencies(5)


@pytest.mark.parametrize("d", [2, 4, 8, 16, 64])
def test_the_dot_product_is_a_sum_of_cosines_of_the_gap(d: int) -> None:
    pe = sinusoidal_positions(120, d)
    for k in (0, 1, 2, 7, 30):
        terms = O.pe_dot_terms(k, d)
        assert terms.shape == (d // 2,)
        for p in (0, 3, 17, 80):
            direct = float(pe[p] @ pe[p + k])
            assert direct == pytest.approx(terms.sum(), abs=1e-12)
            assert O.pe_dot(p, k, d) == pytest.approx(direct, abs=1e-12)
    assert O.pe_dot_terms(0, d).sum() == pytest.approx(d / 2)


def test_the_shift_is_one_rotation_for_every_position() -> None:
    d = 16
    pe = sinusoidal_positions(200, d)
    for k in (1, 5, 40):
        m = O.pe_shift_matrix(k, d)
        assert np.allclose(m @ m.T, np.eye(d), atol=1e-12)  # a rotation: lengths kept
        assert np.allclose(pe[: 200 - k] @ m, pe[k:], atol=1e-12)
    assert np.allclose(O.pe_shift_matrix(3, d) @ O.pe_shift_matrix(4, d), O.pe_shift_matrix(7, d))
    assert np.array_equal(O.pe_shift_matrix(0, d), np.eye(d))
    # one pair's block, by the addition formulas
    w = O.pe_frequencies(d)[2]
    block = O.pe_shift_matrix(3, d)[4:6, 4:6]
    a = 3 * w
    want = [[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]]
    assert np.allclose(block, want, rtol=0, atol=1e-15)


def test_rotate_plane_and_the_rotary_pair() -> None:
    assert O.rotate_plane([1.0, 0.0], math.pi / 2).tolist() == pytest.approx([0.0, 1.0], abs=1e-15)
    rng = np.random.default_rng(5)
    q, k = rng.standard_normal(2), rng.standard_normal(2)
    for m, n in ((0, 0), (2, 5), (7, 3), (10, 10)):
        r = O.rotary_pair(q, k, m, n, theta=1.0)
        # theta = 1 is the engine's rotary on a 2-wide vector
        assert np.allclose(r.q_rot, rotary(q[None, :], [m])[0], atol=1e-12)
        assert np.allclose(r.k_rot, rotary(k[None, :], [n])[0], atol=1e-12)
        # lengths kept; the score is |q||k| cos(angle between them after turning)
        assert np.linalg.norm(r.q_rot) == pytest.approx(np.linalg.norm(q))
        phi = math.atan2(k[1], k[0]) + n - (math.atan2(q[1], q[0]) + m)
        assert r.score == pytest.approx(np.linalg.norm(q) * np.linalg.norm(k) * math.cos(phi))
        assert r.score == pytest.approx(
            math.cos(r.angle) * r.plain_score + math.sin(r.angle) * r.cross
        )
    theta = math.pi / 6
    base = O.rotary_pair(q, k, 2, 5, theta).score
    for shift in (1, 4, 9):
        assert O.rotary_pair(q, k, 2 + shift, 5 + shift, theta).score == pytest.approx(base)
    assert O.rotary_pair(q, k, 5, 2, theta).score != pytest.approx(base)  # the sign of n - m counts
    with pytest.raises(ValueError, match="2 numbers"):
        O.rotate_plane([1.0, 2.0, 3.0], 1.0)
    with pytest.raises(ValueError, match="whole number"):
        O.rotary_pair(q, k, -1, 2)
