// <sinusoidal-clock>: Unit 18 §8, Widget 10 "Sinusoidal clock".
//
// The sinusoidal encoding PE(pos, i) as a heat map (a row per dimension, a column per
// position). Three sliders: the position p (the marked column), the dimension i (the outlined
// row) and a gap k. Shown: the chosen entry, sin or cos of ω_i p; the dot product
// PE(p)·PE(p + k) with its terms cos(ω_i k), and the same dot product from other starts (one
// number: it depends on k only); the chosen pair at p and at p + k, one fixed turn apart, as
// two hands on a circle and as the 2 × 2 matrix that turns one into the other.
//
// The numbers come from position-math.js (peRow, peFrequencies, peDot, peDotTerms,
// peShiftMatrix, peShifted), held to mathmachine.engine.order by golden vectors. This file
// prints them and places the hands (pixels from the entries themselves). Keyboard: native
// range inputs, each with an aria-valuetext. Nothing animates.
// Events (bubbling): "sinusoidal-clock:update", detail {pos, dim, gap, value, dot}.
import {WidgetElement, write} from './kit.js';
import {markKey} from './heatmap.js';
import {peDot, peDotTerms, peFrequencies, peRow, peShiftMatrix, peShifted, peTurnDegrees} from './position-math.js';
import {compact, dec, vec} from './printing.js';

export class SinusoidalClockElement extends WidgetElement {
  #pos = 0
  #dim = 0
  #gap = 0

  upgrade(s) {
    this.#pos = s.pos
    this.#dim = s.dim
    this.#gap = s.gap
    this.on('input', 'pos', (el) => this.#set({pos: Number(el.value)}))
    this.on('input', 'dim', (el) => this.#set({dim: Number(el.value)}))
    this.on('input', 'gap', (el) => this.#set({gap: Number(el.value)}))
    this.#draw()
  }

  #set({pos = this.#pos, dim = this.#dim, gap = this.#gap}) {
    this.#pos = pos
    this.#dim = dim
    this.#gap = gap
    this.#draw()
  }

  #draw() {
    const s = this.state
    const d = s.d
    const p = this.#pos
    const dim = this.#dim
    const k = this.#gap
    const pair = Math.floor(dim / 2)
    const j = 2 * pair
    const row = peRow(p, d)
    const later = peRow(p + k, d)
    const w = peFrequencies(d)[pair]
    const value = row[dim]
    markKey(this.target('map'), dim, p)
    // the sliders' readouts and what a screen reader hears
    this.#readout('pos', String(p), `position ${p}`)
    this.#readout('dim', String(dim), `dimension ${dim}, ${dim % 2 ? 'cosine' : 'sine'} of pair ${pair}`)
    this.#readout('gap', String(k), `gap ${k}: positions ${p} and ${p + k}`)
    // the entry
    for (const el of this.targets('e-pos')) write(el, String(p))
    write(this.target('e-dim'), String(dim))
    write(this.target('e-fn'), dim % 2 ? 'cos' : 'sin')
    for (const el of this.targets('e-pair')) write(el, String(pair))
    write(this.target('e-w'), compact(w, 5))
    write(this.target('e-value'), dec(value))
    // the dot product: its terms, and the same gap from other starts
    const dot = peDot(p, k, d)
    write(this.target('d-p'), String(p))
    write(this.target('d-pk'), String(p + k))
    write(this.target('dot'), dec(dot))
    const terms = peDotTerms(k, d)
    this.targets('term').forEach((el, i) => {
      write(el, dec(terms[i]))
      el.classList.toggle('sc-term-on', i === pair)
    })
    this.targets('at-start').forEach((el, i) => write(el, dec(peDot(s.starts[i], k, d))))
    // the chosen pair, turned from p to p + k
    const m = peShiftMatrix(k, d)
    const turned = peShifted(p, k, d)
    write(this.target('r-pair'), String(pair))
    write(this.target('r-dims'), `${j} and ${j + 1}`)
    write(this.target('r-before'), vec([row[j], row[j + 1]]))
    write(this.target('r-after'), vec([turned[j], turned[j + 1]]))
    write(this.target('r-angle'), dec(peTurnDegrees(k, d)[pair], 1))
    const cells = [m[j][j], m[j][j + 1], m[j + 1][j], m[j + 1][j + 1]]
    this.targets('m').forEach((el, i) => write(el, dec(cells[i])))
    this.#hand('p', row[j], row[j + 1])
    this.#hand('pk', later[j], later[j + 1])
    this.show(
      `PE(${p}, ${dim}) = ${dec(value)}. PE(${p})·PE(${p + k}) = ${dec(dot)}, the same from every start.`,
    )
    this.emit('update', {pos: p, dim, gap: k, value, dot})
  }

  #readout(name, shown, text) {
    write(this.target(`${name}-value`), shown)
    this.target(name).setAttribute('aria-valuetext', text)
  }

  /** A hand of the circle: the pair (sine, cosine) as the point (cosine across, sine up). */
  #hand(name, sine, cosine) {
    const c = this.state.radius + 8
    const x = (c + this.state.radius * cosine).toFixed(2)
    const y = (c - this.state.radius * sine).toFixed(2)
    const hand = this.target(`hand-${name}`)
    hand.setAttribute('x2', x)
    hand.setAttribute('y2', y)
    const dot = this.target(`dot-${name}`)
    dot.setAttribute('cx', x)
    dot.setAttribute('cy', y)
  }
}

SinusoidalClockElement.define('sinusoidal-clock');
