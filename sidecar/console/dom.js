// Building the page: every piece of data goes in as text (text nodes, attributes),
// never as markup. The page's Content-Security-Policy requires Trusted Types, so assigning a
// string of markup to an element would throw rather than render.

/** h("tag.class", {attr: value, onclick: fn}, ...children): children are nodes or plain text. */
export function h(spec, attrs = {}, ...children) {
  const [tag, ...classes] = spec.split(".");
  const el = document.createElement(tag);
  if (classes.length) el.className = classes.join(" ");
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") {
      el.addEventListener(name.slice(2), value);
    } else if (name === "dataset") {
      Object.assign(el.dataset, value);
    } else if (name === "value" || name === "checked") {
      el[name] = value;
    } else if (name === "style" || name.startsWith("on")) {
      throw new Error(`h(): ${name} is not set from data`);
    } else {
      el.setAttribute(name, value === true ? "" : String(value));
    }
  }
  append(el, children);
  return el;
}

export function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

export function clear(el) {
  while (el.firstChild) el.firstChild.remove();
  return el;
}

export function replace(el, ...children) {
  return append(clear(el), children);
}

/** "2026-10-04 12:30 UTC", or an em dash when absent. */
export function when(iso) {
  if (!iso) return "—";
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return String(iso);
  return date.toISOString().slice(0, 16).replace("T", " ") + " UTC";
}

export function fixed(value, digits = 2) {
  return typeof value === "number" ? value.toFixed(digits) : "—";
}

export function short(id) {
  return String(id || "").slice(0, 8);
}

/** A labelled 0..1 score as a <meter> with its number beside it. */
export function score(label, value, absent = "—") {
  const known = typeof value === "number";
  return h(
    "span.score",
    { title: `${label} ${known ? fixed(value) : absent}` },
    h("span.score-label", {}, label),
    known ? h("meter", { min: 0, max: 1, value }) : null,
    h("span.score-value", {}, known ? fixed(value) : absent),
  );
}

export function badge(text, kind = "") {
  return h(kind ? `span.badge.${kind}` : "span.badge", {}, text);
}

/** A modal confirmation: resolves true when confirmed. Escape or Cancel resolves false. With
 * `typed`, the confirm button stays disabled until that exact text is typed. */
export function confirmAction({ title, lines = [], confirm = "Confirm", typed = null, danger = false }) {
  return new Promise((resolve) => {
    const input = typed
      ? h("input", { type: "text", autocomplete: "off", spellcheck: "false", "aria-label": `type ${typed} to confirm` })
      : null;
    const ok = h(danger ? "button.danger" : "button.primary", { type: "submit", value: "confirm" }, confirm);
    const cancel = h("button", { type: "button" }, "Cancel");
    const form = h(
      "form",
      { method: "dialog" },
      h("h2", {}, title),
      lines.map((line) => h("p", {}, line)),
      typed ? h("label", {}, `Type ${typed} to confirm: `, input) : null,
      h("div.actions", {}, cancel, ok),
    );
    const dialog = h("dialog.confirm", { "aria-label": title }, form);
    let settled = false;
    const done = (value) => {
      if (settled) return;
      settled = true;
      if (dialog.open) dialog.close();
      dialog.remove();
      resolve(value);
    };
    if (input) {
      ok.disabled = true;
      input.addEventListener("input", () => {
        ok.disabled = input.value !== typed;
      });
    }
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      if (!ok.disabled) done(true);
    });
    cancel.addEventListener("click", () => done(false));
    dialog.addEventListener("close", () => done(false));
    document.body.append(dialog);
    dialog.showModal();
    (input || cancel).focus();
  });
}
