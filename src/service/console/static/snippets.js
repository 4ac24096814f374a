// Snippets: saved code by name, with versions, source, stale marks, and a run with input.
import { api } from "./api.js";
import {
  action,
  add,
  ago,
  badge,
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
import { readJson } from "./schema.js";

export async function snippetsView(root) {
  add(root, h("div", { class: "bar" }, h("h1", {}, "Snippets")));
  const { items } = await api("GET", "/v1/snippets");
  add(
    root,
    table(
      ["Name", "Version", "Description", "Connectors", "Saved"],
      items.map((s) =>
        h(
          "tr",
          {},
          h(
            "td",
            { class: "when" },
            h("a", { href: `#/snippets/${encodeURIComponent(s.name)}` }, s.name),
            s.stale ? badge("stale") : null,
          ),
          h("td", {}, `v${s.version}`),
          h("td", {}, s.description),
          h("td", {}, s.connectors.join(", ")),
          h("td", { class: "when", title: time(s.savedAt) }, ago(s.savedAt)),
        )
      ),
      "No snippets yet: save one from a completed execution.",
    ),
  );
}

export async function snippetView(root, [name]) {
  const path = `/v1/snippets/${encodeURIComponent(name)}`;
  const s = await api("GET", path);
  const input = h("textarea", {
    rows: 4,
    spellcheck: "false",
    "aria-label": "Input (JSON)",
    placeholder: "Input as JSON (optional)",
  });
  const problems = h("ul", { class: "problems" });
  const out = h("div");
  const runButton = action("Run", async () => {
    const read = readJson(input.value, s.inputSchema, true);
    if (!read.ok) return void fill(problems, read.errors.map((x) => h("li", {}, x)));
    fill(problems);
    try {
      const body = { wait: false };
      if (read.value !== undefined) body.input = read.value;
      const r = await api("POST", `${path}/run`, body);
      location.hash = `#/executions/${encodeURIComponent(r.executionId)}`;
    } catch (err) {
      fill(out, errorBox(err));
    }
  }, { class: "primary" });
  input.addEventListener("input", () => {
    const read = readJson(input.value, s.inputSchema, true);
    fill(problems, read.ok ? [] : read.errors.map((x) => h("li", {}, x)));
  });
  add(
    root,
    h(
      "div",
      { class: "bar" },
      h("h1", {}, s.name),
      h("span", {}, `v${s.version}`),
      s.stale ? badge("stale") : null,
      h("span", { class: "grow" }),
      action("Delete", async () => {
        if (!confirm(`Delete every version of ${s.name}?`)) return;
        try {
          await api("DELETE", path);
          location.hash = "#/snippets";
        } catch (err) {
          fill(out, errorBox(err));
        }
      }, { class: "danger" }),
    ),
    s.stale
      ? h(
        "p",
        { class: "warn" },
        "Stale: checked again after the tool declarations changed, this code no longer type-checks.",
      )
      : null,
    h("p", {}, s.description || h("span", { class: "muted" }, "No description.")),
    h(
      "dl",
      { class: "facts" },
      fact("Versions", s.versions.map((v) => `v${v}`).join(", ")),
      fact("Saved", time(s.savedAt)),
      fact("Connectors", s.connectors.join(", ") || "none"),
      fact(
        "From",
        s.sourceExecutionId
          ? h(
            "a",
            { href: `#/executions/${encodeURIComponent(s.sourceExecutionId)}` },
            s.sourceExecutionId,
          )
          : "",
      ),
    ),
    section("Source", codeBlock(s.code, "typescript")),
    s.inputSchema ? section("Input schema", jsonBlock(s.inputSchema)) : null,
    section("Run", input, problems, h("div", { class: "actions" }, runButton), out),
  );
}
