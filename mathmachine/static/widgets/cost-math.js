// The price of attention for Unit 18 §12, as the n² calculator recomputes it in the browser:
// the scores (n² per head per layer), their memory, the multiplications of attention's two
// n × n products, the KV cache (2 · layers · n · d_model numbers) and a memory as printed
// ("512 MiB"). It mirrors mathmachine.engine.cost (and engine.dot_product's score counts), held
// to it by golden vectors (tests/golden/n2-calculator.json). Every count is a whole number below
// 2^53, so it is exact in a JavaScript number.
import {count, dec} from './printing.js';

function check(ok, message) {
  if (!ok) throw new RangeError(message)
}

function whole(value, name) {
  check(Number.isInteger(value) && value >= 1, `${name} must be a positive whole number, got ${value}`)
  return value
}

function exact(value) {
  check(Number.isSafeInteger(value), `the count ${value} is too large to be exact`)
  return value
}

/** Scores attention over n tokens computes: n² per head per layer. */
export function scoreCount(n, heads, layers) {
  whole(n, 'n')
  return exact(n * n * whole(heads, 'heads') * whole(layers, 'layers'))
}

/** Their memory, held all at once: scores × bytes per number. */
export function scoreBytes(n, heads, layers, bytes) {
  return exact(scoreCount(n, heads, layers) * whole(bytes, 'bytes'))
}

/** Multiplications of the scores Q Kᵀ and of the weights times V: 2 n² d_model per layer. */
export function multiplications(n, dModel, layers) {
  whole(n, 'n')
  return exact(2 * n * n * whole(dModel, 'dModel') * whole(layers, 'layers'))
}

/** Numbers the KV cache holds while a model writes n tokens: 2 · layers · n · d_model. */
export function kvCacheCount(n, dModel, layers) {
  return exact(2 * whole(layers, 'layers') * whole(n, 'n') * whole(dModel, 'dModel'))
}

/** The KV cache's memory in bytes. */
export function kvCacheBytes(n, dModel, layers, bytes) {
  return exact(kvCacheCount(n, dModel, layers) * whole(bytes, 'bytes'))
}

const UNITS = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB']

/** A memory as printed, in the largest binary unit that keeps it at least 1 (1 KiB = 1,024
 * bytes, 1 MiB = 1,024 KiB, …): whole values as counts ('512 MiB', '1,536 GiB' never: that is
 * '1.5 TiB'), others to one decimal from 10 or when one is exact ('1.5 GiB', '12.8 GiB'), else
 * two ('1.06 MiB'). */
export function memoryText(bytes) {
  check(Number.isInteger(bytes) && bytes >= 0, `bytes must be a whole number >= 0, got ${bytes}`)
  let u = 0
  let v = bytes
  while (u < UNITS.length - 1 && v >= 1024) {
    v /= 1024
    u += 1
  }
  const shown = Number.isInteger(v) ? count(v) : dec(v, v >= 10 || Number.isInteger(v * 10) ? 1 : 2)
  return `${shown} ${UNITS[u]}`
}

/** Everything the calculator shows for one setting; d_model = heads × headWidth. */
export function costAt(n, heads, layers, bytes, headWidth) {
  const dModel = whole(heads, 'heads') * whole(headWidth, 'headWidth')
  return {
    dModel,
    scores: scoreCount(n, heads, layers),
    perLayer: scoreCount(n, heads, 1),
    scoreBytes: scoreBytes(n, heads, layers, bytes),
    perLayerBytes: scoreBytes(n, heads, 1, bytes),
    multiplications: multiplications(n, dModel, layers),
    kv: kvCacheCount(n, dModel, layers),
    kvBytes: kvCacheBytes(n, dModel, layers, bytes),
    rnnSteps: whole(n, 'n'),
  }
}

const GIB = 1024 * 1024 * 1024

/** The lines of the two plots at every length: memory in GiB (the score matrices, the KV
 * cache) and counts in millions (scores, multiplications, the KV cache's numbers). */
export function curves(lengths, heads, layers, bytes, headWidth) {
  const at = lengths.map((n) => costAt(n, heads, layers, bytes, headWidth))
  return {
    scoresGiB: at.map((c) => c.scoreBytes / GIB),
    kvGiB: at.map((c) => c.kvBytes / GIB),
    scoresMillions: at.map((c) => c.scores / 1e6),
    multiplicationsMillions: at.map((c) => c.multiplications / 1e6),
    kvMillions: at.map((c) => c.kv / 1e6),
  }
}
