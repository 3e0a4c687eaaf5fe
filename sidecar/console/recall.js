// The recall playground: what the assistant would be handed for a query (POST /v1/recall with
// diagnostics), in prompt order with each item's reason, what was suppressed and why, the conflicts,
// and the tokens used. A recall made here is audited like any other (see the reads tab).

import { call } from "./api.js";
import { badge, fixed, h, replace, short, when } from "./dom.js";

function liveIntent(text) {
  const intent = {};
  for (const [i, raw] of text.split("\n").entries()) {
    const line = raw.trim();
    if (!line) continue;
    const at = line.indexOf("=");
    if (at < 1) throw new Error(`live intent line ${i + 1}: write attribute = value`);
    intent[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  return intent;
}

function recalledItem(m, i) {
  return h("li.recalled", { dataset: { memoryId: m.id } },
    h("div.line", {}, h("span.rank", {}, `${i + 1}.`), " ", h("span.text", {}, m.text)),
    h("div.meta", {},
      badge(m.type), " ",
      m.type === "episode"
        ? `${m.speaker || m.role || "?"} · said ${when(m.said_at)} · `
        : `confidence ${fixed(m.confidence)} (effective ${fixed(m.effective_confidence)}) · `,
      `score ${fixed(m.score, 3)} · `, m.certainty !== "firm" ? `${m.certainty} · ` : "",
      m.needs_confirmation ? "worth confirming · " : "",
      h("span.reason", {}, `why: ${m.recall_reason}`)),
    m.context && m.context.length
      ? h("ul.context", {}, m.context.map((t) => h("li", {}, `${t.speaker || t.role} (${when(t.said_at)}): `, t.text)))
      : null);
}

function resultView(result) {
  const suppressed = [...result.suppressed, ...((result.diagnostics || {}).superseded_episodes || [])];
  return [
    h("p.tokens", {}, `${result.memories.length} item${result.memories.length === 1 ? "" : "s"} in the prompt · `,
      h("strong", {}, `${result.tokens_used} tokens used`),
      result.diagnostics ? ` · preset ${result.diagnostics.preset} · terms: ${result.diagnostics.terms.join(", ") || "none"}` : ""),
    h("h3", {}, "In prompt order"),
    result.memories.length ? h("ol.recall-list", {}, result.memories.map(recalledItem)) : h("p.empty", {}, "Nothing recalled."),
    h("h3", {}, `Conflicts (${result.conflicts.length})`),
    result.conflicts.length
      ? h("ul.conflicts", {}, result.conflicts.map((c) => h("li", {},
        h("strong", {}, `${c.kind}: ${c.entity} · ${c.attribute}`), " — ",
        c.values.map((v) => `${v.value ?? "—"}${v.context ? ` (${v.context})` : ""}`).join(" vs "),
        h("div.why", {}, c.why))))
      : h("p.empty", {}, "None."),
    result.confirmations.length
      ? [h("h3", {}, `To confirm with the user (${result.confirmations.length})`),
        h("ul", {}, result.confirmations.map((c) => h("li", {}, `“${c.text}” vs “${c.instruction}”: ${c.why}`)))]
      : null,
    h("h3", {}, `Suppressed (${suppressed.length})`),
    suppressed.length
      ? h("ul.suppressed", {}, suppressed.map((s) => h("li", {}, h("code", {}, short(s.id)), ` ${s.why}`)))
      : h("p.empty", {}, "Nothing suppressed."),
  ];
}

export async function renderRecall(body, user, context) {
  const output = h("div.recall-result", { "aria-live": "polite" });
  const form = h("form.recall", { "aria-label": "Recall for this user" },
    h("label.wide", {}, "Query ", h("textarea", { name: "query", rows: 2, maxlength: 4000, placeholder: "what the user just said" })),
    h("label", {}, "Live intent ", h("textarea", { name: "intent", rows: 2, placeholder: "attribute = value, one a line" })),
    h("label", {}, "Action ", h("input", { name: "action", maxlength: 128, placeholder: "e.g. recommend" })),
    h("label", {}, "Domain ", h("input", { name: "domain", maxlength: 128, placeholder: "e.g. restaurants" })),
    h("label", {}, "Budget (tokens) ", h("input", { name: "budget", type: "number", min: 1, max: 32000, value: 800 })),
    h("label.check", {}, h("input", { name: "untrusted", type: "checkbox" }), " also quote caution and untrusted episodes"),
    h("div.actions", {}, h("button.primary", { type: "submit" }, "Recall")));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const data = new FormData(form);
    try {
      const request = {
        user_id: user,
        query: data.get("query"),
        live_intent: liveIntent(data.get("intent")),
        budget_tokens: Number(data.get("budget")) || 800,
        diagnostics: true,
        include_untrusted_evidence: data.get("untrusted") === "on",
      };
      if (data.get("action").trim()) {
        request.action = { action: data.get("action").trim(), domain: data.get("domain").trim() || null };
      }
      replace(output, h("p", {}, "Recalling…"));
      const result = await call("POST", "/v1/recall", { body: request });
      replace(output, resultView(result));
      context.ready("recall-result");
    } catch (error) {
      replace(output);
      context.say.error(error);
    }
  });
  replace(body, h("section.recall-view", {}, h("h2", {}, "What the assistant would see"), form, output));
  context.ready("recall");
  form.querySelector("textarea").focus();
}
