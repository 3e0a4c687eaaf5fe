// A user's belief state: current beliefs grouped by type and topic with their scores, each opening
// onto the turns it came from, its history and its actions; the episodes beside them, newest first;
// the contested pairs awaiting a decision above. Every list is a page at a time.

import { call, seg } from "./api.js";
import { badge, h, replace, when } from "./dom.js";
import { renderContested } from "./contested.js";
import { memoryDetail } from "./memory.js";
import { memorySummary } from "./summary.js";

const MEMORY_PAGE = 100;
const EPISODE_PAGE = 50;
const TYPES = ["fact", "preference", "decision", "procedure"];
const STATES = ["active", "all", "superseded", "contested", "consolidated", "revoked", "expired"];

function select(name, label, options, value) {
  return h("label.filter", {}, `${label} `,
    h("select", { name }, options.map(([v, text]) => h("option", { value: v, selected: v === value ? "" : null }, text))));
}

export async function renderBeliefs(body, user, context) {
  const { overview } = context;
  const typeOptions = [["", "every type"], ...TYPES.map((t) => [t, `${t} (${overview.current_by_type[t] || 0} current)`])];
  const topicOptions = [["", "every topic"], ...Object.entries(overview.current_by_topic).map(([t, n]) => [t, `${t} (${n})`])];
  const filters = h("form.filters", { "aria-label": "Which beliefs" },
    select("state", "State", STATES.map((s) => [s, s]), "active"),
    select("type", "Type", typeOptions, ""),
    select("topic", "Topic", topicOptions, ""),
    select("order", "Order", [["newest", "newest first"], ["oldest", "oldest first"]], "newest"));
  const groups = h("div.groups");
  const moreBeliefs = h("button", { type: "button", hidden: true }, "More beliefs");
  const episodes = h("ol.episodes");
  const moreEpisodes = h("button", { type: "button", hidden: true }, "More episodes");
  const contested = h("div.contested-slot");
  replace(
    body,
    h("div.beliefs-layout", {},
      h("section.col-beliefs", { "aria-labelledby": "beliefs-h" },
        contested,
        h("h2", { id: "beliefs-h" }, "Beliefs"),
        filters, groups, moreBeliefs),
      h("section.col-episodes", { "aria-labelledby": "episodes-h" },
        h("h2", { id: "episodes-h" }, "Episodes ", h("small", {}, "(turns kept as said, newest first)")),
        episodes, moreEpisodes)),
  );

  let beliefCursor = null;
  let sections = new Map();
  const refreshAll = async () => {
    const fresh = await context.refresh();
    context.overview = fresh;
    await Promise.all([loadBeliefs(true), loadContested()]);
  };

  function groupFor(m) {
    const key = `${m.type}\u0000${m.topic}`;
    if (!sections.has(key)) {
      let typeSection = groups.querySelector(`section[data-type="${CSS.escape(m.type)}"]`);
      if (!typeSection) {
        typeSection = h("section.type-group", { dataset: { type: m.type } },
          h("h3", {}, m.type, " ", h("small", {}, `${overview.current_by_type[m.type] || 0} current`)));
        const after = [...groups.children].find((s) => TYPES.indexOf(s.dataset.type) > TYPES.indexOf(m.type));
        groups.insertBefore(typeSection, after || null);
      }
      const list = h("ul.memories");
      typeSection.append(h("section.topic-group", {}, h("h4", {}, `topic: ${m.topic}`), list));
      sections.set(key, list);
    }
    return sections.get(key);
  }

  async function loadBeliefs(fresh) {
    const form = new FormData(filters);
    if (fresh) {
      beliefCursor = null;
      sections = new Map();
      replace(groups);
    }
    const page = await call("GET", `/v1/users/${seg(user)}/memories`, {
      query: { state: form.get("state"), type: form.get("type"), topic: form.get("topic"), order: form.get("order"),
        limit: MEMORY_PAGE, cursor: beliefCursor },
    });
    for (const m of page.memories) {
      const detail = h("div.detail");
      const summary = h("summary", {}, memorySummary(m));
      const item = h("details.memory", { dataset: { memoryId: m.id } }, summary, detail);
      item.addEventListener("toggle", () => {
        if (item.open && !detail.dataset.loaded) {
          detail.dataset.loaded = "1";
          memoryDetail(detail, summary, m, context).catch((error) => {
            delete detail.dataset.loaded;
            context.say.error(error);
          });
        }
      });
      groupFor(m).append(h("li", {}, item));
    }
    beliefCursor = page.next_cursor;
    moreBeliefs.hidden = !beliefCursor;
    if (!groups.childElementCount) groups.append(h("p.empty", {}, "No memory of this user matches."));
  }

  let episodeCursor = null;
  async function loadEpisodes() {
    const page = await call("GET", `/v1/users/${seg(user)}/episodes`, {
      query: { state: "all", order: "newest", limit: EPISODE_PAGE, cursor: episodeCursor },
    });
    for (const e of page.episodes) episodes.append(episodeItem(e));
    episodeCursor = page.next_cursor;
    moreEpisodes.hidden = !episodeCursor;
    if (!episodes.childElementCount) episodes.append(h("li.empty", {}, "No episode kept for this user."));
  }

  async function loadContested() {
    if (!context.overview.open_contested) {
      replace(contested);
      return;
    }
    await renderContested(contested, user, { ...context, refreshAll });
  }

  filters.addEventListener("change", () => loadBeliefs(true).catch(context.say.error));
  moreBeliefs.addEventListener("click", () => loadBeliefs(false).catch(context.say.error));
  moreEpisodes.addEventListener("click", () => loadEpisodes().catch(context.say.error));
  await Promise.all([loadBeliefs(true), loadEpisodes(), loadContested()]);
  context.ready("user");
}

export function episodeItem(e) {
  return h("li.episode", { dataset: { episodeId: e.id } },
    h("div.meta", {},
      h("time", { datetime: e.said_at }, when(e.said_at)), " · ",
      h("span.speaker", {}, e.speaker || e.role),
      e.speaker ? h("span.role", {}, ` (${e.role})`) : null, " ",
      badge(e.trust, `trust-${e.trust}`),
      e.state !== "active" ? badge(e.state, `state-${e.state}`) : null,
      e.memory_ids.length ? h("span.produced", {}, ` → ${e.memory_ids.length} belief${e.memory_ids.length > 1 ? "s" : ""}`) : null),
    h("blockquote", {}, e.text));
}
