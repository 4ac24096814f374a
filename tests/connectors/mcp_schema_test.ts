import assert from "node:assert/strict";
import { mcpConnector } from "../../src/connectors/mcp/mod.ts";
import { STALL_BOUND_MS, withLag } from "../_helpers/lag.ts";
import { FIRST_START_TIMEOUT_MS, fixtureServer } from "../_helpers/mcp_servers.ts";
import { callTool } from "./mcp_helpers.ts";

Deno.test("McpConnector checks a server's output schema patterns without stalling the host", async () => {
  await using connector = mcpConnector({
    name: "hostile",
    ...fixtureServer("hostile_schema_server.ts"),
    startupTimeoutMs: FIRST_START_TIMEOUT_MS,
  });
  await connector.start();
  assert.deepEqual(await callTool(connector, "echo", { text: "aaaa" }), { value: "aaaa" });
  // The SDK's default validator (Ajv on V8's RegExp) held the host for seconds on this.
  const { value: failure, lagMs } = await withLag(() =>
    callTool(connector, "echo", { text: "a".repeat(28) + "!" }).then(() => undefined, (e) => e)
  );
  assert.ok(failure instanceof Error, "a result that breaks its output schema fails the call");
  assert.match(failure.message, /must match pattern/);
  assert.ok(lagMs < STALL_BOUND_MS, `the event loop stalled ${Math.round(lagMs)} ms`);
});
