// One execution: its code (highlighted), console lines, call log, result or error with its
// location, diagnostics, pending decisions and timeline; live while it runs.
import { api, follow } from "./api.js";
import {
  action,
  add,
  badge,
  debounce,
  duration,
  errorBox,
  fact,
  fill,
  h,
  jsonBlock,
  section,
  table,
  time,
} from "./dom.js";
import { codeBlock } from "./highlight.js";
import { pendingCard } from "./pending.js";
import { callResult, resultBlock } from "./result.js";

const MAX_LINES = 2_000;

export async function executionView(root, [id], ctx) {
  const path = `/v1/executions/${encodeURIComponent(id)}`;
  const head = h("div");
  const top = h("div");
  const logs = h("div", { class: "logs", id: "console-lines" });
  const calls = h("div");
  const timeline = h("ol", { class: "timeline" });
  const more = h("div");
  add(
    root,
    head,
    top,
    section("Console", logs),
    section("Calls", calls),
    more,
    section("Timeline", timeline),
  );
  let lines = 0;
  let d;
  let saveEl;
  const cards = new Map();

  function drawHead() {
    const buttons = [];
    if (
      d.status !== "running" && d.status !== "paused" && d.status !== "rolled_back" &&
      d.calls.some((c) => c.state === "applied")
    ) {
      buttons.push(action("Roll back", async () => {
        if (!confirm("Revert this execution's applied calls?")) return;
        await run(() => api("POST", `${path}/rollback`));
      }));
    }
    if (d.status !== "running") {
      buttons.push(action("Delete", async () => {
        if (!confirm(`Delete ${id} with its call log and console lines?`)) return;
        await run(async () => {
          await api("DELETE", path);
          location.hash = "#/executions";
        });
      }, { class: "danger" }));
    }
    const took = (d.endedAt ?? Date.now()) - d.createdAt;
    fill(
      head,
      h(
        "div",
        { class: "bar" },
        h("h1", {}, d.id),
        badge(d.status),
        h("span", { class: "grow" }),
        buttons,
      ),
      h(
        "dl",
        { class: "facts" },
        fact("Namespace", d.namespace),
        fact("Started", time(d.createdAt)),
        fact(
          d.endedAt ? "Took" : d.status === "paused" ? "Waiting for" : "Running for",
          duration(took),
        ),
        fact("Passes", d.passes),
        fact("Language", d.language ?? "typescript"),
        fact("Connectors", d.connectors.join(", ") || "none"),
        fact("Trace", d.traceId),
      ),
    );
  }

  async function run(fn) {
    try {
      await fn();
      await refresh();
    } catch (err) {
      head.append(errorBox(err));
    }
  }

  let topShows;
  function drawTop() {
    // Drawn again only when what it shows changes: a redraw moves the save form and the cards,
    // and a field that moves loses its focus (a name being typed, a click half done).
    const waiting = d.pending.map((p) => `${p.executionId}#${p.seq}`);
    const shows = JSON.stringify([d.status, waiting, d.error ?? null]);
    if (shows === topShows) return;
    topShows = shows;
    const parts = [];
    if (d.pending.length) {
      // A card outlives redraws, as the save form does: a reason or value being typed stays.
      const card = (p, i) => {
        const key = waiting[i];
        if (!cards.has(key)) cards.set(key, pendingCard(p, () => refresh()));
        return cards.get(key);
      };
      parts.push(section("Waiting", d.pending.map(card)));
    }
    if (d.status === "completed") {
      // The form outlives redraws: a name being typed, or the saved link, stays.
      parts.push(section("Result", resultBlock(d.result, d.id), saveEl ??= saveForm(d)));
    }
    if (d.error) {
      const loc = d.error.location;
      parts.push(section(
        "Error",
        errorBox(d.error),
        loc
          ? h(
            "p",
            { class: "muted" },
            `at line ${loc.line}${loc.column ? `, column ${loc.column}` : ""}`,
          )
          : null,
        d.error.details ? jsonBlock(d.error.details) : null,
      ));
    }
    parts.push(section("Code", codeBlock(d.code, d.language, d.error?.location?.line)));
    if (d.input !== undefined) parts.push(section("Input", jsonBlock(d.input)));
    fill(top, parts);
  }

  function drawCalls() {
    fill(
      calls,
      table(
        ["#", "Tool", "Arguments", "Result", "State", "Took"],
        d.calls.map((c) =>
          h(
            "tr",
            { "data-seq": c.seq },
            h("td", {}, c.seq),
            h("td", {}, `${c.connector}.${c.tool}`),
            h("td", {}, jsonBlock(c.args)),
            h("td", {}, callResult(c)),
            h(
              "td",
              {},
              badge(c.state),
              c.needs ? h("span", { class: "muted" }, ` ${c.needs}`) : null,
            ),
            h("td", {}, c.state === "pending" ? "" : duration(c.durationMs)),
          )
        ),
        "No tool calls.",
      ),
    );
    fill(
      more,
      d.diagnostics?.length
        ? section(
          "Diagnostics",
          h(
            "ul",
            { class: "diagnostics" },
            d.diagnostics.map((x) =>
              h(
                "li",
                { class: `d-${x.severity}` },
                h("b", {}, x.code),
                ` ${x.line ? `line ${x.line}:${x.column ?? 1} ` : ""}${x.message}`,
              )
            ),
          ),
        )
        : null,
    );
  }

  async function refresh() {
    d = await api("GET", path);
    if (ctx.signal.aborted) return;
    drawHead();
    drawTop();
    drawCalls();
  }
  const later = debounce(() => refresh().catch(() => {}), 100);

  function onEvent(e) {
    const t = e.event === "log" ? e.data.entry.atMs : undefined;
    if (e.event === "log") {
      if (lines++ < MAX_LINES) {
        const entry = e.data.entry;
        logs.append(
          h(
            "div",
            { class: `log lv-${entry.level}` },
            h("span", { class: "at" }, duration(entry.atMs)),
            " ",
            entry.message,
          ),
        );
      }
    } else later();
    timeline.append(
      h(
        "li",
        { class: `ev ${e.event}` },
        h("span", { class: "at" }, t === undefined ? "" : `+${duration(t)}`),
        h("b", {}, e.event),
        " ",
        summary(e),
      ),
    );
  }

  await refresh();
  follow(`${path}/events`, {
    onEvent,
    signal: ctx.signal,
    ends: true,
    onState: (s) => s === "closed" && later(),
  });
}

