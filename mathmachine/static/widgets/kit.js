// The widget kit (browser side): the base class every widget element extends. An element module
// imports WidgetElement (and write, hi, reducedMotion as it needs) from this file, then:
//
//   class SoftDictionaryElement extends WidgetElement {
//     upgrade(state) {                       // once, when the element first connects
//       this.on('input', 'beta', (range) => this.#draw(Number(range.value)))
//       this.#draw(state.beta)
//     }
//     #draw(beta) {
//       ...compute with a math module, print with printing.js: write(this.target('w'), dec(w))...
//       this.show(`β ${dec(beta, 1)}`)       // visible status; the slider speaks for itself
//       this.emit('update', {beta})          // "soft-dictionary:update", after the DOM is written
//     }
//   }
//   SoftDictionaryElement.define('soft-dictionary');
//
// What the kit does for every element:
// - reads the state the server rendered (child <script type="application/json" data-state>),
//   then shows the parts marked data-js (live controls, rendered hidden) and hides the parts
//   marked data-nojs (fallback the live view replaces); an element without a state stays the
//   fallback it is;
// - finds its named parts: target(name) / targets(name) are the elements with
//   data-target="name" that belong to this element (the nearest data-kit ancestor: not to a
//   widget nested inside it; the server's kit.element() writes data-kit); a target
//   the markup lacks throws, so a renderer and its script cannot drift apart silently;
// - binds by the same names: on(type, name, handler) is one delegated listener;
// - emits bubbling events named "<tag>:<type>" (every widget emits "<tag>:update" after each
//   DOM update: the tests and bench/slider_latency.py listen for it);
// - writes text: write(el, ...parts) touches the DOM only when the text changes; parts are
//   strings or nodes (hi('चाय') is a span with lang="hi"); show() writes the status line,
//   say() writes it and announces it once through the live region (kit.status() on the server).
// (No import statement may appear in this file's comments: collectstatic rewrites the pattern,
// and a file that seems to import itself never settles.) In element modules, keep the semicolon
// after each import: collectstatic points an import at its hashed name only then.

const STATE = ':scope > script[type="application/json"][data-state]'

export class WidgetElement extends HTMLElement {
  static define(tag, registry = customElements) {
    if (!registry.get(tag)) registry.define(tag, this)
    return this
  }

  /** Whether upgrade() needs a state (a widget does; a helper such as <proof-steps> may not). */
  static stateful = true

  state = null
  #upgraded = false
  #waiting = false
  #found = new Map()

  connectedCallback() {
    if (this.#upgraded || this.#waiting) return // moved in the DOM: already upgraded
    const script = this.querySelector(STATE)
    if (!script && this.constructor.stateful) return
    if (script && script.dataset.src) {
      // A large state is a file of its own (coursebook/state_files.py): fetched when the element
      // comes near the screen or is touched; until then the element is its fallback.
      this.#waiting = true
      whenNear(this, () => this.#fetchState(new URL(script.dataset.src, document.baseURI)))
      return
    }
    this.#finish(script ? JSON.parse(script.textContent) : {})
  }

  async #fetchState(url) {
    let state
    try {
      const response = await fetch(url, {credentials: 'same-origin'})
      if (!response.ok) throw new Error(`HTTP ${response.status}`)
      state = await response.json()
    } catch (error) {
      // Offline and not kept, or the server could not answer: the fallback stays, and the
      // next time the element comes near the screen the file is asked for again.
      return false
    }
    this.#waiting = false
    this.#finish(state)
    return true
  }

  #finish(state) {
    this.#upgraded = true
    this.state = state
    for (const el of this.#own('[data-js]')) el.hidden = false
    for (const el of this.#own('[data-nojs]')) el.hidden = true
    this.upgrade(this.state)
    this.setAttribute('data-upgraded', '')
  }

  /** Override: wire the controls and draw the first state. */
  upgrade(state) {}

  get upgraded() {
    return this.#upgraded
  }

  /** The one element named `name` (throws if the markup has none). */
  target(name) {
    const [el] = this.targets(name)
    if (!el) throw new Error(`<${this.localName}>: no element with data-target="${name}"`)
    return el
  }

  /** Every element named `name`, in document order (looked up once, then kept while they stay
   * in this element: call forget() after adding or replacing parts of the markup). */
  targets(name) {
    const kept = this.#found.get(name)
    if (kept && kept.every((el) => el.isConnected && this.contains(el))) return kept
    const found = this.#own(`[data-target~="${name}"]`)
    this.#found.set(name, found)
    return found
  }

  /** Forget the elements targets() kept (after the element added or rewrote named parts). */
  forget() {
    this.#found.clear()
  }

  /** One delegated listener: handler(el, event) for events inside a target named `name`. */
  on(type, name, handler) {
    this.addEventListener(type, (event) => {
      const el = event.target instanceof Element && event.target.closest(`[data-target~="${name}"]`)
      if (el && this.contains(el) && owner(el) === this) handler.call(this, el, event)
    })
  }

  /** Dispatch "<tag>:<type>" (bubbling) with `detail`. */
  emit(type, detail = {}) {
    this.dispatchEvent(new CustomEvent(`${this.localName}:${type}`, {bubbles: true, detail}))
  }

  /** Write the status line without announcing it (the control that changed speaks for itself). */
  show(...parts) {
    write(this.target('status'), ...parts)
  }

  /** Write the status line and announce it, once, through the live region. */
  say(...parts) {
    this.show(...parts)
    write(this.target('live'), ...parts.map((p) => (typeof p === 'string' ? p : p.cloneNode(true))))
  }

  #own(selector) {
    return [...this.querySelectorAll(selector)].filter((el) => owner(el) === this)
  }
}

/** The widget element an element belongs to. */
// Call `load` (async, true once done) when `el` comes within a screen of the viewport, or is
// pointed at, touched or focused; again at the next such moment while it answers false.
function whenNear(el, load) {
  let busy = false
  let observer = null
  const events = ['pointerenter', 'pointerdown', 'focusin']
  const stop = () => {
    if (observer) observer.disconnect()
    for (const type of events) el.removeEventListener(type, go)
  }
  async function go() {
    if (busy) return
    busy = true
    const done = await load()
    busy = false
    if (done) stop()
  }
  for (const type of events) el.addEventListener(type, go)
  if (typeof IntersectionObserver !== 'function') {
    go()
    return
  }
  observer = new IntersectionObserver((entries) => {
    if (entries.some((entry) => entry.isIntersecting)) go()
  }, {rootMargin: '100% 0px'})
  observer.observe(el)
}

function owner(el) {
  return el.parentElement?.closest('[data-kit]') ?? null
}

/** Set an element's content to `parts` (strings and nodes), touching the DOM only on change. */
export function write(el, ...parts) {
  if (parts.every((p) => typeof p === 'string')) {
    const text = parts.join('')
    if (el.textContent !== text || el.children.length) el.textContent = text
    return
  }
  el.replaceChildren(...parts)
}

/** Devanagari text marked as Hindi. */
export function hi(text) {
  const span = document.createElement('span')
  span.lang = 'hi'
  span.textContent = text
  return span
}

/** Whether the reader asked for reduced motion (checked at each use: it can change). */
export function reducedMotion() {
  return matchMedia('(prefers-reduced-motion: reduce)').matches
}
