// Checks answer in place: the forms still work without JavaScript (a normal POST and redirect);
// with it, an answer (or "show me the worked answer") is sent in the background and the server's
// HTML replaces the check.

async function submitCheck(form) {
  const section = form.closest(".check");
  const button = form.querySelector("button[type=submit]");
  button.disabled = true;
  try {
    const response = await fetch(form.action, {
      method: "POST",
      body: new FormData(form),
      headers: { Accept: "application/json" },
      credentials: "same-origin",
    });
    const data = await response.json();
    if (!data.html) throw new Error(data.error || "no feedback");
    const template = document.createElement("template");
    template.innerHTML = data.html.trim();
    const fresh = template.content.firstElementChild;
    section.replaceWith(fresh);
    const feedback = form.matches(".check-reveal")
      ? fresh.querySelector(".check-solution") || fresh.querySelector(".check-feedback")
      : fresh.querySelector(".check-feedback");
    // Move focus to the feedback so keyboard and screen-reader users hear the verdict.
    feedback.setAttribute("tabindex", "-1");
    feedback.focus();
    fresh.dispatchEvent(new CustomEvent("check:answered", { bubbles: true, detail: data }));
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
