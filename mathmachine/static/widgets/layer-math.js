// The transformer block's own math for Unit 18 §9, as a widget recomputes it in the browser:
// LayerNorm step by step (mean, centred, variance, std, normalised, gain and bias), LayerNorm of
// every row of a matrix, the normal distribution's Φ and the exact GELU(x) = x Φ(x), and the
// weights of one block for any width. It mirrors mathmachine.engine (anatomy.layer_norm_steps,
// layers.layer_norm, layers.normal_cdf, layers.gelu: the same erfcx series as engine/normal.py,
// so GELU agrees to 1e-15; anatomy.model_weight_count's block) and is held to it by golden
// vectors (tests/golden/math.json; a widget that uses it adds its own).

function check(ok, message) {
  if (!ok) throw new RangeError(message)
}

function finite(x, name) {
  check(Array.isArray(x) && x.every(Number.isFinite), `${name} must be finite numbers`)
  return x
}

/** LayerNorm of one vector x [d], every step kept (eps 0 by default: the by-hand convention;
 * a layer uses 1e-5 so that a constant row does not divide by 0). */
export function layerNorm(x, gain = null, bias = null, eps = 0) {
  finite(x, 'x')
  check(x.length >= 2, 'x must be one vector of at least 2 numbers')
  check(Number.isFinite(eps) && eps >= 0, 'eps must be a number >= 0')
  for (const [name, v] of [['gain', gain], ['bias', bias]]) {
    if (v !== null) check(finite(v, name).length === x.length, `${name} must have ${x.length} entries, like x`)
  }
  const d = x.length
  let mean = 0
  for (const v of x) mean += v
  mean /= d
  const centred = x.map((v) => v - mean)
  let sq = 0
  for (const c of centred) sq += c * c
  const variance = sq / d
  check(variance + eps > 0, 'x is constant (variance 0) and eps is 0: LayerNorm would divide by 0')
  const std = Math.sqrt(variance + eps)
  const normalised = centred.map((c) => c / std)
  let output = gain === null ? normalised.slice() : normalised.map((v, i) => v * gain[i])
  if (bias !== null) output = output.map((v, i) => v + bias[i])
  return {mean, centred, variance, std, normalised, output}
}

/** LayerNorm of every row of a matrix [n][d] (a layer's, eps 1e-5 by default) -> [n][d]. */
export function layerNormRows(rows, gain = null, bias = null, eps = 1e-5) {
  return rows.map((row) => layerNorm(row, gain, bias, eps).output)
}

// erfcx(a) = exp(a²) erfc(a) as a polynomial in t = (a - 3) / (a + 3): engine/normal.py's
// ERFCX_T64, a Chebyshev fit to float64 accuracy.
const ERFCX = [
  0.17900115118139026, -0.32623356004303833, 0.24560380171231638, -0.15011593650076732,
  0.07166583719817576, -0.02439249931818329, 0.0042691363323096015, 0.0007077464295759371,
  -0.0005970619525918967, 4.5255379215085914e-5, 6.405657988554209e-5, -1.2860906044673153e-5,
  -7.978143186888608e-6, 2.1213050772872835e-6, 1.2522571919692673e-6, -2.9655099056940894e-7,
  -2.3379944334236493e-7, 3.1799502321957085e-8, 4.5487977646415794e-8, -1.4603352929029116e-9,
  -7.608519183459934e-9, -1.3401131594151765e-10, 7.544952057281845e-10,
]
const INV_SQRT2 = 1 / Math.sqrt(2)

function phi(x) {
  const a = Math.abs(x) * INV_SQRT2
  const t = (a - 3) / (a + 3)
  let acc = ERFCX[ERFCX.length - 1]
  for (let i = ERFCX.length - 2; i >= 0; i--) acc = acc * t + ERFCX[i]
  const half = acc * Math.exp(-(a * a)) * 0.5 // Φ(-|x|)
  return x < 0 ? half : 1 - half
}

/** Φ(x) = P(Z <= x) for a standard normal Z, for every entry. */
export function normalCdf(xs) {
  return finite(xs, 'x').map(phi)
}

/** The exact GELU(x) = x Φ(x), for every entry. */
export function gelu(xs) {
  return finite(xs, 'x').map((x) => x * phi(x))
}

/** The weights of one encoder block of width d (anatomy.model_weight_count(d, d_ff, bias, norm)
 * .block): attention's four d × d matrices, the feed-forward network's d × dFf and dFf × d
 * (dFf null: 4 d), with `bias` a bias on each of the six, with `norm` both LayerNorms' gains and
 * biases. Each part, the shapes' sides (d, dFf) and the total. */
export function blockWeights(d, dFf = null, bias = false, norm = false) {
  check(Number.isInteger(d) && d >= 1, 'd must be a whole number >= 1')
  const ff = dFf === null ? 4 * d : dFf
  check(Number.isInteger(ff) && ff >= 1, 'dFf must be a whole number >= 1')
  const parts = {
    matrix: d * d,
    attention: 4 * d * d,
    w1: d * ff,
    feedForward: 2 * d * ff,
    attentionBiases: bias ? 4 * d : 0,
    feedForwardBiases: bias ? ff + d : 0,
    norms: norm ? 4 * d : 0,
  }
  const total =
    parts.attention + parts.feedForward + parts.attentionBiases + parts.feedForwardBiases + parts.norms
  const biases = parts.attentionBiases + parts.feedForwardBiases
  return {d, dFf: ff, ...parts, biases, matrices: parts.attention + parts.feedForward, total}
}
