// The site as an installed app (docs/offline.md): registers the service worker (/sw.js, every
// page in its scope) once the page has loaded, so it never competes with the page itself, and
// tells it what this page's meta tags say about who reads (the worker heeds it only until it has
// seen a page from the server itself).

function meta(name) {
  const element = document.querySelector(`meta[name="${name}"]`);
  return element ? element.content : "";
}

async function register() {
  try {
    await navigator.serviceWorker.register("/sw.js", { scope: "/" });
    const ready = await navigator.serviceWorker.ready;
    ready.active?.postMessage({ type: "standing", owner: meta("mm-owner"), keep: meta("mm-keep") });
  } catch (error) {
    // No worker (a private window, storage refused): the site works as before, online only.
  }
}

if ("serviceWorker" in navigator) {
  if (document.readyState === "complete") register();
  else window.addEventListener("load", register, { once: true });
}
