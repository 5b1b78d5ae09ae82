// <attention-lab>: Unit 18 §6, Widget 7 "Attention lab".
//
// The learner's sentence goes to the lab's JSON API (POST, gated like §6), which runs it through
// all-MiniLM-L6-v2 with the engine and answers one head's map (rows summing to 1.000), the 72
// heads as thumbnails, or one weight's "neuron view". The element draws a heat map or arcs,
// reads each token's row in words (hover, click, or the token list's arrow keys), opens any
// thumbnail, shows how one weight came about, makes a share link (?text=…&layer=…&head=…) and
// saves the map as an SVG file. The toy mode draws §3's three words with selfAttention from
// attention-math.js (held to the engine by golden vectors). Without JavaScript the same form is a
// GET form to the lab's page (a table), and the example's map is a table.
//
// Events (bubbling): "attention-lab:update", detail {layer, head, tokens, row, key, toy} after
// every DOM update: when a request leaves (detail.pending: the map is marked busy and the status
// says so) and when its answer is drawn.
import {WidgetElement, write} from './kit.js';
import {argmax, products, sum} from './math.js';
import {dec} from './printing.js';
import {selfAttention} from './attention-math.js';
import {PALETTE, drawHeatmap, level, markKey, shortLabel} from './heatmap.js';

const SVG = 'http://www.w3.org/2000/svg'
const NEAR_ZERO = 0.05 // a row's words name weights from this size up
// The lab runs the model on the server: without a connection it says so (a kept §6 opens offline).
const OFFLINE = 'The lab needs a connection: it runs the model on our server, which cannot be reached now (are you offline?).'
const DEVANAGARI = /[\u0900-\u097f\ua8e0-\ua8ff]/
const MARK = /^\p{M}/u
// The exported SVG has no stylesheet: its Devanagari labels name the fonts themselves (site.css's
// :lang(hi) list, then any sans-serif).
const HINDI_FONTS = "'Noto Sans Devanagari', 'Nirmala UI', 'Kohinoor Devanagari', 'Devanagari Sangam MN', Mangal, sans-serif"

/** A token as the lab shows it: "##ा" is "##◌ा" (a vowel sign or mark with no letter to sit on
 * gets the dotted circle, or it is drawn on "#" or as an empty box). The server's token_label. */
export function tokenLabel(t) {
  const body = t.startsWith('##') ? t.slice(2) : t
  return MARK.test(body) ? t.slice(0, t.length - body.length) + '\u25cc' + body : t
}

const langOf = (t) => (DEVANAGARI.test(t) ? 'hi' : null)

function el(name, attrs = {}, text = '') {
  const node = document.createElementNS(SVG, name)
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v))
  if (text) node.textContent = text
  return node
}

function html(tag, attrs = {}, ...children) {
  const node = document.createElement(tag)
  for (const [k, v] of Object.entries(attrs)) {
    if (v === true) node.setAttribute(k, '')
    else if (v !== false && v != null) node.setAttribute(k, String(v))
  }
  node.append(...children)
  return node
}

/** A weight's colour on the kit's palette, as [r, g, b] (for the thumbnails' pixels). */
function rgb(w) {
  const hex = PALETTE[level(w)]
  return [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16))
}

export class AttentionLabElement extends WidgetElement {
  #data = null // what is drawn: {tokens, weights, layer, head, sink, notes, toy, sa}
  #row = 0
  #key = 0
  #view = 'map'
  #answers = new Map() // the API's answers, by request
  #asked = 0 // the newest request (older answers are dropped)
  #gridFor = '' // the sentence the thumbnails show
  #zoom = false // a larger map: cells big enough to tap past 12 tokens

