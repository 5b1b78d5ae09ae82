// <saturated-softmax>: Unit 18 §4, Widget 5 "A saturated softmax".
//
// One row of scores times a "spread": every input recomputes the weights and the softmax's
// slope α_i(δ_ij − α_j) with scaling-math.js and rewrites the bars, the slope grid and the
// size of its largest entry, compared with the spread the page starts at.
//
// Events (bubbling): "saturated-softmax:update", detail {spread, weights, slope, size} after
// every DOM update.
// Property: spread (settable).
import {WidgetElement, write} from './kit.js';
import {scale, softmax} from './math.js';
import {count, dec, largestShare} from './printing.js';
import {jacobian, largest, timesSmaller} from './scaling-math.js';
import {shadeCell} from './heatmap.js';

export class SaturatedSoftmaxElement extends WidgetElement {
  #c = 1

  upgrade(s) {
    this.#c = s.spread.value
    this.on('input', 'spread', (el) => this.#set(Number(el.value)))
    this.#set(this.#c)
  }

  get spread() {
    return this.#c
  }
  set spread(v) {
    const range = this.target('spread')
    range.value = String(v)
    this.#set(Number(range.value))
  }

  #row() {
    return scale(this.state.scores, this.#c)
  }

  #set(c) {
    this.#c = c
    const row = this.#row()
    const weights = softmax(row)
    const slope = jacobian(weights)
    const size = largest(slope)
    const scores = this.targets('score')
    const cells = this.targets('weight')
    this.targets('bar').forEach((bar, j) => {
      bar.setAttribute('width', (100 * weights[j]).toFixed(1))
      write(scores[j], dec(row[j], 1))
      write(cells[j], dec(weights[j]))
    })
    const n = weights.length
    this.targets('slope').forEach((td, k) => {
      const v = slope[Math.floor(k / n)][k % n]
      write(td, dec(v))
      shadeCell(td, v, this.state.shade)
    })
    write(this.target('spread-value'), dec(c, 1))
    this.target('spread').setAttribute(
      'aria-valuetext',
      `spread ${dec(c, 1)}: ${largestShare(this.state.words, weights)}, largest slope ${dec(size, 4)}`,
    )
    write(this.target('size'), dec(size, 4))
    write(this.target('size-lead'), ` at spread ${dec(c, 1)}`)
    const ref = this.state.reference
    const ratio = timesSmaller(ref, size)
    write(
      this.target('size-ratio'),
      c === this.state.spread.value || !Number.isFinite(ratio)
        ? ''
        : ratio >= 1
          ? ` (${ratio < 10 ? dec(ratio, 1) : count(Math.round(ratio), {indian: true})} times smaller than at spread ${this.state.spread.value})`
          : ` (${dec(timesSmaller(size, ref), 2)} times the size at spread ${this.state.spread.value})`,
    )
    this.show(largestShare(this.state.words, weights))
    this.emit('update', {spread: c, weights, slope, size})
  }
}

SaturatedSoftmaxElement.define('saturated-softmax')
