// The console's shell: the key form, the one-line status, and the router from the URL's #fragment
// (which never holds the key) to a view. A view that fails leaves its error on the status line and
// a message in the page: never a blank page.

import { ApiError, oneLine, session } from "./api.js";
import { h, replace } from "./dom.js";
import { renderUsers } from "./users.js";
import { renderUser } from "./user.js";

const main = document.getElementById("main");
const status = document.getElementById("status");
const crumbs = document.getElementById("crumbs");
const keyForm = document.getElementById("key-form");
const keyInput = document.getElementById("key-input");
const keyHeld = document.getElementById("key-held");

/** The status line: one line, an error (role alert) or a note. */
export const say = {
  error(error) {
    const text = error instanceof ApiError ? error.message : oneLine(error && error.message ? error.message : error);
    status.textContent = text;
    status.title = text;
    status.className = "status error";
    status.setAttribute("role", "alert");
    if (error instanceof ApiError && error.status === 401) showKeyForm();
  },
  note(text) {
    status.textContent = oneLine(text);
    status.title = status.textContent;
    status.className = "status note";
    status.setAttribute("role", "status");
  },
  clear() {
    status.textContent = "";
    status.className = "status";
  },
};

function showKeyForm() {
  keyForm.hidden = false;
  keyHeld.hidden = true;
}

function showKeyHeld() {
  keyForm.hidden = true;
  keyHeld.hidden = false;
}

/** The route of the fragment: #/ (users), #/u/<user>[/<tab>]. */
function route() {
  const parts = location.hash.replace(/^#\/?/, "").split("/").filter(Boolean).map(decodeURIComponent);
  if (parts[0] === "u" && parts[1]) return { view: "user", user: parts[1], tab: parts[2] || "beliefs" };
  return { view: "users" };
}

let generation = 0;

/** Whether the render that started as `mine` is still the current one (the person may have moved on). */
export function current(mine) {
  return mine === generation;
}

async function render() {
  const mine = ++generation;
  const started = performance.now();
  main.removeAttribute("data-ready");
  if (!session.key) {
    showKeyForm();
    replace(crumbs);
    replace(
      main,
      h("section.welcome", {}, h("h1", {}, "Enter an API key"),
        h("p", {}, "The console reads and changes only what that key may: it calls the sidecar's public API with it. ",
          "The key stays in this browser tab (sessionStorage) and is sent only in the Authorization header.")),
    );
    keyInput.focus();
    return;
  }
  showKeyHeld();
  const where = route();
  const ready = (name) => {
    if (!current(mine)) return;
    main.dataset.ready = name;
    main.dataset.loadMs = String(Math.round(performance.now() - started));
  };
  try {
    if (where.view === "user") await renderUser(main, crumbs, where, { say, ready, mine });
    else await renderUsers(main, crumbs, { say, ready, mine });
  } catch (error) {
    if (!current(mine)) return;
    say.error(error);
    replace(
      main,
      h("section.failed", {}, h("h1", {}, "This view could not be shown"),
        h("p.error-line", {}, error instanceof ApiError ? error.message : oneLine(String(error))),
        h("p", {}, h("a", { href: "#/" }, "Back to the users"), " · ",
          h("button", { type: "button", onclick: () => render() }, "Try again"))),
    );
    main.dataset.ready = "failed";
  }
}

keyForm.addEventListener("submit", (event) => {
  event.preventDefault();
  const key = keyInput.value.trim();
  if (!key) return;
  session.set(key);
  keyInput.value = "";
  say.clear();
  render();
});

document.getElementById("key-forget").addEventListener("click", () => {
  session.forget();
  say.note("key forgotten");
  render();
});

window.addEventListener("hashchange", () => {
  say.clear();
  render();
});
window.addEventListener("error", (event) => say.error(event.error || event.message));
window.addEventListener("unhandledrejection", (event) => say.error(event.reason));
document.addEventListener("keydown", (event) => {
  const typing = /^(INPUT|TEXTAREA|SELECT)$/.test(document.activeElement?.tagName || "");
  if (event.key === "/" && !typing) {
    const search = document.querySelector("[data-search]");
    if (search) {
      event.preventDefault();
      search.focus();
    }
  }
});

render();
