/**
 * The MCP issue's end-to-end cases through a runtime: one script chaining
 * two real MCP servers and a zod connector, and a server that dies in the
 * middle of an execution (the call fails with a typed error; the next
 * execution reconnects).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { z } from "zod";
import { createRuntime, defineConnector, type ExecuteResult, mcpConnector } from "../../mod.ts";
import {
  everythingStdio,
  filesystemStdio,
  FIRST_START_TIMEOUT_MS,
} from "../_helpers/mcp_servers.ts";

function completed(r: ExecuteResult): Record<string, unknown> {
  assert.equal(r.status, "completed", Deno.inspect(r).slice(0, 800));
  return (r as { result: Record<string, unknown> }).result;
}

const text = defineConnector({
  name: "text",
  description: "Text helpers",
  tools: {
    shout: {
      description: "Upper-case a text",
      input: z.object({ text: z.string() }),
      output: z.string(),
      execute: ({ text }) => text.toUpperCase(),
    },
  },
});

Deno.test("a script chains two MCP servers and a zod connector", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cordon-chain-" });
  try {
    await using rt = await createRuntime({
      db: ":memory:",
      pool: { size: 0 },
      connectors: [
        mcpConnector({
          name: "everything",
          ...(await everythingStdio()),
          startupTimeoutMs: FIRST_START_TIMEOUT_MS,
        }),
        mcpConnector({
          name: "files",
          ...(await filesystemStdio(dir)),
          startupTimeoutMs: FIRST_START_TIMEOUT_MS,
        }),
        text,
      ],
    });
    const path = join(dir, "report.txt");
    const run = await rt.execute({
      input: { path },
      code: `const sum = await everything["get-sum"]({ a: 40, b: 2 });
const loud = await text.shout({ text: sum });
await files.write_file({ path: input.path, content: loud });
// The filesystem server answers with structuredContent: { content }.
const back = (await files.read_text_file({ path: input.path })).content;
const handle = codemode.connector("files");
const found = await handle.searchTools("read a text file");
return { back, tool: found.items[0]?.name };`,
    });
    const out = completed(run);
    assert.equal(out.back, "THE SUM OF 40 AND 2 IS 42.");
    assert.equal(await Deno.readTextFile(path), "THE SUM OF 40 AND 2 IS 42.");
    assert.match(String(out.tool), /read/);
    assert.deepEqual(
      run.calls.map((c) => `${c.connector}.${c.tool}:${c.state}`),
      [
        "everything.get-sum:applied",
        "text.shout:applied",
        "files.write_file:applied",
        "files.read_text_file:applied",
      ],
    );
    assert.match(rt.types().declarations, /"get-sum"\(args: everything\./);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("an MCP server dies mid-execution: the call fails typed, the next execution reconnects", async () => {
  const everything = mcpConnector({
    name: "everything",
    ...(await everythingStdio()),
    startupTimeoutMs: FIRST_START_TIMEOUT_MS,
  });
  await using rt = await createRuntime({
    db: ":memory:",
    pool: { size: 0 },
    connectors: [everything],
  });
  const firstPid = everything.serverPid!;
  const running = rt.execute({
    code: `try {
  await everything["trigger-long-running-operation"]({ duration: 10, steps: 10 });
  return "finished";
} catch (e) { return { code: e.code, message: e.message }; }`,
  });
  // Kill the server once the call is on its way: its entry is in the log as executing.
  let inFlight = false;
  for (let i = 0; i < 600 && !inFlight; i++) {
    const [run] = (await rt.executions({ status: "running" })).items;
    const calls = run ? (await rt.execution(run.executionId))?.calls ?? [] : [];
    inFlight = calls.some((c) =>
      c.tool === "trigger-long-running-operation" && c.state === "executing"
    );
    if (!inFlight) await new Promise((r) => setTimeout(r, 50));
  }
  assert.ok(inFlight, "the long call started");
  await new Promise((r) => setTimeout(r, 200));
  Deno.kill(firstPid, "SIGKILL");
  const out = completed(await running);
  assert.equal(out.code, "connector_unavailable", Deno.inspect(out));
  const next = await rt.execute({ code: `return await everything["get-sum"]({ a: 1, b: 2 })` });
  assert.equal(completed(next) as unknown, "The sum of 1 and 2 is 3.");
  assert.notEqual(everything.serverPid, firstPid, "a new server was started");
});
