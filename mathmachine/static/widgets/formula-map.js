// <formula-map>: Unit 18 §14, Widget 18 "The formula map".
//
// The server draws the map (an SVG chain of boxes) and the same chain as a list, each item with
// its formula and links to the section and widget that built it: that is the widget without
// JavaScript, and the list is what a keyboard or a screen reader walks. With JavaScript a slider
// (or a click on a box) picks one node: its box and its list item are marked and its card shows
// above the map. Every word comes from the state (the compiled unit): this script only chooses
// what to show, so it computes nothing. Nothing moves, so reduced motion needs nothing more.
// Events (bubbling): "formula-map:update", detail {node, label} after every DOM update.
import {WidgetElement, write} from './kit.js';

export class FormulaMapElement extends WidgetElement {
  #k = 0

  upgrade(s) {
    this.on('input', 'node', (el) => this.#pick(Number(el.value) - 1, false))
    this.on('click', 'box', (el) => this.#pick(Number(el.dataset.k), true))
    this.#pick(0, false)
  }

  get node() {
    return this.#k
  }

  #link(a, text, url) {
    write(a, text)
    if (url) a.setAttribute('href', url)
    else a.removeAttribute('href')
  }

  #pick(k, fromMap) {
    const nodes = this.state.nodes
    const n = nodes[k]
    if (!n) throw new RangeError(`no node ${k}`)
    this.#k = k
    const total = nodes.length
    const range = this.target('node')
    if (Number(range.value) !== k + 1) range.value = String(k + 1)
    const where = `${k + 1} of ${total}: ${n.label}`
    range.setAttribute('aria-valuetext', where)
    write(this.target('node-value'), `${k + 1} of ${total}`)
    for (const b of this.targets('box')) b.classList.toggle('fm-on', Number(b.dataset.k) === k)
    for (const li of this.targets('item')) {
      if (Number(li.dataset.k) === k) li.setAttribute('aria-current', 'step')
      else li.removeAttribute('aria-current')
    }
    write(this.target('card-name'), n.label)
    write(this.target('card-formula'), n.formula)
    write(this.target('card-adds'), n.adds ? `Adds: ${n.adds}.` : 'Where the chain starts.')
    this.#link(this.target('card-sec'), `§${n.section} ${n.title}` + (n.url ? '' : ' (being written)'), n.url)
    this.#link(this.target('card-widget'), n.widget, n.widget_url)
    write(this.target('card-next'), n.next ? `Leads to: ${n.next}.` : 'The end of the chain.')
    const line = `Node ${where}, built in §${n.section}.`
    if (fromMap) this.say(line)
    else this.show(line)
    this.emit('update', {node: k, label: n.label})
  }
}

FormulaMapElement.define('formula-map');
