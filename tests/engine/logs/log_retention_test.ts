import assert from "node:assert/strict";
import { z } from "zod";
import { createRuntime, defineConnector, type Runtime } from "../../../mod.ts";

const gate = defineConnector({
  name: "gate",
  description: "Approval",
  tools: {
    wait: {
      description: "Needs approval",
      input: z.object({}),
      requiresApproval: true,
      execute: () => "done",
    },
  },
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function logRefOf(rt: Runtime, code: string): Promise<{ id: string; logRef: string }> {
  const out = await rt.execute({ code });
  const details = await rt.execution(out.executionId);
  return { id: out.executionId, logRef: details!.logRef };
}

Deno.test("pruneLogs() deletes the lines of ended executions and readLogs says expired", async () => {
  await using rt = await createRuntime({ db: ":memory:", pool: { size: 0 }, connectors: [gate] });
  const ended = await logRefOf(rt, `console.log("a"); console.log("b"); console.log("c");`);
  const silent = await logRefOf(rt, `return 1`);
  const paused = await logRefOf(rt, `console.log("waiting"); await gate.wait({});`);
  assert.equal((await rt.readLogs({ logRef: ended.logRef })).items.length, 3);
  assert.equal(await rt.pruneLogs({ olderThanMs: 60_000 }), 0, "nothing ended a minute ago");
  await sleep(5);
  assert.equal(await rt.pruneLogs({ olderThanMs: 0 }), 3);
  assert.deepEqual(await rt.readLogs({ logRef: ended.logRef }), {
    executionId: ended.id,
    namespace: "default",
    startedAt: (await rt.execution(ended.id))!.createdAt,
    items: [],
    expired: true,
  });
  // A script reads the same: no entries, and why.
  const read = await rt.execute({
    input: ended.logRef,
    code: "return await codemode.readLogs({ logRef: input })",
  });
  assert.deepEqual((read as { result?: unknown }).result, { entries: [], expired: true });
  assert.equal((await rt.readLogs({ logRef: silent.logRef })).expired, undefined);
  const stillPaused = await rt.readLogs({ logRef: paused.logRef });
  assert.deepEqual(stillPaused.items.map((l) => l.message), ["waiting"]);
  assert.equal(await rt.pruneLogs({ olderThanMs: 0 }), 0, "a second prune finds nothing");
  assert.equal((await rt.execution(ended.id))?.status, "completed", "the execution stays");
});

Deno.test("pruneLogs() refuses a negative age and keeps everything for Infinity", async () => {
  await using rt = await createRuntime({ db: ":memory:", pool: { size: 0 } });
  const { logRef } = await logRefOf(rt, `console.log("kept")`);
  assert.throws(() => rt.pruneLogs({ olderThanMs: -1 }), { code: "invalid_request" });
  assert.throws(() => rt.pruneLogs({ olderThanMs: NaN }), { code: "invalid_request" });
  assert.equal(await rt.pruneLogs({ olderThanMs: Infinity }), 0);
  assert.equal((await rt.readLogs({ logRef })).items.length, 1);
});

Deno.test("logs.retainMs: the runtime's periodic job deletes lines past retention", async () => {
  await using rt = await createRuntime({
    db: ":memory:",
    pool: { size: 0 },
    logs: { retainMs: 1 },
    durability: { expireEveryMs: 20 },
  });
  const { logRef } = await logRefOf(rt, `console.log("short-lived")`);
  const deadline = Date.now() + 5_000;
  let page = await rt.readLogs({ logRef });
  while (!page.expired && Date.now() < deadline) {
    await sleep(20);
    page = await rt.readLogs({ logRef });
  }
  assert.equal(page.expired, true);
  assert.deepEqual(page.items, []);
});

Deno.test("logs.retainMs must be a positive number of ms", async () => {
  for (const retainMs of [0, -5, NaN]) {
    await assert.rejects(createRuntime({ db: ":memory:", logs: { retainMs } }), {
      code: "invalid_request",
    });
  }
});
