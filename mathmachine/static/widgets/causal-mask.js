// <causal-mask>: Unit 18 §10, Widget 13 "The mask".
//
// One masked self-attention over a short sentence. A select per place picks its word; a switch
// turns the causal mask on and off. Every change recomputes with mask-math.js
// (maskedSelfAttention, causalMask; golden-tested against mathmachine.engine.masking) and
// rewrites the scores (−∞ where the mask hides a pair), the weights (shaded, 0 where hidden),
// each place's output, and whether that output is the same, to every printed digit, as it was
// before the last word changed (both computed with the switch as it is now). The list of guesses
// follows the sentence: place t reads words 1..t and is trained to guess word t + 1.
//
// Keyboard: the selects and the switch are native controls. Nothing moves, so reduced motion
// needs nothing more. Events (bubbling): "causal-mask:update", detail {words, masked, same}
// after every DOM update. Properties: words (settable, a list of words from the choices),
// masked (settable).
import {WidgetElement, write} from './kit.js';
import {causalMask, maskedSelfAttention} from './mask-math.js';
import {rowSums} from './math.js';
import {dec, vec} from './printing.js';
import {shadeCell} from './heatmap.js';

const MINUS_INF = '\u2212\u221e'

export class CausalMaskElement extends WidgetElement {
  #words = []
  #before = null // the sentence before the last change of a word
  #changed = null // the place (0-based) that changed last
  #masked = true

  upgrade(s) {
    this.#words = [...s.words]
    this.#masked = s.masked
    this.on('change', 'word', (el) => this.#pick(Number(el.dataset.i), el.value))
    this.on('change', 'mask', (el) => this.#mask(el.checked))
    this.#draw()
  }

  get words() {
    return [...this.#words]
  }
  set words(ws) {
    if (!Array.isArray(ws) || ws.length !== this.#words.length) throw new RangeError('one word a place')
    ws.forEach((w, i) => {
      if (!this.state.choices[i].includes(w)) throw new RangeError(`“${w}” is not a choice for place ${i + 1}`)
    })
    this.#before = [...this.#words]
    this.#changed = ws.findIndex((w, i) => w !== this.#words[i])
    this.#words = [...ws]
    this.#draw()
  }

  get masked() {
    return this.#masked
  }
  set masked(on) {
    this.#mask(Boolean(on))
  }

  #pick(i, word) {
    if (!this.state.choices[i]?.includes(word) || this.#words[i] === word) return
    this.#before = [...this.#words]
    this.#changed = i
    this.#words[i] = word
    this.say(this.#draw())
  }

  #mask(on) {
    this.#masked = on
    this.say(this.#draw())
  }

  #run(words) {
    const s = this.state
    const x = words.map((w) => s.vectors[w])
    return maskedSelfAttention(x, s.W_Q, s.W_K, s.W_V, this.#masked ? causalMask(words.length) : null)
  }

  #draw() {
    const n = this.#words.length
    const now = this.#run(this.#words)
    const before = this.#before === null ? null : this.#run(this.#before)
    const mask = this.#masked ? causalMask(n) : null
    const open = (i, j) => mask === null || mask[i][j]

    this.targets('word').forEach((sel, i) => {
      if (sel.value !== this.#words[i]) sel.value = this.#words[i]
    })
    this.target('mask').checked = this.#masked
    this.targets('row-word').forEach((el, k) => write(el, this.#words[k % n]))
    this.targets('col-word').forEach((el, k) => write(el, this.#words[k % n]))
    write(this.target('scores-note'), this.#masked ? ', with the mask' : ', no mask')
    this.targets('score').forEach((td, k) => {
      const i = Math.floor(k / n)
      const j = k % n
      write(td, open(i, j) ? dec(now.scaled[i][j]) : MINUS_INF)
      td.classList.toggle('cm-hidden', !open(i, j))
    })
    this.targets('weight').forEach((td, k) => {
      const i = Math.floor(k / n)
      const j = k % n
      write(td, open(i, j) ? dec(now.weights[i][j]) : '0')
      shadeCell(td, now.weights[i][j], this.state.shade)
      td.classList.toggle('cm-hidden', !open(i, j))
    })
    const sums = rowSums(now.weights)
    this.targets('rowsum').forEach((td, i) => write(td, dec(sums[i])))

    const printed = now.output.map((row) => vec(row))
    const same = printed.map((p, i) => (before === null ? null : p === vec(before.output[i])))
    this.targets('out').forEach((td, i) => write(td, printed[i]))
    this.targets('out-word').forEach((el, i) => write(el, this.#words[i]))
    this.targets('same').forEach((td, i) => {
      write(td, same[i] === null ? '—' : same[i] ? 'same' : 'changed')
      td.classList.toggle('cm-changed', same[i] === false)
    })
    this.targets('reads').forEach((el, t) => write(el, this.#words.slice(0, t + 1).join(' ')))
    this.targets('guess').forEach((el, t) => write(el, t + 1 < n ? this.#words[t + 1] : this.state.end))

    const text = this.#summary(same)
    this.show(text)
    this.emit('update', {words: [...this.#words], masked: this.#masked, same, output: printed})
    return text
  }

  #summary(same) {
    const pairs = this.#masked ? this.state.pairs.masked : this.state.pairs.all
    const head = this.#masked
      ? `Mask on: ${pairs} pairs may look, each word at itself and the words before it.`
      : `Mask off: all ${pairs} pairs look, later words too.`
    if (this.#changed === null) return `${head} Change a later word and watch the earlier outputs.`
    const k = this.#changed
    const earlier = same.slice(0, k)
    const word = `word ${k + 1} (now “${this.#words[k]}”)`
    if (k === 0) return `${head} You changed ${word}: every output after it may change too.`
    const kept = earlier.filter(Boolean).length
    return kept === earlier.length
      ? `${head} You changed ${word}: the outputs of places 1 to ${k} are the same as before, to every printed digit.`
      : `${head} You changed ${word}: ${earlier.length - kept} of the ${k} places before it changed their output. They peeked.`
  }
}

CausalMaskElement.define('causal-mask')
