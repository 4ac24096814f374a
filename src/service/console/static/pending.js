// Pending work: every call waiting for a person (approve, reject with a reason) or for a
// client's value (resolve, with a JSON editor checked against the tool's output schema here
// and by the server), updated live.
import { api } from "./api.js";
import { action, add, ago, debounce, errorBox, fill, h, jsonBlock } from "./dom.js";
import { readJson } from "./schema.js";

let tools; // connector.tool -> { outputSchema, description }, read once per page load

async function toolInfo(path) {
  if (!tools) {
    tools = api("GET", "/v1/connectors").then(({ items }) => {
      const map = new Map();
      for (const c of items) for (const t of c.tools) map.set(`${c.name}.${t.name}`, t);
      return map;
    }).catch(() => new Map());
  }
  return (await tools).get(path);
}

/** One waiting call with its decisions; `onDone(outcome)` runs after a decision. */
export function pendingCard(p, onDone) {
  const path = `${p.connector}.${p.tool}`;
  const out = h("div", { class: "outcome" });
  const decided = (outcome) => {
    fill(out, h("p", { class: "ok" }, `Decided: the run is now ${outcome.status}.`));
    card.classList.add("done");
    for (const b of card.querySelectorAll("button")) b.hidden = true;
    for (const field of card.querySelectorAll("input, textarea")) field.disabled = true;
    onDone?.(outcome);
  };
  const fail = (err) => fill(out, errorBox(err));
  const url = (verb) => `/v1/executions/${encodeURIComponent(p.executionId)}/${verb}`;
  const card = h(
    "div",
    { class: "pending", "data-execution": p.executionId, "data-seq": p.seq },
    h(
      "div",
      { class: "bar" },
      h("b", {}, path),
      h(
        "span",
        { class: "muted" },
        ` call #${p.seq} · ${p.resolution === "client" ? "needs a value" : "needs approval"} · ${
          ago(p.requestedAt)
        }`,
      ),
      h("a", { href: `#/executions/${encodeURIComponent(p.executionId)}` }, p.executionId),
    ),
    // What the tool does, as its connector describes it: the person deciding reads it first.
    h("p", { class: "muted tool-description" }),
    jsonBlock(p.args, true),
  );
  toolInfo(path).then((t) => {
    if (t?.description) card.querySelector(".tool-description").textContent = t.description;
  });
  if (p.resolution === "approval") {
    const reason = h("input", {
      type: "text",
      placeholder: "Reason (optional)",
      "aria-label": "Reason",
      maxlength: 2000,
    });
    card.append(
      h(
        "div",
        { class: "actions" },
        action("Approve", async () => {
          try {
            decided(await api("POST", url("approve"), { seq: p.seq }));
          } catch (err) {
            fail(err);
          }
        }, { class: "primary", "data-action": "approve" }),
        reason,
        action("Reject", async () => {
          try {
            const body = { seq: p.seq };
            if (reason.value.trim()) body.reason = reason.value.trim();
            decided(await api("POST", url("reject"), body));
          } catch (err) {
            fail(err);
          }
        }, { class: "danger", "data-action": "reject" }),
      ),
    );
  } else {
    const editor = h("textarea", {
      rows: 4,
      spellcheck: "false",
      "aria-label": "Value (JSON)",
      placeholder: "The call's result, as JSON",
    });
    const problems = h("ul", { class: "problems" });
    const hint = h("p", { class: "muted" });
    const send = action("Resolve", async () => {
      const tool = await toolInfo(path);
      const read = readJson(editor.value, tool?.outputSchema);
      if (!read.ok) return void fill(problems, read.errors.map((x) => h("li", {}, x)));
      try {
        decided(await api("POST", url("resolve"), { seq: p.seq, result: read.value }));
      } catch (err) {
        fail(err);
      }
    }, { class: "primary", "data-action": "resolve" });
    const check = async () => {
      const tool = await toolInfo(path);
      const read = readJson(editor.value, tool?.outputSchema);
      fill(problems, read.ok ? [] : read.errors.map((x) => h("li", {}, x)));
      send.disabled = !read.ok;
    };
    editor.addEventListener("input", debounce(check, 100));
    send.disabled = true;
    toolInfo(path).then((t) => {
      if (t?.outputSchema) hint.textContent = `Output schema: ${JSON.stringify(t.outputSchema)}`;
    });
    card.append(hint, editor, problems, h("div", { class: "actions" }, send));
  }
  card.append(out);
  return card;
}

export async function pendingView(root, _params, ctx) {
  const list = h("div", { id: "pending" });
  add(root, h("div", { class: "bar" }, h("h1", {}, "Pending")), list);
  const shown = new Set();

  async function load() {
    try {
      const { items } = await api("GET", "/v1/pending");
      if (ctx.signal.aborted) return;
      const key = (p) => `${p.executionId}#${p.seq}`;
      const now = new Set(items.map(key));
      // Cards still waiting stay as they are (a half-typed value or reason is kept).
      for (const el of [...list.querySelectorAll(".pending")]) {
        const k = `${el.dataset.execution}#${el.dataset.seq}`;
        if (!now.has(k) && !el.classList.contains("done")) {
          el.remove();
          shown.delete(k);
        }
      }
      for (const p of items) {
        if (shown.has(key(p))) continue;
        shown.add(key(p));
        list.append(pendingCard(p, () => reload()));
      }
      list.querySelector(".empty")?.remove();
      if (!list.querySelector(".pending")) {
        list.append(h("p", { class: "muted empty" }, "Nothing waits for a decision."));
      }
    } catch (err) {
      if (!ctx.signal.aborted) fill(list, errorBox(err));
    }
  }
  const reload = debounce(load, 150);
  ctx.activity.addEventListener("change", reload);
  ctx.activity.addEventListener("sync", reload);
  ctx.signal.addEventListener("abort", () => {
    ctx.activity.removeEventListener("change", reload);
    ctx.activity.removeEventListener("sync", reload);
  });
  await load();
}
