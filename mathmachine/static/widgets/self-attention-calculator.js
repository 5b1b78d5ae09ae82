// <self-attention-calculator>: Unit 18 §3, Widget 3 "Self-attention calculator".
//
// Upgrades the server-rendered worked computation: the inputs X, W_Q, W_K, W_V become editable
// grids (with presets), the stages Q, K, V, scores, weights and output are revealed one step at
// a time, and tapping, hovering or focusing a number explains which row and column made it.
// Every edit recomputes with attention-math.js (selfAttention) and rewrites only what changed.
//
// Keyboard: Tab reaches each stage's table once; the arrow keys move between its numbers.
// Events (bubbling): "self-attention-calculator:update", detail {step, x, wq, wk, wv, result}
// after every DOM update.
// Properties: step (1..6), settable; method load(presetId).
import {WidgetElement, write} from './kit.js';
import {compact, dec, plain} from './printing.js';
import {shadeCell} from './heatmap.js';
import {rowSums} from './math.js';
import {selfAttention} from './attention-math.js';

const INPUTS = {X: 'x', W_Q: 'wq', W_K: 'wk', W_V: 'wv'}

export class SelfAttentionCalculatorElement extends WidgetElement {
  #m = {} // the current input matrices, by name (X, W_Q, W_K, W_V)
  #result = null
  #step = 1

