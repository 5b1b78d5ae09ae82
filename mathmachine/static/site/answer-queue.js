// Answers given offline, sent when the connection returns (docs/offline.md, "Answers given
// offline"). checks.js keeps an answer whose request got no answer at all in localStorage, under
// "mm-queued:<owner>:<id>" (owner: the page's mm-owner, the signed-in learner's key or "";
// id: the answer's client_answer_id), and imports this module at a page's load and at the
// browser's "online" event when anything is kept.
//
// Here: an answer kept for another learner (the page's mm-owner differs: someone else signed
// in, or nobody after a sign-out or an expired session) is neither sent nor shown; it waits,
// untouched, until its own learner signs in again on this phone, and goes only after
// KEPT_DAYS without that. The learner's own are marked on the page ("saved on this phone", the
// answer in its boxes) and, online, sent in the order given, each with its id and its owner: the
// server grades each id once, and refuses an answer whose owner is not the learner signed in. An answer leaves the queue only once the server has answered it (2xx or 4xx with
// its JSON); no connection, a server error or a busy server leave it for the next time. Tabs
// take turns (Web Locks), so two tabs do not send the same answers at once.

const QUEUED = "mm-queued:";
const KEPT_DAYS = 30; // an answer waiting for a learner who never signs in again goes then
let running = null;

function meta(name) {
  const element = document.querySelector(`meta[name="${name}"]`);
  return element ? element.content : "";
}

function kept() {
  const out = [];
  for (let i = 0; i < localStorage.length; i += 1) {
    const key = localStorage.key(i);
    if (!key || !key.startsWith(QUEUED)) continue;
    let entry = null;
    try {
      entry = JSON.parse(localStorage.getItem(key));
    } catch (error) {
      entry = null; // not ours, or damaged: dropped below
    }
    out.push({ key, entry });
  }
  return out;
}

function sameSite(address) {
  try {
    return new URL(address, location.href).origin === location.origin;
  } catch (error) {
    return false;
  }
}

function valid(key, entry, owner) {
  return (
    entry !== null &&
    typeof entry === "object" &&
    entry.owner === owner &&
    key === `${QUEUED}${owner}:${entry.id}` &&
    typeof entry.action === "string" &&
    sameSite(entry.action) &&
    Array.isArray(entry.fields)
  );
}

/** This learner's kept answers, oldest first. Another learner's wait for them (KEPT_DAYS at
 * most); a damaged entry, or one not ours, is removed. */
export function mine(owner = meta("mm-owner")) {
  const own = [];
  const oldest = Date.now() - KEPT_DAYS * 24 * 3600 * 1000;
  for (const { key, entry } of kept()) {
    if (valid(key, entry, owner)) own.push({ key, entry });
    else if (!(entry && typeof entry.owner === "string" && valid(key, entry, entry.owner)))
      localStorage.removeItem(key);
    else if (!(Number(entry.at) > oldest)) localStorage.removeItem(key);
  }
  return own.sort((a, b) => (a.entry.at || 0) - (b.entry.at || 0));
}

function checkOnPage(entry) {
  const section = document.getElementById(`check-${entry.check}`);
  const form = section?.querySelector("form.check-form");
  return form && form.action === new URL(entry.action, location.href).href
    ? { section, form }
    : null;
}

async function send(entry) {
  const body = new FormData();
  for (const [name, value] of entry.fields) body.append(String(name), String(value));
  body.set("client_answer_id", entry.id);
  body.set("client_owner", entry.owner);
  // This page's CSRF token (the one the answer was given with may be older).
  const token = document.querySelector("input[name=csrfmiddlewaretoken]")?.value;
  if (token) body.set("csrfmiddlewaretoken", token);
  const response = await fetch(entry.action, {
    method: "POST",
    body,
    headers: { Accept: "application/json" },
    credentials: "same-origin",
  }); // no connection: throws, and the answer stays
  if (response.status >= 500 || response.status === 429) return null; // try again later
  try {
    return await response.json();
  } catch (error) {
    return null; // not the server's answer (a proxy's page): try again later
  }
}

async function sendAll(owner, ui) {
  for (const { key } of mine(owner)) {
    let entry;
    try {
      entry = JSON.parse(localStorage.getItem(key)); // another tab may have sent it
    } catch (error) {
      entry = null;
    }
    if (!entry || entry.owner !== meta("mm-owner")) continue;
    let data;
    try {
      data = await send(entry);
    } catch (error) {
      return false; // no connection after all
    }
    if (data === null) return false;
    // Its learner is no longer the one signed in (a sign-out in another tab): it waits for them.
    if (data.code === "other-learner") return true;
    localStorage.removeItem(key);
    const shown = checkOnPage(entry);
    if (!shown) continue;
    if (data.html) {
      const fresh = ui.show(shown.section, shown.form, data, { focus: false });
      // The verdict is announced: the fresh check's live region gets its text once it is in.
      const region = fresh.querySelector(".check-feedback");
      const lines = [...region.childNodes];
      region.replaceChildren();
      requestAnimationFrame(() => region.replaceChildren(...lines));
    } else if (data.error) {
      ui.say(shown.section, data.error, "unreadable", { focus: false });
    }
  }
  return true;
}

// A page opened while an answer waits (a kept page, offline): the answer is back in its boxes,
// and the check says it is saved on this phone.
function markWaiting(entry, ui) {
  const shown = checkOnPage(entry);
  if (!shown) return;
  for (const [name, value] of entry.fields) {
    const box = String(name).startsWith("answer") ? shown.form.elements.namedItem(name) : null;
    const typed = box instanceof HTMLInputElement && ["text", "number", "search"].includes(box.type);
    if (typed || box instanceof HTMLTextAreaElement) box.value = String(value);
  }
  ui.say(shown.section, ui.saved, "queued", { focus: false });
}

/** Mark this learner's waiting answers on the page, and send them if online.
 * Resolves to true once none of them waits, false if some do (no connection, or the server
 * could not answer). */
export function flush(ui) {
  const owner = meta("mm-owner");
  const own = mine(owner);
  if (!running) for (const { entry } of own) markWaiting(entry, ui);
  if (!own.length) return Promise.resolve(true);
  if (navigator.onLine === false) return Promise.resolve(false);
  if (running) return running;
  const run = () => sendAll(owner, ui);
  running = (navigator.locks ? navigator.locks.request("mm-answer-queue", run) : run()).finally(
    () => {
      running = null;
    },
  );
  return running;
}
