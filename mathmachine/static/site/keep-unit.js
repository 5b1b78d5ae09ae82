// "Keep this unit on this phone" (docs/offline.md): the unit page's control, for an owner only
// (learning/unit.html renders it for them; without JavaScript it says that keeping needs it).
//
// It asks the server what keeping takes (GET /units/<slug>/keep/: every address, the version,
// the bytes), says the size before, and on "Keep" fetches every address into a staging cache
// (mm-keeping:<owner>:<slug>) with progress shown; only once every file is in does it copy them
// into the kept cache mm-kept:<owner>:<slug> (the static files first, then the pages, then the
// index entry /__mm__/kept/<slug>.json {version, bytes, urls, kept_at}, which the worker needs
// to serve the copy at all). A download cut halfway keeps nothing new and leaves an older kept
// copy as it was. "Remove from this phone" deletes the kept cache; a kept version that is not
// the server's is out of date, and "Update" keeps the unit again the same way.

const KEPT_PREFIX = "mm-kept:";
const STAGING_PREFIX = "mm-keeping:";
const INDEX_PREFIX = "/__mm__/kept/";
const AT_ONCE = 4; // files fetched at the same time

const root = document.getElementById("keep-unit");

function meta(name) {
  const element = document.querySelector(`meta[name="${name}"]`);
  return element ? element.content.trim() : "";
}

function part(name) {
  return root.querySelector(`[data-keep="${name}"]`);
}

function kilobytes(bytes) {
  if (bytes >= 995_000) return `about ${(bytes / 1_000_000).toFixed(1)} MB`;
  return `about ${Math.max(1, Math.round(bytes / 1000))} KB`;
}

function when(iso) {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return "";
  return new Intl.DateTimeFormat("en-IN", { dateStyle: "long", timeStyle: "short" }).format(date);
}

class KeepFailure extends Error {}

// A response worth keeping: ours, whole, not redirected (a sign-in page in its place), and not
// one the server said never to store. Section pages are "private, no-cache": kept, and asked
// of the server again whenever there is a connection.
function keepable(response) {
  const control = (response.headers.get("Cache-Control") || "").toLowerCase();
  const ours = response.type === "basic" && !response.redirected;
  return response.ok && ours && !/\bno-store\b/.test(control);
}

function isPage(url) {
  return url.endsWith("/");
}

class KeepControl {
  constructor(element) {
    this.slug = element.dataset.unit;
    this.listUrl = element.dataset.list;
    this.owner = meta("mm-owner");
    this.name = `${KEPT_PREFIX}${this.owner}:${this.slug}`;
    this.staging = `${STAGING_PREFIX}${this.owner}:${this.slug}`;
    this.indexUrl = `${INDEX_PREFIX}${this.slug}.json`;
    this.list = null; // the server's keep list, once read
    this.kept = null; // the index entry of the kept copy, if any
    this.busy = false;
    this.state = part("state");
    this.progress = part("progress");
    this.count = part("count");
    this.buttons = { keep: part("keep"), update: part("update"), remove: part("remove") };
    this.buttons.keep.addEventListener("click", () => this.keep());
    this.buttons.update.addEventListener("click", () => this.keep());
    this.buttons.remove.addEventListener("click", () => this.remove());
    window.addEventListener("online", () => this.refresh());
    window.addEventListener("offline", () => this.refresh());
    part("live").hidden = false;
  }

  show(text, buttons = [], { focus = false } = {}) {
    this.state.textContent = text;
    for (const [name, button] of Object.entries(this.buttons)) {
      button.hidden = !buttons.includes(name);
    }
    if (focus) this.state.focus();
  }

  async readKept() {
    const cache = (await caches.has(this.name)) ? await caches.open(this.name) : null;
    const entry = cache ? await cache.match(this.indexUrl) : null;
    if (!entry) {
      // A kept cache without its index is a copy left unfinished (the page closed while it was
      // being written): the worker does not serve it; it goes.
      if (cache) await caches.delete(this.name);
      return null;
    }
    try {
      return await entry.json();
    } catch (error) {
      await caches.delete(this.name);
      return null;
    }
  }

