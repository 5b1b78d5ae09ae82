// The site's service worker (docs/offline.md). Served at /sw.js by mathmachine/web/pwa.py, which
// puts `const CONFIG = {...}` before this text: the static URL prefix and the cache version, the
// stylesheet and mark of the offline page, and the course's name.
//
// - A page (a navigation): the network first, always. Online every page is the server's, fresh.
//   Offline, a section kept on this phone (a kept cache of the last learner seen), else the
//   offline page, made here, which says the page is not kept and links to what is.
// - Static files (hashed names, immutable), a section's fonts and its widgets' state files:
//   this phone's copy first, the network once, then kept in the shared static cache.
// - Anything else (a POST, the widgets' and checks' JSON, account, order and admin pages): the
//   network only; nothing of it is stored.
//
// The paywall: every page the server sends says who is signed in (X-MM-Owner) and which units
// they may keep (X-MM-Keep); at every such page every kept cache of someone else, or of a unit
// not listed (refunded), is deleted. Offline, only the last learner's kept copies are served.

/* global CONFIG */
"use strict";

const STATIC_CACHE = `mm-static-v${CONFIG.staticVersion}`;
const META_CACHE = "mm-meta";
const OWNER_ENTRY = "/__mm__/owner";
const KEPT_PREFIX = "mm-kept:";
// Where the unit page's script puts a unit while it downloads (site/keep-unit.js); never served.
const STAGING_PREFIX = "mm-keeping:";
const KEPT_INDEX = "/__mm__/kept/";
const HASHED = /\.[0-9a-f]{12}\.[A-Za-z0-9]+$/;
// A section's fonts and its widgets' state files (named by their hashes, immutable).
const SECTION_FONT = /^\/units\/[\w-]+\/(?:fonts|data)\/[^/]+$/;
const UNIT_PATH = /^\/units\/([\w-]+)\//;

// Install and activate -------------------------------------------------------------------------

self.addEventListener("install", (event) => {
  event.waitUntil(
    (async () => {
      // What the offline page shows; offline at install is no reason to fail it.
      try {
        const cache = await caches.open(STATIC_CACHE);
        await cache.addAll(CONFIG.offlineAssets);
      } catch (error) {
        /* fetched, and kept, at their first use instead */
      }
      await self.skipWaiting();
    })(),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) {
        if (name.startsWith("mm-static-") && name !== STATIC_CACHE) await caches.delete(name);
      }
      await self.clients.claim();
    })(),
  );
});

// Who reads, what they may keep ----------------------------------------------------------------

function keptName(owner, slug) {
  return `${KEPT_PREFIX}${owner}:${slug}`;
}

// A kept cache's owner and unit; with `staging`, a unit being downloaded counts too.
function parseKept(name, { staging = false } = {}) {
  const prefix = [KEPT_PREFIX, ...(staging ? [STAGING_PREFIX] : [])].find((p) =>
    name.startsWith(p),
  );
  if (!prefix) return null;
  const rest = name.slice(prefix.length);
  const colon = rest.indexOf(":");
  if (colon < 0) return { owner: null, slug: null };
  return { owner: rest.slice(0, colon), slug: rest.slice(colon + 1) };
}

async function lastOwner() {
  const meta = await caches.open(META_CACHE);
  const entry = await meta.match(OWNER_ENTRY);
  return entry ? (await entry.text()).trim() : null;
}

async function rememberOwner(owner) {
  const meta = await caches.open(META_CACHE);
  await meta.put(
    OWNER_ENTRY,
    new Response(owner, { headers: { "Content-Type": "text/plain; charset=utf-8" } }),
  );
}

// The server's word on a page: delete every kept cache it does not allow, remember the reader.
async function obey(owner, keepHeader) {
  const keep = new Set((keepHeader || "").split(/\s+/).filter(Boolean));
  await rememberOwner(owner);
  for (const name of await caches.keys()) {
    const kept = parseKept(name, { staging: true });
    if (kept && (!owner || kept.owner !== owner || !keep.has(kept.slug))) {
      await caches.delete(name);
    }
  }
}