  upgrade(s) {
    this.on('submit', 'form', (form, e) => {
      e.preventDefault()
      this.#ask()
    })
    this.on('input', 'text', () => this.#typing())
    this.on('click', 'zoom', () => this.#setZoom(!this.#zoom))
    this.on('change', 'layer', () => this.#ask())
    this.on('change', 'head', () => this.#ask())
    this.on('change', 'view', (r) => this.#setView(r.value))
    this.on('change', 'toy', (box) => this.#setToy(box.checked))
    this.on('click', 'all', () => this.#toggleGrid())
    this.on('click', 'share', () => this.#share())
    this.on('click', 'export', () => this.#export())
    this.on('change', 'key', (sel) => this.#pickKey(Number(sel.value)))
    this.on('keydown', 'tokens', (list, e) => this.#tokenKeys(e))
    this.on('click', 'tokens', (list, e) => {
      const li = e.target.closest('[data-i]')
      if (li) this.#pick(Number(li.dataset.i), true)
    })
    this.on('mouseover', 'map', (svg, e) => {
      const cell = e.target.closest('rect[data-r]')
      if (cell && Number(cell.dataset.r) !== this.#row) this.#pick(Number(cell.dataset.r), false)
    })
    this.on('click', 'map', (svg, e) => {
      const cell = e.target.closest('rect[data-r]')
      if (!cell) return
      this.#pick(Number(cell.dataset.r), false)
      this.#pickKey(Number(cell.dataset.c))
    })
    this.on('click', 'grid', (grid, e) => {
      const b = e.target.closest('button[data-layer]')
      if (b) this.#openHead(Number(b.dataset.layer), Number(b.dataset.head))
    })
    const numbers = this.target('map-box').querySelector('details')
    if (numbers) numbers.open = false // the row is read out under the map; the table stays a tap away
    const query = new URLSearchParams(location.search)
    const shared = query.get('text')
    if (shared) {
      this.target('text').value = shared
      for (const name of ['layer', 'head']) {
        const v = query.get(name)
        if (v && [...this.target(name).options].some((o) => o.value === v)) this.target(name).value = v
      }
      this.#ask()
    } else {
      const first = {text: s.sentence, layer: s.layer, head: s.head, view: 'neuron', query: 0, key: 0}
      this.#answers.set(JSON.stringify(first), s.neuron) // drawn by the server: no request
      this.#show({...s.initial, sentence: s.sentence}, false)
    }
  }

  // -- asking the server --------------------------------------------------------------------

  async #post(params) {
    const key = JSON.stringify(params)
    if (this.#answers.has(key)) return this.#answers.get(key)
    let response
    try {
      response = await fetch(new URL(this.state.api, location.href), {
        method: 'POST',
        body: new URLSearchParams(params),
        credentials: 'same-origin',
        headers: {Accept: 'application/json'},
      })
    } catch {
      throw {error: OFFLINE, offline: true} // no answer at all: no connection (or no server)
    }
    let body
    try {
      body = await response.json()
    } catch {
      throw {error: `The server answered ${response.status} without the map. Try again in a moment.`}
    }
    if (!response.ok) throw body
    if (this.#answers.size > 64) this.#answers.clear()
    this.#answers.set(key, body)
    return body
  }

  #params(extra = {}) {
    return {
      text: this.target('text').value,
      layer: this.target('layer').value,
      head: this.target('head').value,
      ...extra,
    }
  }

  async #ask() {
    if (this.target('toy').checked) return
    const asked = ++this.#asked
    this.#busy(true)
    this.show('Running the model on your sentence…')
    this.emit('update', {...this.#detail(), pending: true}) // the busy state is on show
    try {
      const d = await this.#post(this.#params({view: 'head'}))
      if (asked !== this.#asked) return
      this.#refuse('')
      this.#show({...d, sentence: this.target('text').value.trim()}, true)
    } catch (problem) {
      if (asked !== this.#asked) return
      if (problem.offline) {
        // The section's own example instead, from the page (the server drew it): a map to read.
        this.target('layer').value = String(this.state.layer)
        this.target('head').value = String(this.state.head)
        this.#show({...this.state.initial, sentence: this.state.sentence}, false)
        this.#refuse(`${OFFLINE} The map below is this section's own example, “${this.state.sentence}”; try your sentence again when you are online.`, null)
      } else this.#refuse(problem.error || 'The lab could not answer.', problem.field)
      this.#stale()
      this.emit('update', this.#detail())
    } finally {
      if (asked === this.#asked) this.#busy(false)
    }
  }

  #busy(on) {
    this.target('figures').setAttribute('aria-busy', on ? 'true' : 'false')
  }

  /** While the learner types: the count against the limits, live; an old error goes once the
   * text it was about has changed (the map stays, marked as the last sentence shown). */
  #typing() {
    const text = this.target('text').value
    this.#count(text)
    if (!this.target('error').hidden) this.#refuse('')
    this.#stale()
  }

  #count(text) {
    const {characters, tokens} = this.state.limits
    const n = [...text.trim()].length
    const last = this.#data && !this.#data.toy ? this.#data.tokens.length : null
    const over = n > characters
    const parts = [`${n} of ${characters} characters${over ? `: ${n - characters} too many` : ''}`]
    if (last != null) parts.push(`the map below has ${last} of at most ${tokens} tokens`)
    const box = this.target('count')
    write(box, parts.join('; ') + '.')
    box.classList.toggle('al-over', over)
  }

  /** A note over the map when it is not the sentence in the box (after an error, or while the
   * box holds other text): which sentence the map is of. */
  #stale() {
    const d = this.#data
    const note = this.target('stale')
    const typed = this.target('text').value.trim()
    const old = d && !d.toy && d.sentence !== typed
    note.hidden = !old
    if (old) write(note, `The map is still the last one drawn, for “${d.sentence}”.`)
  }

  #setZoom(on) {
    this.#zoom = on
    const button = this.target('zoom')
    button.setAttribute('aria-pressed', String(on))
    if (this.#data) this.#drawMap()
    this.#marks()
    this.say(on ? 'Larger map: scroll it sideways.' : 'The map fits the screen again.')
    this.emit('update', this.#detail())
  }

  #refuse(message, field = 'text') {
    const box = this.target('error')
    const input = this.target('text')
    write(box, message)
    box.hidden = !message
    const described = `${this.id}-limit ${this.id}-count` + (message ? ` ${box.id}` : '')
    input.setAttribute('aria-describedby', described)
    if (message && field === 'text') input.setAttribute('aria-invalid', 'true')
    else input.removeAttribute('aria-invalid')
    if (message) this.say(message)
  }

  // -- drawing ----------------------------------------------------------------------------

  #show(d, announce) {
    d.labels = d.tokens.map(tokenLabel)
    this.#data = d
    const n = d.tokens.length
    this.#row = Math.min(this.#row, n - 1)
    if (this.#key >= n) this.#key = n - 1
    this.#tokens()
    this.#notes()
    this.#keyOptions()
    this.#draw()
    const where = d.toy ? 'The toy model' : `Layer ${d.layer}, head ${d.head}`
    const sink = d.toy
      ? 'its three words have no [CLS] or [SEP].'
      : `on average ${dec(d.sink, 2)} of each row goes to [CLS] and [SEP].`
    const line = `${where}, ${n} tokens: ${sink}`
    if (announce) this.say(line)
    else this.show(line)
    this.#neuron()
    if (!this.target('grid').hidden && !d.toy) this.#thumbnails()
    this.#count(this.target('text').value)
    this.#stale()
    this.emit('update', this.#detail())
  }

  #detail() {
    const d = this.#data
    return {layer: d?.layer, head: d?.head, tokens: d?.tokens, row: this.#row, key: this.#key,
            toy: !!d?.toy} // prettier-ignore
  }

  #tokens() {
    const list = this.target('tokens')
    const items = this.#data.tokens.map((t, i) =>
      html('li', {role: 'option', id: `${this.id}-tok-${i}`, 'data-i': i, lang: langOf(t),
                  class: t === '[CLS]' || t === '[SEP]' ? 'al-tok al-tok-special' : 'al-tok',
                  'aria-selected': i === this.#row ? 'true' : 'false'}, tokenLabel(t))) // prettier-ignore
    list.replaceChildren(...items)
    list.setAttribute('aria-activedescendant', `${this.id}-tok-${this.#row}`)
  }

  #notes() {
    const notes = this.#data.notes || []
    const box = this.target('notes')
    box.replaceChildren(...notes.map((t) => html('p', {class: 'note'}, t)))
  }

  #keyOptions() {
    const sel = this.target('key')
    sel.replaceChildren(
      ...this.#data.tokens.map((t, j) => html('option', {value: j, lang: langOf(t)}, `${tokenLabel(t)} (place ${j})`)),
    )
    sel.value = String(this.#key)
  }

  #draw() {
    this.#drawMap()
    this.#drawArcs()
    this.#rowWords(false)
  }

  #cell(n) {
    if (this.#zoom) return 32 // past 12 tokens the fitted cells are too small to tap
    const room = (this.target('figures').clientWidth || 300) - 90
    return Math.max(12, Math.min(28, Math.floor(room / n)))
  }

  #drawMap() {
    const d = this.#data
    const n = d.tokens.length
    const title = d.toy ? 'The toy model' : `Layer ${d.layer}, head ${d.head}`
    const caption = d.toy
      ? 'The toy model: §3’s three words (rows unrounded, each adding up to 1).'
      : `${title}: every row adds up to 1.000.`
    drawHeatmap(this.target('map-box'), {
      values: d.weights, rows: d.labels, cols: d.labels, cell: this.#cell(n), places: 3,
      title: `Heat map of ${title.toLowerCase()}`, caption, tableCaption: caption,
      desc: `${n} rows (the tokens that ask, the queries) by ${n} columns (the tokens looked at, the keys); darker cells hold more weight. Under the map, the chosen row is read out in numbers.`,
      highlight: this.#row, key: this.#key,
      extra: ['looks most at', d.weights.map((row) => `${d.labels[argmax(row)]}: ${dec(row[argmax(row)])}`)],
    }) // prettier-ignore
    this.forget()
  }

  #marks() {
    markKey(this.target('map-box'), this.#row, this.#key)
  }

  #drawArcs() {
    const {labels: tokens, weights} = this.#data
    const n = tokens.length
    const gap = 22
    const w = 320
    const h = 16 + n * gap
    const svg = this.target('arcs')
    svg.setAttribute('viewBox', `0 0 ${w} ${h}`)
    svg.setAttribute('width', w)
    svg.setAttribute('height', h)
    const y = (i) => 16 + i * gap
    const x0 = 100
    const x1 = w - 100
    const parts = []
    weights[this.#row].forEach((v, j) => {
      const d = `M ${x0} ${y(this.#row) - 4} C ${(x0 + x1) / 2} ${y(this.#row) - 4}, ${(x0 + x1) / 2} ${y(j) - 4}, ${x1} ${y(j) - 4}`
      parts.push(el('path', {d, fill: 'none', stroke: '#0b6e69', 'stroke-width': (1 + 9 * v).toFixed(2),
                             'stroke-opacity': (0.08 + 0.92 * v).toFixed(3)})) // prettier-ignore
    })
    tokens.forEach((t, i) => {
      const strong = i === this.#row ? 700 : 400
      const lang = langOf(t) ? {lang: 'hi'} : {}
      parts.push(el('text', {x: x0 - 6, y: y(i), 'text-anchor': 'end', 'font-size': 13,
                             'font-weight': strong, fill: '#1d2330', ...lang}, shortLabel(t))) // prettier-ignore
      parts.push(el('text', {x: x1 + 6, y: y(i), 'font-size': 13, fill: '#1d2330', ...lang}, shortLabel(t)))
    })
    svg.replaceChildren(...parts)
    svg.setAttribute('aria-label', `Arcs from ${tokens[this.#row]} (left) to every token (right), as thick as its weight; the numbers are read out below.`)
  }

  #rowWords(announce) {
    const {labels: tokens, weights} = this.#data
    const row = weights[this.#row]
    const order = row.map((v, j) => [v, j]).sort((a, b) => b[0] - a[0])
    let named = order.filter(([v], k) => k < 4 && (k === 0 || v >= NEAR_ZERO))
    if (order.length - named.length <= 1) named = order
    const rest = order.slice(named.length)
    const restSum = sum(rest.map(([v]) => v))
    const parts = named.map(([v, j]) => `${tokens[j]} ${dec(v)}`)
    if (rest.length) parts.push(`and the other ${rest.length} tokens share ${dec(restSum)}`)
    const total = sum(row)
    const text = `Row of “${tokens[this.#row]}” (place ${this.#row}) looks at ${parts.join(', ')}. The row adds up to ${dec(total)}.`
    write(this.target('row-words'), text)
    if (announce) this.say(text)
  }

  // -- choosing ---------------------------------------------------------------------------

  #pick(i, announce) {
    if (!this.#data) return
    this.#row = i
    const list = this.target('tokens')
    for (const li of list.children) li.setAttribute('aria-selected', li.dataset.i === String(i) ? 'true' : 'false')
    list.setAttribute('aria-activedescendant', `${this.id}-tok-${i}`)
    list.children[i]?.scrollIntoView({block: 'nearest', inline: 'nearest'})
    this.#marks()
    this.#drawArcs()
    this.#rowWords(announce)
    this.#neuron()
    this.emit('update', this.#detail())
  }

  #tokenKeys(e) {
    const n = this.#data?.tokens.length ?? 0
    const moves = {ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1}
    let i = null
    if (e.key in moves) i = (this.#row + moves[e.key] + n) % n
    else if (e.key === 'Home') i = 0
    else if (e.key === 'End') i = n - 1
    if (i === null) return
    e.preventDefault()
    this.#pick(i, true)
  }

  #pickKey(j) {
    this.#key = j
    this.target('key').value = String(j)
    this.#marks()
    this.#neuron()
    this.emit('update', this.#detail())
  }

  #setView(view) {
    this.#view = view
    this.target('map-box').hidden = view !== 'map'
    this.target('arcs-box').hidden = view !== 'arcs'
    this.show(view === 'map' ? 'Heat map: rows ask, columns are looked at.' : 'Arcs: from the chosen token to every token.')
    this.emit('update', this.#detail())
  }

  #setToy(on) {
    for (const name of ['text', 'layer', 'head', 'go', 'all']) this.target(name).disabled = on
    if (on) {
      this.#asked++ // an answer still on its way is for the model, not the toy
      this.#busy(false)
      this.#refuse('')
      this.target('grid').hidden = true
      this.target('all').setAttribute('aria-expanded', 'false')
      const t = this.state.toy
      const sa = selfAttention(t.X, t.W_Q, t.W_K, t.W_V, false)
      this.#row = 0
      this.#key = 0
      this.#show({tokens: t.words, weights: sa.weights, toy: true, sa, notes: [
        'Toy mode: the three words of §3 with its small matrices W_Q, W_K and W_V, computed in your browser. As in §3 the scores are not divided by √d here.',
      ]}, true) // prettier-ignore
    } else {
      this.#row = 0
      this.#key = 0
      this.#ask()
    }
  }

  // -- the neuron view ----------------------------------------------------------------------

  async #neuron() {
    const d = this.#data
    const i = this.#row
    const j = this.#key
    const box = this.target('neuron')
    if (d.toy) {
      const {q, k, scores, weights} = d.sa
      this.#drawNeuron({tokens: d.labels, query: i, key: j, q: q[i], k: k[j], products: products(q[i], k[j]),
                        score: scores[i][j], sqrt_d: null, scaled: scores[i][j],
                        row: scores[i], weights: weights[i], weight: weights[i][j]}) // prettier-ignore
      return
    }
    const asked = this.#asked
    try {
      const params = {text: d.sentence, layer: d.layer, head: d.head, view: 'neuron', query: i, key: j}
      const v = await this.#post(params)
      if (asked !== this.#asked || i !== this.#row || j !== this.#key) return
      this.#drawNeuron(v)
    } catch (problem) {
      write(box, problem.error || 'The neuron view could not be fetched.')
    }
  }

  #drawNeuron(v) {
    const t = v.tokens.map(tokenLabel)
    const rows = v.q.map((x, m) =>
      html('tr', {}, html('th', {scope: 'row'}, String(m + 1)), html('td', {}, dec(x)),
           html('td', {}, dec(v.k[m])), html('td', {}, dec(v.products[m])))) // prettier-ignore
    const table = html('table', {class: 'wk-table al-products'},
      html('caption', {}, `Query vector q of “${t[v.query]}”, key vector k of “${t[v.key]}”, and their products, entry by entry`),
      html('thead', {}, html('tr', {}, ...['entry', 'q', 'k', 'q × k'].map((c) => html('th', {scope: 'col'}, c)))),
      html('tbody', {}, ...rows)) // prettier-ignore
    const details = html('details', {class: 'al-details'},
      html('summary', {}, `The ${v.q.length} products`),
      html('div', {class: 'wk-table-wrap', role: 'region', 'aria-label': 'the products', tabindex: 0}, table)) // prettier-ignore
    const steps = [
      `q · k, the sum of the ${v.q.length} products: ${dec(v.score)}`,
      v.sqrt_d == null
        ? 'divided by √d: not in §3’s toy (§4 adds it), so the score stays as it is'
        : `divided by √${v.q.length} = ${dec(v.sqrt_d)}: ${dec(v.scaled)}`,
      `the row’s scaled scores: ${v.row.map((s) => dec(s, 2)).join(', ')}`,
      `softmax over the row gives “${t[v.key]}” the weight ${dec(v.weight)} of the row of “${t[v.query]}”`,
    ]
    const bars = v.weights.map((w, k) =>
      html('li', {class: k === v.key ? 'al-bar al-bar-key' : 'al-bar'},
           html('span', {class: 'al-bar-name'}, shortLabel(t[k])),
           this.#bar(w), html('span', {class: 'al-bar-num'}, dec(w)))) // prettier-ignore
    this.target('neuron').replaceChildren(
      details,
      html('ol', {class: 'al-steps'}, ...steps.map((s) => html('li', {}, s))),
      html('ul', {class: 'al-bars', 'aria-label': `The row of “${t[v.query]}” after softmax`}, ...bars),
    )
    this.emit('update', this.#detail())
  }

  #bar(w) {
    const svg = el('svg', {viewBox: '0 0 100 10', preserveAspectRatio: 'none', class: 'wk-bar-svg',
                           'aria-hidden': 'true', focusable: 'false'}) // prettier-ignore
    svg.append(el('rect', {x: 0, y: 0, width: 100, height: 10, class: 'wk-bar-bg'}))
    svg.append(el('rect', {x: 0, y: 0, width: (100 * w).toFixed(1), height: 10, class: 'wk-bar'}))
    return svg
  }

  // -- all heads ----------------------------------------------------------------------------

  #toggleGrid() {
    const grid = this.target('grid')
    const open = grid.hidden
    grid.hidden = !open
    this.target('all').setAttribute('aria-expanded', String(open))
    if (open) this.#thumbnails()
    else this.emit('update', this.#detail())
  }

  async #thumbnails() {
    const d = this.#data
    const grid = this.target('grid')
    if (this.#gridFor === d.sentence) return this.#markCurrent()
    write(grid, 'Fetching all 72 heads…')
    try {
      const all = await this.#post({text: d.sentence, view: 'heads'})
      if (this.#data !== d) return
      this.#gridFor = d.sentence
      const n = all.n
      const groups = []
      for (let layer = 1; layer <= all.layers; layer++) {
        const buttons = all.thumbnails.filter((t) => t.layer === layer).map((t) => {
          const canvas = html('canvas', {width: n, height: n, 'aria-hidden': 'true'})
          const ctx = canvas.getContext('2d')
          if (ctx) {
            const img = ctx.createImageData(n, n)
            for (let p = 0; p < n * n; p++) {
              const [r, g, b] = rgb(Number(t.cells[p]) / all.levels)
              img.data.set([r, g, b, 255], 4 * p)
            }
            ctx.putImageData(img, 0, 0)
          }
          return html('button', {type: 'button', class: 'al-thumb', 'data-layer': t.layer, 'data-head': t.head},
                      canvas, html('span', {}, `H${t.head}`),
                      html('span', {class: 'visually-hidden'}, `: layer ${t.layer}, head ${t.head}, ${dec(t.sink, 2)} of each row on [CLS] and [SEP]`)) // prettier-ignore
        })
        groups.push(html('h4', {class: 'al-layer'}, `Layer ${layer}`), html('div', {class: 'al-thumbs'}, ...buttons))
      }
      grid.replaceChildren(
        html('p', {}, 'All 72 heads of the model for your sentence, one small map each (a darker cell holds more weight). Open one to read it.'),
        ...groups,
      )
      this.forget()
      this.#markCurrent()
      this.say(`All 72 heads are drawn; open one with Enter.`)
    } catch (problem) {
      write(grid, problem.error || 'The thumbnails could not be fetched.')
    }
    this.emit('update', this.#detail())
  }

  #markCurrent() {
    for (const b of this.target('grid').querySelectorAll('button[data-layer]')) {
      const current = Number(b.dataset.layer) === this.#data.layer && Number(b.dataset.head) === this.#data.head
      if (current) b.setAttribute('aria-current', 'true')
      else b.removeAttribute('aria-current')
    }
  }

  #openHead(layer, head) {
    this.target('layer').value = String(layer)
    this.target('head').value = String(head)
    this.#ask()
    this.target('figures').scrollIntoView({block: 'nearest'})
  }

  // -- share and save -----------------------------------------------------------------------

  async #share() {
    const d = this.#data
    const input = this.target('share-url')
    let link = null
    let problem = ''
    if (!d.toy) {
      // A link anyone can open: the server keeps this map and signs its address.
      try {
        const response = await fetch(new URL(this.state.share, location.href), {
          method: 'POST',
          body: new URLSearchParams({text: d.sentence, layer: String(d.layer), head: String(d.head)}),
          credentials: 'same-origin',
          headers: {Accept: 'application/json'},
        })
        const body = await response.json()
        if (response.ok) link = body.url
        else problem = body.error || ''
      } catch {
        problem = 'The link could not be made: check your connection and try again.'
      }
    } else {
      const url = new URL(location.href)
      url.search = ''
      url.hash = this.id
      link = url.href
    }
    if (!link) {
      this.say(problem || 'The link could not be made. Try again in a moment.')
      this.emit('update', this.#detail())
      return
    }
    input.value = link
    this.target('share-box').hidden = false
    input.select()
    let copied = false
    try {
      await navigator.clipboard.writeText(link)
      copied = true
    } catch {
      copied = false
    }
    const what = d.toy ? 'it opens the lab' : 'anyone can open it and see this map, signed in or not'
    this.say(copied ? `Link copied: ${what}.` : `The link is in the box below the buttons: copy it from there; ${what}.`)
    this.emit('update', this.#detail())
  }

  #export() {
    const d = this.#data
    const svg = this.target('map').cloneNode(true)
    svg.setAttribute('xmlns', SVG)
    svg.setAttribute('font-family', 'sans-serif')
    svg.removeAttribute('data-target')
    svg.removeAttribute('class')
    // The file is the map, not the page's state: no row outline, no marked cell.
    for (const mark of svg.querySelectorAll('.wk-hm-row, .wk-hm-key')) mark.remove()
    for (const node of svg.querySelectorAll('[class],[data-r],[data-c],[data-row]')) {
      for (const a of ['class', 'data-r', 'data-c', 'data-row']) node.removeAttribute(a)
    }
    for (const t of svg.querySelectorAll('text[lang="hi"]')) t.setAttribute('font-family', HINDI_FONTS)
    const where = d.toy ? 'the toy model of §3' : `all-MiniLM-L6-v2, layer ${d.layer}, head ${d.head}`
    const sentence = d.toy ? d.tokens.join(' ') : d.sentence
    svg.prepend(el('title', {}, `Attention, ${where}: ${sentence}`))
    this.#caption(svg, sentence, where)
    const file = d.toy ? 'attention-toy.svg' : `attention-layer${d.layer}-head${d.head}.svg`
    const blob = new Blob([new XMLSerializer().serializeToString(svg)], {type: 'image/svg+xml'})
    const a = html('a', {href: URL.createObjectURL(blob), download: file})
    document.body.append(a)
    a.click()
    a.remove()
    setTimeout(() => URL.revokeObjectURL(a.href), 1000)
    this.say(`Saved the map as ${file}.`)
    this.emit('update', this.#detail())
  }

  /** Under the saved map, what it is: the sentence, the model, layer and head, and the colour
   * scale (the palette's 11 shades from 0 to 1), so the file explains itself wherever it goes. */
  #caption(svg, sentence, where) {
    const [, , w0, h0] = svg.getAttribute('viewBox').split(' ').map(Number)
    const width = Math.max(w0, 320)
    const per = Math.floor((width - 16) / 6.6) // characters a 12 px line holds
    const lines = []
    let line = ''
    for (const word of `“${sentence}”`.split(' ')) {
      if (line && (line + ' ' + word).length > per) {
        lines.push(line)
        line = word
      } else line = line ? `${line} ${word}` : word
    }
    lines.push(line, `${where}; each row adds up to 1.`)
    const g = el('g', {'font-size': 12, fill: '#1d2330'})
    let y = h0 + 16
    for (const text of lines) {
      g.append(el('text', DEVANAGARI.test(text) ? {x: 8, y, lang: 'hi', 'font-family': HINDI_FONTS} : {x: 8, y}, text))
      y += 16
    }
    g.append(el('text', {x: 8, y: y + 9}, '0'))
    PALETTE.forEach((fill, i) => g.append(el('rect', {x: 22 + i * 16, y, width: 16, height: 12, fill, stroke: '#dcd8cf', 'stroke-width': 0.5})))
    g.append(el('text', {x: 22 + PALETTE.length * 16 + 4, y: y + 9}, '1  (darker: more weight)'))
    svg.append(g)
    const height = y + 20
    svg.setAttribute('viewBox', `0 0 ${width} ${height}`)
    svg.setAttribute('width', width)
    svg.setAttribute('height', height)
  }
}

AttentionLabElement.define('attention-lab');
