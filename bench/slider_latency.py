"""Every widget's main control: time from an input to the DOM updated (issues 2 and 9: goal
p95 <= 4 ms in Chromium).

    .venv/bin/python bench/slider_latency.py [widget name ...]      (default: every one in use)
    .venv/bin/python bench/slider_latency.py inside-block:stage,width,pre   (these controls)

Serves the site as production does (page_weight.production_site), and for every use of every
registered widget in a written section (a locked section opened as a buyer: buyer_session())
opens the page in headless Chromium at 360 px and operates the control the widget declared
(``control=`` when it registers: the element with that data-target) INPUTS times after WARMUP
untimed inputs: a range walks its steps from min to max and back, a select cycles its options,
a text field alternates two values, a button or checkbox is clicked. For each input,
performance.now() is read in the page just before dispatching and again in a listener for the
widget's "<tag>:update" event, which kit.js elements emit after writing every number (dispatch
is synchronous for widgets that compute in the page, so this is the whole script cost of one
input; a widget that asks the server is timed to its update too). performance.now() is
coarsened to 0.1 ms in pages that are not cross-origin isolated, so a second row times batches
of 10 inputs (mean per input). Also: the same with the CPU slowed 4x (DevTools throttling,
roughly a mid-range phone), and up to style and layout done (forced by reading a box); painting
follows at the next frame. A reference is timed in the same page the same way: a bare range
input whose listener writes one text node and emits the event (the floor of "input -> update"
on this machine at this moment), in batches of 10; the ratio of the widget's batches to it is
steadier than either figure on a busy machine. Figures are printed, never asserted.
"""

from __future__ import annotations

import os
import statistics
import sys
from typing import Any

from page_weight import CHROMIUM, CHROMIUM_ARGS, buyer_session, production_site, written_sections

INPUTS = 200
WARMUP = 30
GOAL_MS = 4.0

_MEASURE = """async ([id, name, control, n, warmup, batch, layout]) => {
  let el = document.getElementById(id)
  if (id === null) {  // the reference: a bare range, one text node written, one event emitted
    el = document.createElement('div')
    el.innerHTML = '<input type="range" min="0" max="3" step="0.1" data-target="x"><span></span>'
    document.body.append(el)
    const out = el.querySelector('span')
    el.addEventListener('input', (e) => {
      out.textContent = Number(e.target.value).toFixed(1)
      el.dispatchEvent(new CustomEvent(`${name}:update`, {bubbles: true}))
    })
  }
  const c = el.querySelector(`[data-target~="${control}"]`)
  if (!c) throw new Error(`#${id} has no data-target=${control}`)
  const kind = c.tagName.toLowerCase() + ':' + (c.type || '')
  let values = []
  if (kind === 'input:range') {
    const min = Number(c.min || 0), max = Number(c.max || 100)
    const step = c.step === 'any' || !c.step ? (max - min) / 100 : Number(c.step)
    const k = Math.max(1, Math.round((max - min) / step))
    for (let i = 0; i < 2 * k; i++) values.push(String(min + (i <= k ? i : 2 * k - i) * step))
  }
  const texts = [c.value || 'I drink tea', (c.value || 'I drink tea') + ' now']
  let i = 0
  const act = () => {
    const k = i++
    if (kind === 'input:range') {
      c.value = values[k % values.length]
      c.dispatchEvent(new Event('input', {bubbles: true}))
    } else if (kind.startsWith('select')) {
      c.selectedIndex = (c.selectedIndex + 1) % c.options.length
      c.dispatchEvent(new Event('input', {bubbles: true}))
      c.dispatchEvent(new Event('change', {bubbles: true}))
    } else if (kind === 'textarea:textarea' || /^input:(text|search)$/.test(kind)) {
      c.value = texts[k % 2]
      c.dispatchEvent(new Event('input', {bubbles: true}))
    } else {
      c.click()
    }
  }
  let done = 0, updates = 0, wake = null
  el.addEventListener(`${name}:update`, () => { done = performance.now(); updates++; wake?.() })
  const samples = []
  for (let s = 0; s < n + warmup; s++) {
    const before = updates
    const t0 = performance.now()
    for (let b = 0; b < batch; b++) act()
    if (updates - before < batch) {  // an update that comes later (e.g. from the server)
      await new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${name}: no update event`)), 10000)
        wake = () => { if (updates - before >= batch) { clearTimeout(timer); resolve() } }
      })
      wake = null
    }
    let t1 = done
    if (layout) { document.documentElement.getBoundingClientRect(); el.offsetHeight
                  t1 = performance.now() }
    if (s >= warmup) samples.push((t1 - t0) / batch)
  }
  return {samples, kind}
}"""