// The last learner's kept caches (none when nobody is signed in, or nobody was seen). A cache
// is a kept copy only once its index entry is written, the last thing keeping does: one left
// unfinished (the page closed while it copied) is not served.
async function ownCaches() {
  const owner = await lastOwner();
  if (!owner) return [];
  const own = [];
  for (const name of await caches.keys()) {
    const kept = parseKept(name);
    if (!kept || kept.owner !== owner) continue;
    const cache = await caches.open(name);
    if (await cache.match(`${KEPT_INDEX}${kept.slug}.json`)) own.push(name);
  }
  return own;
}

function stores(response) {
  // Never a response the server said not to store, nor one that is not plainly our own.
  const control = (response.headers.get("Cache-Control") || "").toLowerCase();
  return response.ok && response.type === "basic" && !/\bno-store\b/.test(control);
}

// Pages ----------------------------------------------------------------------------------------

async function keptCopy(url) {
  const paths = [url.pathname];
  if (!url.pathname.endsWith("/")) paths.push(`${url.pathname}/`);
  for (const name of await ownCaches()) {
    const cache = await caches.open(name);
    for (const path of paths) {
      const hit = await cache.match(path, { ignoreSearch: true, ignoreVary: true });
      if (hit && stores(hit)) return hit;
    }
  }
  return null;
}

// A page of a kept unit, fetched fresh for its owner, replaces the kept copy (the learner's
// answers in it stay as they are on the server). Only a copy already kept is replaced.
async function refreshKept(url, owner, keepHeader, fresh) {
  const unit = UNIT_PATH.exec(url.pathname);
  if (!owner || !unit || !(keepHeader || "").split(/\s+/).includes(unit[1])) return;
  if (!stores(fresh) || url.search) return;
  const name = keptName(owner, unit[1]);
  if (!(await caches.has(name))) return;
  const cache = await caches.open(name);
  if (await cache.match(url.pathname, { ignoreVary: true })) await cache.put(url.pathname, fresh);
}

async function navigate(event) {
  const request = event.request;
  const url = new URL(request.url);
  let response;
  try {
    response = await fetch(request);
  } catch (error) {
    return (await keptCopy(url)) || offlinePage(url);
  }
  const owner = response.type === "basic" ? response.headers.get("X-MM-Owner") : null;
  if (owner !== null) {
    const keepHeader = response.headers.get("X-MM-Keep");
    const copy = response.clone();
    event.waitUntil(
      obey(owner, keepHeader).then(() => refreshKept(url, owner, keepHeader, copy)),
    );
  } else if (response.status >= 502 && response.status <= 504) {
    // The server is there but cannot answer (a deploy, a database outage): the kept copy, if
    // any, rather than "back in a moment".
    return (await keptCopy(url)) || response;
  }
  return response;
}

// Static files ---------------------------------------------------------------------------------

// The site's root files every page asks for (unhashed: the network first, then this copy).
const ROOT_FILES = new Set(["/favicon.ico", "/manifest.webmanifest"]);

function isStatic(url) {
  return (
    url.pathname.startsWith(CONFIG.staticUrl) ||
    SECTION_FONT.test(url.pathname) ||
    ROOT_FILES.has(url.pathname)
  );
}

async function keep(request, response) {
  if (!stores(response)) return;
  const cache = await caches.open(STATIC_CACHE);
  await cache.put(request, response);
}

async function staticFile(event) {
  const request = event.request;
  const url = new URL(request.url);
  const immutable = HASHED.test(url.pathname) || SECTION_FONT.test(url.pathname);
  if (immutable) {
    const copy = await caches.match(request, { ignoreVary: true });
    if (copy) return copy;
  }
  try {
    const response = await fetch(request);
    event.waitUntil(keep(request, response.clone()));
    return response;
  } catch (error) {
    // An unhashed name (a root file, a development server) was asked of the network first;
    // offline, its copy.
    const copy = await caches.match(request, { ignoreVary: true });
    if (copy) return copy;
    throw error;
  }
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.mode === "navigate") {
    event.respondWith(navigate(event));
  } else if (isStatic(url) && !request.headers.has("range")) {
    event.respondWith(staticFile(event));
  }
});

