// The audit of reads for the user (GET /v1/users/{id}/reads): every recall, newest first, with the
// key's fingerprint, the agent, the query's digest (never its text) and what was returned.

import { call, seg } from "./api.js";
import { h, replace, short, when } from "./dom.js";

const PAGE = 50;

export async function renderReads(body, user, context) {
  const rows = h("tbody");
  const more = h("button", { type: "button", hidden: true }, "Older reads");
  replace(body,
    h("section.reads-view", {},
      h("h2", {}, "Reads of this user's memories"),
      h("p.hint", {}, "One line per recall. The query is kept only as a digest: equal queries share it."),
      h("table.reads", {},
        h("thead", {}, h("tr", {}, ["when", "agent", "key", "query digest", "memories", "quotes"].map((c) => h("th", { scope: "col" }, c)))),
        rows),
      more));
  let cursor = null;
  async function load() {
    const page = await call("GET", `/v1/users/${seg(user)}/reads`, { query: { limit: PAGE, cursor } });
    for (const r of page.reads) {
      rows.append(h("tr", { dataset: { readId: r.id } },
        h("td", {}, when(r.at)),
        h("td", {}, r.agent_id || "—"),
        h("td", {}, h("code", {}, r.key_id || "—")),
        h("td", {}, h("code", { title: r.query_digest }, short(r.query_digest))),
        h("td", {}, r.memory_ids.length ? h("span", { title: r.memory_ids.join(" ") }, `${r.memory_ids.length}: ${r.memory_ids.map(short).join(", ")}`) : "0"),
        h("td.num", {}, String(r.episode_ids.length))));
    }
    cursor = page.next_cursor;
    more.hidden = !cursor;
    if (!rows.childElementCount) rows.append(h("tr", {}, h("td.empty", { colspan: 6 }, "No recall has read this user yet.")));
  }
  more.addEventListener("click", () => load().catch(context.say.error));
  await load();
  context.ready("reads");
}
