// Why attention divides by √d (Unit 18 §4), as the widgets recompute it: random dot products
// from the engine's own generator (mulberry32 and Box-Muller), their variance and histogram, the
// division by √d, and the softmax's slope (its Jacobian) that shrinks as the scores spread. It
// mirrors mathmachine.engine.scaling and is held to it by golden vectors (tests/golden/
// <widget>.json, run by tests/js/golden.test.mjs to 1e-12).
import {softmax} from './math.js';

function check(ok, message) {
  if (!ok) throw new RangeError(message)
}

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

/** Each dot product divided by √d: the scaled scores [n] of one width d. */
export function scaledByRootD(dots, d) {
  check(Number.isInteger(d) && d >= 1, `d must be a whole number >= 1, got ${d}`)
  const root = Math.sqrt(d)
  return dots.map((x) => x / root)
}

/** The predicted standard deviation of q·k at width d (entries of mean 0, variance 1): √d. */
export function predictedSpread(d) {
  check(Number.isInteger(d) && d >= 1, `d must be a whole number >= 1, got ${d}`)
  return Math.sqrt(d)
}

/** How many times smaller the slope is than a reference one (Infinity when it is 0). */
export function timesSmaller(reference, size) {
  return size > 0 ? reference / size : Infinity
}
