/**
 * Document 001 (Caplets "Code Mode API"): its two debug recipes run as written, and the run meta
 * (`CodeModeRunMeta`) an execution returns, including the trace id taken from a W3C
 * `traceparent` over HTTP.
 */
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { z } from "zod";
import { createRuntime, defineConnector, type Runtime } from "../../mod.ts";
import { mcpHttpHandler } from "../../src/service/mcp/mod.ts";
import { openService } from "../service/_service.ts";

/** The document's recovery recipe, verbatim. */
const READ_RECOVERY_RECIPE = `const history = await caplets.debug.readRecovery({
  recoveryRef: "code-mode-recovery-ref",
  limit: 20,
});

return {
  nextCursor: history.nextCursor,
  setupCandidates: history.entries
    .filter((entry) => entry.recoveryClassification === "setup_like")
    .map((entry) => ({ summary: entry.summary, ok: entry.outcome.ok })),
};`;

/** The document's logs recipe, verbatim. */
const READ_LOGS_RECIPE = `const result = await caplets.debug.readLogs({
  logRef: "caplet-run-log-ref",
  limit: 100,
});

return {
  nextCursor: result.nextCursor,
  errors: result.entries.filter((entry) => entry.level === "error"),
};`;

/**
 * A recipe with its placeholder ref replaced by a real one. `caplets.debug` is the same pair of
 * functions as `codemode.readLogs`/`readRecovery`; where this build has no `caplets` global yet,
 * the first line gives the recipe that pair under the documented name.
 */
function recipe(code: string, placeholder: string, ref: string): string {
  assert.ok(code.includes(`"${placeholder}"`));
  const debug = "const caplets = (globalThis as any).caplets ?? { debug: codemode };\n";
  return debug + code.replace(`"${placeholder}"`, JSON.stringify(ref));
}

const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const TRACEPARENT = `00-${TRACE_ID}-00f067aa0ba902b7-01`;

const kv = defineConnector({
  name: "kv",
  description: "A key-value store",
  tools: {
    get: {
      description: "Read a key",
      input: z.object({ key: z.string() }),
      readOnly: true,
      execute: ({ key }) => `value of ${key}`,
    },
    put: {
      description: "Write a key",
      input: z.object({ key: z.string(), value: z.string() }),
      execute: ({ key }) => `stored ${key}`,
    },
    gated: {
      description: "Needs approval",
      input: z.object({}),
      requiresApproval: true,
      execute: () => "approved",
    },
  },
});

function open(extra: Record<string, unknown> = {}): Promise<Runtime> {
  return createRuntime({
    connectors: [kv],
    db: ":memory:",
    pool: { size: 1 },
    typecheck: "off",
    ...extra,
  });
}

function completed(r: Awaited<ReturnType<Runtime["execute"]>>): unknown {
  assert.equal(r.status, "completed", Deno.inspect(r).slice(0, 800));
  return r.status === "completed" ? r.result : undefined;
}

Deno.test("001 recipe: readRecovery lists a session's setup-like executions with summaries", async () => {
  await using rt = await open();
  const first = await rt.execute({
    session: true,
    code: "const region = 'eu'; let seen: string[] = []; return region",
  });
  completed(first);
  const { sessionId, recoveryRef } = first.meta;
  assert.equal(first.meta.sessionStatus, "created");
  assert.ok(sessionId && recoveryRef);
  completed(await rt.execute({ sessionId, code: "seen.push(await kv.get({ key: 'a' }))" }));
  completed(await rt.execute({ sessionId, code: "await kv.put({ key: 'a', value: 'b' })" }));
  await rt.execute({ sessionId, code: "seen.missing.deeper" });
  const r = await rt.execute({
    code: recipe(READ_RECOVERY_RECIPE, "code-mode-recovery-ref", recoveryRef),
  });
  const got = completed(r) as { nextCursor?: string };
  assert.equal(got.nextCursor, undefined, "one page holds the whole history");
  assert.deepEqual({ ...got, nextCursor: undefined }, {
    nextCursor: undefined,
    setupCandidates: [
      { summary: "declares region, seen; 0 tool calls; completed", ok: true },
      { summary: "declares nothing; 1 tool call; completed", ok: true },
      {
        summary: "declares nothing; 0 tool calls; failed with script_error: " +
          "TypeError: Cannot read properties of undefined (reading 'deeper')",
        ok: false,
      },
    ],
  });
  // The side-effecting execution is in the history, under its class; a page of one pages on.
  const page = await rt.readRecovery({ recoveryRef, limit: 1 });
  assert.equal(page.nextCursor, "1");
  const all = await rt.readRecovery({ recoveryRef });
  assert.deepEqual(all.entries.map((e) => e.recoveryClassification), [
    "setup_like",
    "setup_like",
    "side_effecting",
    "setup_like",
  ]);
  for (const e of all.entries) {
    assert.equal(new Date(e.timestamp).toISOString(), e.timestamp);
    assert.equal(e.declarationHash, first.meta.declarationHash);
  }
});

