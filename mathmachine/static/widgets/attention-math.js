// Self-attention of Unit 18 §3, step by step, as the widgets recompute it (Q = XW_Q, K = XW_K,
// V = XW_V, the scores QKᵀ, scaled by 1/√d_k from §4 on, softmax by rows, the output AV). It
// mirrors mathmachine.engine.self_attention and is held to it by golden vectors
// (tests/golden/<widget>.json, run by tests/js/golden.test.mjs to 1e-12). Matrices are arrays of
// rows. Masked attention (§10) is mask-math.js; the product of two vectors entry by entry is
// math.js's products.
import {softmax} from './math.js';

function check(ok, message) {
  if (!ok) throw new RangeError(message)
}

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
