// Where is each word? Unit 18 §8's math, as widgets 9-11 recompute it on every input. It mirrors
// mathmachine.engine.order (shuffle_test, pe_frequencies, pe_dot_terms, pe_dot,
// pe_shift_matrix, rotate_plane, rotary_pair) and engine.positions.sinusoidal_positions, and is
// held to them by golden vectors (tests/golden/<widget>.json, run by tests/js/golden.test.mjs
// to 1e-12). Rows are vectors (y = x W); angles are in radians.
import {selfAttention} from './attention-math.js';

function check(ok, message) {
  if (!ok) throw new RangeError(message)
}

function whole(x, name, minimum = 0) {
  check(Number.isInteger(x) && x >= minimum, `${name} must be a whole number >= ${minimum}, got ${x}`)
  return x
}

function evenWidth(d) {
  whole(d, 'd', 2)
  check(d % 2 === 0, `d must be even (the encoding comes in sin/cos pairs), got d = ${d}`)
  return d
}

// -- the shuffle test ------------------------------------------------------------------------

/** The rows of a matrix in a new order: row i of the answer is row order[i]. */
export function permuteRows(m, order) {
  check(order.length === m.length, `order has ${order.length} entries for ${m.length} rows`)
  const seen = [...order].sort((a, b) => a - b)
  check(seen.every((v, i) => v === i), `order must be a permutation of 0..${m.length - 1}`)
  return order.map((i) => [...m[i]])
}

/** Self-attention of a sentence and of its words in another order (shuffled word i is
 * original word order[i]); ``positions`` (a row per place, or null) is added by place after
 * the shuffle. -> {original, shuffled, expected}: each a matrix of outputs; ``expected`` is
 * the original outputs in the shuffled order (what equivariance promises without positions). */
export function shuffleTest(x, wq, wk, wv, order, positions = null, scaled = true) {
  const add = (rows) =>
    positions === null ? rows : rows.map((r, p) => r.map((v, j) => v + positions[p][j]))
  const original = selfAttention(add(x.map((r) => [...r])), wq, wk, wv, scaled).output
  const shuffled = selfAttention(add(permuteRows(x, order)), wq, wk, wv, scaled).output
  return {original, shuffled, expected: permuteRows(original, order)}
}

// -- sinusoidal encodings ----------------------------------------------------------------------

/** ω_i = base^(-2i/d) for each pair i (dimensions 2i and 2i+1), radians per position. */
export function peFrequencies(d, base = 10000) {
  evenWidth(d)
  const out = []
  for (let j = 0; j < d; j += 2) out.push(base ** (-j / d))
  return out
}

/** One row of the encoding: PE(pos)[2i] = sin(ω_i pos), PE(pos)[2i+1] = cos(ω_i pos). */
export function peRow(pos, d, base = 10000) {
  whole(pos, 'pos')
  const row = []
  for (const w of peFrequencies(d, base)) row.push(Math.sin(w * pos), Math.cos(w * pos))
  return row
}

/** [n][d]: the encoding of positions 0..n-1 (engine.positions.sinusoidal_positions). */
export function sinusoidal(n, d, base = 10000) {
  whole(n, 'n', 1)
  return Array.from({length: n}, (_, p) => peRow(p, d, base))
}

/** cos(ω_i k) for each pair: the shares of PE(p)·PE(p+k), the same for every p. */
export function peDotTerms(k, d, base = 10000) {
  whole(k, 'k')
  return peFrequencies(d, base).map((w) => Math.cos(w * k))
}

/** PE(p)·PE(p+k), from the two rows themselves. */
export function peDot(p, k, d, base = 10000) {
  const a = peRow(whole(p, 'p'), d, base)
  const b = peRow(p + whole(k, 'k'), d, base)
  let s = 0
  for (let j = 0; j < a.length; j++) s += a[j] * b[j]
  return s
}

/** How far each pair turns over a gap of k places, in degrees: ω_i k × 180/π. */
export function peTurnDegrees(k, d, base = 10000) {
  whole(k, 'k')
  return peFrequencies(d, base).map((w) => degrees(w * k))
}

/** [d][d]: M(k), block-diagonal, pair i's block [[cos ω_i k, −sin ω_i k], [sin ω_i k, cos ω_i k]]:
 * PE(p + k) = PE(p) M(k) for every p. */
export function peShiftMatrix(k, d, base = 10000) {
  whole(k, 'k')
  const m = Array.from({length: d}, () => new Array(d).fill(0))
  peFrequencies(d, base).forEach((w, i) => {
    const c = Math.cos(w * k)
    const s = Math.sin(w * k)
    const j = 2 * i
    m[j][j] = c
    m[j][j + 1] = -s
    m[j + 1][j] = s
    m[j + 1][j + 1] = c
  })
  return m
}

/** PE(p) M(k): the row of position p turned by the shift; it equals PE(p + k). */
export function peShifted(p, k, d, base = 10000) {
  const row = peRow(p, d, base)
  const m = peShiftMatrix(k, d, base)
  return m[0].map((_, c) => row.reduce((acc, v, t) => acc + v * m[t][c], 0))
}

// -- rotary position in one plane --------------------------------------------------------------

/** Degrees to radians, and back. */
export function radians(deg) {
  return (deg * Math.PI) / 180
}
export function degrees(rad) {
  return (rad * 180) / Math.PI
}

/** The 2-vector v turned counter-clockwise by ``angle`` radians. */
export function rotatePlane(v, angle) {
  check(v.length === 2, `v must be a vector of 2 numbers, got ${v.length}`)
  check(Number.isFinite(angle), `angle must be a finite number, got ${angle}`)
  const c = Math.cos(angle)
  const s = Math.sin(angle)
  return [v[0] * c - v[1] * s, v[0] * s + v[1] * c]
}

/** The length of a vector. */
export function length(v) {
  let s = 0
  for (const x of v) s += x * x
  return Math.sqrt(s)
}

/** A query at position m and a key at position n, each turned by its position times θ:
 * {qRot, kRot, score, plainScore, offset, angle, qLength, kLength}. */
export function rotaryPair(q, k, m, n, theta = 1) {
  whole(m, 'm')
  whole(n, 'n')
  const qRot = rotatePlane(q, m * theta)
  const kRot = rotatePlane(k, n * theta)
  return {
    qRot,
    kRot,
    score: qRot[0] * kRot[0] + qRot[1] * kRot[1],
    plainScore: q[0] * k[0] + q[1] * k[1],
    offset: n - m,
    angle: (n - m) * theta,
    qLength: length(qRot),
    kLength: length(kRot),
  }
}
