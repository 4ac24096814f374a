// Artifacts (download, versions), sessions (close) and API keys (create, list, revoke).
import { api, download } from "./api.js";
import { action, add, ago, badge, bytes, errorBox, fill, h, table, time } from "./dom.js";

/**
 * An artifact name as a URL path. A "." or ".." part would walk the request to another route
 * (a link to #/artifacts/../../v1/keys), so it is refused; artifact names never have one.
 */
export function artifactPath(name) {
  const parts = name.split("/");
  if (parts.some((p) => p === "" || p === "." || p === "..")) {
    throw Object.assign(new Error(`Not an artifact name: ${name}`), { code: "invalid_request" });
  }
  return parts.map(encodeURIComponent).join("/");
}

function downloadButton(a, out) {
  return action("Download", async () => {
    try {
      await download(
        `/v1/artifacts/${artifactPath(a.name)}?version=${a.version}`,
        a.name.split("/").pop(),
      );
    } catch (err) {
      fill(out, errorBox(err));
    }
  });
}

export async function artifactsView(root, _params, ctx) {
  const prefix = ctx.query.get("prefix") ?? "";
  const filter = h("input", {
    type: "search",
    value: prefix,
    placeholder: "Name prefix",
    "aria-label": "Name prefix",
  });
  const out = h("div");
  const list = h("div");
  add(
    root,
    h(
      "div",
      { class: "bar" },
      h("h1", {}, "Artifacts"),
      h("form", {
        class: "inline",
        onsubmit: (e) => {
          e.preventDefault();
          location.hash = filter.value
            ? `#/artifacts?prefix=${encodeURIComponent(filter.value)}`
            : "#/artifacts";
        },
      }, filter),
    ),
    out,
    list,
  );
  let cursor;
  const rows = [];
  const more = h("button", { type: "button", hidden: true, onclick: () => load() }, "Load more");
  async function load() {
    const q = new URLSearchParams({ limit: "50" });
    if (prefix) q.set("prefix", prefix);
    if (cursor) q.set("cursor", cursor);
    const page = await api("GET", `/v1/artifacts?${q}`);
    cursor = page.nextCursor;
    rows.push(...page.items.map((a) =>
      h(
        "tr",
        {},
        h("td", {}, h("a", { href: `#/artifacts/${artifactPath(a.name)}` }, a.name)),
        h("td", {}, `v${a.version}`),
        h("td", {}, a.mimeType),
        h("td", {}, bytes(a.size)),
        h("td", { class: "when", title: time(a.createdAt) }, ago(a.createdAt)),
        h("td", {}, downloadButton(a, out)),
      )
    ));
    fill(list, table(["Name", "Newest", "Type", "Size", "Saved", ""], rows, "No artifacts."), more);
    more.hidden = !cursor;
  }
  await load();
}

export async function artifactView(root, [name]) {
  const out = h("div");
  const { items } = await api("GET", `/v1/artifact-versions/${artifactPath(name)}`);
  add(
    root,
    h("div", { class: "bar" }, h("h1", {}, name)),
    out,
    table(
      ["Version", "Type", "Size", "SHA-256", "Saved", "From", ""],
      items.map((a) =>
        h(
          "tr",
          {},
          h("td", {}, `v${a.version}`),
          h("td", {}, a.mimeType),
          h("td", {}, bytes(a.size)),
          h("td", { class: "mono" }, a.sha256.slice(0, 16)),
          h("td", {}, time(a.createdAt)),
          h(
            "td",
            {},
            a.sourceExecutionId
              ? h(
                "a",
                { href: `#/executions/${encodeURIComponent(a.sourceExecutionId)}` },
                a.sourceExecutionId,
              )
              : "",
          ),
          h("td", {}, downloadButton(a, out)),
        )
      ),
    ),
  );
}