  async readList() {
    let response;
    try {
      response = await fetch(this.listUrl, {
        credentials: "same-origin",
        cache: "no-store",
        headers: { Accept: "application/json" },
      });
    } catch (error) {
      return { error: "offline" };
    }
    let body = null;
    try {
      body = await response.json();
    } catch (error) {
      body = null;
    }
    if (!response.ok || !body || !Array.isArray(body.urls)) {
      const error = (body && body.error) || "The site could not say what keeping takes.";
      // A refusal (403: not signed in as an owner) is final; a failing server may be tried again.
      return { error, again: response.status >= 500 };
    }
    return { list: body };
  }

  // Draw the control from what is kept and what the server says now.
  async refresh({ focus = false, said = "" } = {}) {
    if (this.busy) return;
    this.kept = await this.readKept();
    const online = navigator.onLine !== false;
    let problem = "";
    let again = false;
    if (online) {
      const answer = await this.readList();
      if (answer.list) {
        this.list = answer.list;
      } else {
        problem = answer.error;
        again = Boolean(answer.again);
      }
    }
    const kept = this.kept;
    const list = online && !problem ? this.list : null;
    const prefix = said ? `${said} ` : "";
    if (kept) {
      const at = when(kept.kept_at);
      if (list && list.version !== kept.version) {
        this.show(
          `${prefix}The unit has changed since you kept it on this phone (${at}): the copy here ` +
            `is out of date. Update it (${kilobytes(list.bytes)}).`,
          ["update", "remove"],
          { focus },
        );
      } else {
        const note = online
          ? "Every section opens from this phone when there is no connection."
          : "You are offline: the sections open from this phone.";
        const text = `${prefix}Kept on this phone on ${at} (${kilobytes(kept.bytes)}). ${note}`;
        this.show(text, ["remove"], { focus });
      }
    } else if (!online || problem === "offline") {
      this.show(
        `${prefix}You are offline. Keep the unit on this phone when you have a connection.`,
        [],
        { focus },
      );
    } else if (problem) {
      this.show(`${prefix}${problem}`, again ? ["keep"] : [], { focus });
    } else {
      this.show(
        `${prefix}Every section, its widgets, fonts and figures, and the practice arena, to ` +
          `read with no connection: ${kilobytes(list.bytes)} (${list.urls.length} files).`,
        ["keep"],
        { focus },
      );
    }
  }

  counted(done, total) {
    this.progress.max = total;
    this.progress.value = done;
    this.count.textContent = `${done} of ${total} files`;
  }

  // Fetch every address into the staging cache, AT_ONCE at a time; the first failure stops it.
  async download(urls, stage) {
    let next = 0;
    let done = 0;
    let failure = null;
    const fetchOne = async (url) => {
      let response;
      try {
        // A page fetched to be kept is no visit (the server counts none: X-MM-Keeping).
        response = await fetch(url, {
          credentials: "same-origin",
          cache: isPage(url) ? "no-cache" : "default",
          headers: isPage(url) ? { "X-MM-Keeping": "1" } : {},
        });
      } catch (error) {
        throw new KeepFailure("The connection was lost");
      }
      if (!keepable(response)) {
        throw new KeepFailure(`The site did not give ${url} to keep (${response.status})`);
      }
      try {
        await stage.put(url, response); // reads the whole body: a cut body fails here
      } catch (error) {
        if (error && error.name === "QuotaExceededError") {
          throw new KeepFailure("This phone has no room left for it");
        }
        throw new KeepFailure("The connection was lost");
      }
    };
    const worker = async () => {
      while (failure === null && next < urls.length) {
        const url = urls[next++];
        try {
          await fetchOne(url);
        } catch (error) {
          failure ??= error;
          return;
        }
        done += 1;
        this.counted(done, urls.length);
      }
    };
    this.counted(0, urls.length);
    await Promise.all(Array.from({ length: Math.min(AT_ONCE, urls.length) }, worker));
    if (failure) throw failure;
  }

