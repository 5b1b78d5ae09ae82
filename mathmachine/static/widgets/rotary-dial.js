// <rotary-dial>: Unit 18 §8, Widget 11 "Rotary dial".
//
// A query q and a key k in a plane, turned by rotary position: the query at position m by
// m θ, the key at position n by n θ. The sliders move m and n; the two buttons move both
// together, one place back or on (the score stays the same: it depends on n − m only). Beside
// the plane: each turned vector and its length (a turn keeps it), the gap, the angle between
// them and the score.
//
// The numbers come from position-math.js's rotaryPair (held to mathmachine.engine.order by
// golden vectors); this file prints them and places the arrows (pixels from the entries).
// Keyboard: native range inputs (each with an aria-valuetext) and buttons. Nothing animates.
// Events (bubbling): "rotary-dial:update", detail {m, n, score, offset} (score null when a
// move-both button at the edge changed nothing).
import {WidgetElement, write} from './kit.js';
import {radians, rotaryPair} from './position-math.js';
import {dec, plain, vec} from './printing.js';

export class RotaryDialElement extends WidgetElement {
  #m = 0
  #n = 0

  upgrade(s) {
    this.#m = s.m
    this.#n = s.n
    this.on('input', 'm', (el) => this.#set(Number(el.value), this.#n, false))
    this.on('input', 'n', (el) => this.#set(this.#m, Number(el.value), false))
    this.on('click', 'back', () => this.#set(this.#m - 1, this.#n - 1, true))
    this.on('click', 'on', () => this.#set(this.#m + 1, this.#n + 1, true))
    this.#draw(false)
  }

  #set(m, n, both) {
    const last = this.state.last
    if (m < 0 || n < 0 || m > last || n > last) {
      // a move-both button at the edge: it stays focusable (aria-disabled), says why, and
      // changes nothing
      const edge = m < 0 || n < 0 ? 'first place, 0' : `last place, ${last}`
      this.say(`Both cannot move: one of them is at the ${edge}. Move it with its slider.`)
      this.emit('update', {m: this.#m, n: this.#n, score: null, offset: this.#n - this.#m})
      return
    }
    this.#m = m
    this.#n = n
    this.#draw(both)
  }

  #draw(announce) {
    const s = this.state
    const m = this.#m
    const n = this.#n
    const r = rotaryPair(s.q, s.k, m, n, radians(s.deg))
    this.target('m').value = String(m)
    this.target('n').value = String(n)
    write(this.target('m-value'), String(m))
    write(this.target('n-value'), String(n))
    this.target('m').setAttribute('aria-valuetext', `query at position ${m}, turned ${m * s.deg} degrees`)
    this.target('n').setAttribute('aria-valuetext', `key at position ${n}, turned ${n * s.deg} degrees`)
    this.target('back').setAttribute('aria-disabled', String(Math.min(m, n) <= 0))
    this.target('on').setAttribute('aria-disabled', String(Math.max(m, n) >= s.last))
    write(this.target('m-text'), String(m))
    write(this.target('n-text'), String(n))
    write(this.target('m-deg'), String(m * s.deg))
    write(this.target('n-deg'), String(n * s.deg))
    write(this.target('q-rot'), vec(r.qRot))
    write(this.target('k-rot'), vec(r.kRot))
    write(this.target('q-len'), dec(r.qLength))
    write(this.target('k-len'), dec(r.kLength))
    write(this.target('gap'), plain(r.offset))
    write(this.target('gap-deg'), plain(r.offset * s.deg))
    write(this.target('score'), dec(r.score))
    this.#arrow('q', r.qRot)
    this.#arrow('k', r.kRot)
    const text = `Query at ${m}, key at ${n}: gap ${plain(r.offset)}, score ${dec(r.score)}.`
    if (announce) this.say(`Both moved. ${text} The gap is the same, and so is the score.`)
    else this.show(text)
    this.emit('update', {m, n, score: r.score, offset: r.offset})
  }

  #arrow(name, v) {
    const c = this.state.centre
    const x = (c + this.state.scale * v[0]).toFixed(2)
    const y = (c - this.state.scale * v[1]).toFixed(2)
    const line = this.target(`${name}-arrow`)
    line.setAttribute('x2', x)
    line.setAttribute('y2', y)
    const tag = this.target(`${name}-tag`)
    tag.setAttribute('x', x)
    tag.setAttribute('y', y)
  }
}

RotaryDialElement.define('rotary-dial');
