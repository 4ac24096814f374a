/**
 * An MCP connector inside a runtime: a script calls a real server's tools
 * by their MCP names, failures arrive with their codes, and a tool the
 * server adds later (list_changed) is callable by the next execution.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { createRuntime, type ExecuteResult } from "../../mod.ts";
import { mcpConnector } from "../../src/connectors/mcp/mod.ts";
import {
  changingServer,
  everythingStdio,
  FIRST_START_TIMEOUT_MS,
} from "../_helpers/mcp_servers.ts";
import { groupProcesses } from "../_helpers/process_groups.ts";

function completed(r: ExecuteResult): unknown {
  assert.equal(r.status, "completed", Deno.inspect(r).slice(0, 800));
  return (r as { result: unknown }).result;
}

Deno.test("createRuntime() runs scripts against an MCP server and stops it on close", async () => {
  const everything = mcpConnector({
    name: "everything",
    ...(await everythingStdio()),
    startupTimeoutMs: FIRST_START_TIMEOUT_MS,
  });
  let pid: number | undefined;
  {
    await using rt = await createRuntime({
      db: ":memory:",
      pool: { size: 0 },
      connectors: [everything],
    });
    pid = everything.serverPid;
    const run = await rt.execute({
      code: `const sum = await everything["get-sum"]({ a: 20, b: 22 });
const weather = await everything["get-structured-content"]({ location: "Chicago" });
let bad;
try { await everything["get-sum"]({ a: "x", b: 1 }); } catch (e) { bad = e.code; }
return { sum, temperature: weather.temperature, bad };`,
    });
    assert.deepEqual(completed(run), {
      sum: "The sum of 20 and 22 is 42.",
      temperature: 36,
      bad: "invalid_input",
    });
  }
  assert.ok(pid);
  assert.deepEqual(await groupProcesses(pid), [], "runtime.close() stopped the server");
});

Deno.test("createRuntime() picks up a tool an MCP server adds while it runs", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cordon-mcp-" });
  try {
    const changing = mcpConnector({
      name: "changing",
      ...changingServer(join(dir, "state")),
      startupTimeoutMs: FIRST_START_TIMEOUT_MS,
    });
    await using rt = await createRuntime({
      db: ":memory:",
      pool: { size: 0 },
      connectors: [changing],
    });
    const changed = new Promise<void>((resolve) => {
      const stop = changing.onToolsChanged(() => (stop(), resolve()));
    });
    completed(await rt.execute({ code: `return await changing.add_tool({ name: "late-tool" });` }));
    await changed;
    const run = await rt.execute({ code: `return await changing["late-tool"]({});` });
    assert.equal(completed(run), "I am late-tool");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
