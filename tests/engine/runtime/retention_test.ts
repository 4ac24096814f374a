/**
 * Execution retention: the runtime deletes ended executions past `retention` on its periodic
 * job, each with its call log and console lines; running and paused ones stay. Real children
 * and a real libSQL file, read back through a second connection.
 */
import assert from "node:assert/strict";
import { z } from "zod";
import { createRuntime, defineConnector, type Runtime } from "../../../mod.ts";
import { CordonError } from "../../../src/errors.ts";
import { type Db, openDb } from "../../../src/store/client.ts";

const tools = defineConnector({
  name: "tools",
  description: "A call to log, and one that waits for a person",
  tools: {
    echo: { description: "Echo", input: z.object({ x: z.number() }), execute: ({ x }) => x },
    gate: {
      description: "Needs approval",
      input: z.object({}),
      requiresApproval: true,
      execute: () => "done",
    },
  },
});

const CODE = `console.log("kept?"); return await tools.echo({ x: 1 })`;

async function rowsOf(db: Db, id: string): Promise<{ calls: number; logs: number }> {
  const n = async (table: string) =>
    Number(
      (await db.execute({
        sql: `SELECT count(*) AS n FROM ${table} WHERE execution_id = ?`,
        args: [id],
      })).rows[0].n,
    );
  return { calls: await n("calls"), logs: await n("logs") };
}

async function withFileRuntime(
  options: Parameters<typeof createRuntime>[0],
  fn: (rt: Runtime, peek: Db) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "cordon-retention-" });
  const url = `file:${dir}/cordon.db`;
  try {
    await using rt = await createRuntime({ ...options, db: url, connectors: [tools] });
    const peek = await openDb(url);
    try {
      await fn(rt, peek);
    } finally {
      peek.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("retention.executionsMaxAgeMs: the periodic job deletes ended executions with their call log and lines; paused ones stay", async () => {
  await withFileRuntime({
    pool: { size: 0 },
    durability: { expireEveryMs: 20 },
    retention: { executionsMaxAgeMs: 1 },
  }, async (rt, peek) => {
    const paused = await rt.execute({ code: `console.log("waiting"); await tools.gate({})` });
    assert.equal(paused.status, "paused");
    const ended = await rt.execute({ code: CODE });
    assert.equal(ended.status, "completed");
    // The job runs every 20 ms; wait (boundedly) for it to have done its work.
    for (let i = 0; i < 500 && (await rt.execution(ended.executionId)); i++) {
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.equal(await rt.execution(ended.executionId), undefined, "the ended run was deleted");
    assert.deepEqual(await rowsOf(peek, ended.executionId), { calls: 0, logs: 0 });
    const stillPaused = await rt.execution(paused.executionId);
    assert.equal(stillPaused?.status, "paused");
    assert.equal((await rowsOf(peek, paused.executionId)).calls, 1);
  });
});

Deno.test("retention defaults to 30 days: a just-ended execution stays", async () => {
  await withFileRuntime({ pool: { size: 0 }, durability: { expireEveryMs: 10 } }, async (rt) => {
    const ended = await rt.execute({ code: CODE });
    // Several job runs later it is still there.
    await new Promise((r) => setTimeout(r, 100));
    assert.equal((await rt.execution(ended.executionId))?.status, "completed");
  });
});

Deno.test("pruneExecutions() keepPerNamespace keeps each namespace's newest; olderThanMs by end time", async () => {
  await withFileRuntime({ pool: { size: 0 } }, async (rt, peek) => {
    const a: string[] = [];
    for (let i = 0; i < 3; i++) {
      a.push((await rt.execute({ code: CODE, namespace: "a" })).executionId);
    }
    const b = (await rt.execute({ code: CODE, namespace: "b" })).executionId;
    assert.equal(await rt.pruneExecutions({ keepPerNamespace: 1 }), 2);
    assert.equal((await rt.execution(a[2]))?.status, "completed");
    assert.equal((await rt.execution(b))?.status, "completed");
    for (const gone of [a[0], a[1]]) {
      assert.equal(await rt.execution(gone), undefined);
      assert.deepEqual(await rowsOf(peek, gone), { calls: 0, logs: 0 });
    }
    assert.equal(await rt.pruneExecutions({ olderThanMs: 60_000 }), 0, "none ended a minute ago");
    await new Promise((r) => setTimeout(r, 5));
    assert.equal(await rt.pruneExecutions({ olderThanMs: 0 }), 2);
    assert.deepEqual((await rt.executions()).items, []);
  });
});

Deno.test("retention and pruneExecutions() refuse settings that mean nothing", async () => {
  for (
    const retention of [{ executionsMaxAgeMs: 0 }, { executionsMaxPerNamespace: 0 }, {
      executionsMaxPerNamespace: 1.5,
    }]
  ) {
    await assert.rejects(
      createRuntime({ db: ":memory:", pool: { size: 0 }, retention }),
      (err: unknown) => err instanceof CordonError && err.code === "invalid_request",
      JSON.stringify(retention),
    );
  }
  await using rt = await createRuntime({ db: ":memory:", pool: { size: 0 } });
  assert.throws(() => rt.pruneExecutions({}), { code: "invalid_request" });
  assert.throws(() => rt.pruneExecutions({ keep: -1 }), { code: "invalid_request" });
  assert.throws(() => rt.pruneExecutions({ olderThanMs: -1 }), { code: "invalid_request" });
});
