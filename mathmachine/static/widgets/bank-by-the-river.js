// <bank-by-the-river>: Unit 18 §5, Widget 6 "Bank by the river".
//
// Two views behind a tablist (one Tab stop; Left/Right, Home and End move between the tabs and
// show the panel at once).
// - Toy model: a select of sentences and a toggle button for every word that may stand beside
//   "bank". Each change recomputes self-attention over the sentence's words with
//   attention-math.js (W_Q = W_K = W_V = I, no ÷√d, as the section's worked example) and moves
//   "bank"'s output dot on the plane, rewrites the lines (as thick as the weights), the row of
//   scores and weights, and the sentence "bank comes out at (x, y), on the … side"; the
//   change is announced once through the live region. The dot glides to its new place unless
//   the reader asked for reduced motion.
// - Real model: radio buttons choose which of the server's three tables of cosines is on show
//   (nothing is recomputed there).
// Events (bubbling): "bank-by-the-river:update" after every DOM update, detail {tab, sentence,
// weights, output, side, view}.
// Properties: tab ("toy" | "real"), sentence (the words, read-only); method load(presetId).
import {WidgetElement, reducedMotion, write} from './kit.js';
import {dec, largestShare} from './printing.js';
import {selfAttention} from './attention-math.js';

const EYE = [
  [1, 0],
  [0, 1],
]
const SIDES = {
  water: 'on the water side',
  money: 'on the money side',
  line: 'on the line between the two sides',
}
const GLIDE_MS = 250

export class BankByTheRiverElement extends WidgetElement {
  #tab = 'toy'
  #sentence = []
  #view = 'centred'
  #vectors = new Map()
  #at = null // where the output dot is drawn, [px, py]
  #last = null // the last toy result
  #glider = null // the output dot's running glide (an Animation)

