// How the widgets print a number in the browser: the same functions as the server's printer,
// mathmachine/printing.py, held to it by golden cases that module writes (tests/golden/
// printing.json, run by tests/js/golden.test.mjs and by tests/test_printing.py):
//
//   dec(-0.0251) -> '−0.025'   dec(x, places): fixed places, a real minus sign, never '−0.000'
//   plain(2) -> '2', plain(-0.5) -> '−0.5'      numbers as an author typed them
//   compact(2.0000000001) -> '2', compact(0.25) -> '0.250'   whole numbers whole, others dec
//   vec([0.1, -0.2]) -> '(0.100, −0.200)'      vec(xs, places), places null: plain
//   matrix([[1, -2]], null) -> '[[1, −2]]'
//   count(1048576) -> '1,048,576'              count(n, {indian: true}) -> '10,48,576'
//   rupees(26) -> '₹26', rupees(19.3) -> '₹19.30'
//   percent(1) -> '100%', percent(73 / 74) -> '98.6%'
//   signed('(-1, -2)') -> '(−1, −2)'           every hyphen, not only the first
//
// Decimals round as Python's do (half to even on the number's exact binary value: dec(0.125, 2)
// is '0.12', where toFixed would say '0.13'), so a number prints the same on the page the server
// wrote and after the script redraws it. No DOM here: Node imports this module.

export const MINUS = '\u2212'
export const RUPEE = '\u20b9'

function check(ok, message) {
  if (!ok) throw new RangeError(message)
}

/** Text with every hyphen-minus printed as a minus sign. */
export function signed(text) {
  return String(text).replaceAll('-', MINUS)
}

/** |x| to `places` decimals, correctly rounded half to even (no sign). */
function fixed(x, places) {
  check(Number.isInteger(places) && places >= 0 && places <= 20, `places must be 0..20, got ${places}`)
  const a = Math.abs(x)
  check(a < 1e21, `cannot print ${x} to fixed places`)
  // toFixed(100) is the double's exact decimal expansion for every |x| >= 2^-48; smaller ones
  // print as 0 at 20 places or fewer whatever the rounding.
  const [whole, frac] = a.toFixed(100).split('.')
  const digits = (whole + frac.slice(0, places)).split('').map(Number)
  const rest = frac.slice(places)
  const half = rest[0] === '5' && !/[1-9]/.test(rest.slice(1))
  const up = rest[0] > '5' || (rest[0] === '5' && !half) || (half && digits[digits.length - 1] % 2 === 1)
  if (up) {
    let i = digits.length - 1
    while (i >= 0 && digits[i] === 9) digits[i--] = 0
    if (i < 0) digits.unshift(1)
    else digits[i] += 1
  }
  const text = digits.join('')
  const cut = text.length - places
  const head = text.slice(0, cut).replace(/^0+(?=\d)/, '') || '0'
  return places ? `${head}.${text.slice(cut)}` : head
}

function finite(x) {
  check(typeof x === 'number' && Number.isFinite(x), `cannot print ${x}: a printed figure must be a finite number`)
  return x
}

/** A computed number as printed: fixed places, a real minus sign, never '−0.000'. */
export function dec(x, places = 3) {
  const text = fixed(finite(x), places)
  return x < 0 && /[1-9]/.test(text) ? MINUS + text : text
}

/** A number as an author typed it: 2 not 2.0, 0.5 as is, a real minus sign. */
export function plain(x) {
  finite(x)
  return signed(String(x === 0 ? 0 : x))
}

/** A whole number as it is ('2', '−1'), any other to `places` decimals: an entry someone may
 * have typed, or one computed from such entries. */
export function compact(x, places = 3) {
  const whole = Math.round(finite(x))
  return Math.abs(x - whole) < 1e-9 ? plain(whole) : dec(x, places)
}

/** A share (0.986…) as a percentage: '100%' when the percentage is whole (within 1e-9), else
 * to `places` decimals ('98.6%'). */
export function percent(share, places = 1) {
  const p = 100 * finite(share)
  const whole = Math.round(p)
  return `${Math.abs(p - whole) < 1e-9 ? plain(whole) : dec(p, places)}%`
}

/** How an entry prints: dec with `places` decimals, or plain for null (the server's printer()). */
export function printer(places = 3) {
  return places === null ? plain : (x) => dec(x, places)
}

function entry(places) {
  return printer(places)
}

/** A vector as printed: '(0.100, 0.164, 0.736)' (places null: every entry plain). */
export function vec(xs, places = 3) {
  const show = entry(places)
  return `(${xs.map((x) => show(x)).join(', ')})`
}

/** A matrix as the answer boxes read it: '[[0.500, −1.000], [2.000, 0.000]]'. */
export function matrix(rows, places = 3) {
  const show = entry(places)
  return `[${rows.map((r) => `[${r.map((x) => show(x)).join(', ')}]`).join(', ')}]`
}

function grouped(digits, indian) {
  if (digits.length <= 3) return digits
  let head = digits.slice(0, -3)
  const groups = [digits.slice(-3)]
  const size = indian ? 2 : 3
  while (head.length > size) {
    groups.unshift(head.slice(-size))
    head = head.slice(0, -size)
  }
  return [head, ...groups].join(',')
}

/** A whole number as printed: '1,048,576', or with {indian: true} '10,48,576'. */
export function count(n, {indian = false} = {}) {
  check(Number.isInteger(finite(n)), `a count is a whole number, got ${n}`)
  return (n < 0 ? MINUS : '') + grouped(String(Math.abs(n)), indian)
}

function money(paise, decimals) {
  const whole = Math.floor(Math.abs(paise) / 100)
  const rest = Math.abs(paise) % 100
  const text = `${paise < 0 ? MINUS : ''}${RUPEE}${grouped(String(whole), true)}`
  return rest || decimals ? `${text}.${String(rest).padStart(2, '0')}` : text
}

/** A computed price in rupees: '₹26' when it is whole, else two decimals ('₹19.30', '₹12.00'
 * for 11.996); {exact: true} always shows two decimals. Indian grouping. */
export function rupees(value, {exact = false} = {}) {
  finite(value)
  const whole = Math.round(value)
  if (Math.abs(value - whole) < 1e-9) return money(whole * 100, exact)
  const cents = Math.round(Number(fixed(value, 2)) * 100)
  return money(value < 0 ? -cents : cents, true)
}

/** The places of the largest values as printed at `places` decimals: one place, or every place
 * that ties with it once printed (0.422 and 0.422; 0.333 three times), so that a sentence never
 * names one winner where the reader sees a tie. */
export function leaders(values, places = 3) {
  const top = dec(Math.max(...values), places)
  return values.flatMap((v, i) => (dec(v, places) === top ? [i] : []))
}

/** "X takes the largest share, 0.644", "X and Y tie for the largest share, 0.422 each", or
 * "all three tie, 0.333 each", from the names and the weights (printed at `places`). */
export function largestShare(names, weights, places = 3) {
  const top = leaders(weights, places)
  const w = dec(weights[top[0]], places)
  if (top.length === 1) return `${names[top[0]]} takes the largest share, ${w}`
  if (top.length === weights.length) return `all ${weights.length} tie, ${w} each`
  const who = top.map((i) => names[i])
  return `${who.slice(0, -1).join(', ')} and ${who.at(-1)} tie for the largest share, ${w} each`
}
