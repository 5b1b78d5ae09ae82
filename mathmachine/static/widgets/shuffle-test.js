// <shuffle-test>: Unit 18 §8, Widget 9 "Shuffle test".
//
// "dog bites man" and the same three words in another order (the buttons), through §3's
// self-attention, with or without the position of each place added (the switch). The first
// table is the first sentence's outputs; the second the shuffled sentence's, each beside
// whether that word's output is the same vector as in the first, to the printed digits.
// Without positions every answer is "yes": the rows only move. With positions they change.
//
// The numbers come from position-math.js's shuffleTest (held to mathmachine.engine.order by
// golden vectors); this file only prints and compares printed text. Keyboard: native buttons
// and a switch. Nothing moves, so reduced motion needs nothing.
// Events (bubbling): "shuffle-test:update", detail {order, positions, same: [bool...]}.
import {WidgetElement, write} from './kit.js';
import {shuffleTest} from './position-math.js';
import {vec} from './printing.js';

export class ShuffleTestElement extends WidgetElement {
  #order = [0, 1, 2]
  #positions = false
  #same = []

  upgrade(s) {
    this.#order = [...s.order]
    this.on('click', 'order', (el) => this.#choose(el.dataset.order.split(',').map(Number)))
    this.on('change', 'positions', (el) => this.#toggle(el.checked))
    this.#draw()
  }

  get order() {
    return [...this.#order]
  }
  set order(o) {
    this.#order = [...o]
    this.#draw()
  }

  #choose(order) {
    this.#order = order
    this.#draw()
    this.say(this.#summary())
  }

  #toggle(on) {
    this.#positions = on
    this.#draw()
    this.say(this.#summary())
  }

  #result() {
    const s = this.state
    return shuffleTest(s.X, s.W_Q, s.W_K, s.W_V, this.#order, this.#positions ? s.positions : null, true)
  }

  #draw() {
    const s = this.state
    const t = this.#result()
    const how = this.#positions ? 'with positions' : 'without positions'
    const key = this.#order.join(',')
    for (const b of this.targets('order')) b.setAttribute('aria-pressed', String(b.dataset.order === key))
    write(this.target('how1'), how)
    write(this.target('how2'), how)
    write(this.target('sentence'), this.#order.map((i) => s.words[i]).join(' '))
    this.targets('out1').forEach((el, i) => write(el, vec(t.original[i])))
    const same = this.#order.map((_, p) => vec(t.shuffled[p]) === vec(t.expected[p]))
    this.targets('word2').forEach((el, p) => write(el, s.words[this.#order[p]]))
    this.targets('out2').forEach((el, p) => write(el, vec(t.shuffled[p])))
    this.targets('same').forEach((el, p) => {
      write(el, same[p] ? 'yes, the same' : 'no, changed')
      el.classList.toggle('st-diff', !same[p])
    })
    this.#same = same
    this.show(this.#summary())
    this.emit('update', {order: [...this.#order], positions: this.#positions, same})
  }

  #summary() {
    const s = this.state
    const sentence = this.#order.map((i) => s.words[i]).join(' ')
    const kept = this.#same.filter(Boolean).length
    const n = s.words.length
    if (!this.#positions) {
      return kept === n
        ? `“${sentence}” without positions: every word's output is the same vector as before, only in a new place.`
        : `“${sentence}” without positions: ${kept} of ${n} outputs are the same.`
    }
    return kept === 0
      ? `“${sentence}” with positions: every word's output changed.`
      : `“${sentence}” with positions: ${n - kept} of ${n} outputs changed.`
  }
}

ShuffleTestElement.define('shuffle-test');
