// The soft lookup of Unit 18 §2, as the widgets recompute it on every input: softmax(β q·k_j)
// over the keys and the blend of the values; the hard lookup beside it. It mirrors
// mathmachine.engine.lookup and is held to it by golden vectors (tests/golden/<widget>.json, run
// by tests/js/golden.test.mjs to 1e-12). Vectors are arrays of numbers.
import {dot, softmax} from './math.js';

function check(ok, message) {
  if (!ok) throw new RangeError(message)
}

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
