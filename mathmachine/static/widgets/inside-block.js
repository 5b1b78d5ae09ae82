// <inside-block>: Unit 18 §9, Widget 12 "Inside one block".
//
// One word's vector through the tiny translator's trained encoder block, stage by stage: the
// slider, Back and Next (or a stage's own button in the row of stages) pick the stage; the word
// buttons pick the word; the switch runs the same weights with LayerNorm before each part
// (pre-LN) instead of after each addition (post-LN, as trained). At each stage: every number of
// the vector, shaded by size, its average and spread, and at the attention the word's weights in
// each head. Every number of the walk comes printed from the server (engine.anatomy.block_walk,
// in the state, with its shade): this script only picks which to show.
//
// The weight counter below it: a slider picks the width d, a switch adds the biases and
// LayerNorms; layer-math.js's blockWeights counts (golden cases hold it to
// engine.anatomy.model_weight_count), printing.js's count prints.
// Keyboard: native buttons, slider and switches. Nothing moves: reduced motion needs nothing.
// Events (bubbling): "inside-block:update", detail {word, stage, pre, name, d, total} after every
// DOM update. Properties: stage (0-based), word (0-based), settable.
import {WidgetElement, write} from './kit.js';
import {blockWeights} from './layer-math.js';
import {count} from './printing.js';

export class InsideBlockElement extends WidgetElement {
  #word = 0
  #stage = 0
  #pre = false
  #width = 0
  #extras = false

