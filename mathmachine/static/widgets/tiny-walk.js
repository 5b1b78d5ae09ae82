// <tiny-walk>: Unit 18 §13, Widget 16 "The whole walk".
//
// One English sentence through the tiny translator, every tensor of it, a stage at a time: the
// tokens, word plus place, the encoder's four maps, the rest of its block; then for each Hindi
// word in turn what the decoder has read, its masked self-attention, its cross-attention over
// the English notes, the rest of its block, and the logits and their softmax, which choose the
// word. The slider and Back / Next move through the stages. A sentence of the learner's own (or
// a preset) goes to the kit's server route, which runs the engine and answers every number
// (POST ../widgets/tiny-walk/, gated like §13); a word the model does not know gets the route's
// message, which lists the words it knows.
//
// Every number comes from the server: this script only chooses which to show and lays them out
// (tables, and the kit's heat maps with heatmap.js), so it computes nothing and needs no golden
// vectors. Keyboard: native controls only. Nothing moves, so reduced motion needs nothing more.
// Events (bubbling): "tiny-walk:update", detail {stage, stages, sentence, pending} after every
// DOM update (pending: a request left and the widget says it is busy).
import {WidgetElement, write} from './kit.js';
import {dec} from './printing.js';
import {drawHeatmap} from './heatmap.js';

function html(tag, attrs = {}, ...children) {
  const node = document.createElement(tag)
  for (const [k, v] of Object.entries(attrs)) {
    if (v === true) node.setAttribute(k, '')
    else if (v !== false && v != null) node.setAttribute(k, String(v))
  }
  node.append(...children)
  return node
}

const HINDI = /[\u0900-\u097f]/
const word = (w) => ({'<s>': 'start', '</s>': 'end'})[w] ?? w
const cell = (tag, text, attrs = {}) => html(tag, {lang: HINDI.test(text) ? 'hi' : null, ...attrs}, text)

/** A captioned table in a scroll box: columns, then rows of [header, cells]. */
function table(caption, columns, rows, cls = '') {
  const head = html('tr', {}, ...columns.map((c) => cell('th', c, {scope: 'col'})))
  const body = rows.map(([h, cells]) => html('tr', {}, cell('th', h, {scope: 'row'}), ...cells.map((c) => cell('td', c))))
  const t = html('table', {class: `wk-table ${cls}`.trim()}, html('caption', {}, caption), html('thead', {}, head), html('tbody', {}, ...body))
  return html('div', {class: 'wk-table-wrap', role: 'region', 'aria-label': `${caption}: the numbers`, tabindex: 0}, t)
}

/** Rows of numbers (each a vector of d) as a table with one column per entry. */
function vectors(caption, labels, rows, places = 3) {
  const columns = ['', ...rows[0].map((_, i) => String(i + 1))]
  return table(caption, columns, labels.map((l, i) => [l, rows[i].map((x) => dec(x, places))]), 'tw-vectors')
}

const ENC_STAGES = [
  ['attn', 'self-attention’s output'],
  ['resid1', 'input + self-attention'],
  ['ln1', 'LayerNorm'],
  ['ffn', 'feed-forward network’s output'],
  ['resid2', 'LayerNorm + feed-forward'],
  ['out', 'LayerNorm: the note'],
]
const DEC_STAGES = [
  ['self_attn', 'masked self-attention’s output'],
  ['resid1', 'input + masked self-attention'],
  ['ln1', 'LayerNorm'],
  ['cross_attn', 'cross-attention’s output'],
  ['resid2', 'LayerNorm + cross-attention'],
  ['ln2', 'LayerNorm'],
  ['ffn', 'feed-forward network’s output'],
  ['resid3', 'LayerNorm + feed-forward'],
  ['out', 'LayerNorm: the decoder’s output'],
]
const WHERE = {
  training: (s) => `“${s}” is one of the sentences the model learned from.`,
  'held out': (s) => `“${s}” is one of the held-out sentences: the model never saw it in training.`,
  'not in the corpus': (s) => `“${s}” is not in the corpus at all: no sentence like it was in training or among the held-out ones. Watch what the model writes anyway.`,
}

export class TinyWalkElement extends WidgetElement {
  #walk = null
  #stages = []
  #stage = 0
  #asked = 0

