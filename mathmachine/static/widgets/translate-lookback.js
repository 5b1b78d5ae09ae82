// <translate-lookback>: Unit 18 §1, Widget 1 "Translate with a look back".
//
// Upgrades the server-rendered fallback (static figure + alignment-map table): shows the controls
// the server rendered `hidden`, hides the static figure, and keeps every number in step with the
// selected word and its "how sure" multiplier. State comes from the child
// <script type="application/json"> (computed by mathmachine.engine); math.js recomputes one row
// per input, and only the numbers and attributes that change are written.
//
// Events (bubbling): "translate-lookback:update", detail {word, sure, weights, attention} after
// every DOM update (weights null when attention is off).
// Properties: word (selected index), sure (its multiplier), attention (bool); method play().
// Keep the semicolon: collectstatic points this line at math.js's hashed name only when the
// statement ends with one (the pattern of Django's ManifestStaticFilesStorage).
import {alignmentRow, context, fmt, scale} from './math.js';

const REACH_MS = 650
const STEP_MS = 1300
const T = 0.42 // where a beam's number sits, from the note (0) to the word (1)

export class TranslateLookbackElement extends HTMLElement {
  static define(tag = 'translate-lookback', registry = customElements) {
    if (!registry.get(tag)) registry.define(tag, this)
    return this
  }

  #s = null // parsed state
  #ui = null // the parts we write to
  #rows = [] // current weights [n_out][n_in]
  #sure = [] // "how sure" per word
  #word = 0
  #attention = true
  #timers = []

