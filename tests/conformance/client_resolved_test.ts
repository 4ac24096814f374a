/**
 * Document 003 (client-resolved tools, Option B), as written: a tool without `execute` called
 * from sandboxed code parks the run durably with `resolution: "client"`; the client's result,
 * posted with `resolveExecution(executionId, seq, result)`, is recorded and replays like any
 * applied result; `pendingExecutions()` says whether a client listens; Option A stays a setting.
 */
import assert from "node:assert/strict";
import { tool } from "ai";
import { z } from "zod";
import {
  createRuntime,
  type ExecuteResult,
  type PausedResult,
  type Runtime,
  toolSetConnector,
} from "../../mod.ts";
import { openService } from "../service/_service.ts";

/** The document's model-written code, verbatim. */
const DOC_CODE = "const tz = await tools.getUserTimezone({});";

/** Client-side AI SDK tools: no `execute`, resolved in the browser. */
function clientTools() {
  return toolSetConnector({
    name: "tools",
    tools: {
      getUserTimezone: tool({
        description: "The user's time zone, from the browser",
        inputSchema: z.object({}),
        outputSchema: z.string(),
      }),
      ask_user: tool({
        description: "Ask the user a yes/no question",
        inputSchema: z.object({ question: z.string() }),
        outputSchema: z.boolean(),
      }),
    },
  });
}

function paused(r: ExecuteResult): PausedResult {
  assert.equal(r.status, "paused", Deno.inspect(r).slice(0, 500));
  return r as PausedResult;
}

function completed(r: ExecuteResult): unknown {
  assert.equal(r.status, "completed", Deno.inspect(r).slice(0, 500));
  return (r as { result: unknown }).result;
}

async function open(db: string): Promise<Runtime> {
  return await createRuntime({ connectors: [clientTools()], db, pool: { size: 0 } });
}

Deno.test("003: the document's code parks on a client tool until resolveExecution()", async () => {
  await using rt = await open(":memory:");
  const p = paused(await rt.execute({ code: DOC_CODE }));
  assert.deepEqual(p.diagnostics, [], "the client tool is declared to the type check");
  const pending = await rt.pendingExecutions();
  assert.equal(pending.length, 1);
  const [entry] = pending;
  assert.equal(entry.executionId, p.executionId);
  assert.equal(entry.tool, "getUserTimezone");
  assert.equal(entry.resolution, "client");
  assert.equal(entry.clientConnected, false, "nobody listens for it");
  assert.deepEqual(entry.args, {});
  assert.deepEqual(p.pending, pending, "the paused result lists the same entry");
  // The document's names are Cordon's functions, not copies.
  assert.equal(rt.pendingExecutions, rt.pending);
  assert.equal(rt.resolveExecution, rt.resolve);
  const done = await rt.resolveExecution(entry.executionId, entry.seq, "Europe/Paris");
  assert.equal(completed(done), undefined, "the document's statement returns nothing");
  assert.deepEqual(done.calls.map((c) => [c.tool, c.state]), [
    ["getUserTimezone", "applied"],
  ]);
  assert.deepEqual(await rt.pendingExecutions(), []);
});

Deno.test("003: the resolved value reaches the code and a bad one is refused by the output schema", async () => {
  await using rt = await open(":memory:");
  const p = paused(await rt.execute({ code: `${DOC_CODE}\nreturn tz.toUpperCase();` }));
  const seq = p.pending[0].seq;
  await assert.rejects(
    rt.resolveExecution(p.executionId, seq, 42),
    (e: unknown) => (e as { code?: string }).code === "invalid_output",
  );
  assert.equal(completed(await rt.resolveExecution(p.executionId, seq, "utc")), "UTC");
});