  upgrade(s) {
    this.on('submit', 'form', (form, e) => {
      e.preventDefault()
      this.#ask(this.target('text').value)
    })
    this.on('change', 'preset', (sel) => {
      this.target('text').value = sel.value
      this.#ask(sel.value)
    })
    this.on('input', 'stage', (range) => this.#go(Number(range.value), false))
    this.on('click', 'prev', () => this.#go(this.#stage - 1, true))
    this.on('click', 'next', () => this.#go(this.#stage + 1, true))
    this.#load(s.walk, false)
  }

  get stage() {
    return this.#stage
  }

  async #ask(text) {
    const asked = ++this.#asked
    write(this.target('error'), '')
    this.target('go').disabled = true
    this.show('Walking the sentence through the model…')
    this.emit('update', {stage: this.#stage, stages: this.#stages.length, sentence: this.#walk.sentence, pending: true})
    let body = null
    let problem = ''
    try {
      const response = await fetch(new URL(this.state.api, location.href), {
        method: 'POST',
        body: new URLSearchParams({text}),
        credentials: 'same-origin',
        headers: {Accept: 'application/json'},
      })
      try {
        body = await response.json()
      } catch {
        problem = `The server answered ${response.status} without the walk. Try again in a moment.`
      }
      if (body && !response.ok) problem = body.error || `The server answered ${response.status}.`
    } catch {
      problem = 'The walk could not reach the server. Check your connection and try again.'
    }
    if (asked !== this.#asked) return // a newer request is on its way
    this.target('go').disabled = false
    if (problem) {
      write(this.target('error'), problem)
      this.say(problem)
      this.target('text').focus()
      this.emit('update', {stage: this.#stage, stages: this.#stages.length, sentence: this.#walk.sentence, pending: false})
      return
    }
    this.#load(body, true)
  }

  #load(walk, announce) {
    this.#walk = walk
    const T = walk.chosen.length
    this.#stages = ['tokens', 'embed', 'enc-attn', 'enc-block']
    for (let t = 0; t < T; t++) this.#stages.push(...['dec-input', 'dec-self', 'cross', 'dec-block', 'logits'].map((k) => [k, t]))
    const range = this.target('stage')
    range.max = String(this.#stages.length - 1)
    write(this.target('where'), WHERE[walk.where](walk.sentence) + this.#verdict())
    for (const o of this.target('preset').options) o.selected = o.value === walk.sentence
    this.#go(0, false)
    if (announce) this.say(`${walk.sentence}: ${this.#stages.length} stages. It writes ${walk.written.join(' ')}.`)
  }

  #verdict() {
    const w = this.#walk
    if (!w.expected) return ''
    return w.correct ? ' It writes the corpus’s Hindi exactly.' : ` The corpus’s Hindi is ${w.expected.join(' ')}; the model writes ${w.written.join(' ')}.`
  }

  #go(i, announce) {
    const n = this.#stages.length
    if (!Number.isInteger(i) || i < 0 || i >= n) return
    this.#stage = i
    const stage = this.#stages[i]
    const [kind, t] = Array.isArray(stage) ? stage : [stage, null]
    const {title, text, maps, tables} = this.#draw(kind, t)
    const range = this.target('stage')
    range.value = String(i)
    range.setAttribute('aria-valuetext', `stage ${i + 1} of ${n}: ${title}`)
    write(this.target('stage-value'), `${i + 1}`)
    this.target('prev').disabled = i === 0
    this.target('next').disabled = i === n - 1
    write(this.target('stage-title'), `${i + 1} of ${n} · ${title}`)
    write(this.target('stage-text'), text)
    for (let k = 0; k < 5; k++) {
      const fig = this.target(`map-${k}`)
      fig.hidden = k >= maps.length
      if (k < maps.length) drawHeatmap(fig, {...maps[k], tableCaption: maps[k].title})
    }
    this.target('tables').replaceChildren(...tables)
    const written = t == null ? [] : this.#walk.chosen.slice(0, kind === 'logits' ? t + 1 : t).map(word)
    write(this.target('written'), written.length ? `Written so far: ${written.join(' ')}` : '')
    const line = `Stage ${i + 1} of ${n}: ${title}.`
    if (announce) this.say(line)
    else this.show(line)
    this.emit('update', {stage: i, stages: n, sentence: this.#walk.sentence, pending: false})
  }

  #draw(kind, t) {
    const w = this.#walk
    const en = w.english
    const e = w.encoder
    const d = w.decoder
    const H = w.heads
    const heads = Array.from({length: H}, (_, k) => `head ${k + 1}`)
    if (kind === 'tokens') {
      return {
        title: 'Tokens',
        text: `Each English word is a token, and the vocabulary numbers them (0 is the padding). The model knows ${this.state.words.length} English words.`,
        maps: [],
        tables: [table('Each word’s number', ['word', 'number'], en.map((x, i) => [x, [String(w.english_ids[i])]]))],
      }
    }
    if (kind === 'embed') {
      const labels = []
      const rows = []
      en.forEach((x, i) => {
        labels.push(`${x}: word`, `${x}: place`, `${x}: sum`)
        rows.push(e.embeddings[i], e.positions[i], e.input[i])
      })
      return {
        title: 'Word and place',
        text: `Each number picks a row of the English word table: ${w.d_model} numbers. The sinusoidal position of its place (§8) is added. The sum goes into the encoder.`,
        maps: [],
        tables: [vectors(`Word, place and their sum, ${w.d_model} numbers each`, labels, rows)],
      }
    }
    if (kind === 'enc-attn') {
      return {
        title: 'The encoder’s self-attention',
        text: `${H} heads, each a map of who looks at whom, with no mask: every English word may look at every English word. Each row adds up to 1.`,
        maps: e.attention.map((m, k) => ({values: m, rows: en, cols: en, title: `Encoder self-attention, head ${k + 1}`,
                                           desc: 'Rows: the word that asks; columns: the word it looks at; darker is more weight; each row adds up to 1.',
                                           caption: `Head ${k + 1}`})), // prettier-ignore
        tables: [],
      }
    }
    if (kind === 'enc-block') {
      return {
        title: 'The rest of the encoder block',
        text: 'The heads’ outputs are joined and mixed by W_O, added to the input (the residual) and normalised (LayerNorm); then the feed-forward network, another add and LayerNorm (post-LN, §9). What comes out are the notes: one row per English word.',
        maps: [],
        tables: ENC_STAGES.map(([k, name]) => vectors(name.charAt(0).toUpperCase() + name.slice(1), en, e.stages[k])),
      }
    }
    const inputs = d.input.map(word)
    const me = inputs[t]
    const so = inputs.slice(0, t + 1).join(' ')
    if (kind === 'dec-input') {
      return {
        title: `Place ${t + 1}: what the decoder has read`,
        text: `To choose Hindi word ${t + 1}, the decoder has read: ${so}. Its newest token, ${me}, gets its row of the Hindi word table and the position of place ${t + 1}.`,
        maps: [],
        tables: [vectors(`${me}: word, place and their sum`, ['word', 'place', 'sum'], [d.embeddings[t], d.positions[t], d.sum[t]])],
      }
    }
    if (kind === 'dec-self') {
      const cols = inputs.slice(0, t + 1)
      return {
        title: `Place ${t + 1}: masked self-attention`,
        text: `${me} may look only at itself and the tokens before it: the causal mask of §10. One row per head; each adds up to 1. (Because of the mask, these are the very numbers of the pass that chose word ${t + 1}.)`,
        maps: [{values: d.self_attention.map((m) => m[t].slice(0, t + 1)), rows: heads, cols,
                title: `Place ${t + 1}, masked self-attention of ${me}, each head`,
                desc: `Rows: the heads; columns: the Hindi tokens read so far; darker is more weight.`,
                caption: `Masked self-attention of ${me}`}], // prettier-ignore
        tables: [],
      }
    }
    if (kind === 'cross') {
      return {
        title: `Place ${t + 1}: cross-attention`,
        text: `${me}’s query looks back at the ${en.length} English notes: one row per head, then their average. The average weighs “${w.looks_at[t]}” most.`,
        maps: [{values: [...d.cross_attention.map((m) => m[t]), d.cross_average[t]], rows: [...heads, 'average'], cols: en,
                title: `Place ${t + 1}, cross-attention over the English notes`,
                desc: `Rows: each head, then their average; columns: the English words; darker is more weight; each row adds up to 1. The average weighs “${w.looks_at[t]}” most.`,
                caption: `Cross-attention at place ${t + 1}`}], // prettier-ignore
        tables: [],
      }
    }
    if (kind === 'dec-block') {
      return {
        title: `Place ${t + 1}: the rest of the decoder block`,
        text: 'Each of its three parts, masked self-attention, cross-attention and the feed-forward network, is added to its input and normalised. The last row is what the output layer reads.',
        maps: [],
        tables: [vectors(`Place ${t + 1}, every stage of the block`, DEC_STAGES.map(([, name]) => name), DEC_STAGES.map(([k]) => d.stages[k][t]))],
      }
    }
    const ranked = w.ranked[t]
    const best = w.vocabulary[ranked[0]]
    return {
      title: `Place ${t + 1}: logits and softmax, and it writes ${word(best)}`,
      text: `The output layer turns the ${w.d_model} numbers into ${w.vocabulary.length} scores, the logits, one per Hindi word; softmax turns them into probabilities. The most probable, ${word(best)} (${dec(w.probabilities[t][ranked[0]])}), is written${best === '</s>' ? ': the sentence ends.' : '.'}`,
      maps: [],
      tables: [table(`Place ${t + 1}: every Hindi word, most probable first`, ['word', 'logit', 'probability'],
                     ranked.map((j) => [word(w.vocabulary[j]), [dec(w.logits[t][j], 2), dec(w.probabilities[t][j])]]))], // prettier-ignore
    }
  }
}

TinyWalkElement.define('tiny-walk');