export async function sessionsView(root, _params, ctx) {
  const out = h("div");
  const list = h("div");
  add(
    root,
    h("div", { class: "bar" }, h("h1", {}, "Sessions")),
    h("p", { class: "muted" }, "Live sessions of this server process (sessions are node-local)."),
    out,
    list,
  );
  async function load() {
    const { items } = await api("GET", "/v1/sessions");
    if (ctx.signal.aborted) return;
    fill(
      list,
      table(
        ["Session", "Namespace", "State", "Executions", "Last used", "Expires", ""],
        items.map((s) =>
          h(
            "tr",
            {},
            h("td", { class: "mono" }, s.sessionId),
            h("td", {}, s.namespace),
            h("td", {}, badge(s.busy ? "running" : "idle")),
            h("td", {}, s.executions),
            h("td", { class: "when" }, ago(s.lastUsedAt)),
            h("td", {}, time(s.expiresAt)),
            h(
              "td",
              {},
              action("Close", async () => {
                try {
                  await api("DELETE", `/v1/sessions/${encodeURIComponent(s.sessionId)}`);
                  await load();
                } catch (err) {
                  fill(out, errorBox(err));
                }
              }, { class: "danger" }),
            ),
          )
        ),
        "No live sessions.",
      ),
    );
  }
  await load();
}

export async function keysView(root, _params, ctx) {
  const out = h("div");
  const list = h("div");
  const name = h("input", {
    type: "text",
    placeholder: "name",
    "aria-label": "Key name",
    required: true,
    maxlength: 100,
  });
  const namespace = h("input", {
    type: "text",
    placeholder: "namespace (default)",
    "aria-label": "Namespace",
  });
  const scopes = ["execute", "approve", "admin"].map((s) =>
    h(
      "label",
      { class: "check" },
      h("input", { type: "checkbox", value: s, checked: s === "execute" }),
      s,
    )
  );
  const create = h(
    "form",
    {
      class: "inline",
      id: "create-key",
      onsubmit: async (e) => {
        e.preventDefault();
        const body = {
          name: name.value.trim(),
          scopes: scopes.map((l) => l.firstChild).filter((c) => c.checked).map((c) => c.value),
        };
        if (namespace.value.trim()) body.namespace = namespace.value.trim();
        try {
          const r = await api("POST", "/v1/keys", body);
          fill(
            out,
            h(
              "div",
              { class: "token" },
              h(
                "p",
                {},
                `Key ${r.key.name} (${r.key.id}) made. Its token is shown this once: copy it now.`,
              ),
              h("code", { id: "new-token" }, r.token),
              " ",
              action("Copy", () => navigator.clipboard?.writeText(r.token)),
            ),
          );
          name.value = "";
          await load();
        } catch (err) {
          fill(out, errorBox(err));
        }
      },
    },
    name,
    namespace,
    scopes,
    h("button", { type: "submit" }, "Create key"),
  );
  add(root, h("div", { class: "bar" }, h("h1", {}, "API keys")), create, out, list);
  async function load() {
    const { items } = await api("GET", "/v1/keys");
    if (ctx.signal.aborted) return;
    fill(
      list,
      table(
        ["Key", "Name", "Scopes", "Namespace", "Created", "Last used", "State", ""],
        items.map((k) =>
          h(
            "tr",
            { "data-key": k.id },
            h("td", { class: "mono" }, k.id),
            h("td", {}, k.name),
            h("td", {}, k.scopes.join(", ")),
            h("td", {}, k.namespace),
            h("td", {}, k.source === "config" ? "config file" : time(k.createdAt)),
            h("td", { class: "when" }, k.lastUsedAt ? ago(k.lastUsedAt) : "never"),
            h("td", {}, badge(k.revokedAt ? "revoked" : "active")),
            h(
              "td",
              {},
              k.revokedAt || k.source === "config" ? "" : action("Revoke", async () => {
                if (!confirm(`Revoke ${k.name}? Requests with it fail at once.`)) return;
                try {
                  await api("DELETE", `/v1/keys/${encodeURIComponent(k.id)}`);
                  await load();
                } catch (err) {
                  fill(out, errorBox(err));
                }
              }, { class: "danger" }),
            ),
          )
        ),
        "No keys: this server answers local callers without one.",
      ),
    );
  }
  await load();
}