  upgrade(s) {
    this.#word = s.word
    this.#stage = s.stage
    this.#pre = s.pre
    this.#width = s.width
    this.on('input', 'stage', (el) => this.#go(Number(el.value) - 1, false))
    this.on('click', 'back', () => this.#go(this.#stage - 1, true))
    this.on('click', 'next', () => this.#go(this.#stage + 1, true))
    this.on('click', 'chip', (el) => this.#go(Number(el.dataset.k), true))
    this.on('click', 'word', (el) => this.#pick(Number(el.dataset.i)))
    this.on('change', 'pre', (el) => {
      this.#pre = el.checked
      this.#draw()
      const stage = this.#current()
      this.say(`${this.#pre ? 'LayerNorm before each part' : 'LayerNorm after each addition, as trained'}. ${this.#summary(stage)}`)
    })
    this.on('input', 'width', (el) => {
      this.#width = Number(el.value)
      this.#count()
      this.emit('update', this.#detail())
    })
    this.on('change', 'extras', (el) => {
      this.#extras = el.checked
      const c = this.#count()
      this.say(`One block of width ${count(c.d)}: ${count(c.total)} weights.`)
      this.emit('update', this.#detail())
    })
    this.#count()
    this.#draw()
  }

  get stage() {
    return this.#stage
  }
  set stage(k) {
    this.#go(k, false)
  }
  get word() {
    return this.#word
  }
  set word(i) {
    this.#pick(i)
  }

  #walk() {
    return this.state.modes[this.#pre ? 'pre' : 'post'][this.#word]
  }

  #current() {
    return this.#walk().stages[this.#stage]
  }

  #go(k, announce) {
    const n = this.#walk().stages.length
    const to = Math.max(0, Math.min(n - 1, k))
    if (!Number.isInteger(to)) throw new RangeError(`no stage ${k}`)
    this.#stage = to
    this.#draw()
    if (announce) this.say(this.#summary(this.#current()))
  }

  #pick(i) {
    if (!Number.isInteger(i) || i < 0 || i >= this.state.words.length) {
      throw new RangeError(`no word ${i}`)
    }
    this.#word = i
    this.#draw()
    this.say(this.#summary(this.#current()))
  }

  #summary(stage) {
    const n = this.#walk().stages.length
    const mode = this.#pre ? 'pre-LN' : 'post-LN'
    return `“${this.state.words[this.#word]}”, ${mode}. Stage ${this.#stage + 1} of ${n}, ${stage.label}: ${stage.n} numbers, average ${stage.mean}, spread ${stage.spread}.`
  }

  #draw() {
    const s = this.state
    const walk = this.#walk()
    const stage = walk.stages[this.#stage]
    const n = walk.stages.length
    for (const b of this.targets('word')) {
      b.setAttribute('aria-pressed', String(Number(b.dataset.i) === this.#word))
    }
    this.target('pre').checked = this.#pre
    const range = this.target('stage')
    range.value = String(this.#stage + 1)
    range.setAttribute('aria-valuetext', `stage ${this.#stage + 1} of ${n}: ${stage.label}`)
    write(this.target('stage-value'), `${this.#stage + 1} of ${n}`)
    // at an end the button stays focusable (a disabled one would drop the keyboard's focus)
    this.target('back').setAttribute('aria-disabled', String(this.#stage === 0))
    this.target('next').setAttribute('aria-disabled', String(this.#stage === n - 1))
    this.targets('chip').forEach((chip, k) => {
      write(chip, walk.stages[k].label)
      if (k === this.#stage) chip.setAttribute('aria-current', 'step')
      else chip.removeAttribute('aria-current')
    })
    write(this.target('title'), stage.label)
    write(this.target('formula'), stage.formula)
    write(this.target('text'), stage.text)
    write(this.target('n'), String(stage.n))
    write(this.target('mean'), stage.mean)
    write(this.target('spread'), stage.spread)
    this.targets('num').forEach((el, i) => {
      const on = i < stage.n
      el.hidden = !on
      if (!on) return
      write(el, stage.numbers[i])
      shade(el, stage.shades[i])
    })
    const attention = stage.name === 'attn'
    this.target('weights').hidden = !attention
    if (attention) {
      const cols = s.words.length
      this.targets('weight').forEach((td, k) => {
        const h = Math.floor(k / cols)
        write(td, walk.weights[h][k % cols])
        shade(td, walk.weightShades[h][k % cols])
      })
    }
    this.show(this.#summary(stage))
    this.emit('update', this.#detail())
  }

  #count() {
    const d = this.state.widths[this.#width]
    const c = blockWeights(d, null, this.#extras, this.#extras)
    const range = this.target('width')
    range.value = String(this.#width)
    range.setAttribute('aria-valuetext', `d = ${count(d)}`)
    write(this.target('width-value'), count(d))
    write(this.target('att-shape'), `4 × (${count(d)} × ${count(d)})`)
    write(this.target('att-n'), count(c.attention))
    write(this.target('w1-shape'), `${count(d)} × ${count(c.dFf)}`)
    write(this.target('w1-n'), count(c.w1))
    write(this.target('w2-shape'), `${count(c.dFf)} × ${count(d)}`)
    write(this.target('w2-n'), count(c.w1))
    write(this.target('bias-shape'), this.#extras ? `4 × ${count(d)} + ${count(c.dFf)} + ${count(d)}` : '—')
    write(this.target('bias-n'), count(c.biases))
    write(this.target('norm-shape'), this.#extras ? `2 × (${count(d)} + ${count(d)})` : '—')
    write(this.target('norm-n'), count(c.norms))
    write(this.target('total'), count(c.total))
    write(this.target('rule'), this.#extras ? '12 d² + 13 d' : '12 d²')
    return c
  }

  #detail() {
    const stage = this.#current()
    const d = this.state.widths[this.#width]
    return {word: this.#word, stage: this.#stage, pre: this.#pre, name: stage.name, d,
      total: this.target('total').textContent}
  }
}

/** Give an element the palette's shade `level` (0..10, from the server) in place of its old one. */
function shade(el, level) {
  const name = `wk-h${level}`
  if (el.classList.contains(name)) return
  for (const c of [...el.classList]) if (/^wk-h\d+$/.test(c)) el.classList.remove(c)
  el.classList.add(name)
}

InsideBlockElement.define('inside-block');
