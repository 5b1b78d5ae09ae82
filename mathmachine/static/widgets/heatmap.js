// The kit's heat map, browser half (the server half is parts.heatmap in
// mathmachine/coursebook/widgets/_parts.py, which draws the map into the page):
//
// An element module imports what it needs of drawHeatmap, markRow, markKey and shadeCell:
//   markRow(figure, 2)                  // outline row 2 (the server drew the map)
//   markKey(figure, 2, 0)               // and mark its cell in column 0
//   drawHeatmap(figure, {values, rows, cols, title, desc, highlight: 0})   // new numbers
//   shadeCell(td, 0.736)                // a table cell on the palette (class wk-h9)
//
// drawHeatmap redraws the SVG and its table of numbers with the same layout as the server
// (layout(), labelWidth() and level() are the server's functions, held to them by golden cases:
// tests/golden/parts.json), so a map looks the same whoever drew it. Every cell keeps data-r and
// data-c and its fill, so the SVG stands alone when saved as a file (the server's map with
// picture=True is drawn from such a file, by an <image>: markRow and markKey then place their
// outlines from the options' left, top and cell). Only layout here: the numbers
// come from the server or from a golden-tested math module. (No import statement may appear in
// these comments: collectstatic would rewrite it, and a file that seems to import itself never
// settles.)
import {printer} from './printing.js';

const SVG = 'http://www.w3.org/2000/svg'

/** Level 0 (nothing) to 10 (everything), as the server's PALETTE and controls.css's .wk-hN. */
export const PALETTE = [
  '#f4f7f7', '#e3f0ee', '#cfe6e3', '#b9dbd7', '#a2cfca', '#8bc3bd',
  '#73b5ae', '#5ba69f', '#2e8079', '#1d766f', '#0b6e69',
] // prettier-ignore
export const WEIGHTS = {lo: 0, hi: 1, curve: 'sqrt', magnitude: false}
const INK = '#1d2330'
const SLANTS = {90: [1, 0], 60: [0.866, 0.5], 45: [0.7071, 0.7071]}
const LEVELS = PALETTE.length - 1

/** The shade 0..10 of a value on a scale {lo, hi, curve: 'sqrt' | 'linear', magnitude}. */
export function level(value, scale = WEIGHTS) {
  const v = scale.magnitude ? Math.abs(value) : value
  let t = Math.min(1, Math.max(0, (v - scale.lo) / (scale.hi - scale.lo)))
  if (scale.curve === 'sqrt') t = Math.sqrt(t)
  return Math.floor(t * LEVELS + 0.5)
}

/** A table cell (or any element) shaded by the palette: class wk-h0 … wk-h10. */
export function shadeCell(el, value, scale = WEIGHTS) {
  for (const c of [...el.classList]) if (/^wk-h\d+$/.test(c)) el.classList.remove(c)
  el.classList.add(`wk-h${level(value, scale)}`)
}

const NARROW = new Set(" ilj.,:;'|!()[]{}·")
const SEMI = new Set('ftrI-')
const WIDE = new Set('mwMW@%…')
const MARK = /[\p{Mn}\p{Me}]/u
const SPACING_MARK = /\p{Mc}/u
const devanagari = (ch) => ch >= '\u0900' && ch <= '\u097f'

/** About how wide a label is in a sans-serif font of `size` px (the server's label_width). */
export function labelWidth(text, size = 12) {
  let em = 0
  let prev = ''
  for (const ch of text) {
    const afterLetter = devanagari(prev)
    prev = ch
    if (ch === '\u200c' || ch === '\u200d') continue
    if (MARK.test(ch)) em += afterLetter ? 0 : 0.8
    else if (SPACING_MARK.test(ch)) em += afterLetter ? 0.4 : 0.8
    else if (NARROW.has(ch)) em += 0.34
    else if (SEMI.has(ch)) em += 0.44
    else if (WIDE.has(ch)) em += 1.0
    else if (ch === '#') em += 0.86
    else if (ch >= 'A' && ch <= 'Z') em += 0.76
    else if (ch.codePointAt(0) < 128) em += 0.64
    else if (devanagari(ch)) em += 0.7
    else em += 0.8
  }
  return em * size
}