Deno.test("001 recipe: readLogs with a logRef a Caplet returned keeps the error lines", async () => {
  const refs: string[] = [];
  const runs = defineConnector({
    name: "runs",
    description: "Earlier runs",
    tools: {
      last: {
        description: "The log ref of the last run",
        input: z.object({}),
        readOnly: true,
        execute: () => ({ logRef: refs.at(-1) }),
      },
    },
  });
  await using rt = await createRuntime({
    connectors: [runs],
    db: ":memory:",
    pool: { size: 1 },
    typecheck: "off",
  });
  const logged = await rt.execute({
    code: "console.log('start'); console.error('disk full'); console.warn('retrying'); " +
      "console.error('gave up'); return 1",
  });
  completed(logged);
  refs.push((await rt.execution(logged.executionId))!.logRef);
  // A Caplet hands the script a log ref; the script reads it back.
  const fromTool = await rt.execute({
    code: "const { logRef } = await runs.last({}); " +
      "return (await codemode.readLogs({ logRef })).entries.map((e) => e.message)",
  });
  assert.deepEqual(completed(fromTool), ["start", "disk full", "retrying", "gave up"]);
  const r = await rt.execute({ code: recipe(READ_LOGS_RECIPE, "caplet-run-log-ref", refs[0]) });
  const got = completed(r) as { nextCursor?: string; errors: Record<string, unknown>[] };
  assert.equal(got.nextCursor, undefined);
  assert.deepEqual(got.errors.map((e) => [e.level, e.message, Object.keys(e).sort()]), [
    ["error", "disk full", ["level", "message", "timestamp"]],
    ["error", "gave up", ["level", "message", "timestamp"]],
  ]);
  const created = (await rt.execution(logged.executionId))!.createdAt;
  for (const e of got.errors) {
    const at = Date.parse(e.timestamp as string);
    assert.equal(new Date(at).toISOString(), e.timestamp);
    assert.ok(at >= created && at < created + 60_000, String(e.timestamp));
  }
});

Deno.test("001 run meta: runId, traceId, declarationHash, times and the session's fields", async () => {
  await using rt = await open();
  const plain = await rt.execute({ code: "return 1" });
  const m = plain.meta;
  assert.equal(m.runId, plain.executionId);
  assert.match(m.traceId, /^[0-9a-f]{32}$/);
  assert.notEqual(m.traceId, "0".repeat(32));
  assert.equal(m.declarationHash, rt.types().declarationHash);
  assert.ok(m.durationMs >= 0 && m.timeoutMs > 0 && m.maxTimeoutMs >= m.timeoutMs);
  assert.equal(m.sessionId, undefined);
  const other = await rt.execute({ code: "return 2" });
  assert.notEqual(other.meta.traceId, m.traceId, "each execution starts a trace of its own");
  const created = await rt.execute({ session: true, code: "let a = 1; return a" });
  assert.deepEqual(
    [created.meta.sessionStatus, typeof created.meta.sessionId, typeof created.meta.recoveryRef],
    ["created", "string", "string"],
  );
  const reused = await rt.execute({ sessionId: created.meta.sessionId, code: "return a" });
  assert.equal(reused.meta.sessionStatus, "reused");
  assert.equal(reused.meta.sessionId, created.meta.sessionId);
  assert.equal(reused.meta.recoveryRef, undefined, "a reused session does not hand out its ref");
  // Refused before it ran: the meta still names the run and its trace.
  const refused = await rt.execute({ code: "return 1", timeoutMs: -5, traceparent: TRACEPARENT });
  assert.equal(refused.status, "error");
  assert.equal(refused.meta.runId, refused.executionId);
  assert.equal(refused.meta.traceId, TRACE_ID);
  // Refused by a strict type check: the same.
  const untyped = await rt.execute({
    code: 'const n: number = "one";\nreturn n',
    typecheck: "strict",
    traceparent: TRACEPARENT,
  });
  assert.equal(untyped.status, "error");
  assert.equal(untyped.status === "error" && untyped.error.code, "type_error");
  assert.equal(untyped.meta.runId, untyped.executionId);
  assert.equal(untyped.meta.traceId, TRACE_ID);
});

