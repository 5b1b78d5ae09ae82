// <proof-steps>: a proof's steps, one at a time (rendered by the coursebook's {proof} directive).
//
// Without JavaScript every step shows when the proof is opened. Upgraded, only the first step
// shows; "Next step (k of n)" reveals one more and moves focus to it (a screen reader reads the
// new step; a keyboard reader is where the text is); "All steps" reveals the rest at once. The
// closing remark (∎) shows with the last step.
//
// Events (bubbling): "proof-steps:update", detail {shown, total} after every reveal.
import {WidgetElement, write} from '../widgets/kit.js';

export class ProofStepsElement extends WidgetElement {
  static stateful = false // everything it needs is in its markup

  #shown = 0

  upgrade() {
    const steps = this.targets('step')
    if (steps.length < 2) return // nothing to reveal: the controls are not rendered
    this.on('click', 'next', () => this.reveal(this.#shown + 1))
    this.on('click', 'all', () => this.reveal(steps.length))
    steps.forEach((step, i) => (step.hidden = i > 0))
    this.#shown = 1
    this.#draw()
  }

  get shown() {
    return this.#shown
  }

  /** Show the first `count` steps (at least the ones already shown); focus the first new one. */
  reveal(count) {
    const steps = this.targets('step')
    const next = Math.min(Math.max(count, this.#shown), steps.length)
    const first = steps[this.#shown]
    for (let i = this.#shown; i < next; i++) steps[i].hidden = false
    const moved = next > this.#shown
    this.#shown = next
    this.#draw()
    if (moved) first.focus()
  }

  #draw() {
    const total = this.targets('step').length
    const done = this.#shown >= total
    this.target('end').hidden = !done
    this.target('next').closest('.proof-controls').hidden = done
    write(this.target('next'), `Next step (${this.#shown + 1} of ${total})`)
    this.emit('update', {shown: this.#shown, total})
  }
}

ProofStepsElement.define('proof-steps')
