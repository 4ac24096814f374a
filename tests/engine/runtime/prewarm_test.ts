import assert from "node:assert/strict";
import { CordonError, createRuntime, MAX_PREWARM } from "../../../mod.ts";
import { assertNoSandboxChildren } from "../../_helpers/processes.ts";

Deno.test("runtime.prewarm(n) readies n children for a burst; the pool then shrinks back", async () => {
  {
    await using rt = await createRuntime({ db: ":memory:", typecheck: "off", pool: { size: 1 } });
    await rt.prewarm(5);
    assert.equal(rt.capabilities().pool.idle, 5);
    const results = await Promise.all(
      Array.from({ length: 5 }, (_, i) => rt.execute({ code: `return ${i}` })),
    );
    assert.deepEqual(results.map((r) => r.status === "completed" && r.result), [0, 1, 2, 3, 4]);
    assert.ok(results.every((r) => r.meta.pooled), "a burst after prewarm spawned cold");
    await rt.warm();
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(rt.capabilities().pool.idle, 1);
  }
  await assertNoSandboxChildren();
});

Deno.test("runtime.prewarm() refuses a count that is not an integer from 0 to MAX_PREWARM", async () => {
  await using rt = await createRuntime({ db: ":memory:", typecheck: "off", pool: { size: 0 } });
  for (const bad of [-1, 1.5, MAX_PREWARM + 1, Number.NaN, "3" as unknown as number]) {
    await assert.rejects(
      () => rt.prewarm(bad),
      (err) => err instanceof CordonError && err.code === "invalid_request",
    );
  }
  await rt.prewarm(0);
  assert.equal(rt.capabilities().pool.idle, 0);
});
