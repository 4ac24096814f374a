/**
 * What a run's end writes of its console: its lines, replacing those of an earlier pass (a
 * replay's lines are the whole run's). A first pass that printed nothing writes none.
 */
import assert from "node:assert/strict";
import { z } from "zod";
import { createRuntime, defineConnector } from "../../../mod.ts";
import { RETIRE_MAX_MS } from "../../../src/sandbox/retire.ts";
import {
  childProcesses,
  processCpuMs,
  processState,
  stoppedSandboxChildren,
} from "../../_helpers/processes.ts";

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

Deno.test("a child that answered runs no more while other runs go on: stopped at once, killed soon", async () => {
  const hold = Promise.withResolvers<void>();
  const wait = defineConnector({
    name: "wait",
    description: "Waits",
    tools: { hold: { description: "Hold", input: z.object({}), execute: () => hold.promise } },
  });
  await using rt = await createRuntime({ connectors: [wait], db: ":memory:", typecheck: "off" });
  const long = rt.execute({ code: "await wait.hold({}); return 2" });
  // This one answers at once and leaves a timer that burns its CPU for as long as it may run.
  const spinner = await rt.execute({
    code:
      `setTimeout(function spin() { const t = Date.now(); while (Date.now() - t < 20); setTimeout(spin, 0); }, 0);
      return 1`,
  });
  assert.equal(spinner.status, "completed");
  // Stopped rather than killed while the other run goes on: its teardown waits (retire.ts).
  const stopped = stoppedSandboxChildren();
  assert.equal(stopped.length, 1, "the answered run's child is not stopped");
  const [pid] = stopped;
  const before = await processCpuMs(pid);
  await new Promise((r) => setTimeout(r, RETIRE_MAX_MS / 4));
  // Still stopped, its spinning timer not run meanwhile; or killed already.
  const after = await processCpuMs(pid);
  if (before !== undefined && after !== undefined && await processState(pid) !== "Z") {
    assert.equal(await processState(pid), "T");
    assert.ok(
      after - before < 5,
      `the stopped child ran ${after - before} ms of CPU after its answer`,
    );
  }
  // It is killed within the bound though the other run still goes on.
  const gone = async () => !(await childProcesses()).some((p) => p.pid === pid);
  const until = performance.now() + 2_000;
  while (!(await gone()) && performance.now() < until) {
    await new Promise((r) => setTimeout(r, 10));
  }
  hold.resolve();
  assert.equal((await long).status, "completed");
  assert.ok(await gone(), "the stopped child is still there");
});
