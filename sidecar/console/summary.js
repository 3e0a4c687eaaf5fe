// One belief in a line or three: its text, its labels (state, trust, sensitivity, polarity, kind,
// privacy) and its scores (confidence, importance, freshness) with since when it holds.

import { badge, h, score, when } from "./dom.js";

export function memorySummary(m) {
  return [
    h("span.text", {}, m.text),
    h("span.badges", {},
      m.state !== "active" ? badge(m.state, `state-${m.state}`) : null,
      m.trust !== "trusted" ? badge(m.trust, `trust-${m.trust}`) : badge("trusted", "trust-trusted"),
      m.sensitivity ? badge(`sensitive: ${m.sensitivity}`, "sensitive") : null,
      m.polarity === "negative" ? badge("negative") : null,
      m.recall_semantics === "constraint" ? badge("constraint") : null,
      m.profile ? badge("profile") : null,
      m.visibility === "agent" ? badge(`private to ${m.agent_id}`) : null),
    h("span.scores", {},
      score("confidence", m.confidence),
      score("importance", m.importance),
      score("freshness", m.decay_score, "not scored yet"),
      h("span.fresh", {}, `since ${when(m.valid_from)}`,
        m.last_confirmed ? ` · confirmed ${when(m.last_confirmed)}` : "",
        m.expires_at ? ` · expires ${when(m.expires_at)}` : "")),
  ];
}
