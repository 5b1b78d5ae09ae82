// <two-heads>: Unit 18 §7, Widget 8 "Two heads, two questions".
//
// Two hand-built heads read one sentence. Pick a word (the buttons) to see its row in each
// head's map (outlined in both maps, with bars and numbers), each head's output, the
// concatenation of the two (n × d_model) and the output after W_O. The switches mute a head:
// its columns of the concatenation become 0, and the output keeps only the other head's share.
//
// Every number comes printed from the server (mathmachine.engine.heads, in the state): this
// script only chooses which ones to show, so it computes nothing and needs no golden vectors.
// Keyboard: every button and switch is a native control. Nothing moves, so reduced motion
// needs nothing more than the stylesheet's media query.
// Events (bubbling): "two-heads:update", detail {word, on: [bool, bool], output: [...strings]}
// after every DOM update. Property: word (0-based index), settable.
import {WidgetElement, write} from './kit.js';
import {markRow} from './heatmap.js';

export class TwoHeadsElement extends WidgetElement {
  #word = 0
  #on = [true, true]

  upgrade(s) {
    this.#word = s.word
    this.target('tables').open = false // the tables stay one tap away ("All the numbers")
    this.on('click', 'word', (el) => this.#choose(Number(el.dataset.i), true))
    this.on('change', 'head-on', (el) => this.#toggle(Number(el.dataset.k) - 1, el.checked))
    this.#draw()
  }

  get word() {
    return this.#word
  }
  set word(i) {
    this.#choose(i, false)
  }

  #choose(i, announce) {
    if (!Number.isInteger(i) || i < 0 || i >= this.state.words.length) {
      throw new RangeError(`no word ${i}`)
    }
    this.#word = i
    this.#draw()
    if (announce) this.say(this.#summary())
  }

  #toggle(k, on) {
    this.#on[k] = on
    this.#draw()
    const name = this.state.heads[k].name
    const output = this.#current().output[this.#word].join(', ')
    this.say(
      on
        ? `${cap(name)} on again. Output of “${this.state.words[this.#word]}”: ${output}.`
        : `${cap(name)} off: its columns of the concatenation are 0. Output of “${this.state.words[this.#word]}”: ${output}.`,
    )
  }

  #current() {
    return this.state.outputs[this.#on.map((b) => (b ? '1' : '0')).join('')]
  }

  #draw() {
    const s = this.state
    const i = this.#word
    const word = s.words[i]
    for (const b of this.targets('word')) {
      b.setAttribute('aria-pressed', String(Number(b.dataset.i) === i))
    }
    for (const el of this.targets('chosen')) write(el, word)
    const bars = this.targets('bar')
    s.heads.forEach((head, h) => {
      const k = head.k
      markRow(this.target(`map-${k}`), i)
      this.targets(`w${k}`).forEach((el, j) => write(el, head.rows[i][j]))
      head.weights[i].forEach((w, j) => {
        bars[h * s.words.length + j].setAttribute('width', (100 * w).toFixed(1))
      })
      this.targets(`o${k}`).forEach((el, j) => write(el, head.out[i][j]))
      this.target(`bars-${k}`).closest('.th-panel').classList.toggle('th-off', !this.#on[h])
    })
    const now = this.#current()
    const dv = s.d_v
    this.targets('c1').forEach((el, j) => write(el, now.concat[i][j]))
    this.targets('c2').forEach((el, j) => write(el, now.concat[i][dv + j]))
    this.targets('y1').forEach((el, j) => write(el, now.output[i][j]))
    this.targets('y2').forEach((el, j) => write(el, now.output[i][dv + j]))
    for (const el of this.querySelectorAll('.th-block-1')) el.classList.toggle('th-off', !this.#on[0])
    for (const el of this.querySelectorAll('.th-block-2')) el.classList.toggle('th-off', !this.#on[1])
    this.show(this.#summary())
    this.emit('update', {word: i, on: [...this.#on], output: now.output[i]})
  }

  /** The chosen word's rows and output, in words (the status line, and what is announced). */
  #summary() {
    const s = this.state
    const i = this.#word
    const parts = s.heads.map((head, h) => {
      const where = head.even[i]
        ? 'spreads its weight evenly, ' + head.rows[i][0] + ' on each word'
        : `looks mostly at “${head.top[i]}”, ${head.rows[i][s.words.indexOf(head.top[i])]}`
      return `${head.name}${this.#on[h] ? '' : ' (off)'} ${where}`
    })
    return `“${s.words[i]}”: ${parts.join('; ')}. Output row (1 × ${s.shapes.d_model}): ${this.#current().output[i].join(', ')}.`
  }
}

function cap(text) {
  return text.charAt(0).toUpperCase() + text.slice(1)
}

TwoHeadsElement.define('two-heads');