/** A label cut to `limit` characters with an ellipsis. */
export function shortLabel(text, limit = 9) {
  const chars = [...text]
  return chars.length <= limit ? text : chars.slice(0, limit - 1).join('') + '…'
}

/** Where everything of a map goes (the server's heatmap_layout). */
export function layout(rows, cols, {cell = 24, font = 12, slant = 60, maxLabel = 9} = {}) {
  const [sin, cos] = SLANTS[slant]
  const rowW = Math.max(0, ...rows.map((r) => labelWidth(shortLabel(r, maxLabel), font)))
  const colW = cols.map((c) => labelWidth(shortLabel(c, maxLabel), font))
  const left = Math.ceil(rowW + 8)
  const top = Math.ceil(Math.max(0, ...colW) * sin + font * cos + 8)
  const anchors = cols.map((_, j) => left + j * cell + cell / 2 + font * 0.35 * sin)
  const right = Math.max(0, ...anchors.map((x, j) => x + colW[j] * cos))
  const width = Math.ceil(Math.max(left + cols.length * cell, right) + 4)
  const height = Math.ceil(top + rows.length * cell + 4)
  return {left, top, width, height, cols: anchors.map((x) => [x, top - 6])}
}

function num(x) {
  const text = x.toFixed(2).replace(/0+$/, '').replace(/\.$/, '')
  return text === '-0' ? '0' : text
}

function svg(name, attrs = {}, text = '') {
  const node = document.createElementNS(SVG, name)
  for (const [k, v] of Object.entries(attrs)) if (v != null) node.setAttribute(k, String(v))
  if (text) node.textContent = text
  return node
}

function html(tag, attrs = {}, ...children) {
  const node = document.createElement(tag)
  for (const [k, v] of Object.entries(attrs)) if (v != null && v !== false) node.setAttribute(k, v === true ? '' : String(v))
  node.append(...children)
  return node
}

const DEVANAGARI = /[\u0900-\u097f\ua8e0-\ua8ff]/

function label(text, attrs) {
  return svg('text', {lang: DEVANAGARI.test(text) ? 'hi' : null, ...attrs}, text)
}

function options(figure) {
  return JSON.parse(figure.dataset.heatmap || '{}')
}

/** Redraw a heat map the server drew (a figure from parts.heatmap) with new numbers:
 * {values [r][c], rows, cols, title, desc, caption, highlight, key, places (or null: plain),
 * extra: [header, cells] | null, tableCaption, cell}. The table of numbers is redrawn too. */
export function drawHeatmap(figure, data) {
  const o = options(figure)
  const {values, rows, cols} = data
  const scale = o.scale || WEIGHTS
  const cell = data.cell ?? o.cell
  const font = o.font
  const lay = layout(rows, cols, {cell, font, slant: o.slant, maxLabel: o.maxLabel})
  const el = figure.querySelector('svg.wk-hm-svg')
  const uid = figure.id
  const more = figure.querySelector('.wk-hm-numbers, .wk-hm-table') ? ' The numbers are in the table that follows.' : ''
  const colLabels = svg('g', {class: 'wk-hm-cols', 'font-size': num(font), fill: INK})
  cols.forEach((c, j) => {
    const [x, y] = lay.cols[j]
    if (shortLabel(c, o.maxLabel) === '') return // a label cut to nothing is not drawn (as the server)
    colLabels.append(label(shortLabel(c, o.maxLabel), {x: num(x), y: num(y), 'data-c': j,
                                                       transform: `rotate(-${o.slant} ${num(x)} ${num(y)})`})) // prettier-ignore
  })
  const rowLabels = svg('g', {class: 'wk-hm-rows', 'font-size': num(font), fill: INK})
  rows.forEach((r, i) => {
    rowLabels.append(label(shortLabel(r, o.maxLabel), {x: num(lay.left - 6), y: num(lay.top + i * cell + cell / 2 + font * 0.35),
                                                       'text-anchor': 'end', 'data-r': i})) // prettier-ignore
  })
  const cells = svg('g', {class: 'wk-hm-cells', stroke: '#ffffff', 'stroke-width': '0.5'})
  values.forEach((row, i) =>
    row.forEach((v, j) =>
      cells.append(svg('rect', {x: num(lay.left + j * cell), y: num(lay.top + i * cell), width: num(cell), height: num(cell),
                                fill: PALETTE[level(v, scale)], 'data-r': i, 'data-c': j})), // prettier-ignore
    ),
  )
  const hl = data.highlight ?? null
  const rowMark = svg('rect', {class: 'wk-hm-row', x: num(lay.left - 1), y: num(lay.top + (hl ?? 0) * cell), width: num(cols.length * cell + 2),
                               height: num(cell), fill: 'none', stroke: INK, 'stroke-width': '2', visibility: hl == null ? 'hidden' : null,
                               'data-row': hl}) // prettier-ignore
  const key = data.key ?? null
  const keyMark = svg('rect', {class: 'wk-hm-key', x: num(lay.left + (key ?? 0) * cell), y: num(lay.top + (hl ?? 0) * cell), width: num(cell),
                               height: num(cell), fill: 'none', stroke: '#b45309', 'stroke-width': '3',
                               visibility: key == null || hl == null ? 'hidden' : null}) // prettier-ignore
  el.replaceChildren(
    svg('title', {id: `${uid}-title`}, data.title),
    svg('desc', {id: `${uid}-desc`}, `${data.desc}${more}`),
    colLabels, rowLabels, cells, rowMark, keyMark,
  ) // prettier-ignore
  el.setAttribute('viewBox', `0 0 ${num(lay.width)} ${num(lay.height)}`)
  if (o.fixed) {
    el.setAttribute('width', num(lay.width))
    el.setAttribute('height', num(lay.height))
  }
  if (data.caption) {
    const caption = figure.querySelector(':scope > figcaption')
    if (caption) caption.textContent = data.caption
  }
  const table = figure.querySelector('table.wk-hm-table')
  if (table) redrawTable(table, data, scale)
}

