// Contested pairs of the user (GET /v1/contested): a value kept flipping, so the memory waits for a
// person's decision. Resolving one (POST /v1/contested/{id}/resolve) is confirmed first, and its
// answer (the decided value, now a belief) is shown.

import { call, seg } from "./api.js";
import { confirmAction, h, replace, short, when } from "./dom.js";

function slotItem(slot, context) {
  const values = [...new Set(slot.value_history.map((v) => v.value).filter(Boolean))];
  const name = `choice-${slot.id}`;
  const outcome = h("div.outcome", { "aria-live": "polite" });
  const form = h("form.resolve", { "aria-label": `Resolve ${slot.entity} ${slot.attribute}` },
    h("fieldset", {}, h("legend", {}, "Which value holds?"),
      values.map((value, i) => h("label.choice", {}, h("input", { type: "radio", name, value, checked: i === values.length - 1 }), ` ${value}`))),
    h("button.primary", { type: "submit" }, "Resolve…"));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const value = new FormData(form).get(name);
    try {
      const yes = await confirmAction({
        title: `Resolve ${slot.attribute}?`,
        lines: [`${slot.entity} · ${slot.attribute} will hold “${value}” from now on.`],
        confirm: "Resolve",
      });
      if (!yes) return;
      const answer = await call("POST", `/v1/contested/${seg(slot.id)}/resolve`, { body: { value } });
      const held = answer.memories.map((m) => `${m.value ?? m.text} (memory ${short(m.id)})`).join(", ");
      const line = h("p.event", { role: "status" }, h("strong", {}, "Event: "),
        `resolved · ${slot.entity} · ${slot.attribute} · now holds ${held} · at ${when(answer.contested.resolved_at)}`);
      replace(outcome, line);
      form.remove();
      context.say.note(line.textContent);
      context.overview = await context.refresh();
    } catch (error) {
      context.say.error(error);
    }
  });
  return h("li.contested", { dataset: { contestedId: slot.id } },
    h("p", {}, h("strong", {}, `${slot.entity} · ${slot.attribute}`), ` contested since ${when(slot.opened_at)}`,
      slot.agent_id ? ` (private to ${slot.agent_id})` : ""),
    h("ol.flips", {}, slot.value_history.map((v) => h("li", {}, `${when(v.at)}: ${v.value ?? "—"}`, v.context ? ` (${v.context})` : ""))),
    outcome, form);
}

export async function renderContested(box, user, context) {
  const found = await call("GET", "/v1/contested", { query: { user_id: user, status: "open" } });
  replace(box,
    h("section.contested-box", { "aria-labelledby": "contested-h" },
      h("h2", { id: "contested-h" }, `Contested (${found.contested.length} awaiting a decision)`),
      h("ul", {}, found.contested.map((slot) => slotItem(slot, context)))));
}
