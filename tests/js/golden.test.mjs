// Every golden file (tests/golden/*.json, written by `python -m mathmachine.coursebook golden`
// from the engine: math.json for the kit's math.js, one file per widget that recomputes) run in
// Node: each case calls an export of its module and must give the engine's answer (floats to the
// file's tolerance, text exactly). A widget gets this test by declaring golden=.
// Run: node --test tests/js/
import {test} from 'node:test'
import assert from 'node:assert/strict'
import {readdirSync, readFileSync} from 'node:fs'

const GOLDEN = new URL('../golden/', import.meta.url)
const STATIC = new URL('../../mathmachine/static/', import.meta.url)
const files = readdirSync(GOLDEN).filter((name) => name.endsWith('.json')).sort()

export function close(actual, expected, tolerance, what) {
  if (Array.isArray(expected)) {
    assert.ok(Array.isArray(actual), `${what}: expected a list, got ${actual}`)
    assert.equal(actual.length, expected.length, `${what}: length`)
    expected.forEach((e, i) => close(actual[i], e, tolerance, `${what}[${i}]`))
  } else if (expected !== null && typeof expected === 'object') {
    assert.deepEqual(Object.keys(actual).sort(), Object.keys(expected).sort(), `${what}: keys`)
    for (const k of Object.keys(expected)) close(actual[k], expected[k], tolerance, `${what}.${k}`)
  } else if (typeof expected === 'number') {
    assert.equal(typeof actual, 'number', `${what}: expected a number, got ${actual}`)
    assert.ok(
      Math.abs(actual - expected) <= tolerance,
      `${what}: got ${actual}, the engine says ${expected} (|diff| > ${tolerance})`,
    )
  } else {
    assert.equal(actual, expected, what)
  }
}

test('the golden files are there: the kit math and at least one widget', () => {
  assert.ok(files.includes('math.json'), files.join(', '))
  assert.ok(files.length >= 2, files.join(', '))
})

for (const name of files) {
  test(`${name}: every case equals the engine's answer`, async () => {
    const data = JSON.parse(readFileSync(new URL(name, GOLDEN), 'utf8'))
    assert.ok(data.tolerance > 0 && data.tolerance <= 1e-9, `tolerance ${data.tolerance}`)
    assert.ok(data.groups.length > 0, 'no groups')
    for (const group of data.groups) {
      const mod = await import(new URL(group.module, STATIC))
      assert.ok(group.cases.length > 0, `${group.source}: no cases`)
      for (const [i, c] of group.cases.entries()) {
        assert.equal(typeof mod[c.fn], 'function', `${group.module} exports no ${c.fn}`)
        const what = `${group.source} case ${i}: ${c.fn}(${JSON.stringify(c.args).slice(0, 80)})`
        close(mod[c.fn](...structuredClone(c.args)), c.out, data.tolerance, what)
      }
    }
  })
}

test('the comparison can fail: a wrong float, a wrong length and wrong text are caught', () => {
  assert.throws(() => close([0.1, 0.2], [0.1, 0.2 + 1e-9], 1e-12, 'x'))
  assert.throws(() => close([0.1], [0.1, 0.2], 1e-12, 'x'))
  assert.throws(() => close('0.736', '0.737', 1e-12, 'x'))
  assert.throws(() => close(3, 4, 1e-12, 'x'))
  assert.throws(() => close('3', 3, 1e-12, 'x'))
  close([0.1, '0.100', 2], [0.1 + 1e-15, '0.100', 2], 1e-12, 'x')
})
