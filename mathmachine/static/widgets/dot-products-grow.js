// <dot-products-grow>: Unit 18 §4, Widget 4 "Dot products grow with d".
//
// The server drew q·k for many random pairs at every width d (the state holds each width's two
// histograms and measured variances), so the d slider only redraws bars and numbers. "draw
// again" draws a fresh seed here, with scaling-math.js (the engine's own generator), in
// slices so the page stays responsive.
//
// Events (bubbling): "dot-products-grow:update", detail {d, seed, raw, scaled} after every DOM
// update (raw/scaled: {counts, below, above, variance}).
// Properties: d (settable to one of the widths); method redraw() (returns a promise).
import {WidgetElement, write} from './kit.js';
import {count, dec, plain} from './printing.js';
import {sum} from './math.js';
import {dotProductSamples, histogram, predictedSpread, scaledByRootD, variance} from './scaling-math.js';

const SLICE = 100 // pairs drawn between two yields to the browser

export class DotProductsGrowElement extends WidgetElement {
  #index = 0
  #seed = 0
  #draws = []
  #drawing = false

  upgrade(s) {
    this.#index = s.index
    this.#seed = s.seed
    this.#draws = s.draws
    this.on('input', 'd', (el) => this.#show(Number(el.value)))
    this.on('click', 'redraw', () => this.redraw())
    this.#show(this.#index)
  }

  get d() {
    return this.state.dims[this.#index]
  }
  set d(value) {
    const i = this.state.dims.indexOf(value)
    if (i < 0) throw new RangeError(`d must be one of ${this.state.dims.join(', ')}`)
    this.target('d').value = String(i)
    this.#show(i)
  }

  /** Draw a fresh set of pairs (the next seed) and show it. */
  async redraw() {
    if (this.#drawing) return
    this.#drawing = true
    const button = this.target('redraw')
    button.disabled = true
    const s = this.state
    const seed = (this.#seed + 1) >>> 0
    this.say(`Drawing ${count(s.samples)} new pairs…`)
    const rows = s.dims.map(() => [])
    for (let from = 0; from < s.samples; from += SLICE) {
      const part = dotProductSamples(seed, s.samples, s.dims, from, Math.min(s.samples, from + SLICE))
      part.forEach((r, i) => rows[i].push(...r))
      await new Promise((resolve) => setTimeout(resolve, 0))
    }
    this.#draws = s.dims.map((d, i) => {
      const raw = rows[i]
      return {d, raw: summary(raw, s.raw), scaled: summary(scaledByRootD(raw, d), s.scaled)}
    })
    this.#seed = seed
    this.#drawing = false
    button.disabled = false
    write(this.target('draw-note'), `draw ${seed - s.seed + 1}`)
    this.#show(this.#index)
    this.#announce()
  }

  #show(i) {
    this.#index = i
    const s = this.state
    const d = s.dims[i]
    const item = this.#draws[i]
    const slider = this.target('d')
    slider.setAttribute(
      'aria-valuetext',
      `d = ${d}: measured variance ${dec(item.raw.variance, varPlaces(d))}, after dividing by the square root of d ${dec(item.scaled.variance, 2)}`,
    )
    write(this.target('d-value'), String(d))
    this.#panel('raw', item.raw, s.raw, predictedSpread(d), d, varPlaces(d))
    this.#panel('scaled', item.scaled, s.scaled, 1, 1, 2)
    this.show(`d = ${d}: variance ${dec(item.raw.variance, varPlaces(d))} (predicted ${d}); after ÷√d ${dec(item.scaled.variance, 2)}`)
    this.emit('update', {d, seed: this.#seed, raw: item.raw, scaled: item.scaled})
  }

  #panel(name, hist, range, std, predicted, places) {
    const {width, height} = this.state.plot
    const top = Math.max(1, ...hist.counts)
    this.targets(`${name}-bar`).forEach((bar, b) => {
      const tall = (height * hist.counts[b]) / top
      bar.setAttribute('y', (height - tall).toFixed(1))
      bar.setAttribute('height', tall.toFixed(1))
    })
    const xpx = (v) => Math.min(width, Math.max(0, ((v - range.lo) / (range.hi - range.lo)) * width))
    const [left, right] = this.targets(`${name}-std`)
    for (const [line, v] of [[left, -std], [right, std]]) {
      line.setAttribute('x1', xpx(v).toFixed(1))
      line.setAttribute('x2', xpx(v).toFixed(1))
    }
    write(this.target(`${name}-below`), hist.below ? `◀ ${hist.below}` : '')
    write(this.target(`${name}-above`), hist.above ? `${hist.above} ▶` : '')
    write(this.target(`${name}-d`), ` at d = ${this.d}`)
    write(this.target(`${name}-var`), dec(hist.variance, places))
    write(this.target(`${name}-predicted`), plain(predicted))
    const total = sum(hist.counts) + hist.below + hist.above
    const desc = this.target(`${name}-figure`).querySelector('desc')
    write(
      desc,
      `Histogram of ${count(total)} values of ${this.state.labels[name]} for d = ${this.d}, from ${dec(range.lo, 0)} to ` +
        `${dec(range.hi, 0)}: measured variance ${dec(hist.variance, places)}, predicted ${plain(predicted)}. ` +
        `${hist.below} fall below the left edge and ${hist.above} beyond the right. Dashed ` +
        'lines mark one predicted standard deviation either side of 0.',
    )
  }

  #announce() {
    const item = this.#draws[this.#index]
    this.say(
      `d = ${this.d}. Measured variance ${dec(item.raw.variance, varPlaces(this.d))}, predicted ${this.d}. After dividing by the square root of d: ${dec(item.scaled.variance, 2)}.`,
    )
  }
}

/** Decimals of a measured variance by the variance predicted (the server's variance_places). */
function varPlaces(predicted) {
  return predicted < 10 ? 2 : predicted < 1000 ? 1 : 0
}

function summary(x, range) {
  return {...histogram(x, range.lo, range.hi, range.bins), variance: variance(x)}
}

DotProductsGrowElement.define('dot-products-grow')
