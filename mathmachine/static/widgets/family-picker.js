// <family-picker>: Unit 18 §11, Widget 14 "Family picker".
//
// Three buttons pick a family (encoder-only, decoder-only, encoder–decoder); only its panel is
// on show: its masks as heat maps, one training example, what it is good at, its members. In
// the encoder–decoder's panel, buttons show the tiny translator's cross-attention averaged over
// its heads or one head at a time, redrawn with heatmap.js from the server's numbers.
//
// Every number comes from the server (the figures of §11, from the engine): this script only
// chooses what to show, so it computes nothing and needs no golden vectors. Keyboard: the
// buttons are native. Nothing moves, so reduced motion needs nothing more.
// Events (bubbling): "family-picker:update", detail {family, head} after every DOM update.
import {WidgetElement} from './kit.js';
import {drawHeatmap} from './heatmap.js';

export class FamilyPickerElement extends WidgetElement {
  #family = ''
  #head = 0

  upgrade(s) {
    this.on('click', 'family', (el) => this.#pick(el.dataset.family, true))
    this.on('click', 'head', (el) => this.#show(Number(el.dataset.k)))
    this.#pick(s.family, false)
  }

  get family() {
    return this.#family
  }

  #pick(id, announce) {
    const fam = this.state.families.find((f) => f.id === id)
    if (!fam) throw new RangeError(`no family ${id}`)
    this.#family = id
    for (const b of this.targets('family')) b.setAttribute('aria-pressed', String(b.dataset.family === id))
    for (const p of this.targets('panel')) p.hidden = p.dataset.family !== id
    const line = `Showing the ${fam.name.toLowerCase()} family: ${fam.models}.`
    if (announce) this.say(line)
    else this.show(line)
    this.emit('update', {family: id, head: this.#head})
  }

  #show(k) {
    const view = this.state.cross[k]
    if (!view) throw new RangeError(`no view ${k}`)
    this.#head = k
    for (const b of this.targets('head')) b.setAttribute('aria-pressed', String(Number(b.dataset.k) === k))
    drawHeatmap(this.target('cross'), {...view, tableCaption: view.title})
    this.say(`Showing ${view.name}.`)
    this.emit('update', {family: this.#family, head: k})
  }
}

FamilyPickerElement.define('family-picker');
