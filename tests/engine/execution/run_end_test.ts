/**
 * What a run's end writes of its console: its lines, replacing those of an earlier pass (a
 * replay's lines are the whole run's). A first pass that printed nothing writes none.
 */
import assert from "node:assert/strict";
import { z } from "zod";
import { createRuntime, defineConnector } from "../../../mod.ts";

const gate = defineConnector({
  name: "gate",
  description: "Gated",
  tools: {
    send: {
      description: "Send (needs approval)",
      input: z.object({}),
      requiresApproval: true,
      execute: () => "sent",
    },
    ping: { description: "Ping", input: z.object({}), execute: () => "pong" },
  },
});

Deno.test("a run's lines are stored, a replay's replace them, and a silent run stores none", async () => {
  await using rt = await createRuntime({ connectors: [gate], db: ":memory:", typecheck: "off" });
  const lines = async (executionId: string) => {
    const { logRef } = (await rt.execution(executionId))!;
    return (await rt.readLogs({ logRef })).items.map((l) => l.message);
  };
  const silent = await rt.execute({ code: "await gate.ping({}); return 1" });
  assert.equal(silent.status, "completed");
  assert.deepEqual(await lines(silent.executionId), []);
  const said = await rt.execute({ code: 'console.log("one"); return 1' });
  assert.deepEqual(await lines(said.executionId), ["one"]);
  // The first pass prints and pauses; the replay prints nothing new after the approval.
  const paused = await rt.execute({
    code: 'console.log("before"); await gate.send({}); return 1',
  });
  assert.equal(paused.status, "paused");
  assert.deepEqual(await lines(paused.executionId), ["before"]);
  const done = await rt.approve(paused.executionId);
  assert.equal(done.status, "completed");
  assert.deepEqual(await lines(paused.executionId), ["before"], "the replay's lines replace them");
});
