// Executions, live: the newest runs of the key's namespace, filtered by status, updated as
// runs start, pause, resume and end (from the activity stream).
import { api } from "./api.js";
import { add, ago, badge, debounce, duration, errorBox, fill, h, table } from "./dom.js";

const STATUSES = ["", "running", "paused", "completed", "error", "rejected", "rolled_back"];
const PAGE = 50;

export async function executionsView(root, _params, ctx) {
  const status = ctx.query.get("status") ?? "";
  const items = [];
  let nextCursor;
  const flash = new Set();

  const filter = h(
    "select",
    {
      id: "status-filter",
      "aria-label": "Status",
      onchange: (e) => {
        location.hash = e.target.value ? `#/executions?status=${e.target.value}` : "#/executions";
      },
    },
    STATUSES.map((s) => h("option", { value: s, selected: s === status }, s || "any status")),
  );
  const body = h("div", { id: "executions" });
  const more = h(
    "button",
    { type: "button", hidden: true, onclick: () => load(true) },
    "Load more",
  );
  const problem = h("div");
  add(root, h("div", { class: "bar" }, h("h1", {}, "Executions"), filter), problem, body, more);

  function row(x) {
    const took = (x.endedAt ?? (x.status === "running" ? Date.now() : x.updatedAt)) - x.createdAt;
    return h(
      "tr",
      { class: flash.has(x.id) ? "flash" : "", "data-id": x.id },
      h("td", {}, h("a", { href: `#/executions/${encodeURIComponent(x.id)}` }, x.id)),
      h("td", {}, badge(x.status)),
      h("td", { class: "when", title: new Date(x.createdAt).toLocaleString() }, ago(x.createdAt)),
      h("td", { class: "when" }, duration(took)),
      h("td", {}, x.namespace),
      h(
        "td",
        { class: "muted" },
        x.error
          ? h(
            "div",
            { class: "clip", title: x.error.message },
            `${x.error.code}: ${x.error.message}`,
          )
          : null,
      ),
    );
  }

  function draw() {
    fill(
      body,
      table(
        ["Execution", "Status", "Started", "Took", "Namespace", "Error"],
        items.map(row),
        status
          ? `No ${status} executions.`
          : "No executions yet: run code with POST /v1/executions.",
      ),
    );
    more.hidden = !nextCursor;
  }

  async function load(append = false) {
    const q = new URLSearchParams({ limit: String(append ? PAGE : Math.max(PAGE, items.length)) });
    if (status) q.set("status", status);
    if (append && nextCursor) q.set("cursor", nextCursor);
    try {
      const page = await api("GET", `/v1/executions?${q}`);
      if (ctx.signal.aborted) return;
      if (!append) items.length = 0;
      items.push(...page.items);
      nextCursor = page.nextCursor;
      fill(problem);
      draw();
    } catch (err) {
      if (!ctx.signal.aborted) fill(problem, errorBox(err));
    }
  }

  const reload = debounce(() => load(false), 120);
  const onChange = (e) => {
    flash.add(e.detail.executionId);
    setTimeout(() => flash.delete(e.detail.executionId), 1500);
    const known = items.find((x) => x.id === e.detail.executionId);
    if (known && e.detail.status) {
      // Shown at once; the list read after it brings the rest (times, errors, order).
      known.status = e.detail.status;
      draw();
    }
    reload();
  };
  ctx.activity.addEventListener("change", onChange);
  ctx.activity.addEventListener("sync", reload);
  ctx.signal.addEventListener("abort", () => {
    ctx.activity.removeEventListener("change", onChange);
    ctx.activity.removeEventListener("sync", reload);
  });
  await load();
}
