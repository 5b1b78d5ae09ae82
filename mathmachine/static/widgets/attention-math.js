// The math Unit 18's sections 2-4 recompute on every input: the soft lookup with a sharpness,
// self-attention step by step, random dot products and the softmax's slope. It mirrors
// mathmachine.engine (lookup.py, self_attention.py, scaling.py) and is held to it by golden
// vectors (tests/golden/<widget>.json, run by tests/js/golden.test.mjs to 1e-12).
//
// Vectors are arrays of numbers, matrices arrays of rows.
import {dot, softmax} from './math.js';

function check(ok, message) {
  if (!ok) throw new RangeError(message)
}

// ------------------------------------------------------------------ §2 the soft lookup

/** Softmax(beta · q·k_j) [n] and the blend of the values [n] (numbers) it makes. */
export function softLookup(q, keys, values, beta) {
  check(keys.length === values.length, `${keys.length} keys but ${values.length} values`)
  check(Number.isFinite(beta) && beta >= 0, 'beta must be a finite number >= 0')
  const scores = keys.map((k) => dot(q, k))
  const weights = softmax(scores.map((s) => beta * s))
  let output = 0
  for (let j = 0; j < values.length; j++) output += weights[j] * values[j]
  return {scores, weights, output}
}

/** The best-matching key(s) (ties within 1e-12, relative) and the mean of their values. */
export function hardLookup(q, keys, values) {
  const scores = keys.map((k) => dot(q, k))
  const top = Math.max(...scores)
  const tol = 1e-12 * Math.max(1, Math.abs(top))
  const best = []
  for (let j = 0; j < scores.length; j++) if (scores[j] >= top - tol) best.push(j)
  let sum = 0
  for (const j of best) sum += values[j]
  return {best, output: sum / best.length}
}

// ------------------------------------------------------------------ §3 self-attention

/** A [n][m] times B [m][p] -> [n][p]. */
export function matmul(a, b) {
  check(a.length > 0 && b.length > 0, 'matmul of an empty matrix')
  check(a[0].length === b.length, `matmul: ${a[0].length} columns against ${b.length} rows`)
  const p = b[0].length
  return a.map((row) => {
    const out = new Array(p).fill(0)
    for (let t = 0; t < row.length; t++) for (let c = 0; c < p; c++) out[c] += row[t] * b[t][c]
    return out
  })
}

/** The transpose of A [n][m] -> [m][n]. */
export function transpose(a) {
  return a[0].map((_, c) => a.map((row) => row[c]))
}

/** Every stage of self-attention: Q = XW_Q, K = XW_K, V = XW_V, scores QKᵀ (× 1/√d_k when
 * scaled), weights softmax by rows, output AV. */
export function selfAttention(x, wq, wk, wv, scaled = false) {
  const q = matmul(x, wq)
  const k = matmul(x, wk)
  const v = matmul(x, wv)
  check(q[0].length === k[0].length, 'queries and keys must have the same length')
  const scores = matmul(q, transpose(k))
  const scale = scaled ? 1 / Math.sqrt(q[0].length) : 1
  const weights = scores.map((row) => softmax(row.map((s) => scale * s)))
  return {q, k, v, scores, scale, weights, output: matmul(weights, v)}
}

// ------------------------------------------------------------------ §4 random dot products

const GAMMA = 0x6d2b79f5 // mulberry32's increment

/** `count` uniform numbers in [0, 1) from mulberry32 (the engine's scaling.mulberry32). */
export function mulberry32(seed, count) {
  let a = seed >>> 0
  const out = new Array(count)
  for (let i = 0; i < count; i++) {
    a = (a + GAMMA) >>> 0
    let t = Math.imul(a ^ (a >>> 15), a | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    out[i] = ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  return out
}

/** Fill `out` with normals number `start`, start + 1, … of the seed's stream (start even):
 * Box-Muller on mulberry32's pairs, as the engine's scaling.normal_stream does. */
function normalsInto(seed, start, out) {
  let a = (seed + Math.imul(start, GAMMA)) >>> 0 // the counter just before output `start`
  for (let m = 0; m < out.length; m += 2) {
    a = (a + GAMMA) >>> 0
    let t = Math.imul(a ^ (a >>> 15), a | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    const u1 = ((t ^ (t >>> 14)) >>> 0) / 4294967296
    a = (a + GAMMA) >>> 0
    t = Math.imul(a ^ (a >>> 15), a | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    const u2 = ((t ^ (t >>> 14)) >>> 0) / 4294967296
    const r = Math.sqrt(-2 * Math.log(1 - u1))
    const theta = 2 * Math.PI * u2
    out[m] = r * Math.cos(theta)
    out[m + 1] = r * Math.sin(theta)
  }
  return out
}

/** `count` (even) standard normals of the seed's stream, from the first. */
export function normalStream(seed, count) {
  check(count % 2 === 0, 'count must be even (normals come in pairs)')
  return Array.from(normalsInto(seed >>> 0, 0, new Float64Array(count)))
}

/** q·k for pairs `from` … `to` - 1 at each width in `dims`: [dims.length][to - from]. Pair s
 * uses normals s·2D … (s+1)·2D of the stream (D = the largest width): q the first D, k the next
 * D; q·k at width d sums the first d products in order. The engine's dot_product_samples. */
export function dotProductSamples(seed, n, dims, from = 0, to = n) {
  const top = Math.max(...dims)
  const order = dims.map((d, i) => [d, i]).sort((x, y) => x[0] - y[0])
  const rows = dims.map(() => new Array(to - from))
  const buf = new Float64Array(2 * top)
  for (let s = from; s < to; s++) {
    normalsInto(seed >>> 0, s * 2 * top, buf)
    let sum = 0
    let next = 0
    for (let i = 0; i < top; i++) {
      sum += buf[i] * buf[top + i]
      while (next < order.length && order[next][0] === i + 1) rows[order[next++][1]][s - from] = sum
    }
  }
  return rows
}

/** The mean of (x - mean)² over the values. */
export function variance(x) {
  let mean = 0
  for (const v of x) mean += v
  mean /= x.length
  let sum = 0
  for (const v of x) sum += (v - mean) * (v - mean)
  return sum / x.length
}

/** Counts of x in `bins` equal bins [lo, hi), and the values below and above. */
export function histogram(x, lo, hi, bins) {
  const width = (hi - lo) / bins
  const counts = new Array(bins).fill(0)
  let below = 0
  let above = 0
  for (const v of x) {
    const b = Math.floor((v - lo) / width)
    if (b < 0) below++
    else if (b >= bins) above++
    else counts[b]++
  }
  return {counts, below, above}
}

// ------------------------------------------------------------------ §4 the softmax's slope

/** The softmax's Jacobian from its weights [n]: alpha_i (delta_ij - alpha_j), [n][n]. */
export function jacobian(a) {
  return a.map((ai, i) => a.map((aj, j) => ai * ((i === j ? 1 : 0) - aj)))
}

/** The largest entry of a matrix in absolute value. */
export function largest(m) {
  let top = 0
  for (const row of m) for (const v of row) top = Math.max(top, Math.abs(v))
  return top
}

/** d alpha_i / d s_j = alpha_i (delta_ij - alpha_j) at a row of scores [n] -> [n][n]. */
export function softmaxSlope(scores) {
  return jacobian(softmax(scores))
}

/** The slope's largest entry in absolute value: max_i alpha_i (1 - alpha_i). */
export function slopeSize(scores) {
  return largest(softmaxSlope(scores))
}
