// Connectors: their tools, a check that each backend answers, search over tools and snippets,
// and one tool described.
import { api } from "./api.js";
import { action, add, errorBox, fill, h, jsonBlock, section, table } from "./dom.js";
import { codeBlock } from "./highlight.js";

function flags(annotations = {}) {
  const out = [];
  if (annotations.requiresApproval) out.push("needs approval");
  if (annotations.resolution === "client") out.push("client value");
  if (annotations.readOnly) out.push("read-only");
  if (annotations.destructive) out.push("destructive");
  return out.map((x) => h("span", { class: "tag" }, x));
}

export async function connectorsView(root) {
  const q = h("input", {
    type: "search",
    placeholder: "Search tools and snippets",
    "aria-label": "Search",
  });
  const hits = h("div");
  const search = async () => {
    if (!q.value.trim()) return void fill(hits);
    try {
      const r = await api("GET", `/v1/search?${new URLSearchParams({ q: q.value, limit: "20" })}`);
      fill(
        hits,
        table(
          ["Path", "Kind", "Description", "Score"],
          r.items.map((x) =>
            h(
              "tr",
              {},
              h(
                "td",
                {},
                x.kind === "tool"
                  ? h("a", {
                    href: `#/connectors/${encodeURIComponent(x.connector)}?tool=${
                      encodeURIComponent(x.name)
                    }`,
                  }, x.path)
                  : h("a", { href: `#/snippets/${encodeURIComponent(x.name)}` }, x.path),
              ),
              h("td", {}, x.kind),
              h("td", {}, x.description),
              h("td", {}, x.score?.toFixed?.(2) ?? ""),
            )
          ),
          "No match.",
        ),
      );
    } catch (err) {
      fill(hits, errorBox(err));
    }
  };
  q.addEventListener("change", search);
  add(
    root,
    h(
      "div",
      { class: "bar" },
      h("h1", {}, "Connectors"),
      h("form", { class: "inline", onsubmit: (e) => (e.preventDefault(), search()) }, q),
    ),
    hits,
  );
  const { items } = await api("GET", "/v1/connectors");
  add(
    root,
    table(
      ["Connector", "Description", "Tools", "Check"],
      items.map((c) => {
        const out = h("span");
        return h(
          "tr",
          {},
          h("td", {}, h("a", { href: `#/connectors/${encodeURIComponent(c.name)}` }, c.name)),
          h("td", {}, c.description ?? ""),
          h("td", {}, c.tools.length),
          h("td", {}, action("Check", async () => fill(out, await check(c.name))), " ", out),
        );
      }),
      "No connectors.",
    ),
  );
}

async function check(name) {
  try {
    const r = await api("GET", `/v1/connectors/${encodeURIComponent(name)}/check`);
    return r.ready
      ? h("span", { class: "ok" }, "ready")
      : h("span", { class: "bad" }, `not ready: ${(r.problems ?? []).join("; ")}`);
  } catch (err) {
    return errorBox(err);
  }
}

export async function connectorView(root, [name], ctx) {
  const { items } = await api("GET", "/v1/connectors");
  const c = items.find((x) => x.name === name);
  if (!c) {
    return void add(
      root,
      errorBox({ code: "connector_not_found", message: `There is no connector ${name}` }),
    );
  }
  const described = h("div", { id: "described" });
  const describe = async (tool) => {
    try {
      const d = await api("GET", `/v1/describe/${encodeURIComponent(`${c.name}.${tool}`)}`);
      fill(
        described,
        section(
          d.path,
          h("p", {}, d.description),
          codeBlock(d.signature, "typescript"),
          h("h3", {}, "Input"),
          codeBlock(d.input, "typescript"),
          h("h3", {}, "Output"),
          codeBlock(d.output, "typescript"),
          d.observedShape
            ? [
              h("h3", {}, `Observed (${d.observedSamples} results)`),
              codeBlock(d.observedShape, "typescript"),
            ]
            : null,
          h("h3", {}, "Examples"),
          d.examples.map((x) => codeBlock(x, "typescript")),
        ),
      );
    } catch (err) {
      fill(described, errorBox(err));
    }
  };
  const out = h("span");
  add(
    root,
    h(
      "div",
      { class: "bar" },
      h("h1", {}, c.name),
      h("span", { class: "grow" }),
      action("Check", async () => fill(out, await check(c.name))),
      out,
    ),
    h("p", {}, c.description ?? ""),
    table(
      ["Tool", "Description", "", "Input schema"],
      c.tools.map((t) =>
        h(
          "tr",
          {},
          h(
            "td",
            {},
            h("button", { type: "button", class: "link", onclick: () => describe(t.name) }, t.name),
          ),
          h("td", {}, t.description ?? ""),
          h("td", {}, flags(t.annotations)),
          h("td", {}, jsonBlock(t.inputSchema)),
        )
      ),
      "No tools.",
    ),
    described,
  );
  const tool = ctx.query.get("tool");
  if (tool) await describe(tool);
}