  upgrade(s) {
    for (const w of s.words) this.#vectors.set(w.word, w.vector)
    this.#vectors.set(s.word, s.vector)
    for (const tab of this.targets('tab')) {
      const panel = this.#panel(tab.dataset.tab)
      panel.setAttribute('role', 'tabpanel')
      panel.setAttribute('aria-labelledby', tab.id)
      panel.tabIndex = 0
    }
    this.on('click', 'tab', (tab) => this.#select(tab.dataset.tab, true))
    this.on('keydown', 'tab', (tab, e) => this.#arrow(tab, e))
    this.on('change', 'preset', (el) => this.load(el.value))
    this.on('click', 'chip', (chip) => this.#toggle(chip.dataset.word))
    this.on('change', 'pick', (radio) => this.#pick(radio.value))
    const picked = this.targets('pick').find((r) => r.checked)
    this.#view = picked ? picked.value : this.#view
    const first = s.presets.find((p) => p.id === s.preset) ?? s.presets[0]
    this.#sentence = first.sentence.slice()
    this.target('preset').value = first.id
    this.#showTab()
    this.#showView()
    this.#draw(false)
  }

  get tab() {
    return this.#tab
  }
  set tab(name) {
    this.#select(name, false)
  }

  get sentence() {
    return this.#sentence.slice()
  }

  /** Put a preset's sentence in and recompute. */
  load(id) {
    if (id === 'own') {
      this.#draw(true) // keep the words as they are
      return
    }
    const preset = this.state.presets.find((p) => p.id === id)
    if (!preset) throw new RangeError(`no preset ${id}`)
    this.target('preset').value = id
    this.#sentence = preset.sentence.slice()
    this.#draw(true)
  }

  // ---------------------------------------------------------------- tabs

  #panel(name) {
    const panel = this.targets('panel').find((p) => p.dataset.tab === name)
    if (!panel) throw new RangeError(`no panel ${name}`)
    return panel
  }

  #select(name, focus) {
    this.#panel(name) // throws for an unknown tab
    this.#tab = name
    this.#showTab()
    if (focus) this.targets('tab').find((t) => t.dataset.tab === name).focus()
    this.emit('update', this.#detail())
  }

  #showTab() {
    for (const tab of this.targets('tab')) {
      const on = tab.dataset.tab === this.#tab
      tab.setAttribute('aria-selected', String(on))
      tab.tabIndex = on ? 0 : -1
      this.#panel(tab.dataset.tab).hidden = !on
    }
  }

  #arrow(tab, e) {
    const tabs = this.targets('tab')
    const i = tabs.indexOf(tab)
    const to = {
      ArrowRight: (i + 1) % tabs.length,
      ArrowLeft: (i - 1 + tabs.length) % tabs.length,
      Home: 0,
      End: tabs.length - 1,
    }[e.key]
    if (to === undefined) return
    e.preventDefault()
    this.#select(tabs[to].dataset.tab, true)
  }

  // ---------------------------------------------------------------- the toy

  #toggle(word) {
    const chosen = new Set(this.#sentence)
    if (chosen.has(word)) chosen.delete(word)
    else chosen.add(word)
    // the reader's own words: in the order of the buttons, "bank" last
    const words = this.state.words.map((w) => w.word).filter((w) => chosen.has(w))
    this.#sentence = [...words, this.state.word]
    const same = this.state.presets.find((p) => sameWords(p.sentence, this.#sentence))
    if (same) this.#sentence = same.sentence.slice()
    this.target('preset').value = same ? same.id : 'own'
    this.#draw(true)
  }

  #draw(announce) {
    const s = this.state
    const words = this.#sentence
    const x = words.map((w) => this.#vectors.get(w))
    const r = selfAttention(x, EYE, EYE, EYE, false)
    const i = words.indexOf(s.word)
    const out = r.output[i]
    const weights = r.weights[i]
    const scores = r.scores[i]
    const side = sideOf(out, s.margin)
    const label = words.join(' ')
    this.#last = {weights, scores, out, side}

    // the toggle buttons and the table rows
    const inSentence = new Map(words.map((w, j) => [w, j]))
    for (const chip of this.targets('chip')) {
      chip.setAttribute('aria-pressed', String(inSentence.has(chip.dataset.word)))
    }
    const scoreCells = this.targets('score')
    const weightCells = this.targets('weight')
    const bars = this.targets('bar')
    this.targets('row').forEach((row, k) => {
      const j = inSentence.get(row.dataset.word)
      row.hidden = j === undefined
      if (j === undefined) return
      write(scoreCells[k], dec(scores[j], 2))
      write(weightCells[k], dec(weights[j]))
      bars[k].setAttribute('width', (100 * weights[j]).toFixed(1))
    })

    // the plane
    for (const dot of this.targets('word-dot')) {
      dot.classList.toggle('bk-on', inSentence.has(dot.dataset.word))
    }
    for (const beam of this.targets('beam')) {
      const j = inSentence.get(beam.dataset.word)
      if (j === undefined) {
        beam.setAttribute('visibility', 'hidden')
      } else {
        beam.removeAttribute('visibility')
        beam.setAttribute('stroke-width', (1 + 8 * weights[j]).toFixed(2))
      }
    }
    const [px, py] = this.#xy(out)
    const move = this.target('move')
    move.setAttribute('x2', px.toFixed(1))
    move.setAttribute('y2', py.toFixed(1))
    this.target('out').setAttribute('transform', `translate(${px.toFixed(1)} ${py.toFixed(1)})`)
    this.#glide(this.#at, [px, py])
    this.#at = [px, py]

    const where = `(${dec(out[0])}, ${dec(out[1])})`
    write(this.target('sentence'), label)
    write(this.target('table-sentence'), label)
    write(this.target('answer'), where)
    write(this.target('side'), SIDES[side])
    // the status line adds who pulls hardest (the answer is in the line above it); an
    // announcement says both, once
    const share = `${largestShare(words.map((w) => `“${w}”`), weights)}.`
    this.show(share)
    if (announce) write(this.target('live'), `“${label}”: ${s.word} comes out at ${where}, ${SIDES[side]}. ${share}`)
    this.emit('update', this.#detail())
  }

  /** Slide the output dot from where it was (unless reduced motion is asked for). */
  #glide(from, to) {
    if (!from || reducedMotion()) return
    const dx = from[0] - to[0]
    const dy = from[1] - to[1]
    if (Math.abs(dx) < 0.5 && Math.abs(dy) < 0.5) return
    // cancel the glide before, kept here: asking the element for its animations
    // (getAnimations()) brings its style up to date first, which costs far more than the rest
    this.#glider?.cancel()
    this.#glider = this.target('out-inner').animate(
      [{transform: `translate(${dx}px, ${dy}px)`}, {transform: 'translate(0, 0)'}],
      {duration: GLIDE_MS, easing: 'ease-out'},
    )
  }

  #xy([x, y]) {
    const {size, pad, max} = this.state.plot
    const px = pad + (x / max) * (size - 2 * pad)
    const py = size - (pad + (y / max) * (size - 2 * pad))
    return [px, py]
  }

  // ---------------------------------------------------------------- the real model

  #pick(view) {
    this.#view = view
    this.#showView()
    const table = this.targets('view').find((v) => v.dataset.view === view)
    const means = table.querySelector('.bk-means')
    // the status line belongs to the toy's panel: the change is only announced
    if (means) write(this.target('live'), means.textContent)
    this.emit('update', this.#detail())
  }

  #showView() {
    for (const v of this.targets('view')) v.hidden = v.dataset.view !== this.#view
  }

  #detail() {
    const t = this.#last
    return {
      tab: this.#tab,
      sentence: this.sentence,
      weights: t?.weights,
      output: t?.out,
      side: t?.side,
      view: this.#view,
    }
  }
}

/** Which side of the line x = y a point is on: within `margin` of it, "line". */
function sideOf([x, y], margin) {
  const gap = x - y
  if (Math.abs(gap) < margin) return 'line'
  return gap > 0 ? 'water' : 'money'
}

function sameWords(a, b) {
  return a.length === b.length && a.every((w) => b.includes(w))
}

BankByTheRiverElement.define('bank-by-the-river')
