// Masked attention for Unit 18 §10, as a widget recomputes it in the browser: the causal mask (a
// word may look only at itself and the words before it) and scaled dot-product attention with a
// mask, the masked weights exactly 0. It mirrors mathmachine.engine.dot_product (causal_mask,
// attention) and is held to it by golden vectors (tests/golden/math.json; a widget that uses it
// adds its own).
import {softmax} from './math.js';
import {matmul, transpose} from './attention-math.js';

function check(ok, message) {
  if (!ok) throw new RangeError(message)
}

/** [n][n] booleans, true where query i may look at key j, i.e. j <= i. */
export function causalMask(n) {
  check(Number.isInteger(n) && n >= 1, `n must be a positive whole number, got ${n}`)
  return Array.from({length: n}, (_, i) => Array.from({length: n}, (_, j) => j <= i))
}

/** How many pairs a mask lets look: n(n + 1)/2 for the causal one. */
export function allowedCount(mask) {
  let count = 0
  for (const row of mask) for (const ok of row) if (ok) count++
  return count
}

/** Scaled dot-product attention, softmax(q kᵀ / √d_k, masked) v: q [n_q][d_k], k [n_k][d_k],
 * v [n_k][d_v], mask [n_q][n_k] booleans (true = may look) or null. Returns the scaled scores
 * (before the mask), the weights (rows sum to 1, exactly 0 where masked) and the output. */
export function attention(q, k, v, mask = null) {
  check(q[0].length === k[0].length, `q has width ${q[0].length} but k has width ${k[0].length}`)
  check(k.length === v.length, `${k.length} keys but ${v.length} values`)
  const scale = 1 / Math.sqrt(q[0].length)
  const scaled = matmul(q, transpose(k)).map((row) => row.map((s) => s * scale))
  if (mask !== null) {
    check(mask.length === q.length && mask.every((r) => r.length === k.length), 'mask must be [n_q][n_k]')
    mask.forEach((row, i) => check(row.some(Boolean), `mask leaves query row ${i} with no key to look at`))
  }
  const weights = scaled.map((row, i) =>
    softmax(mask === null ? row : row.map((s, j) => (mask[i][j] ? s : -Infinity))),
  )
  return {scaled, weights, output: matmul(weights, v)}
}

/** Self-attention of the rows of X with a mask (causal: pass causalMask(n)): Q = XW_Q, K = XW_K,
 * V = XW_V, then attention(Q, K, V, mask). */
export function maskedSelfAttention(x, wq, wk, wv, mask) {
  const q = matmul(x, wq)
  const k = matmul(x, wk)
  const v = matmul(x, wv)
  return {q, k, v, ...attention(q, k, v, mask)}
}
