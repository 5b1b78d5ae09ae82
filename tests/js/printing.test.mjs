// printing.js beyond its golden cases (tests/golden/printing.json, which the server's printer
// writes and golden.test.mjs runs): what it refuses. Run: node --test tests/js/
import {test} from 'node:test'
import assert from 'node:assert/strict'
import {compact, count, dec, largestShare, leaders, plain, rupees, signed, vec} from '../../mathmachine/static/widgets/printing.js'

test('every hyphen becomes a minus sign, not only the first', () => {
  assert.equal(signed('(-1, -2)'), '(\u22121, \u22122)')
  assert.equal(vec([-1, -2], null), '(\u22121, \u22122)')
})

test('what cannot be printed is refused, not printed as NaN', () => {
  for (const bad of [NaN, Infinity, -Infinity, '1', undefined]) {
    assert.throws(() => dec(bad), RangeError)
    assert.throws(() => plain(bad), RangeError)
  }
  assert.throws(() => dec(1, -1), RangeError)
  assert.throws(() => dec(1, 1.5), RangeError)
  assert.throws(() => count(1.5), RangeError)
  assert.throws(() => rupees(NaN), RangeError)
  assert.throws(() => dec(1e21), RangeError)
})

test('ties round half to even, as the server does (toFixed would round them up)', () => {
  assert.equal((0.125).toFixed(2), '0.13')
  assert.equal(dec(0.125, 2), '0.12')
  assert.equal(dec(-0.125, 2), '\u22120.12')
  assert.equal(compact(2.0000000001), '2')
})

test('a tie as printed is named as a tie', () => {
  assert.deepEqual(leaders([0.644, 0.237, 0.087, 0.032]), [0])
  assert.deepEqual(leaders([0.4221, 0.4219, 0.156]), [0, 1]) // both print 0.422
  assert.deepEqual(leaders([1 / 3, 1 / 3, 1 / 3]), [0, 1, 2])
  assert.equal(largestShare(['chai', 'coffee', 'lassi'], [0.7, 0.2, 0.1]), 'chai takes the largest share, 0.700')
  assert.equal(largestShare(['river', 'loan', 'bank'], [0.4221, 0.4219, 0.156]),
    'river and loan tie for the largest share, 0.422 each')
  assert.equal(largestShare(['I', 'drink', 'tea'], [1 / 3, 1 / 3, 1 / 3]), 'all 3 tie, 0.333 each')
})
