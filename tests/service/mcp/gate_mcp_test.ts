/**
 * The admission gate holds for every door: MCP `execute` runs take the same slots as HTTP
 * runs, and past the queue bound they answer a tool error instead of starting.
 */
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { openService, type TestService } from "../_service.ts";

async function connect(t: TestService): Promise<Client> {
  const client = new Client({ name: "cordon-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${t.service.url}/mcp`)));
  return client;
}

async function waitForRunning(t: TestService, running: number): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const health = await t.call("GET", "/healthz");
    if (health.json.load.running === running) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`the gate never showed ${running} running`);
}

Deno.test("/mcp: execute goes through the admission gate and is refused when it is full", async () => {
  await using t = await openService({ concurrency: { maxRunning: 1, maxQueued: 0 } });
  const first = await connect(t);
  const second = await connect(t);
  try {
    // The first run holds the only slot until it ends.
    const holding = first.callTool({
      name: "execute",
      arguments: { code: "await new Promise((r) => setTimeout(r, 3_000)); return 1" },
    });
    await waitForRunning(t, 1);
    const refused = await second.callTool({ name: "execute", arguments: { code: "return 2" } });
    assert.equal(refused.isError, true);
    const text = (refused.content as { text: string }[])[0].text;
    assert.match(text, /^too_many_requests:/);
    // HTTP runs meet the same gate.
    const http = await t.call("POST", "/v1/executions", { code: "return 3" });
    assert.equal(http.status, 429);
    const held = await holding;
    assert.equal((held.structuredContent as { result: number }).result, 1);
    // The slot came back.
    const after = await second.callTool({ name: "execute", arguments: { code: "return 4" } });
    assert.equal((after.structuredContent as { result: number }).result, 4);
    assert.equal((await t.call("GET", "/healthz")).json.load.running, 0);
    const stored = await t.call("GET", "/v1/executions");
    assert.deepEqual(stored.json.items.map((e: { status: string }) => e.status), [
      "completed",
      "completed",
    ]);
  } finally {
    await first.close();
    await second.close();
  }
});
