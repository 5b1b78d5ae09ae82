// math.js against the engine's golden vectors (tests/golden/lookback.json, written by
// `python -m mathmachine.engine.golden`). Run: node --test tests/js/
import {test} from 'node:test'
import assert from 'node:assert/strict'
import {readFileSync} from 'node:fs'
import {
  alignmentMap,
  alignmentRow,
  context,
  dot,
  fmt,
  scale,
  scores,
  softmax,
} from '../../mathmachine/static/widgets/math.js'

const golden = JSON.parse(
  readFileSync(new URL('../golden/lookback.json', import.meta.url), 'utf8'),
)
const TOL = golden.tolerance

function close(actual, expected, what) {
  if (Array.isArray(expected)) {
    assert.equal(actual.length, expected.length, `${what}: length`)
    expected.forEach((e, i) => close(actual[i], e, `${what}[${i}]`))
    return
  }
  assert.ok(
    Math.abs(actual - expected) <= TOL,
    `${what}: got ${actual}, engine says ${expected} (|diff| > ${TOL})`,
  )
}

test('the tolerance is the one the contract names', () => {
  assert.equal(TOL, 1e-12)
})

test('softmax matches the engine, including inputs that overflow a naive exp()', () => {
  assert.ok(golden.softmax.some((c) => Math.max(...c.x) >= 700), 'a large-value case is present')
  for (const {x, y} of golden.softmax) {
    const w = softmax(x)
    close(w, y, `softmax(${x})`)
    w.forEach((v) => assert.ok(Number.isFinite(v)))
  }
})

test('softmax rejects what the engine rejects', () => {
  assert.throws(() => softmax([]), RangeError)
  assert.throws(() => softmax([0, NaN]), RangeError)
  assert.throws(() => softmax([Infinity, 0]), RangeError)
  assert.throws(() => softmax([-Infinity, -Infinity]), RangeError)
  assert.deepEqual(softmax([0, -Infinity]), [1, 0])
})

test('dot and scores match the engine', () => {
  for (const {q, notes, y} of golden.dot) {
    close(scores(q, notes), y, `scores(${q})`)
    close(
      notes.map((h) => dot(q, h)),
      y,
      'dot',
    )
  }
  assert.throws(() => dot([1, 2], [1, 2, 3]), RangeError)
})

test('context matches the engine for notes that are not one-hot', () => {
  for (const {weights, notes, y} of golden.context) close(context(weights, notes), y, 'context')
  assert.throws(() => context([0.5, 0.5], [[1, 0]]), RangeError)
})

test('alignment map and its contexts match the engine', () => {
  for (const c of golden.alignment) {
    const m = alignmentMap(c.states, c.notes)
    close(m, c.map, 'alignmentMap')
    close(
      m.map((w) => context(w, c.notes)),
      c.contexts,
      'contexts',
    )
  }
})

test('Widget 1: every word at every "how sure" mark matches the engine', () => {
  const lb = golden.lookback
  assert.equal(lb.rows.length, lb.states.length * 5)
  for (const r of lb.rows) {
    const q = scale(lb.states[r.word], r.sure)
    const what = `${lb.hindi[r.word]} at sure ${r.sure}`
    close(q, r.q, `${what}: q`)
    close(scores(q, lb.notes), r.scores, `${what}: scores`)
    const w = alignmentRow(q, lb.notes)
    close(w, r.weights, `${what}: weights`)
    close(context(w, lb.notes), r.context, `${what}: context`)
    assert.deepEqual(w.map((v) => fmt(v)), r.printed, `${what}: printed`)
  }
})

test('Widget 1: the default map and the numbers the section prints', () => {
  const lb = golden.lookback
  const states = lb.states.map((s) => scale(s, lb.sure_default))
  close(alignmentMap(states, lb.notes), lb.map, 'map')
  const tea = lb.english.indexOf('tea')
  const chai = lb.hindi.indexOf('चाय')
  assert.equal(fmt(alignmentRow(scale(lb.states[chai], 2), lb.notes)[tea]), '0.936')
  assert.deepEqual(
    alignmentRow(scale(lb.states[chai], 0), lb.notes).map((v) => fmt(v)),
    ['0.333', '0.333', '0.333'],
  )
  assert.deepEqual(lb.summary, lb.notes.at(-1))
})

test('fmt prints fixed places and no negative zero', () => {
  assert.equal(fmt(0.7361247243125939), '0.736')
  assert.equal(fmt(1 / 3), '0.333')
  assert.equal(fmt(-1e-9), '0.000')
  assert.equal(fmt(2, 1), '2.0')
})
