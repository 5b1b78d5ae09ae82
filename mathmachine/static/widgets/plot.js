// The kit's line plot, browser half (the server half is parts.line_plot in
// mathmachine/coursebook/widgets/_parts.py, which draws the plot into the page). An element
// module imports what it needs of markPoint, drawLinePlot, layout and ticks:
//
//   markPoint(figure, 0, 5)                       // ring point 5 of line 0 (null: none)
//   drawLinePlot(figure, {series: [{name, x, y, places}], title, desc})   // new lines
//
// layout(), ticks() and tickLabel() are the server's functions, held to them by golden cases
// (tests/golden/parts.json), so a plot the script redraws is the plot the server drew. Only
// layout here. (No import statement may appear in these comments: see kit.js.)
import {MINUS, count, dec, plain, printer} from './printing.js';
import {labelWidth} from './heatmap.js';

const SVG = 'http://www.w3.org/2000/svg'
const FONT = 11

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

/** A tick as printed: dec with `places`, or (null) counts with separators from 1,000, else plain. */
export function tickLabel(v, places = null) {
  if (places !== null) return dec(v, places)
  if (Number.isInteger(v) && Math.abs(v) >= 1000) return count(v)
  return plain(v)
}

function along(v, [lo, hi], log) {
  if (log) return (Math.log10(v) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo))
  return hi > lo ? (v - lo) / (hi - lo) : 0.5
}

/** The SVG x and y of a point (the server's plot_x, plot_y). */
export function plotX(lay, v) {
  return lay.left + along(v, lay.x, lay.xLog) * lay.width
}
export function plotY(lay, v) {
  return lay.top + lay.height - along(v, lay.y, lay.yLog) * lay.height
}

/** Where a plot's parts go, from all its x and y values (the server's plot_layout). */
export function layout(xs, ys, {xLog = false, yLog = false, width = 320, height = 200, lines = 1, xPlaces = null, yPlaces = null} = {}) {
  if (!xs.length || xs.length !== ys.length) throw new RangeError('a plot needs as many x values as y values, and at least one')
  const lo = Math.min(...xs)
  const xt = ticks(!xLog && lo > 0 && lo < Math.max(...xs) / 5 ? 0 : lo, Math.max(...xs), xLog)
  const yt = ticks(yLog ? Math.min(...ys) : Math.min(0, ...ys), Math.max(...ys), yLog)
  const x = [Math.min(xt[0], ...xs), Math.max(xt.at(-1), ...xs)]
  const y = [Math.min(yt[0], ...ys), Math.max(yt.at(-1), ...ys)]
  const yText = yt.map((v) => tickLabel(v, yPlaces))
  const left = Math.ceil(Math.max(...yText.map((t) => labelWidth(t, FONT))) + 10 + FONT + 6)
  const top = 10 + (lines > 1 ? 16 * lines : 0)
  const bottom = Math.ceil(FONT * 2 + 16)
  const right = Math.max(12, Math.ceil(labelWidth(tickLabel(xt.at(-1), xPlaces), FONT) / 2 + 4))
  const lay = {left, top, width: width - left - right, height: height - top - bottom, x, y, xLog, yLog}
  lay.xTicks = xt.map((v) => [v, plotX(lay, v), tickLabel(v, xPlaces)])
  lay.yTicks = yt.map((v, i) => [v, plotY(lay, v), yText[i]])
  return lay
}

/** A plot's description (the server's plot_desc). */
export function plotDesc(desc, xLabel, yLabel, xLog, yLog, table) {
  const logs = [[xLabel, xLog], [yLabel, yLog]].filter(([, l]) => l).map(([n]) => `${n} on a log scale`)
  const text = desc.replace(/\.+$/, '') + (logs.length ? ` (${logs.join('; ')})` : '') + '.'
  return text + (table ? ' Every point is in the table that follows.' : '')
}

const f1 = (x) => dec(x, 1).replace(MINUS, '-')
const num = (x) => x.toFixed(2).replace(/0+$/, '').replace(/\.$/, '')

function el(name, attrs = {}, text = '') {
  const node = document.createElementNS(SVG, name)
  for (const [k, v] of Object.entries(attrs)) if (v != null) node.setAttribute(k, String(v))
  if (text) node.textContent = text
  return node
}

const DEVANAGARI = /[\u0900-\u097f\ua8e0-\ua8ff]/
const text = (t, attrs) => el('text', {lang: DEVANAGARI.test(t) ? 'hi' : null, ...attrs}, t)

/** Redraw a plot the server drew (a figure from parts.line_plot) with new lines:
 * {series: [{name, x, y, places}], title, desc}. Its table of points is redrawn too. */
