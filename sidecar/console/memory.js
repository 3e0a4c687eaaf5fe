// One memory opened: its scores and slot, the turns it came from (quotes with date and speaker), its
// history as a timeline, and the actions a person may take on it (edit, revoke), each confirmed and
// answered with the event it wrote.

import { call, seg } from "./api.js";
import { badge, confirmAction, fixed, h, replace, short, when } from "./dom.js";
import { memorySummary } from "./summary.js";

function fields(m) {
  const rows = [
    ["id", m.id],
    ["type · topic", `${m.type} · ${m.topic}`],
    ["slot", [m.entity, m.attribute, m.value].filter((x) => x !== null && x !== undefined).join(" · ") || "—"],
    ["context", m.context || "—"],
    ["said by", `${m.source_role}${m.source_session ? ` in session ${m.source_session}` : ""}`],
    ["trust", m.trust],
    ["sensitivity", m.sensitivity || "none"],
    ["state", m.state],
    ["valid", `${when(m.valid_from)} → ${m.valid_until ? when(m.valid_until) : "now"}`],
    ["created", when(m.created_at)],
    ["last confirmed", when(m.last_confirmed)],
    ["recalled", `${m.access_count} time${m.access_count === 1 ? "" : "s"}, last ${when(m.last_accessed)}`],
    ["freshness", `decay score ${fixed(m.decay_score)}${m.half_life_days ? `, half-life ${m.half_life_days} days` : ""}`],
    ["evidence", m.evidence || "—"],
  ];
  return h("dl.fields", {}, rows.map(([k, v]) => [h("dt", {}, k), h("dd", {}, v)]));
}

function sourceList(sources) {
  if (!sources.sources.length) return h("p.empty", {}, "No source turn is recorded (a direct insert names none).");
  return h("ol.sources", {},
    sources.sources.map(({ turn_id, episode }) => h("li", {},
      episode
        ? [h("blockquote", {}, episode.text),
          h("p.cite", {}, "— ", h("span.speaker", {}, episode.speaker || episode.role),
            episode.speaker ? ` (${episode.role})` : "", ", ", h("time", { datetime: episode.said_at }, when(episode.said_at)),
            episode.session_id ? `, session ${episode.session_id}` : "", `, turn ${turn_id} `, badge(episode.trust, `trust-${episode.trust}`))]
        : h("p.cite", {}, `turn ${turn_id}: its words were not kept as an episode (or are out of this key's reach)`))),
    sources.total > sources.sources.length ? h("li", {}, `… and ${sources.total - sources.sources.length} more turns`) : null);
}

function timeline(memory) {
  return h("ol.timeline", {},
    memory.history.map((v) => h(v.id === memory.id ? "li.this" : "li", {},
      h("span.when", {}, `${when(v.valid_from)} → ${v.valid_until ? when(v.valid_until) : "now"}`), " ",
      badge(v.state, `state-${v.state}`), " ",
      h("span.value", {}, v.value ?? ""), " ",
      h("span.text", {}, v.text),
      v.superseded_by ? h("span.by", {}, ` superseded by ${short(v.superseded_by)}`) : null,
      v.revoked_at ? h("span.by", {}, ` revoked ${when(v.revoked_at)}`) : null,
      v.id === memory.id ? h("span.by", {}, " (this version)") : null)));
}

function eventLine(kind, parts) {
  return h("p.event", { role: "status" }, h("strong", {}, "Event: "), kind, " · ", parts.join(" · "));
}

function editForm(m, onSave) {
  const input = (name, value, attrs = {}) => h("input", { name, value: value ?? "", ...attrs });
  const form = h("form.edit", { "aria-label": "Edit this memory" },
    h("label", {}, "Text ", h("textarea", { name: "text", rows: 2, value: m.text, maxlength: 2000 })),
    h("label", {}, "Value ", input("value", m.value, { maxlength: 2000 })),
    h("label", {}, "Topic ", input("topic", m.topic, { maxlength: 64 })),
    h("label", {}, "Confidence ", input("confidence", m.confidence, { type: "number", min: 0, max: 1, step: 0.01 })),
    h("label", {}, "Importance ", input("importance", m.importance, { type: "number", min: 0, max: 1, step: 0.01 })),
    h("div.actions", {}, h("button.primary", { type: "submit" }, "Save as a new version")));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const changes = {};
    if (data.get("text") !== m.text) changes.text = data.get("text");
    if (data.get("value") && data.get("value") !== (m.value ?? "")) changes.value = data.get("value");
    if (data.get("topic") !== m.topic) changes.topic = data.get("topic");
    for (const name of ["confidence", "importance"]) {
      if (Number(data.get(name)) !== m[name]) changes[name] = Number(data.get(name));
    }
    onSave(changes);
  });
  return form;
}

export async function memoryDetail(detail, summary, m, context) {
  const { say } = context;
  replace(detail, h("p", {}, "Loading…"));
  const [memory, sources] = await Promise.all([
    call("GET", `/v1/memories/${seg(m.id)}`),
    call("GET", `/v1/memories/${seg(m.id)}/sources`),
  ]);
  const outcome = h("div.outcome", { "aria-live": "polite" });
  const actions = h("div.actions");
  const editing = h("div.editing");
  const isCurrent = memory.state === "active" && !memory.valid_until && !memory.revoked_at;

  async function show(updated, event) {
    replace(summary, memorySummary(updated));
    await memoryDetail(detail, summary, updated, context);
    detail.prepend(event);
    say.note(event.textContent);
    context.overview = await context.refresh();
  }

  async function revoke() {
    const yes = await confirmAction({
      title: "Revoke this memory?",
      lines: [`“${memory.text}”`, "It is never recalled again; the row stays in its history as revoked."],
      confirm: "Revoke", danger: true,
    });
    if (!yes) return;
    const revoked = await call("POST", `/v1/memories/${seg(memory.id)}/revoke`);
    await show(revoked, eventLine("revoked", [`memory ${short(revoked.id)}`, `at ${when(revoked.revoked_at)}`]));
  }

  async function save(changes) {
    if (!Object.keys(changes).length) {
      say.note("nothing changed: edit a field first");
      return;
    }
    const yes = await confirmAction({
      title: "Save this correction?",
      lines: [`Was: “${memory.text}”`, ...Object.entries(changes).map(([k, v]) => `${k} → ${v}`),
        "The correction is a new version; the old one stays in the history as superseded."],
      confirm: "Save",
    });
    if (!yes) return;
    const edited = await call("PATCH", `/v1/memories/${seg(memory.id)}`, { body: changes });
    await show(edited, eventLine("superseded + edited", [`old ${short(memory.id)} superseded`, `new ${short(edited.id)}`, `at ${when(edited.created_at)}`]));
  }

  if (isCurrent) {
    actions.append(
      h("button", { type: "button", onclick: () => {
        replace(editing, editForm(memory, (changes) => save(changes).catch(say.error)));
        editing.querySelector("textarea").focus();
      } }, "Edit…"),
      h("button.danger", { type: "button", onclick: () => revoke().catch(say.error) }, "Revoke…"),
    );
  } else {
    actions.append(h("p.note", {}, `This version is ${memory.state}: only the current belief can be changed.`));
  }
  replace(detail,
    outcome,
    h("div.detail-grid", {},
      h("section", {}, h("h5", {}, "Scores and slot"), fields(memory)),
      h("section", {}, h("h5", {}, "Came from"), sourceList(sources),
        h("h5", {}, "History"), timeline(memory))),
    actions, editing);
}
