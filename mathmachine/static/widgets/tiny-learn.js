// <tiny-learn>: Unit 18 §13, Widget 17 "Watch it learn".
//
// The slider walks the saved training steps; the map of the chosen sentence at that step, what
// the model writes and how many sentences it gets right, and a ring on the loss curve follow
// it. The run buttons pick the full model or one of the four ablations (the plot then shows the
// full model and that run); the sentence buttons pick "I drink tea" or the held-out one.
//
// Every number comes from the server (the training histories, through the figures of §13):
// this script only chooses which to show and redraws the kit's map and plot with them
// (heatmap.js, plot.js), so it computes nothing and needs no golden vectors. Keyboard: a
// native range and native buttons. Nothing moves, so reduced motion needs nothing more.
// Events (bubbling): "tiny-learn:update", detail {run, step, sentence} after every DOM update.
import {WidgetElement, write} from './kit.js';
import {drawHeatmap} from './heatmap.js';
import {drawLinePlot, markPoint} from './plot.js';

export class TinyLearnElement extends WidgetElement {
  #run = 0
  #step = 0
  #sentence = 0

  upgrade(s) {
    this.#run = s.run
    this.#step = s.step
    this.#sentence = s.sentence
    this.on('input', 'step', (el) => this.#draw({step: Number(el.value)}))
    this.on('click', 'run', (el) => this.#draw({run: Number(el.dataset.k)}, true))
    this.on('click', 'sentence', (el) => this.#draw({sentence: Number(el.dataset.k)}, true))
    this.#plot()
    this.#draw({})
  }

  #plot() {
    const runs = this.state.runs
    const shown = this.#run === 0 ? [runs[0]] : [runs[0], runs[this.#run]]
    const names = shown.map((r) => r.title).join(' and ')
    const fig = this.target('plot')
    drawLinePlot(fig, {
      series: shown.map((r) => ({name: r.title, x: r.curve.x, y: r.curve.y, places: 4})),
      title: `Training loss, step by step: ${names}`,
      desc: "The loss of each training step's batch of 32 sentences, from about 4 down to a few thousandths",
    })
    write(fig.querySelector(':scope > figcaption'), `Training loss: ${names}`)
  }

  #draw({run = this.#run, step = this.#step, sentence = this.#sentence}, announce = false) {
    const s = this.state
    const newRun = run !== this.#run
    this.#run = run
    this.#step = step
    this.#sentence = sentence
    const r = s.runs[run]
    const cp = r.checkpoints[step]
    const view = cp.maps[sentence]
    if (newRun) this.#plot()
    drawHeatmap(this.target('map'), {...view, tableCaption: view.title, places: 3})
    markPoint(this.target('plot'), run === 0 ? 0 : 1, r.marks[step])
    const range = this.target('step')
    range.value = String(step)
    const label = `step ${cp.step}`
    range.setAttribute('aria-valuetext', `${label}: ${view.written}`)
    write(this.target('step-value'), String(cp.step))
    write(this.target('written'), view.written)
    write(this.target('train'), cp.train)
    write(this.target('held'), cp.held)
    for (const b of this.targets('run')) b.setAttribute('aria-pressed', String(Number(b.dataset.k) === run))
    for (const b of this.targets('sentence')) b.setAttribute('aria-pressed', String(Number(b.dataset.k) === sentence))
    write(this.target('run-title'), r.title.charAt(0).toUpperCase() + r.title.slice(1))
    write(this.target('run-removed'), r.removed)
    write(this.target('run-weights'), r.weights)
    write(this.target('run-held'), r.held_out)
    write(this.target('run-loss'), r.final_loss)
    write(this.target('run-order'), r.order.join('; '))
    write(this.target('run-mistakes'), r.mistakes.join('; ') || 'none')
    const line = `${r.title.charAt(0).toUpperCase() + r.title.slice(1)}, ${label}: writes ${view.written}; ${cp.held} of the held-out sentences right.`
    if (announce) this.say(line)
    else this.show(line)
    this.emit('update', {run, step, sentence})
  }
}

TinyLearnElement.define('tiny-learn');