export function drawLinePlot(figure, {series, title, desc}) {
  const o = JSON.parse(figure.dataset.plot)
  const xs = series.flatMap((s) => s.x)
  const ys = series.flatMap((s) => s.y)
  const lay = layout(xs, ys, {xLog: o.xLog, yLog: o.yLog, width: o.width, height: o.height, lines: series.length,
                              xPlaces: o.xPlaces, yPlaces: o.yPlaces}) // prettier-ignore
  const {left, top, width: pw, height: ph} = lay
  const svg = figure.querySelector('svg.wk-plot-svg')
  const grid = el('g', {class: 'wk-plot-grid'})
  const labels = el('g', {class: 'wk-plot-labels', 'font-size': num(FONT)})
  for (const [, x, t] of lay.xTicks) {
    grid.append(el('line', {x1: f1(x), y1: f1(top), x2: f1(x), y2: f1(top + ph)}))
    labels.append(text(t, {x: f1(x), y: f1(top + ph + FONT + 4), 'text-anchor': 'middle'}))
  }
  for (const [, y, t] of lay.yTicks) {
    grid.append(el('line', {x1: f1(left), y1: f1(y), x2: f1(left + pw), y2: f1(y)}))
    labels.append(text(t, {x: f1(left - 6), y: f1(y + FONT * 0.35), 'text-anchor': 'end'}))
  }
  const mid = top + ph / 2
  labels.append(text(o.xLabel, {x: f1(left + pw / 2), y: f1(o.height - 4), 'text-anchor': 'middle', class: 'wk-plot-axis-name'}))
  labels.append(text(o.yLabel, {x: f1(FONT), y: f1(mid), 'text-anchor': 'middle', transform: `rotate(-90 ${f1(FONT)} ${f1(mid)})`,
                                class: 'wk-plot-axis-name'})) // prettier-ignore
  const lines = el('g', {class: 'wk-plot-lines'})
  series.forEach((s, k) => {
    const pts = s.x.map((a, i) => [plotX(lay, a), plotY(lay, s.y[i])])
    const cls = `wk-plot-line wk-plot-line-${k % 3}`
    lines.append(el('polyline', {class: cls, points: pts.map(([a, b]) => `${f1(a)},${f1(b)}`).join(' ')}))
    pts.forEach(([a, b], i) => lines.append(el('circle', {class: `wk-plot-point wk-plot-line-${k % 3}`, cx: f1(a), cy: f1(b), r: '3',
                                                          'data-s': k, 'data-i': i}))) // prettier-ignore
    if (series.length > 1) {
      const ky = 8 + 16 * k
      labels.append(el('line', {class: cls, x1: f1(left), y1: f1(ky), x2: f1(left + 18), y2: f1(ky)}))
      labels.append(text(s.name, {x: f1(left + 24), y: f1(ky + 4)}))
    }
  })
  const table = figure.querySelector('table.wk-plot-table')
  svg.replaceChildren(
    el('title', {id: `${figure.id}-title`}, title),
    el('desc', {id: `${figure.id}-desc`}, plotDesc(desc, o.xLabel, o.yLabel, o.xLog, o.yLog, !!table)),
    grid,
    el('line', {class: 'wk-plot-axis', x1: f1(left), y1: f1(top + ph), x2: f1(left + pw), y2: f1(top + ph)}),
    el('line', {class: 'wk-plot-axis', x1: f1(left), y1: f1(top), x2: f1(left), y2: f1(top + ph)}),
    labels,
    lines,
  )
  if (table) redrawPoints(table, series, o)
}

function redrawPoints(table, series, o) {
  const shared = series.every((s) => s.x.length === series[0].x.length && s.x.every((v, i) => v === series[0].x[i]))
  const cell = (tag, attrs, t) => {
    const node = document.createElement(tag)
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v)
    node.textContent = t
    return node
  }
  const row = (head, cells) => {
    const tr = document.createElement('tr')
    tr.append(cell('th', {scope: 'row'}, head), ...cells.map((t) => cell('td', {}, t)))
    return tr
  }
  const show = (s) => printer(s.places === undefined ? 3 : s.places)
  const rows = shared
    ? series[0].x.map((x, i) => row(tickLabel(x, o.xPlaces), series.map((s) => show(s)(s.y[i]))))
    : series.flatMap((s) => s.x.map((x, i) => row(tickLabel(x, o.xPlaces), [s.name, show(s)(s.y[i])])))
  const heads = shared ? [o.xLabel, ...series.map((s) => s.name)] : [o.xLabel, 'line', 'value']
  const tr = document.createElement('tr')
  tr.append(...heads.map((t) => cell('th', {scope: 'col'}, t)))
  table.querySelector('thead').replaceChildren(tr)
  table.querySelector('tbody').replaceChildren(...rows)
}

/** Ring one point of a plot (line s, point i), or none (i null). */
export function markPoint(figure, s, i) {
  for (const c of figure.querySelectorAll('circle.wk-plot-point[data-on]')) c.removeAttribute('data-on')
  if (i == null) return
  figure.querySelector(`circle.wk-plot-point[data-s="${s}"][data-i="${i}"]`)?.setAttribute('data-on', '')
}