function redrawTable(table, data, scale) {
  const show = printer(data.places === undefined ? 3 : data.places)
  const {values, rows, cols, extra} = data
  const corner = table.querySelector('thead th')?.textContent ?? ''
  const head = html('tr', {}, html('th', {scope: 'col'}, corner),
                    ...cols.map((c) => html('th', {scope: 'col'}, c)),
                    ...(extra ? [html('th', {scope: 'col'}, extra[0])] : [])) // prettier-ignore
  const body = rows.map((r, i) =>
    html('tr', {}, html('th', {scope: 'row'}, r),
         ...values[i].map((v) => html('td', {class: `wk-h${level(v, scale)}`}, show(v))),
         ...(extra ? [html('td', {}, extra[1][i])] : [])), // prettier-ignore
  )
  table.querySelector('thead').replaceChildren(head)
  table.querySelector('tbody').replaceChildren(...body)
  if (data.tableCaption) table.querySelector('caption').textContent = data.tableCaption
}

// The first cell's corner and the cells' size: from the cells when they are in the page, else
// from the options (the server's map whose picture is a file of its own: parts.heatmap picture).
function grid(figure) {
  const first = figure.querySelector('rect[data-r="0"][data-c="0"]')
  if (first) {
    const at = (name) => Number(first.getAttribute(name))
    return {x: at('x'), y: at('y'), cell: at('width')}
  }
  const o = options(figure)
  return o.left == null ? null : {x: o.left, y: o.top, cell: o.cell}
}

/** Outline row `i` (null: none). */
export function markRow(figure, i) {
  const mark = figure.querySelector('.wk-hm-row')
  const first = grid(figure)
  if (!mark || !first) return
  const c = first.cell
  if (i == null) {
    mark.setAttribute('visibility', 'hidden')
    mark.removeAttribute('data-row')
    figure.querySelector('.wk-hm-key')?.setAttribute('visibility', 'hidden')
    return
  }
  mark.setAttribute('y', num(first.y + i * c))
  mark.removeAttribute('visibility')
  mark.setAttribute('data-row', String(i))
  const key = figure.querySelector('.wk-hm-key')
  if (key) key.setAttribute('y', mark.getAttribute('y'))
}

/** Mark the cell (i, j): its row outlined and the cell itself (j null: no cell). */
export function markKey(figure, i, j) {
  markRow(figure, i)
  const key = figure.querySelector('.wk-hm-key')
  const first = grid(figure)
  if (!key || !first || i == null) return
  if (j == null) {
    key.setAttribute('visibility', 'hidden')
    return
  }
  key.setAttribute('x', num(first.x + j * first.cell))
  key.removeAttribute('visibility')
}
