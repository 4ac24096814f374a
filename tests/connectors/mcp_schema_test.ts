import assert from "node:assert/strict";
import { mcpConnector } from "../../src/connectors/mcp/mod.ts";
import { STALL_BOUND_MS, withLag } from "../_helpers/lag.ts";
import { FIRST_START_TIMEOUT_MS } from "../_helpers/mcp_servers.ts";
import { callTool } from "./mcp_helpers.ts";
import { join } from "node:path";
import { denoCacheEnv, FROZEN_RUN_FLAGS, REPO_ROOT } from "../_helpers/deno_run.ts";

/** The server of tests/fixtures/mcp/hostile_schema_server.ts, run frozen from the installed cache. */
function hostileSchemaServer(): { command: string; args: string[]; env: Record<string, string> } {
  return {
    command: Deno.execPath(),
    args: [
      "run",
      "--quiet",
      ...FROZEN_RUN_FLAGS,
      `--config=${join(REPO_ROOT, "deno.json")}`,
      "--allow-read",
      "--allow-env",
      join(REPO_ROOT, "tests/fixtures/mcp/hostile_schema_server.ts"),
    ],
    env: denoCacheEnv(),
  };
}

Deno.test("McpConnector checks a server's output schema patterns without stalling the host", async () => {
  await using connector = mcpConnector({
    name: "hostile",
    ...hostileSchemaServer(),
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
