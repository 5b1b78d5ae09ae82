// math.js's behaviour beyond the engine's numbers (those are golden vectors, run for every module
// by golden.test.mjs): what it rejects, and the figures of §1 as printing.js prints them.
// Run: node --test tests/js/
import {test} from 'node:test'
import assert from 'node:assert/strict'
import {alignmentRow, context, dot, scale, softmax} from '../../mathmachine/static/widgets/math.js'
import {dec as fmt} from '../../mathmachine/static/widgets/printing.js'

test('softmax rejects what the engine rejects', () => {
  assert.throws(() => softmax([]), RangeError)
  assert.throws(() => softmax([0, NaN]), RangeError)
  assert.throws(() => softmax([Infinity, 0]), RangeError)
  assert.throws(() => softmax([-Infinity, -Infinity]), RangeError)
  assert.deepEqual(softmax([0, -Infinity]), [1, 0])
})

test('dot and context refuse vectors of the wrong length', () => {
  assert.throws(() => dot([1, 2], [1, 2, 3]), RangeError)
  assert.throws(() => context([0.5, 0.5], [[1, 0]]), RangeError)
  assert.throws(() => context([0.5, 0.5], [[1, 0], [1]]), RangeError)
})

test('Widget 1: the numbers the section prints', () => {
  const notes = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
  const chai = [0, 0.5, 2]
  assert.equal(fmt(alignmentRow(scale(chai, 2), notes)[2]), '0.936')
  assert.deepEqual(alignmentRow(scale(chai, 0), notes).map((v) => fmt(v)), ['0.333', '0.333', '0.333'])
  assert.deepEqual(alignmentRow(chai, notes).map((v) => fmt(v)), ['0.100', '0.164', '0.736'])
})

