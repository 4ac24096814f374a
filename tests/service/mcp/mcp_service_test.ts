/**
 * The MCP front door of the real service: `/mcp` over Streamable HTTP with an API key, and
 * `deno task mcp` over stdio with the same config a server uses.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { FIXTURE_CONFIG, openService } from "../_service.ts";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

interface Called {
  isError: boolean;
  data: Record<string, unknown> | undefined;
  text: string;
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<Called> {
  const out = await client.callTool({ name, arguments: args });
  const content = out.content as { type: string; text?: string }[];
  return {
    isError: out.isError === true,
    data: out.structuredContent as Record<string, unknown> | undefined,
    text: content.filter((c) => c.type === "text").map((c) => c.text).join("\n"),
  };
}

Deno.test("/mcp: a client with a key lists tools, runs code, and gets a paused gated call", async () => {
  await using t = await openService();
  const { token } = await t.service.keys.create({
    name: "agent",
    scopes: ["execute"],
    namespace: "agents",
  });
  const client = new Client({ name: "cordon-test", version: "1.0.0" });
  // Without the key the door stays shut (the keys check is cached for two seconds).
  await new Promise((r) => setTimeout(r, 2_100));
  const shut = await fetch(`${t.service.url}/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
  });
  assert.equal(shut.status, 401);
  assert.match(shut.headers.get("www-authenticate") ?? "", /^Bearer\b/);
  await shut.body?.cancel();

  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${t.service.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  try {
    const { tools } = await client.listTools();
    const names = tools.map((x: Tool) => x.name);
    for (const n of ["describe", "execute", "search", "run_program", "start_program"]) {
      assert.ok(names.includes(n), n);
    }
    const execute = tools.find((x: Tool) => x.name === "execute")!;
    const described = await t.service.runtime.modelDescription({ namespace: "agents" });
    assert.ok(execute.description?.startsWith(described), "execute carries the model description");
    assert.match(described, /math/);
    const sum = await call(client, "execute", { code: "return await math.add({ a: 40, b: 2 })" });
    assert.equal(sum.isError, false, sum.text);
    assert.equal(sum.data?.result, 42);
    assert.match(sum.text, /42/);
    const paused = await call(client, "execute", { code: 'return await mail.send({ to: "ann" })' });
    assert.equal(paused.data?.status, "paused");
    assert.match(paused.text, /approve/);
    const id = paused.data?.executionId as string;
    // The run belongs to the key's namespace, and the HTTP API decides it.
    assert.equal((await t.service.runtime.execution(id))?.namespace, "agents");
    const approved = await t.call("POST", `/v1/executions/${id}/approve`, {}, {
      authorization: `Bearer ${
        (await t.service.keys.create({ name: "ops", scopes: ["admin"] })).token
      }`,
    });
    assert.equal(approved.json.result, "sent to ann");
    const found = await call(client, "search", { query: "send mail" });
    assert.match(found.text, /mail\.send/);
  } finally {
    await client.close();
  }
});

Deno.test("deno task mcp: a desktop client over stdio runs code and meets a gated call", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "cordon-mcp-" });
  try {
    const transport = new StdioClientTransport({
      command: Deno.execPath(),
      args: ["task", "-q", "mcp", "--config", FIXTURE_CONFIG, "--data-dir", dataDir],
      cwd: ROOT,
      stderr: "pipe",
    });
    const client = new Client({ name: "cordon-test", version: "1.0.0" });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      const names = tools.map((x: Tool) => x.name);
      for (const n of ["describe", "execute", "search", "run_program", "start_program"]) {
        assert.ok(names.includes(n), n);
      }
      const sum = await call(client, "execute", { code: "return await math.add({ a: 1, b: 2 })" });
      assert.equal(sum.data?.result, 3, sum.text);
      const paused = await call(client, "execute", { code: 'return await mail.send({ to: "x" })' });
      assert.equal(paused.data?.status, "paused");
      const described = await call(client, "describe", { path: "mail.send" });
      assert.match(described.text, /mail\.send/);
    } finally {
      await client.close();
    }
    // The run is in the same database a server on this data directory would use.
    const { openDb } = await import("../../../src/store/client.ts");
    const db = await openDb(`file:${dataDir}/cordon.db`);
    try {
      const rs = await db.execute("SELECT status FROM executions ORDER BY created_at");
      assert.deepEqual(rs.rows.map((r) => r.status), ["completed", "paused"]);
    } finally {
      db.close();
    }
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("/mcp: execute keeps a session's variables between calls", async () => {
  await using t = await openService();
  const client = new Client({ name: "cordon-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${t.service.url}/mcp`)));
  try {
    await client.listTools();
    const first = await call(client, "execute", {
      code: "let total = 40; return total",
      session: true,
    });
    const sessionId = first.data?.sessionId as string;
    assert.match(sessionId, /^ses_/);
    assert.match(first.text, /Session: ses_/);
    const second = await call(client, "execute", { code: "total += 2; return total", sessionId });
    assert.equal(second.data?.result, 42, second.text);
    const gone = await call(client, "execute", { code: "return 1", sessionId: "ses_nope" });
    assert.equal(gone.isError, true);
    assert.match(gone.text, /session_not_found/);
  } finally {
    await client.close();
  }
});