// A page tells the worker what its meta tags say (site/app.js). Heard only until the worker has
// seen a page itself (the very first page, which loaded before the worker ran): a page may be
// an old one, and only the server's answer to a navigation is the current word.
self.addEventListener("message", (event) => {
  const data = event.data || {};
  if (data.type !== "standing" || typeof data.owner !== "string") return;
  event.waitUntil(
    (async () => {
      if ((await lastOwner()) === null) await obey(data.owner, String(data.keep || ""));
    })(),
  );
});

// The offline page ------------------------------------------------------------------------------

function escapeHtml(text) {
  return String(text).replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c],
  );
}

async function titleOf(response) {
  const found = /<title>([^<]*)<\/title>/i.exec(await response.text());
  return found ? found[1].trim() : "";
}

// Every kept unit of the last learner: its page and its sections, by their own titles.
async function keptUnits() {
  const units = [];
  for (const name of await ownCaches()) {
    const { slug } = parseKept(name);
    const cache = await caches.open(name);
    const base = `/units/${slug}/`;
    const pages = [];
    let unitTitle = slug;
    for (const request of await cache.keys()) {
      const path = new URL(request.url).pathname;
      if (!path.startsWith(base)) continue;
      const rest = path.slice(base.length);
      const number = /^(\d+)\/$/.exec(rest);
      if (rest !== "" && !number) continue;
      const response = await cache.match(request, { ignoreVary: true });
      if (!response || !stores(response)) continue;
      const title = await titleOf(response);
      if (rest === "") unitTitle = title || slug;
      else pages.push({ path, number: Number(number[1]), title: title || path });
    }
    pages.sort((a, b) => a.number - b.number);
    if (pages.length || unitTitle !== slug) units.push({ slug, base, title: unitTitle, pages });
  }
  return units;
}

async function offlinePage(url) {
  const units = await keptUnits();
  const list = units
    .map(
      (unit) =>
        `<li><a href="${escapeHtml(unit.base)}">${escapeHtml(unit.title)}</a><ul>` +
        unit.pages
          .map((p) => `<li><a href="${escapeHtml(p.path)}">${escapeHtml(p.title)}</a></li>`)
          .join("") +
        "</ul></li>",
    )
    .join("");
  const kept = units.length
    ? `<h2>Kept on this phone</h2><ul class="offline-kept">${list}</ul>`
    : "<p>Nothing is kept on this phone yet. To read a unit you own with no connection, " +
      "open the unit's page when you are online and choose “Keep this unit on this " +
      "phone”: every section is then stored here.</p>";
  const name = escapeHtml(CONFIG.courseName);
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Not kept on this phone · ${name}</title>
<link rel="icon" href="${escapeHtml(CONFIG.icon)}" type="image/svg+xml">
<link rel="stylesheet" href="${escapeHtml(CONFIG.stylesheet)}">
</head>
<body>
<header class="site-header"><a class="brand" href="/">${name}</a></header>
<main id="main" class="offline-page">
<h1>You are offline</h1>
<p>This page (<code>${escapeHtml(url.pathname)}</code>) is not kept on this phone, so it cannot
open without a connection. <a href="${escapeHtml(url.pathname + url.search)}">Try again</a>
when you are online.</p>
${kept}
</main>
</body>
</html>
`;
  return new Response(html, {
    status: 200,
    headers: {
      "Content-Type": "text/html; charset=utf-8",
      "Cache-Control": "no-store",
      "Content-Security-Policy": CONFIG.offlineCsp,
      "X-MM-Offline": "1",
    },
  });
}