  upgrade(s) {
    this.#load(s.presets[0])
    this.#step = s.step
    this.on('input', 'entry', (el) => this.#edit(el))
    this.on('change', 'entry', (el) => this.#edit(el, true))
    this.on('change', 'preset', (el) => this.load(el.value))
    this.on('click', 'next', () => this.#go(this.#step + 1))
    this.on('click', 'back', () => this.#go(this.#step - 1))
    this.on('click', 'all', () => this.#go(s.stages.length))
    this.on('focusin', 'cell', (el) => this.#explain(el, true))
    this.on('mouseover', 'cell', (el) => this.#explain(el, false))
    this.on('click', 'cell', (el) => el.focus())
    this.on('keydown', 'cell', (el, e) => this.#move(el, e))
    for (const table of this.#tables()) {
      this.#cellsOf(table).forEach((td, i) => td.setAttribute('tabindex', i === 0 ? '0' : '-1'))
    }
    this.#draw()
  }

  get step() {
    return this.#step
  }
  set step(n) {
    this.#go(n)
  }

  /** Fill the grids with a preset's matrices and recompute. */
  load(id) {
    const preset = this.state.presets.find((p) => p.id === id)
    if (!preset) throw new RangeError(`no preset ${id}`)
    this.target('preset').value = id
    this.#load(preset)
    this.#draw()
    this.say(`Preset: ${preset.label}.`)
  }

  #load(preset) {
    for (const name of Object.keys(INPUTS)) this.#m[name] = preset[name].map((row) => row.slice())
    for (const el of this.targets('entry')) {
      el.value = String(this.#m[el.dataset.m][el.dataset.r][el.dataset.c])
      el.removeAttribute('aria-invalid')
    }
  }

  #edit(el, final = false) {
    const v = el.value.trim() === '' ? NaN : Number(el.value)
    const {min, max} = this.state.entry
    const note = this.targets('entry-error').find((p) => p.dataset.m === el.dataset.m)
    if (!Number.isFinite(v) || v < min || v > max) {
      el.setAttribute('aria-invalid', 'true')
      const message = `Type a number from ${plain(min)} to ${plain(max)}; the last good value is used.`
      if (note) {
        write(note, message)
        note.hidden = false
        el.setAttribute('aria-describedby', note.id)
      }
      if (final) this.say(message)
      else this.show(message)
      this.emit('update', {step: this.#step, invalid: el.dataset.m, result: this.#result})
      return
    }
    el.removeAttribute('aria-invalid')
    el.removeAttribute('aria-describedby')
    const grid = el.closest('fieldset')
    if (note && !grid?.querySelector('[aria-invalid="true"]')) note.hidden = true
    this.#m[el.dataset.m][el.dataset.r][el.dataset.c] = v
    this.#draw()
  }

  #go(n) {
    this.#step = Math.max(1, Math.min(this.state.stages.length, n))
    this.#draw()
    const stage = this.state.stages[this.#step - 1]
    this.say(`Step ${this.#step} of ${this.state.stages.length}: ${stage.name} = ${stage.how}.`)
  }

  #draw() {
    const m = this.#m
    const r = selfAttention(m.X, m.W_Q, m.W_K, m.W_V)
    this.#result = r
    const stages = this.state.stages
    this.targets('stage').forEach((div, i) => {
      div.hidden = i >= this.#step
      const key = div.dataset.stage
      const values = r[key]
      const places = key === 'weights' || key === 'output' ? 3 : null
      for (const td of this.#cellsOf(div)) {
        const x = values[td.dataset.r][td.dataset.c]
        write(td, places === null ? compact(x) : dec(x, places))
        if (key === 'weights') shadeCell(td, x)
      }
      write(this.target(`${key}-shape`), `${values.length} × ${values[0].length}`)
    })
    const sums = rowSums(r.weights)
    this.targets('weights-rowsum').forEach((td, i) => write(td, dec(sums[i])))
    this.target('back').disabled = this.#step <= 1
    this.target('next').disabled = this.#step >= stages.length
    this.target('all').disabled = this.#step >= stages.length
    this.show(`Step ${this.#step} of ${stages.length}: ${stages[this.#step - 1].name} = ${stages[this.#step - 1].how}`)
    this.emit('update', {step: this.#step, x: m.X, wq: m.W_Q, wk: m.W_K, wv: m.W_V, result: r})
  }

  /** How the number in `td` was made, in words. */
  #explain(td, announce) {
    const key = td.dataset.stage
    const i = Number(td.dataset.r)
    const c = Number(td.dataset.c)
    const words = this.state.words
    const r = this.#result
    const m = this.#m
    let text = ''
    if (key === 'q' || key === 'k' || key === 'v') {
      const w = {q: 'W_Q', k: 'W_K', v: 'W_V'}[key]
      const row = m.X[i]
      const col = m[w].map((wr) => wr[c])
      const terms = row.map((x, t) => `${compact(x)}×${compact(col[t])}`).join(' + ')
      text = `${key.toUpperCase()}[${words[i]}, ${c + 1}] = row “${words[i]}” of X · column ${c + 1} of ${w.replace('_', '')}: ${terms} = ${compact(r[key][i][c])}`
    } else if (key === 'scores') {
      const q = r.q[i]
      const k = r.k[c]
      const terms = q.map((x, t) => `${compact(x)}×${compact(k[t])}`).join(' + ')
      text = `score[${words[i]}, ${words[c]}] = q_${words[i]} · k_${words[c]}: ${terms} = ${compact(r.scores[i][c])}`
    } else if (key === 'weights') {
      const row = r.scores[i]
      text = `weight[${words[i]}, ${words[c]}] = e^${compact(row[c])} shared among e^(${row.map((x) => compact(x)).join(', ')}) in row “${words[i]}”: ${dec(r.weights[i][c])} (each row adds up to 1)`
    } else {
      const terms = r.weights[i].map((w, j) => `${dec(w)}×${compact(r.v[j][c])}`).join(' + ')
      text = `output[${words[i]}, ${c + 1}] = row “${words[i]}” of the weights · column ${c + 1} of V: ${terms} = ${dec(r.output[i][c])}`
    }
    write(this.target('explain'), text)
    if (announce) this.say(text)
  }

  /** Arrow keys move focus between the numbers of one table (a roving tabindex). */
  #move(td, e) {
    const steps = {ArrowLeft: [0, -1], ArrowRight: [0, 1], ArrowUp: [-1, 0], ArrowDown: [1, 0]}
    const d = steps[e.key]
    if (!d) return
    e.preventDefault()
    const table = td.closest('table')
    const cells = this.#cellsOf(table)
    const r = Number(td.dataset.r) + d[0]
    const c = Number(td.dataset.c) + d[1]
    const next = cells.find((x) => Number(x.dataset.r) === r && Number(x.dataset.c) === c)
    if (!next) return
    td.setAttribute('tabindex', '-1')
    next.setAttribute('tabindex', '0')
    next.focus()
  }

  #tables() {
    return this.targets('stage').map((div) => div.querySelector('table'))
  }

  #cellsOf(root) {
    return this.targets('cell').filter((td) => root.contains(td))
  }
}

SelfAttentionCalculatorElement.define('self-attention-calculator')
