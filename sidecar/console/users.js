// The users of the key's tenant: searchable by id, each with its memories counted by state, a page
// at a time (GET /v1/users).

import { call, seg } from "./api.js";
import { h, replace, when } from "./dom.js";

const PAGE = 50;
const STATES = ["active", "superseded", "contested", "consolidated", "revoked", "expired"];

export async function renderUsers(main, crumbs, { say, ready, mine }) {
  replace(crumbs, h("span", {}, "Users"));
  const search = h("input", {
    type: "search", name: "q", placeholder: "user id contains…", "aria-label": "Search users by id",
    dataset: { search: "" }, autocomplete: "off", spellcheck: "false",
  });
  const totals = h("p.totals", { "aria-live": "polite" });
  const body = h("tbody");
  const more = h("button", { type: "button", hidden: true }, "More users");
  const table = h(
    "table.users",
    {},
    h("caption", {}, "Users of this key's tenant, memories counted by state"),
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "user"), STATES.map((s) => h("th.num", { scope: "col" }, s)),
      h("th.num", { scope: "col" }, "total"), h("th", { scope: "col" }, "newest memory"))),
    body,
  );
  replace(
    main,
    h("section.users-view", {},
      h("h1", {}, "Users"),
      h("form.search", { role: "search", onsubmit: (e) => { e.preventDefault(); load(true); } },
        search, h("button", { type: "submit" }, "Search"), h("span.hint", {}, "Press / to search")),
      totals, table, more),
  );

  let cursor = null;
  let shown = [];
  let sums = {};

  async function load(fresh) {
    if (fresh) {
      cursor = null;
      shown = [];
      sums = {};
      replace(body);
    }
    const page = await call("GET", "/v1/users", { query: { limit: PAGE, cursor, q: search.value.trim() } });
    for (const user of page.users) {
      shown.push(user.user_id);
      for (const state of STATES) sums[state] = (sums[state] || 0) + (user.memories[state] || 0);
      body.append(
        h("tr", {},
          h("th", { scope: "row" }, h("a", { href: `#/u/${seg(user.user_id)}` }, user.user_id)),
          STATES.map((state) => h(`td.num${user.memories[state] ? "" : ".zero"}`, {}, String(user.memories[state] || 0))),
          h("td.num", {}, String(user.total)),
          h("td", {}, when(user.last_memory_at))),
      );
    }
    cursor = page.next_cursor;
    more.hidden = !cursor;
    replace(
      totals,
      `${shown.length} user${shown.length === 1 ? "" : "s"}${cursor ? " shown (more below)" : ""}`,
      search.value.trim() ? ` matching “${search.value.trim()}”` : "",
      ": ",
      STATES.filter((s) => sums[s]).map((s) => `${sums[s]} ${s}`).join(" · ") || "no memories",
    );
    if (!shown.length) body.append(h("tr", {}, h("td.empty", { colspan: STATES.length + 3 }, "No user with memories matches.")));
  }

  more.addEventListener("click", () => load(false).catch(say.error));
  let typing;
  search.addEventListener("input", () => {
    clearTimeout(typing);
    typing = setTimeout(() => load(true).catch(say.error), 250);
  });
  await load(true);
  ready("users");
  if (mine) search.focus();
}
