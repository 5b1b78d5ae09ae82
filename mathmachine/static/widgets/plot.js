// The kit's line plot, browser half (the server half is parts.line_plot in
// mathmachine/coursebook/widgets/_parts.py, which draws the plot into the page):
//
// An element module imports markPoint (and ticks if it needs them):
//   markPoint(figure, 0, 5)        // ring point 5 of line 0 (null: none)
//   ticks(1, 1e6, true)            // [1, 10, 100, …, 1e6]: the server's ticks()
//
// ticks() is held to the server's by golden cases (tests/golden/parts.json). Only layout here.
// (No import statement may appear in these comments: see kit.js.)

function nice(step) {
  const power = 10 ** Math.floor(Math.log10(step))
  for (const m of [1, 2, 5, 10]) if (step <= m * power * (1 + 1e-9)) return m * power
  return 10 * power
}

/** Tick values from lo to hi: at most `most` round numbers, or the powers of ten on a log axis. */
export function ticks(lo, hi, log = false, most = 6) {
  if (!(Number.isFinite(lo) && Number.isFinite(hi)) || lo > hi) throw new RangeError(`ticks need lo <= hi, got ${lo}, ${hi}`)
  if (log) {
    if (lo <= 0) throw new RangeError('a log axis needs positive values')
    const a = Math.floor(Math.log10(lo) + 1e-9)
    const b = Math.ceil(Math.log10(hi) - 1e-9)
    const powers = []
    for (let p = a; p <= b; p++) powers.push(p)
    const every = Math.max(1, Math.ceil(powers.length / most))
    return powers.filter((_, i) => i % every === 0).map((p) => 10 ** p)
  }
  if (lo === hi) return [lo]
  const step = nice((hi - lo) / Math.max(1, most - 1))
  const first = Math.ceil(lo / step - 1e-9)
  const last = Math.floor(hi / step + 1e-9)
  const out = []
  for (let k = first; k <= last; k++) out.push(Number((k * step).toPrecision(12)) + 0)
  return out
}

/** Ring one point of a plot the server drew (line s, point i), or none (i null). */
export function markPoint(figure, s, i) {
  for (const c of figure.querySelectorAll('circle.wk-plot-point[data-on]')) c.removeAttribute('data-on')
  if (i == null) return
  figure.querySelector(`circle.wk-plot-point[data-s="${s}"][data-i="${i}"]`)?.setAttribute('data-on', '')
}
