/**
 * A run's limits hold until its child is gone: a session's child does not run between
 * executions, nothing a child sends after its answer touches the finished execution, every
 * host request counts against the call budget, and the workspace quota counts entries.
 */
import assert from "node:assert/strict";
import { z } from "zod";
import {
  type Connector,
  createRuntime,
  defineConnector,
  type ExecuteResult,
  type Runtime,
} from "../../../mod.ts";
import { childProcesses } from "../../_helpers/processes.ts";

function ok(r: ExecuteResult): unknown {
  assert.equal(r.status, "completed", Deno.inspect(r).slice(0, 800));
  return (r as { result: unknown }).result;
}

function failed(r: ExecuteResult): { code: string; message: string } {
  assert.notEqual(r.status, "completed", Deno.inspect(r).slice(0, 400));
  return (r as { error: { code: string; message: string } }).error;
}

function probe(): { connector: Connector; hits: () => number } {
  let hits = 0;
  const connector = defineConnector({
    name: "probe",
    description: "Counts calls",
    tools: {
      hit: {
        description: "Count one call",
        input: z.unknown(),
        execute: () => ++hits,
      },
    },
  });
  return { connector, hits: () => hits };
}

function open(connectors: Connector[] = [], pool = 0): Promise<Runtime> {
  return createRuntime({ connectors, db: ":memory:", pool: { size: pool }, typecheck: "off" });
}

/**
 * The state letter of every thread of the sandbox child `pid` (the script reports its own
 * `Deno.pid`: with `--parallel`, other test files' children are children of this process too).
 */
async function threadStates(pid: number): Promise<string[]> {
  const states: string[] = [];
  for await (const task of Deno.readDir(`/proc/${pid}/task`)) {
    const stat = await Deno.readTextFile(`/proc/${pid}/task/${task.name}/stat`);
    states.push(stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3));
  }
  return states;
}

/** The pid is one of this process's sandbox children. */
async function assertSandboxChild(pid: number): Promise<void> {
  const child = (await childProcesses()).find((p) => p.pid === pid);
  assert.ok(child?.cmd.includes("--location=https://run-"), `${pid} is a sandbox child`);
}

Deno.test("a session's child is stopped between executions and runs again in the next", async () => {
  await using rt = await open();
  const first = await rt.execute({
    session: true,
    code: `globalThis.ticks = 0;
setInterval(() => { globalThis.ticks++; }, 1);
new Worker("data:text/javascript," + encodeURIComponent("setInterval(() => {}, 1)"), { type: "module" });
await new Promise((r) => setTimeout(r, 20));
return Deno.pid`,
  });
  const pid = ok(first) as number;
  await assertSandboxChild(pid);
  const sessionId = first.meta.sessionId!;
  const between = await threadStates(pid);
  assert.ok(between.length > 1, "the session's child and its threads are there");
  assert.deepEqual(between.filter((s) => s !== "T" && s !== "t"), [], "every thread is stopped");
  const ticks = await rt.execute({ sessionId, code: "return [typeof ticks, Deno.pid]" });
  assert.deepEqual(ok(ticks), ["number", pid], "the heap survived the stop");
  const after = await threadStates(pid);
  assert.deepEqual(after.filter((s) => s !== "T" && s !== "t"), [], "stopped again");
});

Deno.test("requests a child sends after its answer are dropped, not run or stored", async () => {
  const { connector, hits } = probe();
  await using rt = await open([connector]);
  for (const session of [false, true]) {
    const r = await rt.execute({
      ...(session ? { session: true } : {}),
      code: `setTimeout(() => {
  for (let i = 0; i < 20; i++) probe.hit(i).catch(() => {});
  codemode.step("late", () => 1).catch(() => {});
  codemode.search("probe").catch(() => {});
  console.log("LATE LINE");
}, 0);
// Busy past the timer's due time, so it runs right after the answer is written.
const until = Date.now() + 60;
while (Date.now() < until);
return "answered"`,
    });
    assert.equal(ok(r), "answered");
    await new Promise((resolve) => setTimeout(resolve, 200));
    const stored = await rt.execution(r.executionId);
    assert.equal(hits(), 0, "no late tool call ran");
    assert.deepEqual(stored?.calls ?? [], [], "no late call or step reached the call log");
    const logs = await rt.readLogs({ logRef: stored!.logRef });
    assert.ok(!JSON.stringify(logs).includes("LATE LINE"), "no late log line was kept");
    assert.ok(!JSON.stringify(r.logs).includes("LATE LINE"), "no late log line was returned");
  }
});

Deno.test("codemode.step and codemode.search count against maxToolCalls", async () => {
  await using rt = await open();
  const steps = await rt.execute({
    limits: { maxToolCalls: 20 },
    code: `for (let i = 0; i < 600; i++) await codemode.step("s" + i, () => "x".repeat(1000));
return "done"`,
  });
  assert.equal(failed(steps).code, "too_many_calls");
  const stored = await rt.execution(steps.executionId);
  const stepRows = (stored?.calls ?? []).filter((c) => c.kind === "step");
  assert.ok(stepRows.length <= 20, `${stepRows.length} step rows stored`);

  const searches = await rt.execute({
    limits: { maxToolCalls: 10 },
    code: `let n = 0;
for (let i = 0; i < 9000; i++) { await codemode.search("anything"); n++; }
return n`,
  });
  assert.equal(failed(searches).code, "too_many_calls");
  assert.match(failed(searches).message, /codemode requests/);

  // Within the budget, steps work as before.
  const within = await rt.execute({
    limits: { maxToolCalls: 20 },
    code: `let sum = 0;
for (let i = 0; i < 5; i++) sum += await codemode.step("s" + i, () => i);
return sum`,
  });
  assert.equal(ok(within), 10);
});

