// The small attention math the widgets recompute on every input (Unit 18; Bahdanau, Cho & Bengio
// 2015). It mirrors mathmachine.engine and is held to it by golden vectors the engine writes
// (tests/golden/*.json, checked by tests/js/golden.test.mjs to 1e-12). Printing a number is
// printing.js's job, not this module's.
//
// Vectors are plain arrays of numbers: q [d], a note h [d], notes [n][d], states [m][d].

function check(ok, message) {
  if (!ok) throw new RangeError(message)
}

/** q · h for two vectors of the same length d. */
export function dot(a, b) {
  check(a.length === b.length, `dot: lengths ${a.length} and ${b.length} must match`)
  let s = 0
  for (let i = 0; i < a.length; i++) s += a[i] * b[i]
  return s
}

/** s · v, a new vector [d]. */
export function scale(v, s) {
  const out = new Array(v.length)
  for (let i = 0; i < v.length; i++) out[i] = v[i] * s
  return out
}

/** Stable softmax of scores [n] -> weights [n] (positive, sum 1). -Infinity gets weight 0. */
export function softmax(x) {
  check(x.length > 0, 'softmax of an empty vector')
  let top = -Infinity
  for (const v of x) {
    check(!Number.isNaN(v) && v !== Infinity, 'softmax input contains NaN or +Infinity')
    if (v > top) top = v
  }
  check(top !== -Infinity, 'softmax row is entirely -Infinity: every position is masked')
  const e = new Array(x.length)
  let sum = 0
  for (let i = 0; i < x.length; i++) {
    e[i] = Math.exp(x[i] - top) // <= 1: never overflows
    sum += e[i]
  }
  for (let i = 0; i < e.length; i++) e[i] /= sum
  return e
}

/** Dot-product scores of one decoder state q [d] against every note: [n]. */
export function scores(q, notes) {
  return notes.map((h) => dot(q, h))
}

/** One row of the alignment map: softmax_j(q · h_j), weights [n]. */
export function alignmentRow(q, notes) {
  return softmax(scores(q, notes))
}

/** The alignment map: one row per decoder state [m][n]; every row sums to 1. */
export function alignmentMap(states, notes) {
  return states.map((q) => alignmentRow(q, notes))
}

/** Context vector c = Σ_j weights_j h_j, [d]. */
export function context(weights, notes) {
  check(weights.length === notes.length, `${weights.length} weights but ${notes.length} notes`)
  const c = new Array(notes[0].length).fill(0)
  for (let j = 0; j < notes.length; j++) {
    const h = notes[j]
    check(h.length === c.length, 'every note must have the same length')
    for (let k = 0; k < c.length; k++) c[k] += weights[j] * h[k]
  }
  return c
}

/** The sum of a vector's entries (in order). */
export function sum(x) {
  let s = 0
  for (const v of x) s += v
  return s
}

/** The sum of each row of a matrix [n][m] -> [n] (a row of weights sums to 1). */
export function rowSums(m) {
  return m.map((row) => sum(row))
}

/** Two vectors multiplied entry by entry, [d] (their sum is the dot product). */
export function products(a, b) {
  check(a.length === b.length, `products: lengths ${a.length} and ${b.length} must match`)
  return a.map((v, i) => v * b[i])
}

/** The place of the largest entry (the first of a tie). */
export function argmax(x) {
  check(x.length > 0, 'argmax of an empty vector')
  let best = 0
  for (let i = 1; i < x.length; i++) if (x[i] > x[best]) best = i
  return best
}