Deno.test("001 run meta: traceId follows a valid traceparent; a malformed one is ignored", async () => {
  await using rt = await open();
  const joined = await rt.execute({ code: "return 1", traceparent: TRACEPARENT });
  assert.equal(joined.meta.traceId, TRACE_ID);
  const malformed = [
    "garbage",
    `00-${TRACE_ID.toUpperCase()}-00f067aa0ba902b7-01`,
    `00-${"0".repeat(32)}-00f067aa0ba902b7-01`,
    `00-${TRACE_ID}-${"0".repeat(16)}-01`,
    `ff-${TRACE_ID}-00f067aa0ba902b7-01`,
    `00-${TRACE_ID}-00f067aa0ba902b7-01-extra`,
    "x".repeat(10_000),
  ];
  for (const traceparent of malformed) {
    const r = await rt.execute({ code: "return 1", traceparent });
    assert.equal(r.status, "completed", traceparent.slice(0, 60));
    assert.match(r.meta.traceId, /^[0-9a-f]{32}$/);
    assert.notEqual(r.meta.traceId, TRACE_ID, traceparent.slice(0, 60));
  }
  // A later version may append fields: its trace id still counts.
  const future = await rt.execute({
    code: "return 1",
    traceparent: `01-${TRACE_ID}-00f067aa0ba902b7-01-more`,
  });
  assert.equal(future.meta.traceId, TRACE_ID);
});

Deno.test("001 run meta: the trace id is stored and survives a replayed approval", async () => {
  await using rt = await open({ durability: { holdMs: 50 } });
  const paused = await rt.execute({ code: "return await kv.gated({})", traceparent: TRACEPARENT });
  assert.equal(paused.status, "paused");
  assert.equal(paused.meta.traceId, TRACE_ID);
  await new Promise((r) => setTimeout(r, 300));
  const done = await rt.approve(paused.executionId);
  assert.equal(completed(done), "approved");
  assert.equal(done.meta.replayed, true, "the held child was gone: the row came from the store");
  assert.equal(done.meta.traceId, TRACE_ID);
  assert.equal(done.meta.runId, paused.executionId);
  // Read back, the execution names its trace too; one given none answers the id meta gave.
  assert.equal((await rt.execution(paused.executionId))?.traceId, TRACE_ID);
  const own = await rt.execute({ code: "return 1" });
  assert.equal((await rt.execution(own.executionId))?.traceId, own.meta.traceId);
});

Deno.test("001 run meta over HTTP: POST /v1/executions takes the traceparent header", async () => {
  await using t = await openService();
  const joined = await t.call("POST", "/v1/executions", { code: "return 1" }, {
    traceparent: TRACEPARENT,
  });
  assert.equal(joined.status, 200, JSON.stringify(joined.json));
  assert.equal(joined.json.meta.traceId, TRACE_ID);
  assert.equal(joined.json.meta.runId, joined.json.executionId);
  assert.match(joined.json.meta.declarationHash, /\S/);
  const bad = await t.call("POST", "/v1/executions", { code: "return 1" }, {
    traceparent: "00-nonsense",
  });
  assert.equal(bad.status, 200, "a malformed traceparent is ignored, not refused");
  assert.match(bad.json.meta.traceId, /^[0-9a-f]{32}$/);
  assert.notEqual(bad.json.meta.traceId, TRACE_ID);
  const none = await t.call("POST", "/v1/executions", { code: "return 1" });
  assert.match(none.json.meta.traceId, /^[0-9a-f]{32}$/);
  // A snippet run joins the caller's trace the same way.
  const saved = await t.call("POST", "/v1/snippets", {
    name: "one",
    executionId: none.json.executionId,
  });
  assert.equal(saved.json.name, "one", JSON.stringify(saved.json));
  const ran = await t.call("POST", "/v1/snippets/one/run", {}, { traceparent: TRACEPARENT });
  assert.equal(ran.status, 200, JSON.stringify(ran.json));
  assert.equal(ran.json.result, 1);
  assert.equal(ran.json.meta.traceId, TRACE_ID);
});

Deno.test("001 run meta over MCP: execute answers meta, takes _meta.traceparent, hands out the recoveryRef", async () => {
  await using rt = await open();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    mcpHttpHandler(rt),
  );
  const client = new Client({ name: "cordon-test", version: "1.0.0" });
  try {
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${server.addr.port}/mcp`)),
    );
    await client.listTools();
    const out = await client.callTool({
      name: "execute",
      arguments: { code: "let a = 1; return a", session: true },
      _meta: { traceparent: TRACEPARENT },
    });
    const data = out.structuredContent as { executionId: string; meta: Record<string, string> };
    const text = (out.content as { text: string }[])[0].text;
    assert.equal(data.meta.traceId, TRACE_ID);
    assert.equal(data.meta.runId, data.executionId);
    assert.equal(data.meta.sessionStatus, "created");
    const { recoveryRef } = data.meta;
    assert.match(text, new RegExp(`recoveryRef: "${recoveryRef}"`), text);
    // What the text handed out is what a script's readRecovery() takes.
    const read = await client.callTool({
      name: "execute",
      arguments: { code: recipe(READ_RECOVERY_RECIPE, "code-mode-recovery-ref", recoveryRef) },
    });
    const history = read.structuredContent as { result: { setupCandidates: unknown[] } };
    assert.deepEqual(history.result.setupCandidates, [
      { summary: "declares a; 0 tool calls; completed", ok: true },
    ]);
  } finally {
    await client.close();
    await server.shutdown();
  }
});
