// <n2-calculator>: Unit 18 §12, Widget 15 "The n² calculator".
//
// Four sliders (the text's length n, the heads, the layers, the bytes a number takes) set a
// model; the readout shows its scores, their memory held at once, the multiplications, the KV
// cache and an RNN's steps; the two plots (memory on linear axes, the counts on log axes) are
// redrawn for the setting with the chosen n ringed, and the table gives every length.
//
// Every number comes from cost-math.js (held to mathmachine.engine.cost by golden vectors) and
// is printed by printing.js: this script only reads the sliders, picks the menu entries and
// writes text. The status line says what one step up the length slider would cost.
// Keyboard: native ranges (arrows, Page Up/Down, Home/End). Nothing moves, so
// reduced motion needs nothing more.
// Events (bubbling): "n2-calculator:update", detail {n, heads, layers, bytes, cost} after every
// DOM update.
import {WidgetElement, write} from './kit.js';
import {costAt, curves, memoryText} from './cost-math.js';
import {count} from './printing.js';
import {drawLinePlot, markPoint} from './plot.js';

const plural = (k, one, many) => `${k} ${k === 1 ? one : many}`

export class N2CalculatorElement extends WidgetElement {
  #at = {n: 0, heads: 1, layers: 1, b: 0}

  upgrade(s) {
    this.#at = {n: s.n, heads: s.heads, layers: s.layers, b: s.b}
    for (const name of ['n', 'heads', 'layers', 'b']) {
      const control = name === 'b' ? 'bytes' : name
      this.on('input', control, (el) => this.#set({[name]: Number(el.value)}))
    }
    this.#set({})
  }

  #set(change) {
    this.#at = {...this.#at, ...change}
    const s = this.state
    const {heads, layers} = this.#at
    const n = s.lengths[this.#at.n]
    const {bytes, bits} = s.bytes[this.#at.b]
    const c = costAt(n, heads, layers, bytes, s.headWidth)
    const model = `${plural(heads, 'head', 'heads')} (d_model = ${count(c.dModel)}), ${plural(layers, 'layer', 'layers')}, ${plural(bytes, 'byte', 'bytes')} a number`
    const setting = `${count(n)} tokens, ${model}`
    this.#slider('n', count(n), `${count(n)} tokens`)
    this.#slider('heads', String(heads), plural(heads, 'head', 'heads'))
    this.#slider('layers', String(layers), plural(layers, 'layer', 'layers'))
    this.#slider('bytes', String(bytes), `${plural(bytes, 'byte', 'bytes')}, ${bits} bits`)
    write(this.target('setting'), setting)
    write(this.target('scores'), count(c.scores))
    write(this.target('per-layer'), count(c.perLayer))
    write(this.target('memory'), memoryText(c.scoreBytes))
    write(this.target('per-layer-memory'), memoryText(c.perLayerBytes))
    write(this.target('memory-bytes'), count(c.scoreBytes))
    write(this.target('mults'), count(c.multiplications))
    write(this.target('kv'), count(c.kv))
    write(this.target('kv-memory'), memoryText(c.kvBytes))
    write(this.target('rnn'), count(c.rnnSteps))
    this.#plots(heads, layers, bytes)
    this.#table(heads, layers, bytes, model)
    const next = s.lengths[this.#at.n + 1]
    if (next === undefined) {
      this.show(`${count(n)} tokens is the longest text on the slider: ${memoryText(c.scoreBytes)} of scores, a KV cache of ${memoryText(c.kvBytes)}.`)
    } else {
      const up = costAt(next, heads, layers, bytes, s.headWidth)
      this.show(`One step up, at ${count(next)} tokens: ${memoryText(up.scoreBytes)} of scores (now ${memoryText(c.scoreBytes)}), a KV cache of ${memoryText(up.kvBytes)} (now ${memoryText(c.kvBytes)}).`)
    }
    this.emit('update', {n, heads, layers, bytes, cost: c})
  }

  #slider(name, shown, valuetext) {
    this.target(name).setAttribute('aria-valuetext', valuetext)
    write(this.target(`${name}-value`), shown)
  }

  #plots(heads, layers, bytes) {
    const s = this.state
    const cv = curves(s.lengths, heads, layers, bytes, s.headWidth)
    const x = s.lengths
    const linear = this.target('plot-linear')
    drawLinePlot(linear, {
      series: [
        {name: 'score matrices', x, y: cv.scoresGiB, places: 3},
        {name: 'KV cache', x, y: cv.kvGiB, places: 3},
      ],
      title: 'Memory against the text\u2019s length, linear axes',
      desc: 'The score matrices\u2019 memory in GiB curves up like n squared; the KV cache\u2019s grows in a straight line and stays near the floor',
    })
    const log = this.target('plot-log')
    drawLinePlot(log, {
      series: [
        {name: 'multiplications', x, y: cv.multiplicationsMillions, places: 3},
        {name: 'scores', x, y: cv.scoresMillions, places: 3},
        {name: 'KV cache numbers', x, y: cv.kvMillions, places: 3},
      ],
      title: 'Counts against the text\u2019s length, log axes',
      desc: 'On log axes each count is a straight line: the multiplications and the scores climb two steps for each step of n (n squared), the KV cache\u2019s numbers one step (n)',
    })
    markPoint(linear, 0, this.#at.n)
    markPoint(log, 0, this.#at.n)
    for (const fig of [linear, log]) { // ring the chosen n on every line
      for (const c of fig.querySelectorAll(`circle.wk-plot-point[data-i="${this.#at.n}"]`)) c.setAttribute('data-on', '')
    }
  }

  #table(heads, layers, bytes, model) {
    const s = this.state
    const cells = {
      scores: this.targets('t-scores'),
      memory: this.targets('t-memory'),
      mults: this.targets('t-mults'),
      kv: this.targets('t-kv'),
    }
    s.lengths.forEach((n, i) => {
      const c = costAt(n, heads, layers, bytes, s.headWidth)
      write(cells.scores[i], count(c.scores))
      write(cells.memory[i], memoryText(c.scoreBytes))
      write(cells.mults[i], count(c.multiplications))
      write(cells.kv[i], memoryText(c.kvBytes))
    })
    write(this.target('table-setting'), model)
  }
}

N2CalculatorElement.define('n2-calculator');
