/**
 * The service's doors: requests a web page starts are refused on every path, bodies must be
 * JSON (also when empty), and unknown query parameters are 400 on every route of the table.
 */
import assert from "node:assert/strict";
import { serviceRoutes } from "../../../src/service/server/app.ts";
import type { ServiceDeps } from "../../../src/service/routes/deps.ts";
import { openService } from "../_service.ts";

async function send(url: string, init: RequestInit): Promise<{ status: number; code?: string }> {
  const res = await fetch(url, init);
  const text = await res.text();
  try {
    return { status: res.status, code: JSON.parse(text).error?.code };
  } catch {
    return { status: res.status };
  }
}

Deno.test("cross-site: a bodiless POST from a web page runs nothing", async () => {
  await using t = await openService();
  const saved = await t.call("POST", "/v1/executions", { code: "return 7" });
  assert.equal(saved.status, 200, JSON.stringify(saved.json));
  const snippet = await t.call("POST", "/v1/snippets", {
    name: "deploy",
    executionId: saved.json.executionId,
    description: "Deploys",
  });
  assert.equal(snippet.status, 201, JSON.stringify(snippet.json));
  const url = `${t.service.url}/v1/snippets/deploy/run`;
  // What a <form> or a no-cors fetch can send without a preflight.
  const attempts: RequestInit[] = [
    { method: "POST" },
    { method: "POST", headers: { "content-type": "text/plain" }, body: '{"input":1}' },
    { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" } },
    { method: "POST", headers: { "sec-fetch-site": "cross-site" } },
    {
      method: "POST",
      headers: { "sec-fetch-site": "same-site", "content-type": "application/json" },
      body: "{}",
    },
    {
      method: "POST",
      headers: { origin: "https://evil.example", "content-type": "application/json" },
      body: "{}",
    },
    { method: "POST", headers: { origin: "null", "content-type": "application/json" }, body: "{}" },
  ];
  const answers = [];
  for (const init of attempts) answers.push(await send(url, init));
  assert.deepEqual(answers.map((a) => a.status), [415, 415, 415, 403, 403, 403, 403]);
  assert.deepEqual(answers.map((a) => a.code), [
    "unsupported_media_type",
    "unsupported_media_type",
    "unsupported_media_type",
    "forbidden",
    "forbidden",
    "forbidden",
    "forbidden",
  ]);
  const runs = await t.call("GET", "/v1/executions");
  assert.equal(runs.json.items.length, 1, "only the first run exists");

  // Reads and the MCP door are refused too; the server's own origin and programs are served.
  for (const path of ["/v1/executions", "/healthz", "/openapi.json", "/mcp"]) {
    const r = await send(`${t.service.url}${path}`, {
      method: path === "/mcp" ? "POST" : "GET",
      headers: { "sec-fetch-site": "cross-site", "content-type": "application/json" },
      body: path === "/mcp" ? "{}" : undefined,
    });
    assert.equal(r.status, 403, path);
  }
  const own = await send(url, {
    method: "POST",
    headers: {
      origin: t.service.url,
      "sec-fetch-site": "same-origin",
      "content-type": "application/json",
    },
    body: "",
  });
  assert.equal(own.status, 200, "the server's own origin may call it");
  const mcpForm = await send(`${t.service.url}/mcp`, {
    method: "POST",
    headers: { "content-type": "text/plain" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
  });
  assert.equal(mcpForm.status, 415);
});

Deno.test("query parameters: an unknown one is 400 on every route of the table", async () => {
  await using t = await openService();
  const routes = serviceRoutes({ runtime: t.service.runtime } as unknown as ServiceDeps);
  assert.ok(routes.length > 20, "the table is there");
  const failures: string[] = [];
  for (const r of routes) {
    const path = r.path.replace(
      /:(\w+)(?:\{[^}]*\})?/g,
      (_, name: string) => name === "id" ? "exec_x" : "abc",
    );
    const hasBody = r.method !== "get";
    const res = await send(`${t.service.url}${path}?bogusParam=1`, {
      method: r.method.toUpperCase(),
      headers: hasBody ? { "content-type": "application/json" } : {},
      body: hasBody ? "{}" : undefined,
    });
    if (res.status !== 400 || res.code !== "invalid_request") {
      failures.push(`${r.method} ${r.path}: ${res.status} ${res.code}`);
    }
  }
  for (const [method, path] of [["GET", "/openapi.json"], ["POST", "/mcp"]]) {
    const res = await send(`${t.service.url}${path}?bogusParam=1`, {
      method,
      headers: { "content-type": "application/json", accept: "application/json" },
      body: method === "POST" ? "{}" : undefined,
    });
    if (res.status !== 400) failures.push(`${method} ${path}: ${res.status}`);
  }
  assert.deepEqual(failures, []);
  // Known parameters still work.
  const listed = await t.call("GET", "/v1/executions?limit=5");
  assert.equal(listed.status, 200);
});
