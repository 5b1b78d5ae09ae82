// <soft-dictionary>: Unit 18 §2, Widget 2 "Soft dictionary".
//
// Upgrades the server-rendered plane and weights table: the query moves by dragging on the
// plane or with the two sliders, the sharpness β with a third; every input recomputes the soft
// lookup with lookup-math.js and rewrites the lines, the table and the answer. The "hard
// lookup" switch shows the argmax answer beside it.
//
// Announcements: each slider says its value and the answer in its aria-valuetext; a drag on the
// plane and the hard-lookup switch announce the answer once through the live region.
// Events (bubbling): "soft-dictionary:update", detail {query, beta, weights, output, hard}
// after every DOM update (hard: {best, output} or null when the switch is off).
// Properties: query ([x, y]), beta; both settable.
import {WidgetElement, write} from './kit.js';
import {dec, largestShare, rupees} from './printing.js';
import {hardLookup, softLookup} from './lookup-math.js';

export class SoftDictionaryElement extends WidgetElement {
  #q = [0, 0]
  #beta = 1
  #keys = []
  #values = []
  #dragging = false

  upgrade(s) {
    this.#keys = s.items.map((it) => it.key)
    this.#values = s.items.map((it) => it.value)
    this.#q = s.query.slice()
    this.#beta = s.beta
    this.on('input', 'x', (el) => this.#setQuery([Number(el.value), this.#q[1]], false))
    this.on('input', 'y', (el) => this.#setQuery([this.#q[0], Number(el.value)], false))
    this.on('input', 'beta', (el) => this.#setBeta(Number(el.value)))
    this.on('change', 'hard', () => {
      this.#draw()
      this.#announce()
    })
    const plane = this.target('plane').querySelector('svg')
    plane.addEventListener('pointerdown', (e) => this.#grab(plane, e))
    plane.addEventListener('pointermove', (e) => this.#dragging && this.#fromPointer(plane, e))
    plane.addEventListener('pointerup', () => this.#release())
    plane.addEventListener('pointercancel', () => this.#release())
    plane.classList.add('sd-live')
    this.#draw()
  }

  get query() {
    return this.#q.slice()
  }
  set query([x, y]) {
    this.#setQuery([x, y], true)
  }
  get beta() {
    return this.#beta
  }
  set beta(v) {
    const range = this.target('beta')
    range.value = String(v)
    this.#setBeta(Number(range.value))
  }

  #setQuery([x, y], syncSliders) {
    const r = this.state.queryMax
    const snap = (v) => Math.min(r, Math.max(-r, Math.round(v / this.state.step) * this.state.step))
    this.#q = [snap(x) + 0, snap(y) + 0] // + 0 turns -0 into 0
    if (syncSliders || this.#dragging) {
      this.target('x').value = String(this.#q[0])
      this.target('y').value = String(this.#q[1])
    }
    this.#draw()
  }

  #setBeta(v) {
    this.#beta = v
    this.#draw()
  }

  #grab(plane, e) {
    this.#dragging = true
    plane.setPointerCapture(e.pointerId)
    this.#fromPointer(plane, e)
  }

  #release() {
    if (!this.#dragging) return
    this.#dragging = false
    this.#announce()
  }

  #fromPointer(plane, e) {
    const {size, pad} = this.state.plane
    const box = plane.getBoundingClientRect()
    const px = ((e.clientX - box.left) / box.width) * size
    const py = ((e.clientY - box.top) / box.height) * size
    const r = this.state.queryMax
    const toQ = (p) => ((p - pad) / (size - 2 * pad)) * 2 * r - r
    this.#setQuery([toQ(px), -toQ(py)], true)
  }

  #xy([x, y]) {
    const {size, pad} = this.state.plane
    const r = this.state.queryMax
    const px = pad + ((x + r) / (2 * r)) * (size - 2 * pad)
    const py = size - (pad + ((y + r) / (2 * r)) * (size - 2 * pad))
    return [px.toFixed(1), py.toFixed(1)]
  }

  #draw() {
    const {scores, weights, output} = softLookup(this.#q, this.#keys, this.#values, this.#beta)
    const [qx, qy] = this.#xy(this.#q)
    for (const name of ['query', 'query-hit']) {
      const dot = this.target(name)
      dot.setAttribute('cx', qx)
      dot.setAttribute('cy', qy)
    }
    this.targets('beam').forEach((line, j) => {
      line.setAttribute('x1', qx)
      line.setAttribute('y1', qy)
      line.setAttribute('stroke-width', (1 + 8 * weights[j]).toFixed(2))
      line.setAttribute('stroke-opacity', (0.15 + 0.85 * weights[j]).toFixed(3))
    })
    const scoreCells = this.targets('score')
    const weightCells = this.targets('weight')
    this.targets('bar').forEach((bar, j) => {
      bar.setAttribute('width', (100 * weights[j]).toFixed(1))
      write(scoreCells[j], dec(scores[j], 2))
      write(weightCells[j], dec(weights[j]))
    })
    write(this.target('x-value'), dec(this.#q[0], 1))
    write(this.target('y-value'), dec(this.#q[1], 1))
    write(this.target('beta-value'), dec(this.#beta, 1))
    // A slider's move is announced once, by its own value text, which carries the answer.
    const [hot, sweet] = this.state.axes
    const answer = `answer ${rupees(output)}`
    this.target('x').setAttribute('aria-valuetext', `${hot} ${dec(this.#q[0], 1)}: ${answer}`)
    this.target('y').setAttribute('aria-valuetext', `${sweet} ${dec(this.#q[1], 1)}: ${answer}`)
    this.target('beta').setAttribute('aria-valuetext', `${dec(this.#beta, 1)}: ${answer}`)
    write(
      this.target('answer-lead'),
      `For the query (${dec(this.#q[0], 1)}, ${dec(this.#q[1], 1)}) at sharpness ${dec(this.#beta, 1)}, `,
    )
    write(this.target('answer'), rupees(output))
    const on = this.target('hard').checked
    let hard = null
    if (on) {
      hard = hardLookup(this.#q, this.#keys, this.#values)
      write(this.target('hard-answer'), rupees(hard.output))
      write(this.target('hard-what'), hardWhat(hard.best.map((j) => this.state.items[j].name)))
    }
    this.target('hard-line').hidden = !on
    this.show(largestShare(this.state.items.map((it) => it.name), weights))
    this.emit('update', {query: this.query, beta: this.#beta, weights, output, hard})
  }

  #announce() {
    const {output} = softLookup(this.#q, this.#keys, this.#values, this.#beta)
    const parts = [`The soft lookup answers ${rupees(output)}.`]
    if (this.target('hard').checked) {
      const hard = hardLookup(this.#q, this.#keys, this.#values)
      parts.push(`Hard lookup: ${rupees(hard.output)}.`)
    }
    this.say(parts.join(' '))
  }
}

/** What the hard lookup hands back: one key's price, or with a tie the mean of the tied prices
 * (the server's hard_what). */
function hardWhat(list) {
  return list.length === 1
    ? `the price of ${list[0]}, the best-matching key`
    : `the mean of the prices of ${names(list)}, the ${list.length} best-matching keys (a tie)`
}

function names(list) {
  return list.length < 3 ? list.join(' and ') : `${list.slice(0, -1).join(', ')} and ${list.at(-1)}`
}

SoftDictionaryElement.define('soft-dictionary')