  connectedCallback() {
    if (this.#s) return // moved in the DOM: already upgraded
    const json = this.querySelector(':scope > script[type="application/json"]')
    if (!json) return
    this.#s = JSON.parse(json.textContent)
    const s = this.#s
    const $ = (sel) => this.querySelector(sel)
    const $$ = (sel) => [...this.querySelectorAll(sel)]
    this.#ui = {
      play: $('[data-tl="play"]'),
      noattn: $('[data-tl="noattn"]'),
      figure: $('[data-tl="figure"]'),
      beams: $('[data-tl="beams"]'),
      beamsOff: $('[data-tl="beams-off"]'),
      lines: $$('[data-tl-beam]'),
      labels: $$('[data-tl-beam-label]'),
      words: $$('[data-tl-word]'),
      range: $('[data-tl="sure"]'),
      value: $('[data-tl="sure-value"]'),
      sureWord: $('[data-tl="sure-word"]'),
      ctxWord: $('[data-tl="context-word"]'),
      ctx: $$('[data-tl-c]'),
      note: $('[data-tl="noattn-note"]'),
      badge: $('[data-tl="summary-badge"]'),
      map: $('[data-tl="map"]'),
      rows: $$('[data-tl-row]'),
      cells: $$('[data-tl-row]').map((tr) => [...tr.querySelectorAll('td')]),
      statusWord: $('.tl-status-word'),
      statusText: $('.tl-status-text'),
    }
    this.#rows = s.map.map((r) => r.slice())
    this.#sure = s.hindi.map(() => s.sure.default)
    this.#word = s.selected
    this.addEventListener('click', this.#onClick)
    this.#ui.range.addEventListener('input', this.#onInput)
    this.#ui.noattn.addEventListener('change', this.#onSwitch)
    for (const el of this.querySelectorAll('[data-tl-js]')) el.hidden = false
    this.#ui.figure.hidden = true
    this.#rows.forEach((_, i) => this.#paintRow(i))
    this.#select(this.#word, false)
  }

  disconnectedCallback() {
    if (this.#s) this.#finish()
  }

  get word() {
    return this.#word
  }
  set word(i) {
    if (!Number.isInteger(i) || i < 0 || i >= this.#s.hindi.length) {
      throw new RangeError(`word must be 0..${this.#s.hindi.length - 1}, got ${i}`)
    }
    this.#finish()
    this.#select(i)
  }
  get sure() {
    return this.#sure[this.#word]
  }
  set sure(v) {
    this.#ui.range.value = String(v)
    this.#setSure(Number(this.#ui.range.value))
  }
  get attention() {
    return this.#attention
  }
  set attention(on) {
    this.#ui.noattn.checked = !on
    this.#onSwitch()
  }

  /** ▶ translate: the words appear one by one, each after its beams reach back (no motion if the
   * reader prefers reduced motion: everything is written at once). */
  play() {
    this.#finish()
    const n = this.#s.hindi.length
    if (matchMedia('(prefers-reduced-motion: reduce)').matches) {
      this.#select(n - 1, false)
      this.#sayDone()
      return
    }
    this.#ui.words.forEach((b) => b.setAttribute('data-written', 'false'))
    this.#ui.rows.forEach((r) => r.setAttribute('data-lit', 'false'))
    for (let i = 0; i < n; i++) {
      this.#later(i * STEP_MS, () => {
        this.#select(i)
        if (this.#attention) this.#ui.beams.animate(REACH, {duration: REACH_MS, easing: 'ease-in'})
      })
      this.#later(i * STEP_MS + REACH_MS, () => {
        this.#ui.words[i].removeAttribute('data-written')
        this.#ui.rows[i].removeAttribute('data-lit')
        this.#ui.words[i].animate(APPEAR, {duration: 300, easing: 'ease-out'})
        if (this.#attention) this.#ui.rows[i].animate(LIGHT, {duration: 400})
      })
    }
    this.#later(n * STEP_MS, () => {
      this.#timers = [] // played to the end: nothing left to cut short
      this.#sayDone()
    })
  }

  #onClick = (event) => {
    const word = event.target.closest('[data-tl-word]')
    if (word) {
      this.#finish()
      this.#select(Number(word.getAttribute('data-tl-word')))
    } else if (event.target.closest('[data-tl="play"]')) {
      this.play()
    }
  }

  #onInput = () => this.#setSure(Number(this.#ui.range.value))

  #onSwitch = () => {
    this.#finish()
    this.#attention = !this.#ui.noattn.checked
    const off = !this.#attention
    this.#ui.beams.hidden = off
    this.#ui.beamsOff.hidden = !off
    this.#ui.map.hidden = off
    this.#ui.note.hidden = !off
    this.#ui.badge.hidden = !off
    this.#ui.range.disabled = off
    this.#select(this.#word)
  }

  #setSure(v) {
    this.#finish()
    this.#sure[this.#word] = v
    this.#rows[this.#word] = alignmentRow(scale(this.#s.states[this.#word], v), this.#s.notes)
    this.#paintRow(this.#word)
    this.#update()
  }

  /** Select word i: move the beams to it, then write its numbers. */
  #select(i, announce = true) {
    const s = this.#s
    const ui = this.#ui
    this.#word = i
    ui.words.forEach((b, k) => b.setAttribute('aria-pressed', String(k === i)))
    ui.rows.forEach((r, k) => {
      if (k === i) r.setAttribute('aria-current', 'true')
      else r.removeAttribute('aria-current')
    })
    const xw = ((i + 0.5) / s.hindi.length) * 100
    ui.lines.forEach((line, j) => {
      const xn = ((j + 0.5) / s.english.length) * 100
      line.setAttribute('x1', xn)
      line.setAttribute('x2', xw)
      ui.labels[j].style.left = `${xn + T * (xw - xn)}%`
      ui.labels[j].style.top = `${T * 100}%`
    })
    ui.sureWord.replaceChildren(...hindiWord(s.hindi[i]))
    ui.ctxWord.replaceChildren(...hindiWord(s.hindi[i]))
    ui.range.value = String(this.#sure[i])
    this.#update(announce)
  }

  /** Write the selected word's numbers everywhere they show, then announce and emit. */
  #update(announce = true) {
    const s = this.#s
    const ui = this.#ui
    const i = this.#word
    const w = this.#rows[i]
    const sure = this.#sure[i]
    const c = this.#attention ? context(w, s.notes) : s.summary
    ui.lines.forEach((line, j) => {
      line.setAttribute('stroke-width', (1.5 + 10 * w[j]).toFixed(2))
      line.setAttribute('stroke-opacity', (0.18 + 0.82 * w[j]).toFixed(3))
      setText(ui.labels[j], fmt(w[j]))
    })
    ui.ctx.forEach((el, k) => setText(el, fmt(c[k])))
    setText(ui.value, fmt(sure, 1))
    ui.range.setAttribute('aria-valuetext', `${fmt(sure, 1)} times the decoder state`)
    const h = s.hindi[i]
    const said = this.#attention
      ? s.english.map((e, j) => `${e} ${fmt(w[j])}`).join(', ')
      : `the same summary as every word, h ${s.english.at(-1)} = (${s.summary.join(', ')})`
    if (announce) this.#say(h.word, ` (${h.translit}): ${said}`)
    this.#emit()
  }

  #paintRow(i) {
    this.#ui.cells[i].forEach((td, j) => {
      const w = this.#rows[i][j]
      setText(td, fmt(w))
      td.style.setProperty('--w', w.toFixed(3))
    })
  }

  #say(word, text) {
    setText(this.#ui.statusWord, word)
    setText(this.#ui.statusText, text)
  }

  #sayDone() {
    const s = this.#s
    const said = this.#attention
      ? 'Each word looked back at the notes; the map bends.'
      : 'Every word got the same summary; there is no map.'
    const translit = s.hindi.map((h) => h.translit).join(' ')
    this.#say(s.hindi.map((h) => h.word).join(' '), ` (${translit}) is written. ${said}`)
  }

  #emit() {
    const detail = {
      word: this.#word,
      sure: this.#sure[this.#word],
      weights: this.#attention ? this.#rows[this.#word].slice() : null,
      attention: this.#attention,
    }
    this.dispatchEvent(new CustomEvent('translate-lookback:update', {bubbles: true, detail}))
  }

  #later(ms, fn) {
    this.#timers.push(setTimeout(fn, ms))
  }

  #stop() {
    this.#timers.forEach(clearTimeout)
    this.#timers = []
  }

  /** Cut an animation short: every word written, every row lit. */
  #finish() {
    if (!this.#timers.length) return
    this.#stop()
    this.#ui.words.forEach((b) => b.removeAttribute('data-written'))
    this.#ui.rows.forEach((r) => r.removeAttribute('data-lit'))
  }
}

const REACH = [{clipPath: 'inset(100% 0 0 0)'}, {clipPath: 'inset(0 0 0 0)'}]
const APPEAR = [{opacity: 0, transform: 'translateY(0.4rem)'}, {opacity: 1, transform: 'none'}]
const LIGHT = [{opacity: 0.3}, {opacity: 1}]

function setText(el, text) {
  if (el.textContent !== text) el.textContent = text
}

function hindiWord(h) {
  const hi = document.createElement('span')
  hi.lang = 'hi'
  hi.textContent = h.word
  const tr = document.createElement('i')
  tr.className = 'translit'
  tr.textContent = `(${h.translit})`
  return [hi, ' ', tr]
}

TranslateLookbackElement.define()
