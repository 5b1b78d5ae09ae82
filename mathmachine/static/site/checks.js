// Checks answer in place: the forms still work without JavaScript (a normal POST and redirect);
// with it, an answer (or "show me the worked answer") is sent in the background and the server's
// HTML replaces the check.
//
// Each answer carries an id made here (client_answer_id): the server takes an id once, so an
// answer sent again is answered as the first time. When the request gets no answer at all (no
// connection), the answer is kept on this phone (localStorage, under the page's mm-owner) and
// sent when the connection returns, by ./answer-queue.js, imported only then (docs/offline.md).

const QUEUED = "mm-queued:"; // + owner + ":" + id
const SAVED = "Saved on this phone, will be checked when you are online.";
const NOT_SAVED =
  "No connection, and this phone would not keep the answer: try again when you are online.";
const REVEAL_OFFLINE = "The worked answer needs a connection: ask again when you are online.";

function meta(name) {
  const element = document.querySelector(`meta[name="${name}"]`);
  return element ? element.content : "";
}

function answerId() {
  if (crypto.randomUUID) return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16)); // an insecure origin has no UUIDs
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

function say(section, text, kind, { focus = true } = {}) {
  const feedback = section.querySelector(".check-feedback");
  const line = document.createElement("p");
  line.className = `feedback feedback-${kind}`;
  line.textContent = text;
  feedback.replaceChildren(line);
  if (focus) {
    feedback.setAttribute("tabindex", "-1");
    feedback.focus();
  }
}

function keep(form, body, id) {
  const owner = meta("mm-owner");
  const entry = {
    id,
    owner,
    action: form.action,
    check: form.closest(".check").dataset.check,
    fields: [...body.entries()].filter(([, value]) => typeof value === "string"),
    at: Date.now(),
  };
  try {
    localStorage.setItem(`${QUEUED}${owner}:${id}`, JSON.stringify(entry));
    return true;
  } catch (error) {
    return false; // storage refused or full
  }
}

// This learner's waiting answers (another learner's wait for them: answer-queue.js).
function queuedKeys() {
  const keys = [];
  const mine = `${QUEUED}${meta("mm-owner")}:`;
  try {
    for (let i = 0; i < localStorage.length; i += 1) {
      const key = localStorage.key(i);
      if (key?.startsWith(mine)) keys.push(key);
    }
  } catch (error) {
    // no storage: nothing was kept
  }
  return keys;
}

// Tried at a page's load and at "online"; when some answer could not go (the connection is
// back for the page before it is for the worker, a server busy or down), again after 1, 2, 4,
// 8 and 16 seconds.
let retries = 0;
let retryTimer = null;

async function sendQueued() {
  clearTimeout(retryTimer);
  if (!queuedKeys().length) return;
  let done = false;
  try {
    const queue = await import("./answer-queue.js");
    done = await queue.flush({ show, say, saved: SAVED });
  } catch (error) {
    // the module did not load: still offline
  }
  if (done) retries = 0;
  else if (navigator.onLine !== false && retries < 5) {
    retryTimer = setTimeout(sendQueued, 1000 * 2 ** retries);
    retries += 1;
  }
}

function show(section, form, data, { focus = true } = {}) {
  const template = document.createElement("template");
  template.innerHTML = data.html.trim();
  const fresh = template.content.firstElementChild;
  section.replaceWith(fresh);
  const feedback = form.matches(".check-reveal")
    ? fresh.querySelector(".check-solution") || fresh.querySelector(".check-feedback")
    : fresh.querySelector(".check-feedback");
  if (focus) {
    // Move focus to the feedback so keyboard and screen-reader users hear the verdict.
    feedback.setAttribute("tabindex", "-1");
    feedback.focus();
  }
  fresh.dispatchEvent(new CustomEvent("check:answered", { bubbles: true, detail: data }));
  return fresh;
}

async function submitCheck(form) {
  const section = form.closest(".check");
  const button = form.querySelector("button[type=submit]");
  const answer = form.matches(".check-form");
  const body = new FormData(form);
  const id = answerId();
  if (answer) body.set("client_answer_id", id);
  button.disabled = true;
  let response;
  try {
    response = await fetch(form.action, {
      method: "POST",
      body,
      headers: { Accept: "application/json" },
      credentials: "same-origin",
    });
  } catch (error) {
    // No answer at all: no connection (or it dropped on the way; the id makes a second send
    // of an answer the server did take harmless). The answer is kept, not lost.
    button.disabled = false;
    if (!answer) say(section, REVEAL_OFFLINE, "note");
    else if (keep(form, body, id)) say(section, SAVED, "queued");
    else say(section, NOT_SAVED, "unreadable");
    return;
  }
  try {
    const data = await response.json();
    if (!data.html) throw new Error(data.error || "no feedback");
    show(section, form, data);
  } catch (error) {
    // Fall back to a normal form post: the server will answer with a full page.
    form.dataset.plain = "1";
    form.submit();
  } finally {
    button.disabled = false;
  }
}

document.addEventListener("submit", (event) => {
  const form = event.target;
  if (!(form instanceof HTMLFormElement) || !form.matches(".check-form, .check-reveal")) return;
  if (form.dataset.plain) return;
  event.preventDefault();
  submitCheck(form);
});

// Answers kept on this phone go when the connection returns: at a page's load, and when the
// browser says it is online.
window.addEventListener("online", () => {
  retries = 0;
  sendQueued();
});
sendQueued();
