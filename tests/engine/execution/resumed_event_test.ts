/**
 * A decision that claims a paused execution says so: a `resumed` event with the execution's
 * namespace, after `paused` and before anything the continued run does. A decision that loses the
 * race (or finds nothing to decide) sends none.
 */
import assert from "node:assert/strict";
import { z } from "zod";
import { createRuntime, defineConnector, type ExecutionEvent } from "../../../mod.ts";

const gated = defineConnector({
  name: "ops",
  description: "Gated operations",
  tools: {
    restart: {
      description: "Restart a service",
      input: z.object({ service: z.string() }),
      requiresApproval: true,
      execute: ({ service }) => `restarted ${service}`,
    },
    ask: {
      description: "Ask the caller",
      input: z.object({ question: z.string() }),
      output: z.string(),
      resolution: "client",
    },
  },
});

Deno.test("approve, reject and resolve each send resumed (with the namespace) between paused and done", async () => {
  await using rt = await createRuntime({ connectors: [gated], db: ":memory:", pool: { size: 0 } });
  const events: ExecutionEvent[] = [];
  const off = rt.subscribe((e) => events.push(e));
  try {
    const kinds = (id: string) => events.filter((e) => e.executionId === id).map((e) => e.type);
    const code = 'return await ops.restart({ service: "api" })';

    const approved = await rt.execute({ code, namespace: "team-a" });
    assert.equal(approved.status, "paused");
    assert.equal((await rt.approve(approved.executionId)).status, "completed");
    const a = kinds(approved.executionId);
    assert.deepEqual(a.filter((k) => k !== "call"), ["started", "paused", "resumed", "done"]);
    const resumed = events.find((e) =>
      e.type === "resumed" && e.executionId === approved.executionId
    );
    assert.deepEqual(resumed, {
      type: "resumed",
      executionId: approved.executionId,
      namespace: "team-a",
    });

    const rejected = await rt.execute({ code });
    assert.equal((await rt.reject(rejected.executionId, { reason: "no" })).status, "rejected");
    assert.deepEqual(kinds(rejected.executionId).filter((k) => k !== "call"), [
      "started",
      "paused",
      "resumed",
      "done",
    ]);

    const asked = await rt.execute({ code: 'return await ops.ask({ question: "?" })' });
    assert.equal((await rt.resolve(asked.executionId, 1, "yes")).status, "completed");
    assert.ok(kinds(asked.executionId).includes("resumed"));

    // Deciding again finds nothing paused: no second resumed.
    await assert.rejects(rt.approve(approved.executionId), /not paused/);
    assert.equal(kinds(approved.executionId).filter((k) => k === "resumed").length, 1);
  } finally {
    off();
  }
});