function summary(e) {
  const x = e.data;
  if (e.event === "log") return x.entry.message.slice(0, 120);
  if (e.event === "call") {
    return `#${x.call.seq} ${x.call.connector}.${x.call.tool} ${x.call.state}${
      x.call.durationMs ? ` (${duration(x.call.durationMs)})` : ""
    }`;
  }
  if (e.event === "paused") {
    return x.pending.map((p) => `#${p.seq} ${p.connector}.${p.tool}`).join(", ");
  }
  if (e.event === "done") return x.status + (x.error ? `: ${x.error.message}` : "");
  if (e.event === "diagnostics") return `${x.diagnostics.length} finding(s)`;
  return "";
}

function saveForm(d) {
  const name = h("input", {
    type: "text",
    placeholder: "snippet-name",
    "aria-label": "Snippet name",
    pattern: "[A-Za-z][\\w\\-]{0,63}",
    required: true,
  });
  const description = h("input", {
    type: "text",
    placeholder: "What it does (optional)",
    "aria-label": "Description",
  });
  const out = h("span");
  const form = h(
    "form",
    {
      class: "inline",
      id: "save-snippet",
      onsubmit: async (e) => {
        e.preventDefault();
        try {
          const body = { name: name.value.trim(), executionId: d.id };
          if (description.value.trim()) body.description = description.value.trim();
          const s = await api("POST", "/v1/snippets", body);
          fill(
            out,
            h(
              "a",
              { href: `#/snippets/${encodeURIComponent(s.name)}`, class: "ok" },
              `Saved ${s.name} v${s.version}`,
            ),
          );
        } catch (err) {
          fill(out, errorBox(err));
        }
      },
    },
    name,
    description,
    h("button", { type: "submit" }, "Save as snippet"),
    out,
  );
  return form;
}
