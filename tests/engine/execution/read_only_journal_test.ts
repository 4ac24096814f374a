/**
 * A call to a tool declared `readOnly` runs without waiting for its journal entry's commit (it
 * has no effect to precede); its entry commits behind, before any later write. A call to any
 * other tool runs only once its entry is durable: on a `file:` store, in the process's intent
 * log. On a store in memory, which nothing survives, every call's entry commits behind.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { z } from "zod";
import { createRuntime, defineConnector, type Runtime } from "../../../mod.ts";
import { assertNoSandboxChildren } from "../../_helpers/processes.ts";

/**
 * What the store held for the execution when each tool ran, and the lines of the intent log:
 * [tool, key, stored calls, intent lines].
 */
type Seen = [string, string, string[], string[]][];

function kvConnector(
  rt: () => Runtime,
  seen: Seen,
  runs: Record<string, number>,
  intents: () => string[],
) {
  const stored = async (executionId: string) =>
    (await rt().execution(executionId))!.calls.map((c) =>
      `${c.tool}:${(c.args as { k: string }).k}:${c.state}`
    );
  const tool = (name: string, readOnly: boolean, requiresApproval = false) => ({
    description: `${name} a key`,
    input: z.object({ k: z.string() }),
    readOnly,
    requiresApproval,
    execute: async ({ k }: { k: string }, ctx: { executionId: string }) => {
      runs[k] = (runs[k] ?? 0) + 1;
      seen.push([name, k, await stored(ctx.executionId), intents()]);
      return `${name}:${k}`;
    },
  });
  return defineConnector({
    name: "kv",
    description: "Keys",
    tools: { get: tool("get", true), put: tool("put", false), gate: tool("gate", false, true) },
  });
}

async function withRuntime(
  body: (
    rt: Runtime,
    seen: Seen,
    runs: Record<string, number>,
    intents: () => string[],
  ) => Promise<void>,
  store: "file" | "memory" = "file",
) {
  const dir = await Deno.makeTempDir();
  // Every line of every intent log of the store (`<db>-cordon-intents/*.log`).
  const intents = () => {
    const folder = join(dir, "cordon.db-cordon-intents");
    if (store === "memory") return [];
    return [...Deno.readDirSync(folder)].flatMap((e) =>
      Deno.readTextFileSync(join(folder, e.name)).split("\n").filter(Boolean)
    );
  };
  const seen: Seen = [];
  const runs: Record<string, number> = {};
  let rt: Runtime | undefined;
  try {
    rt = await createRuntime({
      connectors: [kvConnector(() => rt!, seen, runs, intents)],
      db: store === "memory" ? ":memory:" : `file:${join(dir, "cordon.db")}`,
      typecheck: "off",
      pool: { size: 1 },
      durability: { holdMs: 1 },
    });
    await body(rt, seen, runs, intents);
  } finally {
    await rt?.close();
    await Deno.remove(dir, { recursive: true });
  }
  await assertNoSandboxChildren();
}

Deno.test("a read-only call runs before its entry is stored; a call with an effect runs once its entry is in the intent log", async () => {
  await withRuntime(async (rt, seen, _runs, intents) => {
    const out = await rt.execute({
      code: `await kv.get({ k: "a" }); await kv.get({ k: "b" }); await kv.put({ k: "c" });
             await kv.get({ k: "d" }); return "done";`,
    });
    assert.equal(out.status, "completed", Deno.inspect(out).slice(0, 400));
    const at = (k: string) => seen.find((s) => s[1] === k)!;
    // The first read ran with nothing stored: not even its own entry.
    assert.deepEqual(at("a")[2], []);
    // The write ran once its own entry was on disk, in this process's intent log, after what
    // was still queued of the reads before it (their entries, how they ended): nothing else.
    const logged = at("c")[3].map((line) => JSON.parse(line) as unknown[]);
    assert.deepEqual(logged.at(-1)!.slice(3, 6), ["put", '{"k":"c"}', "executing"]);
    for (const args of logged.slice(0, -1)) {
      const read = args.length === 6 ? args[0] === "applied" : args[3] === "get";
      assert.ok(read, `not a read's write: ${JSON.stringify(args)}`);
    }
    // The read after it did not wait for its own entry either.
    assert.ok(!at("d")[2].some((c) => c.startsWith("get:d")), at("d")[2].join(", "));
    // Every entry is stored by the end of the run, applied, in the order the calls were made,
    // and the intent log, its entry stored, is empty again.
    const stored = await rt.execution(out.executionId);
    assert.deepEqual(stored!.calls.map((c) => [c.seq, c.tool, c.args, c.state, c.result]), [
      [1, "get", { k: "a" }, "applied", "get:a"],
      [2, "get", { k: "b" }, "applied", "get:b"],
      [3, "put", { k: "c" }, "applied", "put:c"],
      [4, "get", { k: "d" }, "applied", "get:d"],
    ]);
    assert.deepEqual(intents(), []);
  });
});