Deno.test("003: chained client calls pause and resolve in turn; after a restart the replay uses the recorded value", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cordon-003-" });
  const db = `file:${dir}/cordon.db`;
  const code = `${DOC_CODE}
const ok = await tools.ask_user({ question: "Use " + tz + "?" });
return { tz, ok };`;
  try {
    let id: string;
    {
      await using first = await open(db);
      const p = paused(await first.execute({ code }));
      id = p.executionId;
      const again = paused(await first.resolveExecution(id, p.pending[0].seq, "Asia/Tokyo"));
      assert.deepEqual(again.pending.map((x) => [x.tool, x.resolution, x.args]), [
        ["ask_user", "client", { question: "Use Asia/Tokyo?" }],
      ]);
    }
    await using second = await open(db);
    const [waiting] = await second.pendingExecutions();
    assert.equal(waiting.executionId, id);
    assert.equal(waiting.tool, "ask_user");
    const done = await second.resolveExecution(id, waiting.seq, true);
    assert.deepEqual(completed(done), { tz: "Asia/Tokyo", ok: true });
    assert.equal(done.meta.replayed, true, "a new process replays the recorded calls");
    assert.deepEqual(done.calls.map((c) => [c.seq, c.tool, c.state]), [
      [1, "getUserTimezone", "applied"],
      [2, "ask_user", "applied"],
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test('003: Option A as a setting: clientTools "skip" leaves execute-less tools out, with one warning', async () => {
  const warnings: unknown[][] = [];
  const warn = console.warn;
  console.warn = (...args: unknown[]) => void warnings.push(args);
  let connector;
  try {
    connector = toolSetConnector({
      name: "tools",
      clientTools: "skip",
      tools: {
        getUserTimezone: tool({ description: "Browser time zone", inputSchema: z.object({}) }),
        ask_user: tool({ description: "Ask", inputSchema: z.object({ q: z.string() }) }),
        now: tool({ description: "Server time", inputSchema: z.object({}), execute: () => 1 }),
      },
    });
  } finally {
    console.warn = warn;
  }
  assert.equal(warnings.length, 1);
  assert.match(String(warnings[0][0]), /getUserTimezone, ask_user/);
  assert.deepEqual(connector.tools.map((t) => t.name), ["now"]);
  await using rt = await createRuntime({
    connectors: [connector],
    db: ":memory:",
    pool: { size: 0 },
  });
  const out = await rt.execute({ code: DOC_CODE, typecheck: "off" });
  assert.equal(out.status, "error");
  assert.match((out as { error: { message: string } }).error.message, /getUserTimezone/);
  assert.equal(out.calls.length, 0, "nothing was called or parked");
});

Deno.test("003: pending entries over HTTP say clientConnected while an event stream is open", async () => {
  await using t = await openService();
  const asked = await t.call("POST", "/v1/executions", {
    code: 'return await client.ask({ question: "Which city?" })',
  });
  assert.equal(asked.json.status, "paused", JSON.stringify(asked.json));
  const id = asked.json.executionId;
  const connected = async () => {
    const { json } = await t.call("GET", "/v1/pending");
    const entry = json.items.find((p: { executionId: string }) => p.executionId === id);
    assert.equal(entry.resolution, "client");
    return entry.clientConnected as boolean;
  };
  assert.equal(await connected(), false);
  const res = await fetch(`${t.service.url}/v1/executions/${id}/events`, {
    headers: { accept: "text/event-stream" },
  });
  const reader = res.body!.getReader();
  await reader.read(); // the stream is open once its first event arrives
  assert.equal(await connected(), true);
  await reader.cancel();
  let after = true;
  for (let i = 0; i < 100 && after; i++) {
    await new Promise((r) => setTimeout(r, 20));
    after = await connected();
  }
  assert.equal(after, false, "closing the stream releases it");
  const resolved = await t.call("POST", `/v1/executions/${id}/resolve`, {
    seq: asked.json.pending[0].seq,
    result: "Lyon",
  });
  assert.equal(resolved.json.status, "completed", JSON.stringify(resolved.json));
  assert.equal(resolved.json.result, "Lyon");
});

Deno.test("003: the costs the document names hold: size limit, expiry of a run no client answers", async () => {
  await using rt = await createRuntime({
    connectors: [clientTools()],
    db: ":memory:",
    pool: { size: 0 },
    durability: { maxDurableValueBytes: 1_000 },
  });
  const p = paused(await rt.execute({ code: DOC_CODE }));
  await assert.rejects(
    rt.resolveExecution(p.executionId, p.pending[0].seq, "x".repeat(2_000)),
    (e: unknown) => (e as { code?: string }).code === "value_too_large",
  );
  // approve/reject answer a person's decision; a client's value goes through resolution.
  await assert.rejects(
    rt.approve(p.executionId),
    (e: unknown) => (e as { code?: string }).code === "invalid_state",
  );
  assert.deepEqual(await rt.expirePaused({ maxAgeMs: 0 }), [p.executionId]);
  assert.deepEqual(await rt.pendingExecutions(), []);
  const ended = await rt.execution(p.executionId);
  assert.equal(ended?.status, "rejected");
  assert.equal(ended?.error?.code, "expired");
});
