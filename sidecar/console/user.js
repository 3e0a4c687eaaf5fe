// One user: the overview (GET /v1/users/{id}) above four tabs: beliefs and episodes, the recall
// playground, the audit of reads, and the export and erasure.

import { call, seg } from "./api.js";
import { h, replace, when } from "./dom.js";
import { renderBeliefs } from "./beliefs.js";
import { renderData } from "./data.js";
import { renderReads } from "./reads.js";
import { renderRecall } from "./recall.js";

const TABS = [
  ["beliefs", "Beliefs & episodes", renderBeliefs],
  ["recall", "Recall playground", renderRecall],
  ["reads", "Reads audit", renderReads],
  ["data", "Export & erase", renderData],
];

export function overviewLine(overview) {
  const states = Object.entries(overview.memories).filter(([, n]) => n).map(([s, n]) => `${n} ${s}`);
  const episodes = Object.entries(overview.episodes).filter(([, n]) => n).map(([s, n]) => `${n} ${s}`);
  return [
    h("span", {}, `Memories: ${states.join(" · ") || "none"}`),
    h("span", {}, `Episodes: ${episodes.join(" · ") || "none"}`),
    h(overview.open_contested ? "span.warn" : "span", {}, `Contested: ${overview.open_contested} open`),
    h("span", {}, `Newest memory ${when(overview.last_memory_at)} · last said ${when(overview.last_said_at)}`),
  ];
}

export async function renderUser(main, crumbs, where, context) {
  const { user, tab } = where;
  const base = `#/u/${seg(user)}`;
  const [, label, render] = TABS.find(([name]) => name === tab) || TABS[0];
  replace(crumbs, h("a", { href: "#/" }, "Users"), " › ", h("span", {}, user), " › ", h("span", {}, label));
  const summary = h("p.overview", { "aria-live": "polite" }, "Loading…");
  const body = h("div.tab-body");
  replace(
    main,
    h("section.user-view", {},
      h("h1", {}, user),
      summary,
      h("nav.tabs", { "aria-label": "Views of this user" },
        TABS.map(([name, text]) => h("a.tab", {
          href: name === "beliefs" ? base : `${base}/${name}`,
          "aria-current": name === (TABS.find(([n]) => n === tab) ? tab : "beliefs") ? "page" : null,
        }, text))),
      body),
  );
  const refresh = async () => {
    const overview = await call("GET", `/v1/users/${seg(user)}`);
    replace(summary, overviewLine(overview));
    return overview;
  };
  const overview = await refresh();
  await render(body, user, { ...context, overview, refresh });
}