Deno.test("reads written behind are stored before a pause, so the replay after approval answers them from the log", async () => {
  await withRuntime(async (rt, seen, runs) => {
    const code = `const a = await kv.get({ k: "a" }); const b = await kv.get({ k: "b" });
                  const g = await kv.gate({ k: "g" }); return [a, b, g];`;
    const paused = await rt.execute({ code });
    assert.equal(paused.status, "paused", Deno.inspect(paused).slice(0, 400));
    const before = await rt.execution(paused.executionId);
    assert.deepEqual(before!.calls.map((c) => [c.tool, c.state]), [
      ["get", "applied"],
      ["get", "applied"],
      ["gate", "pending"],
    ]);
    // Let the held child go, so the approval replays the script from the log.
    for (let i = 0; i < 50 && (await rt.execution(paused.executionId))?.status !== "paused"; i++) {
      await new Promise((r) => setTimeout(r, 10));
    }
    await new Promise((r) => setTimeout(r, 30));
    const done = await rt.approve(paused.executionId);
    assert.equal(done.status, "completed", Deno.inspect(done).slice(0, 400));
    assert.deepEqual((done as { result: unknown }).result, ["get:a", "get:b", "gate:g"]);
    assert.equal(done.meta.replayed, true);
    assert.deepEqual(runs, { a: 1, b: 1, g: 1 }, "no read ran twice");
    assert.equal(seen.length, 3);
  });
});

Deno.test("on a store in memory every call's entry commits behind; one that needs a decision is stored first", async () => {
  await withRuntime(async (rt, seen, runs) => {
    const out = await rt.execute({
      code: `await kv.put({ k: "a" });
             await Promise.all(["b", "c", "d"].map((k) => kv.put({ k })));
             return await kv.gate({ k: "g" });`,
    });
    assert.equal(out.status, "paused", Deno.inspect(out).slice(0, 400));
    // The first write ran with nothing stored: a crash would lose the store anyway.
    assert.deepEqual(seen.find((s) => s[1] === "a")![2], []);
    // The call that waits for a person is stored, after everything before it, before it waits.
    const stored = await rt.execution(out.executionId);
    assert.deepEqual(stored!.calls.map((c) => [c.seq, c.tool, c.state, c.result ?? null]), [
      [1, "put", "applied", "put:a"],
      [2, "put", "applied", "put:b"],
      [3, "put", "applied", "put:c"],
      [4, "put", "applied", "put:d"],
      [5, "gate", "pending", null],
    ]);
    for (let i = 0; i < 50 && (await rt.execution(out.executionId))?.status !== "paused"; i++) {
      await new Promise((r) => setTimeout(r, 10));
    }
    await new Promise((r) => setTimeout(r, 30));
    const done = await rt.approve(out.executionId);
    assert.equal(done.status, "completed", Deno.inspect(done).slice(0, 400));
    assert.equal((done as { result: unknown }).result, "gate:g");
    assert.deepEqual(runs, { a: 1, b: 1, c: 1, d: 1, g: 1 }, "the replay ran no write again");
  }, "memory");
});
