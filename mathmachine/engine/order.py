"""Where is each word? The facts of Unit 18 §8, computed so that the prose can print them.

- :func:`shuffle_test`: self-attention without positions is permutation-equivariant (shuffle
  the words and the outputs shuffle the same way); with positions added by place it is not.
  The proof: for a permutation matrix P, (PX)W = P(XW), so the scores become P S Pᵀ, the
  row-wise softmax of P S Pᵀ is P A Pᵀ, and (P A Pᵀ)(P V) = P (A V) because PᵀP = I.
- The sinusoidal encoding of Vaswani et al. (2017), §3.5 (:func:`.positions.sinusoidal_positions`):
  dimensions 2i and 2i+1 hold sin(ω_i pos) and cos(ω_i pos), ω_i = base^(-2i/d)
  (:func:`pe_frequencies`). Two facts follow, for an even width d:
    * PE(p) · PE(p+k) = Σ_i cos(ω_i k) (:func:`pe_dot_terms`), because
      sin a sin b + cos a cos b = cos(b − a): the dot product depends on the gap k, not on p;
    * PE(p+k) = PE(p) M(k) for every p (:func:`pe_shift_matrix`), M(k) block-diagonal with one
      2 × 2 rotation by ω_i k per pair: "for any fixed offset k, PE(pos+k) can be represented
      as a linear function of PE(pos)", the paper's reason for the choice.
- Rotary position (Su et al. 2021, RoFormer, eq. (13)-(16)) in one plane (:func:`rotary_pair`):
  the query at position m is turned by m θ and the key at position n by n θ; turning keeps
  lengths, and the score R(mθ)q · R(nθ)k = qᵀ R((n − m)θ) k depends on n − m only. With θ = 1
  it is :func:`.positions.rotary` on a 2-wide vector.

Rows are vectors here, as everywhere in the engine (y = x W), and angles are in radians.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ._checks import as_finite
from .positions import sinusoidal_positions
from .self_attention import SelfAttentionSteps, self_attention_steps

__all__ = [
    "RotaryPair",
    "ShuffleTest",
    "pe_dot",
    "pe_dot_terms",
    "pe_frequencies",
    "pe_shift_matrix",
    "rotary_pair",
    "rotate_plane",
    "shuffle_test",
]


def _whole(value: object, name: str, *, minimum: int = 0) -> int:
    if not isinstance(value, int | np.integer) or isinstance(value, bool) or value < minimum:
        raise ValueError(f"{name} must be a whole number >= {minimum}, got {value!r}")
    return int(value)


def _even_width(d: object) -> int:
    width = _whole(d, "d", minimum=2)
    if width % 2:
        raise ValueError(f"d must be even (the encoding comes in sin/cos pairs), got d = {width}")
    return width


def _base(base: object) -> float:
    if not (isinstance(base, int | float) and math.isfinite(base) and base > 1):
        raise ValueError(f"base must be a finite number > 1, got {base!r}")
    return float(base)


# --------------------------------------------------------------------------------------------
# the shuffle test


@dataclass(frozen=True)
class ShuffleTest:
    """Self-attention of a sentence and of the same words in another order.

    ``order`` says where each word of the shuffled sentence comes from: shuffled word i is
    original word order[i]. ``positions`` [n, d] (or None) is added by place, after the
    shuffle, as a transformer adds its position encodings. ``original`` and ``shuffled`` keep
    every stage (§3's :class:`SelfAttentionSteps`).
    """

    order: tuple[int, ...]
    positions: NDArray[np.float64] | None
    original: SelfAttentionSteps
    shuffled: SelfAttentionSteps

    @property
    def expected(self) -> NDArray[np.float64]:
        """[n, d_v]: the original outputs in the shuffled order (row i = output of the word
        that stands at place i after the shuffle). Equivariance says the shuffled sentence's
        outputs are exactly these."""
        return self.original.output[list(self.order)]

    @property
    def gap(self) -> float:
        """The largest difference between the shuffled sentence's outputs and ``expected``:
        rounding-size (about 1e-16) without positions, of the size of the outputs with them."""
        return float(np.max(np.abs(self.shuffled.output - self.expected)))

    def same_outputs(self, places: int = 3) -> list[bool]:
        """For each place of the shuffled sentence, whether its word's output prints the same,
        to ``places`` decimals, as that word's output in the original sentence."""
        a = np.round(self.shuffled.output, places) + 0.0  # + 0.0: no -0.0
        b = np.round(self.expected, places) + 0.0
        return [bool(np.array_equal(x, y)) for x, y in zip(a, b, strict=True)]


def _order(order: ArrayLike, n: int) -> tuple[int, ...]:
    perm = np.asarray(order)
    if perm.shape != (n,) or perm.dtype.kind not in "iu" or sorted(perm.tolist()) != list(range(n)):
        raise ValueError(f"order must be a permutation of 0..{n - 1}, got {np.asarray(order)!r}")
    return tuple(int(i) for i in perm)


def shuffle_test(
    x: ArrayLike,
    W_q: ArrayLike,
    W_k: ArrayLike,
    W_v: ArrayLike,
    order: ArrayLike,
    *,
    positions: ArrayLike | None = None,
    scaled: bool = True,
) -> ShuffleTest:
    """x [n, d] (one row per word), W_q, W_k [d, d_k], W_v [d, d_v], ``order`` a permutation
    of 0..n-1, ``positions`` [n, d] or None -> both sentences' self-attention (scaled by √d_k,
    or, with ``scaled=False``, §3's plain softmax(QKᵀ)).

    Without positions, ``shuffled.output == expected`` to rounding, whatever the weights.
    """
    xa = as_finite(x, "X (one row per word)", min_ndim=2)
    if xa.ndim != 2:
        raise ValueError(f"X must be a matrix [n, d], got shape {xa.shape}")
    perm = _order(order, xa.shape[0])
    pe = None
    if positions is not None:
        pe = as_finite(positions, "positions", min_ndim=2)
        if pe.shape != xa.shape:
            raise ValueError(f"positions must have X's shape {xa.shape}, got {pe.shape}")
    add = 0.0 if pe is None else pe  # by place: the shuffle moves words, not places
    original = self_attention_steps(xa + add, W_q, W_k, W_v, scaled=scaled)
    shuffled = self_attention_steps(xa[list(perm)] + add, W_q, W_k, W_v, scaled=scaled)
    return ShuffleTest(order=perm, positions=pe, original=original, shuffled=shuffled)


# --------------------------------------------------------------------------------------------
# sinusoidal encodings: one frequency per pair, dot products, the shift as a rotation


def pe_frequencies(d: int, base: float = 10000.0) -> NDArray[np.float64]:
    """[d/2]: ω_i = base^(-2i/d), the turning speed of pair i (dimensions 2i and 2i+1) in
    radians per position. ω_0 = 1; each next pair turns base^(2/d) times slower."""
    width = _even_width(d)
    return _base(base) ** (-np.arange(0, width, 2, dtype=np.float64) / width)


def pe_dot_terms(k: int, d: int, base: float = 10000.0) -> NDArray[np.float64]:
    """[d/2]: cos(ω_i k), the share of pair i in PE(p) · PE(p+k), the same for every p.
    Their sum is the dot product; at k = 0 every term is 1 and the sum is d/2."""
    gap = _whole(k, "k")
    return np.cos(pe_frequencies(d, base) * gap)


def pe_dot(p: int, k: int, d: int, base: float = 10000.0) -> float:
    """PE(p) · PE(p+k), computed from the two rows of the encoding themselves (no identity
    used): the number :func:`pe_dot_terms` says depends on k alone."""
    start, gap, width = _whole(p, "p"), _whole(k, "k"), _even_width(d)
    pe = sinusoidal_positions(start + gap + 1, width, _base(base))
    return float(pe[start] @ pe[start + gap])


def pe_shift_matrix(k: int, d: int, base: float = 10000.0) -> NDArray[np.float64]:
    """[d, d]: M(k) with PE(p + k) = PE(p) M(k) for every position p.

    Block-diagonal: pair i's block is [[cos ω_i k, −sin ω_i k], [sin ω_i k, cos ω_i k]], a
    rotation by ω_i k (rows are vectors: (sin a, cos a) times it is (sin(a + ω_i k),
    cos(a + ω_i k))). It does not depend on p; M(j) M(k) = M(j + k), and M(k) is orthogonal.
    """
    gap = _whole(k, "k")
    width = _even_width(d)
    angle = pe_frequencies(width, base) * gap
    m = np.zeros((width, width))
    c, s = np.cos(angle), np.sin(angle)
    i = np.arange(0, width, 2)
    m[i, i], m[i, i + 1] = c, -s
    m[i + 1, i], m[i + 1, i + 1] = s, c
    return m


# --------------------------------------------------------------------------------------------
# rotary position in one plane


def rotate_plane(v: ArrayLike, angle: float) -> NDArray[np.float64]:
    """The 2-vector v turned counter-clockwise by ``angle`` radians:
    (v1 cos a − v2 sin a, v1 sin a + v2 cos a)."""
    va = as_finite(v, "v", min_ndim=1)
    if va.shape != (2,):
        raise ValueError(f"v must be a vector of 2 numbers (a point in the plane), got {va.shape}")
    if not (isinstance(angle, int | float | np.floating) and math.isfinite(angle)):
        raise ValueError(f"angle must be a finite number, got {angle!r}")
    c, s = math.cos(angle), math.sin(angle)
    return np.array([va[0] * c - va[1] * s, va[0] * s + va[1] * c])


@dataclass(frozen=True)
class RotaryPair:
    """A query at position m and a key at position n, each turned by its position times θ.

    ``q_rot`` = R(mθ) q, ``k_rot`` = R(nθ) k, ``score`` = q_rot · k_rot; ``offset`` = n − m;
    ``angle`` = (n − m) θ, the angle the key is turned by relative to the query."""

    q: NDArray[np.float64]
    k: NDArray[np.float64]
    m: int
    n: int
    theta: float
    q_rot: NDArray[np.float64]
    k_rot: NDArray[np.float64]
    score: float

    @property
    def offset(self) -> int:
        return self.n - self.m

    @property
    def angle(self) -> float:
        return self.offset * self.theta

    @property
    def plain_score(self) -> float:
        """q · k: the score without positions (both at position 0)."""
        return float(self.q @ self.k)

    @property
    def cross(self) -> float:
        """q2 k1 − q1 k2: with it, score = cos(angle) (q · k) + sin(angle) · cross."""
        return float(self.q[1] * self.k[0] - self.q[0] * self.k[1])


def rotary_pair(q: ArrayLike, k: ArrayLike, m: int, n: int, theta: float = 1.0) -> RotaryPair:
    """Rotary encoding of one 2-D query (position m) and key (position n), θ radians a
    position. θ = 1 is what :func:`.positions.rotary` does to a 2-wide vector."""
    qa, ka = as_finite(q, "q", min_ndim=1), as_finite(k, "k", min_ndim=1)
    pm, pn = _whole(m, "m"), _whole(n, "n")
    if not (isinstance(theta, int | float | np.floating) and math.isfinite(theta)):
        raise ValueError(f"theta must be a finite number, got {theta!r}")
    q_rot, k_rot = rotate_plane(qa, pm * float(theta)), rotate_plane(ka, pn * float(theta))
    return RotaryPair(
        q=qa,
        k=ka,
        m=pm,
        n=pn,
        theta=float(theta),
        q_rot=q_rot,
        k_rot=k_rot,
        score=float(q_rot @ k_rot),
    )
