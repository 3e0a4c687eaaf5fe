// The user's data: download the export (GET /v1/users/{id}/export, JSON lines) and erase the user
// (DELETE /v1/users/{id}) after typing the id to confirm; the deletion receipt is shown.

import { call, fetchBlob, seg } from "./api.js";
import { confirmAction, h, replace, when } from "./dom.js";

function receiptView(receipt) {
  return h("section.receipt", { "aria-labelledby": "receipt-h" },
    h("h3", { id: "receipt-h" }, "Erasure receipt"),
    h("dl.fields", {},
      h("dt", {}, "receipt"), h("dd", {}, h("code", {}, receipt.receipt_id)),
      h("dt", {}, "user"), h("dd", {}, receipt.user_id),
      h("dt", {}, "erased at"), h("dd", {}, when(receipt.erased_at)),
      h("dt", {}, "memories"), h("dd", {}, String(receipt.memories_deleted)),
      h("dt", {}, "episodes"), h("dd", {}, String(receipt.episodes_deleted)),
      h("dt", {}, "jobs"), h("dd", {}, String(receipt.jobs_deleted))),
    h("table.counts", {}, h("caption", {}, "Rows removed per kind"),
      h("tbody", {}, Object.entries(receipt.counts).map(([kind, n]) => h("tr", {}, h("th", { scope: "row" }, kind), h("td.num", {}, String(n)))))));
}

export async function renderData(body, user, context) {
  const exported = h("p.outcome", { "aria-live": "polite" });
  const erased = h("div.outcome", { "aria-live": "polite" });
  const download = h("button.primary", { type: "button" }, "Download export (JSON lines)");
  const erase = h("button.danger", { type: "button" }, "Erase this user…");
  download.addEventListener("click", async () => {
    try {
      replace(exported, "Exporting…");
      const blob = await fetchBlob(`/v1/users/${seg(user)}/export`);
      const text = await blob.text();
      const lines = text.split("\n").filter(Boolean);
      const end = lines.length ? JSON.parse(lines[lines.length - 1]) : {};
      const link = h("a", { href: URL.createObjectURL(blob), download: `${user}.jsonl` }, `${user}.jsonl`);
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(link.href), 60_000);
      replace(exported, end.kind === "end"
        ? `Downloaded ${user}.jsonl: ${end.records} records, ${blob.size} bytes.`
        : `Downloaded ${user}.jsonl (${blob.size} bytes), but it has no end line: the export was cut short.`);
    } catch (error) {
      replace(exported);
      context.say.error(error);
    }
  });
  erase.addEventListener("click", async () => {
    try {
      const yes = await confirmAction({
        title: `Erase ${user}?`,
        lines: ["Every memory, episode, job, contested pair and read of this user is deleted, with their vectors.",
          "Only a receipt with counts is kept. This cannot be undone."],
        confirm: "Erase", typed: user, danger: true,
      });
      if (!yes) return;
      const receipt = await call("DELETE", `/v1/users/${seg(user)}`);
      replace(erased, receiptView(receipt));
      context.say.note(`erased ${user}: receipt ${receipt.receipt_id}`);
      context.overview = await context.refresh();
      context.ready("erased");
    } catch (error) {
      context.say.error(error);
    }
  });
  replace(body,
    h("section.data-view", {},
      h("h2", {}, "Export"),
      h("p", {}, "Every memory with its history, the contested pairs and every episode, one JSON object a line; ",
        "`beliefstream import` loads it into another store."),
      download, exported,
      h("h2", {}, "Erase"),
      h("p", {}, "Erasure needs a key with the erase capability that is not bound to an agent."),
      erase, erased));
  context.ready("data");
}