  // Every file is in the staging cache: into the kept cache, static files before the pages
  // that load them, what the old copy had and the new one does not out, the index last.
  async commit(list, stage) {
    const kept = await caches.open(this.name);
    const urls = [...list.urls.filter((u) => !isPage(u)), ...list.urls.filter(isPage)];
    for (const url of urls) {
      const response = await stage.match(url);
      if (!response) throw new KeepFailure(`${url} went missing while it was being kept`);
      await kept.put(url, response);
    }
    const now = new Set(list.urls);
    for (const url of (this.kept && this.kept.urls) || []) {
      if (!now.has(url)) await kept.delete(url);
    }
    const index = {
      version: list.version,
      bytes: list.bytes,
      urls: list.urls,
      kept_at: new Date().toISOString(),
    };
    await kept.put(
      this.indexUrl,
      new Response(JSON.stringify(index), {
        headers: { "Content-Type": "application/json; charset=utf-8" },
      }),
    );
  }

  async keep() {
    if (this.busy) return;
    this.busy = true;
    delete root.dataset.outcome;
    const updating = this.kept !== null;
    const doing = updating ? "Updating the copy on this phone…" : "Keeping the unit on this phone…";
    this.show(doing, [], { focus: true });
    this.progress.hidden = false;
    let said = "";
    let failed = false;
    try {
      const { list, error } = await this.readList();
      if (!list) {
        throw new KeepFailure(error === "offline" ? "There is no connection" : error);
      }
      this.list = list;
      // Addresses of this site only (a path, not "//another.site/").
      const urls = list.urls.filter((u) => typeof u === "string" && /^\/(?!\/)/.test(u));
      await caches.delete(this.staging);
      const stage = await caches.open(this.staging);
      await this.download(urls, stage);
      try {
        await this.commit({ ...list, urls }, stage);
      } catch (error) {
        // A first copy that could not be written whole goes (an update's older copy stays).
        if (!updating) await caches.delete(this.name);
        throw error;
      }
      if (navigator.storage && navigator.storage.persist) {
        navigator.storage.persist().catch(() => {}); // ask the browser not to evict it
      }
      said = updating ? "Updated." : "";
    } catch (error) {
      let why = error instanceof KeepFailure ? error.message : "Something went wrong";
      if (error && error.name === "QuotaExceededError") why = "This phone has no room left for it";
      why = why.replace(/\.$/, "");
      said = updating
        ? `${why}: the update stopped, and nothing of it was kept. ` +
          "The older copy is still on this phone."
        : `${why}: keeping stopped, and nothing was kept on this phone.`;
      failed = true;
    } finally {
      await caches.delete(this.staging).catch(() => {});
      this.busy = false;
      this.progress.hidden = true;
      this.count.textContent = "";
    }
    await this.refresh({ focus: true, said });
    root.dataset.outcome = failed ? "failed" : "kept"; // what the last action came to
  }

  async remove() {
    if (this.busy) return;
    delete root.dataset.outcome;
    await caches.delete(this.name);
    await caches.delete(this.staging);
    this.kept = null;
    await this.refresh({ focus: true, said: "Removed from this phone." });
    root.dataset.outcome = "removed";
  }
}

function start() {
  if (!root) return;
  const slug = root.dataset.unit;
  const owned = meta("mm-keep").split(/\s+/).includes(slug);
  if (!meta("mm-owner") || !owned) return; // the server renders the control for owners only
  if (!("caches" in window) || !("serviceWorker" in navigator)) {
    part("live").hidden = false;
    part("state").textContent =
      "This browser cannot keep pages for reading offline (a private window, or storage " +
      "turned off). Every section stays open to you online.";
    for (const name of ["keep", "update", "remove"]) part(name).hidden = true;
    return;
  }
  const control = new KeepControl(root);
  control.refresh().catch(() => {
    control.show("This browser would not let the unit be kept on this phone.", []);
  });
}

start();
