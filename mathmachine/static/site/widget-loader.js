// Each widget's module, loaded when the widget comes near the screen (issue 19, a first visit in
// <= 50 KB). The section's <head> names, per widget, the modules it declared:
//   <meta name="mm-widget" content="<element id> <module URL>">
// (learning/section.html, CompiledSection.widget_scripts). Until its module has loaded a widget
// is its fallback (text and tables, as without JavaScript); within a screen of the viewport, or
// pointed at, touched or focused, its modules load and the element upgrades itself (kit.js).
// A module that fails to load (offline, not kept) is asked for again at the next such moment.
'use strict'

const wanted = new Map()
for (const meta of document.querySelectorAll('meta[name="mm-widget"]')) {
  const [id, src] = meta.content.trim().split(/\s+/)
  if (!id || !src) continue
  if (!wanted.has(id)) wanted.set(id, [])
  wanted.get(id).push(src)
}

const loading = new Map() // module URL -> its promise (each module is asked for once at a time)

function loadModule(src) {
  if (!loading.has(src)) {
    const promise = import(src).catch(() => {
      loading.delete(src)
      return false
    })
    loading.set(src, promise)
  }
  return loading.get(src)
}

const observer =
  typeof IntersectionObserver === 'function'
    ? new IntersectionObserver(
        (entries) => {
          for (const entry of entries) if (entry.isIntersecting) load(entry.target)
        },
        {rootMargin: '100% 0px'},
      )
    : null

const EVENTS = ['pointerenter', 'pointerdown', 'focusin']

async function load(el) {
  const sources = wanted.get(el.id)
  if (!sources || el.dataset.loading !== undefined) return
  el.dataset.loading = ''
  const results = await Promise.all(sources.map(loadModule))
  delete el.dataset.loading
  if (results.every((r) => r !== false)) {
    wanted.delete(el.id)
    if (observer) observer.unobserve(el)
    for (const type of EVENTS) el.removeEventListener(type, onTouch)
  }
}

function onTouch(event) {
  load(event.currentTarget)
}

for (const id of wanted.keys()) {
  const el = document.getElementById(id)
  if (!el) continue
  for (const type of EVENTS) el.addEventListener(type, onTouch)
  if (observer) observer.observe(el)
  else load(el)
}