def _p(samples: list[float], q: float) -> float:
    s = sorted(samples)
    return s[min(len(s) - 1, round(q * (len(s) - 1)))]


def _summary(samples: list[float]) -> str:
    return (
        f"p50 {statistics.median(samples):6.3f}  p95 {_p(samples, 0.95):6.3f}  "
        f"max {max(samples):6.3f}  mean {statistics.fmean(samples):6.3f}"
    )


def _wanted(args: list[str]) -> dict[str, list[str]]:
    """Widget name -> the controls (data-target names) to time; [] = its declared one."""
    out: dict[str, list[str]] = {}
    for a in args:
        name, _, controls = a.partition(":")
        out.setdefault(name, []).extend(c for c in controls.split(",") if c)
    return out


def _time(browser: Any, site: str, buyer: Any, page: Any, use: Any, control: str) -> Any:
    """One control of one widget use: the rows of figures printed, its p95 returned."""
    context = browser.new_context(viewport={"width": 360, "height": 740})
    if not page.free and buyer is not None:
        context.add_cookies([{"name": buyer[0], "value": buyer[1], "url": site}])
    tab = context.new_page()
    tab.goto(site + page.path)
    # a widget loads its module (and a large state) when it comes near the screen
    tab.locator(f"#{use.id}").scroll_into_view_if_needed()
    tab.wait_for_function(
        "(id) => document.getElementById(id)?.hasAttribute('data-upgraded')", arg=use.id
    )
    cdp = context.new_cdp_session(tab)
    print(
        f"\n<{use.name}> #{use.id} on §{page.number}: {INPUTS} inputs on its control "
        f"{control!r} after {WARMUP} warm-up inputs, times in ms"
    )
    rows = []
    for label, rate, batch, layout in (
        ("input -> update event", 1, 1, False),
        ("  same, mean of 10 inputs per sample", 1, 10, False),
        ("  same, CPU 4x slower", 4, 1, False),
        ("input -> update + style and layout", 1, 1, True),
        ("  same, CPU 4x slower", 4, 1, True),
    ):
        cdp.send("Emulation.setCPUThrottlingRate", {"rate": rate})
        args = [use.id, use.name, control, INPUTS, WARMUP, batch, layout]
        result = tab.evaluate(_MEASURE, args)
        rows.append(result["samples"])
        print(f"{label:<40} {_summary(result['samples'])}")
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": 1})
    ref = tab.evaluate(_MEASURE, [None, "reference", "x", INPUTS, WARMUP, 10, False])
    print(f"{'reference: bare range, mean of 10':<40} {_summary(ref['samples'])}")
    ratio = statistics.fmean(rows[1]) / max(statistics.fmean(ref["samples"]), 1e-3)
    print(f"(the control is a {result['kind']}; mean of 10-input batches / reference "
          f"mean: {ratio:.1f}x)")  # fmt: skip
    verdict = (use, control, _p(rows[0], 0.95))
    context.close()
    return verdict


def main(args: list[str]) -> None:
    only = _wanted(args)
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    if not CHROMIUM.exists():
        print("skipped: needs Debian's chromium at /usr/bin/chromium (make browsers)")
        return
    from playwright.sync_api import sync_playwright

    from mathmachine.coursebook import widgets

    uses = [
        (page, use)
        for page in written_sections()
        for use in page.section.widgets
        if not only or use.name in only
    ]
    unused = sorted(set(widgets.names()) - {use.name for _, use in uses})
    verdicts = []
    with production_site() as site, sync_playwright() as p:
        buyer = buyer_session(site) if any(not page.free for page, _ in uses) else None
        browser = p.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        for page, use in uses:
            widget = widgets.get(use.name)
            assert widget is not None
            for control in only.get(use.name) or [widget.control]:
                verdicts.append(_time(browser, site, buyer, page, use, control))
        browser.close()
    print(f"\ngoal p95 <= {GOAL_MS} ms (input -> DOM updated, CPU unthrottled):")
    for use, control, p95 in verdicts:
        verdict = "within" if p95 <= GOAL_MS else "OVER"
        print(f"  <{use.name}> #{use.id} {control!r}: {p95:.3f} ms, {verdict} the goal")
    if unused and not only:
        print(f"registered but used in no written section (not timed): {', '.join(unused)}")


if __name__ == "__main__":
    main(sys.argv[1:])
