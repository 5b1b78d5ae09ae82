// <translate-lookback>: Unit 18 §1, Widget 1 "Translate with a look back".
//
// Upgrades the server-rendered fallback (static figure + alignment-map table; the kit shows the
// data-js controls and hides the figure) and keeps every number in step with the selected word
// and its "how sure" multiplier. The state comes from the engine (the element's data-state
// JSON); math.js recomputes one row per input, and only what changes is written.
//
// Events (bubbling): "translate-lookback:update", detail {word, sure, weights, attention} after
// every DOM update (weights null when attention is off).
// Properties: word (selected index), sure (its multiplier), attention (bool); method play().
import {WidgetElement, hi, reducedMotion, write} from './kit.js';
import {alignmentRow, context, scale} from './math.js';
import {dec} from './printing.js';
import {shadeCell} from './heatmap.js';

const REACH_MS = 650
const STEP_MS = 1300
const T = 0.42 // where a beam's share sits, from the note (0) to the word (1)

export class TranslateLookbackElement extends WidgetElement {
  #rows = [] // current weights [n_out][n_in]
  #sure = [] // "how sure" per word
  #word = 0
  #attention = true
  #timers = []

  upgrade(s) {
    this.#rows = s.map.map((r) => r.slice())
    this.#sure = s.hindi.map(() => s.sure.default)
    this.#word = s.selected
    this.on('click', 'word', (button) => {
      this.#finish()
      this.#select(this.targets('word').indexOf(button))
    })
    this.on('click', 'play', () => this.play())
    this.on('input', 'sure', (range) => this.#setSure(Number(range.value)))
    this.on('change', 'noattn', () => this.#onSwitch())
    this.#rows.forEach((_, i) => this.#paintRow(i))
    this.#select(this.#word, false)
  }

  disconnectedCallback() {
    if (this.upgraded) this.#finish()
  }

  get word() {
    return this.#word
  }
  set word(i) {
    if (!Number.isInteger(i) || i < 0 || i >= this.state.hindi.length) {
      throw new RangeError(`word must be 0..${this.state.hindi.length - 1}, got ${i}`)
    }
    this.#finish()
    this.#select(i)
  }
  get sure() {
    return this.#sure[this.#word]
  }
  set sure(v) {
    const range = this.target('sure')
    range.value = String(v)
    this.#setSure(Number(range.value))
  }
  get attention() {
    return this.#attention
  }
  set attention(on) {
    this.target('noattn').checked = !on
    this.#onSwitch()
  }

  /** ▶ translate: the words appear one by one, each after its beams reach back (no motion if the
   * reader prefers reduced motion: everything is written at once). */
  play() {
    this.#finish()
    const n = this.state.hindi.length
    const words = this.targets('word')
    const rows = this.targets('row')
    if (reducedMotion()) {
      this.#select(n - 1, false)
      this.#sayDone()
      return
    }
    words.forEach((b) => b.setAttribute('data-written', 'false'))
    rows.forEach((r) => r.setAttribute('data-lit', 'false'))
    for (let i = 0; i < n; i++) {
      this.#later(i * STEP_MS, () => {
        this.#select(i, false)
        if (this.#attention) this.target('beams').animate(REACH, {duration: REACH_MS, easing: 'ease-in'})
      })
      this.#later(i * STEP_MS + REACH_MS, () => {
        words[i].removeAttribute('data-written')
        rows[i].removeAttribute('data-lit')
        words[i].animate(APPEAR, {duration: 300, easing: 'ease-out'})
        if (this.#attention) rows[i].animate(LIGHT, {duration: 400})
      })
    }
    this.#later(n * STEP_MS, () => {
      this.#timers = [] // played to the end: nothing left to cut short
      this.#sayDone()
    })
  }

  #onSwitch() {
    this.#finish()
    this.#attention = !this.target('noattn').checked
    const off = !this.#attention
    this.target('beams').hidden = off
    this.target('beams-off').hidden = !off
    this.target('map').hidden = off
    this.target('summary-map').hidden = !off
    this.target('noattn-note').hidden = !off
    this.target('summary-badge').hidden = !off
    this.target('sure').disabled = off
    this.#select(this.#word)
  }

  #setSure(v) {
    this.#finish()
    this.#sure[this.#word] = v
    this.#rows[this.#word] = alignmentRow(scale(this.state.states[this.#word], v), this.state.notes)
    this.#paintRow(this.#word)
    // The slider announces its own value text (below): the status line is only shown.
    this.#update(false)
  }

  /** Select word i: move the beams to it, then write its numbers (and say them if `announce`). */
  #select(i, announce = true) {
    const s = this.state
    this.#word = i
    this.targets('word').forEach((b, k) => b.setAttribute('aria-pressed', String(k === i)))
    for (const r of [...this.targets('row'), ...this.targets('summary-row')]) {
      if (r.rowIndex - 1 === i) r.setAttribute('aria-current', 'true')
      else r.removeAttribute('aria-current')
    }
    const xw = ((i + 0.5) / s.hindi.length) * 100
    const labels = this.targets('beam-label')
    this.targets('beam').forEach((line, j) => {
      const xn = ((j + 0.5) / s.english.length) * 100
      line.setAttribute('x1', xn)
      line.setAttribute('x2', xw)
      labels[j].style.left = `${xn + T * (xw - xn)}%`
      labels[j].style.top = `${T * 100}%`
    })
    const h = s.hindi[i]
    if (this.#attention) {
      write(this.target('sure-help'), 'multiplies the decoder state ', bold('q'), ' of ', ...hindiWord(h))
      write(this.target('context-label'), 'context vector for ', ...hindiWord(h))
    } else {
      // The slider is greyed: it scales the scores, and without attention there are none.
      write(this.target('sure-help'), 'not used without attention: there are no scores to sharpen')
      write(this.target('context-label'), 'what ', ...hindiWord(h), ' is handed, the summary')
    }
    this.target('sure').value = String(this.#sure[i])
    this.#update(announce)
  }

  /** Write the selected word's numbers everywhere they show; say or show the status; emit. */
  #update(announce) {
    const s = this.state
    const i = this.#word
    const w = this.#rows[i]
    const sure = this.#sure[i]
    const c = this.#attention ? context(w, s.notes) : s.summary
    const shares = this.targets('beam-share')
    this.targets('beam').forEach((line, j) => {
      line.setAttribute('stroke-width', (1.5 + 10 * w[j]).toFixed(2))
      line.setAttribute('stroke-opacity', (0.18 + 0.82 * w[j]).toFixed(3))
      write(shares[j], dec(w[j]))
    })
    this.targets('c').forEach((el, k) => write(el, dec(c[k])))
    const last = s.english.at(-1)
    const h = s.hindi[i]
    const range = this.target('sure')
    let said
    if (this.#attention) {
      said = s.english.map((e, j) => `${e} ${dec(w[j])}`).join(', ')
      write(this.target('sure-value'), dec(sure, 1))
      range.setAttribute('aria-valuetext', `${dec(sure, 1)} times the state: ${said}`)
    } else {
      said = `no look back; it is handed the same summary as every word, the last note: the one for “${last}”`
      write(this.target('sure-value'), 'off')
      range.setAttribute('aria-valuetext', 'not used without attention')
    }
    const parts = [hi(h.word), ` (${h.translit}): ${said}`]
    if (announce) this.say(...parts)
    else this.show(...parts)
    this.emit('update', {
      word: i,
      sure,
      weights: this.#attention ? w.slice() : null,
      attention: this.#attention,
    })
  }

  #paintRow(i) {
    const cells = this.targets('row')[i].querySelectorAll('td')
    cells.forEach((td, j) => {
      const w = this.#rows[i][j]
      write(td, dec(w))
      shadeCell(td, w)
    })
  }

  #sayDone() {
    const s = this.state
    const said = this.#attention
      ? 'Each word looked back at the notes; the map bends.'
      : 'Every word was handed the same summary; there is no map.'
    const translit = s.hindi.map((h) => h.translit).join(' ')
    this.say(hi(s.hindi.map((h) => h.word).join(' ')), ` (${translit}) is written. ${said}`)
  }

  #later(ms, fn) {
    this.#timers.push(setTimeout(fn, ms))
  }

  /** Cut an animation short: every word written, every row lit. */
  #finish() {
    if (!this.#timers.length) return
    this.#timers.forEach(clearTimeout)
    this.#timers = []
    this.targets('word').forEach((b) => b.removeAttribute('data-written'))
    this.targets('row').forEach((r) => r.removeAttribute('data-lit'))
  }
}

const REACH = [{clipPath: 'inset(100% 0 0 0)'}, {clipPath: 'inset(0 0 0 0)'}]
const APPEAR = [{opacity: 0, transform: 'translateY(0.4rem)'}, {opacity: 1, transform: 'none'}]
const LIGHT = [{opacity: 0.3}, {opacity: 1}]

function hindiWord(h) {
  const tr = document.createElement('i')
  tr.className = 'translit'
  tr.textContent = `(${h.translit})`
  return [hi(h.word), ' ', tr]
}

function bold(text) {
  const b = document.createElement('b')
  b.textContent = text
  return b
}

TranslateLookbackElement.define('translate-lookback')
