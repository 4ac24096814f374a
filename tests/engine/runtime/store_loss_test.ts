/**
 * A runtime whose database file is deleted or truncated while it runs acknowledges nothing
 * more: the next execution fails `store_unavailable` and `health()` says why. Real children,
 * a real libSQL file in a temp directory.
 */
import assert from "node:assert/strict";
import { z } from "zod";
import { createRuntime, defineConnector } from "../../../mod.ts";
import { CordonError } from "../../../src/errors.ts";

function isUnavailable(err: unknown): true {
  assert.ok(err instanceof CordonError, String(err));
  assert.equal(err.code, "store_unavailable");
  return true;
}

Deno.test("execute() after the database file is deleted fails store_unavailable and health() says so", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cordon-loss-" });
  try {
    await using rt = await createRuntime({ db: `file:${dir}/cordon.db`, pool: { size: 0 } });
    const first = await rt.execute({ code: "return 1 + 1" });
    assert.equal(first.status, "completed");
    assert.deepEqual(rt.health(), { ok: true });
    await Deno.remove(`${dir}/cordon.db`);
    await assert.rejects(rt.execute({ code: "return 2" }), isUnavailable);
    const health = rt.health();
    assert.equal(health.ok, false);
    assert.match(health.ok ? "" : health.reason, /was deleted/);
    await assert.rejects(rt.executions(), isUnavailable, "reads do not answer from memory");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("execute() whose database file is truncated mid-run is not acknowledged", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cordon-loss-" });
  const path = `${dir}/cordon.db`;
  const vandal = defineConnector({
    name: "vandal",
    description: "Truncates the database while a run is under way",
    tools: {
      truncate: {
        description: "Truncate the store's file",
        input: z.object({}),
        execute: async () => {
          await Deno.truncate(path, 0);
          return "done";
        },
      },
    },
  });
  try {
    await using rt = await createRuntime({
      db: `file:${path}`,
      pool: { size: 0 },
      connectors: [vandal],
    });
    // Some rows first, so the file has pages to lose.
    for (let i = 0; i < 3; i++) {
      await rt.execute({ code: `console.log("x".repeat(2000)); return ${i}` });
    }
    await assert.rejects(
      rt.execute({ code: "await vandal.truncate({}); return 'acknowledged?'" }),
      isUnavailable,
    );
    assert.equal(rt.health().ok, false);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("health() of a closed runtime is not ok", async () => {
  const rt = await createRuntime({ db: ":memory:", pool: { size: 0 } });
  assert.deepEqual(rt.health(), { ok: true });
  await rt.close();
  assert.equal(rt.health().ok, false);
});