Deno.test("handle methods that reach a backend wait for the connector's concurrency permit", async () => {
  let running = 0;
  let most = 0;
  const slow: Connector = {
    ...defineConnector({
      name: "slow",
      description: "A backend that counts concurrent reads",
      tools: { ping: { description: "Ping", input: z.object({}), execute: () => "pong" } },
    }),
    concurrency: 1,
    handle: {
      check: () => Promise.resolve({ ready: true }),
      readResource: async (uri) => {
        running++;
        most = Math.max(most, running);
        await new Promise((r) => setTimeout(r, 10));
        running--;
        return { contents: [{ uri, text: "x" }] };
      },
    },
  };
  await using rt = await open([slow]);
  const r = await rt.execute({
    code: `const h = codemode.connector("slow");
const all = await Promise.all([1, 2, 3, 4, 5].map((i) => h.readResource("doc://" + i)));
return all.map((a) => a.ok)`,
  });
  assert.deepEqual(ok(r), [true, true, true, true, true]);
  assert.equal(most, 1, "never more reads at once than the connector's concurrency");
});

Deno.test("the workspace quota counts entries: a flood of empty files fails with the quota error", async () => {
  await using rt = await open();
  const flood = await rt.execute({
    limits: { timeoutMs: 60_000 },
    workspace: { quotaEntries: 500 },
    code:
      `for (let i = 0; i < 100_000; i++) await Deno.writeFile(workspace.dir + "/f" + i, new Uint8Array());
return "wrote them all"`,
  });
  const error = failed(flood);
  assert.equal(error.code, "limit_exceeded");
  assert.match(error.message, /entries/);

  const tooMany = await rt.execute({ workspace: { quotaEntries: 10_000_000 }, code: "return 1" });
  assert.equal(failed(tooMany).code, "limit_exceeded");
});

Deno.test("the workspace quota holds at the end of a run, not only at its checks", async () => {
  await using rt = await open();
  // A session's second execution starts in a warm child: it writes and answers at once.
  const first = await rt.execute({
    session: true,
    workspace: { quotaBytes: 1024 * 1024 },
    code: "return 1",
  });
  assert.equal(ok(first), 1);
  const r = await rt.execute({
    sessionId: first.meta.sessionId!,
    code: `await Deno.writeFile(workspace.dir + "/big", new Uint8Array(2 * 1024 * 1024));
return "quick"`,
  });
  const error = failed(r);
  assert.equal(error.code, "limit_exceeded");
  assert.match(error.message, /quota/);
});

Deno.test("the Cache API is gone: no caches global, and a Worker's caches.open() fails", async () => {
  await using rt = await open();
  const r = await rt.execute({
    code:
      `const src = "caches.open('x').then(() => postMessage('opened'), (e) => postMessage('refused ' + e.message))";
const w = new Worker("data:text/javascript," + encodeURIComponent(src), { type: "module" });
const got = await new Promise((r) => { w.onmessage = (m) => r(m.data); });
w.terminate();
return { main: typeof caches, storage: typeof CacheStorage, worker: got }`,
  });
  const result = ok(r) as { main: string; storage: string; worker: string };
  assert.equal(result.main, "undefined");
  assert.equal(result.storage, "undefined");
  assert.match(result.worker, /^refused /);
});

Deno.test("a paused run's child is stopped until its decision, then runs on", async () => {
  const gate = defineConnector({
    name: "gate",
    description: "Needs a person",
    tools: {
      send: {
        description: "Send, once approved",
        input: z.object({}),
        requiresApproval: true,
        execute: () => "sent",
      },
      hello: {
        description: "Say which process runs the script",
        input: z.object({ pid: z.number() }),
        execute: ({ pid }) => (childPid = pid),
      },
    },
  });
  let childPid = 0;
  await using rt = await open([gate]);
  const paused = await rt.execute({
    code: `globalThis.spins = 0;
const timer = setInterval(() => { globalThis.spins++; }, 1);
await gate.hello({ pid: Deno.pid });
const sent = await gate.send({});
clearInterval(timer);
return { sent, spun: globalThis.spins > 0 };`,
  });
  assert.equal(paused.status, "paused", Deno.inspect(paused).slice(0, 400));
  // The stop is asked for as the run pauses; give the kernel a moment to show it.
  await assertSandboxChild(childPid);
  let states: string[] = [];
  for (let i = 0; i < 200; i++) {
    states = await threadStates(childPid);
    if (states.length > 0 && states.every((s) => s === "T" || s === "t")) break;
    await new Promise((r) => setTimeout(r, 5));
  }
  assert.ok(states.length > 0, "the paused child is kept for live continuation");
  assert.deepEqual(states.filter((s) => s !== "T" && s !== "t"), [], "every thread is stopped");
  const done = await rt.approve(paused.executionId);
  assert.deepEqual(ok(done), { sent: "sent", spun: true });
  assert.equal(done.meta.replayed, false, "the stopped child continued live");
});
