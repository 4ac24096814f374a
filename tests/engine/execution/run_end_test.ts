/**
 * What a run's end writes of its console: its lines, replacing those of an earlier pass (a
 * replay's lines are the whole run's). A first pass that printed nothing writes none.
 */
import assert from "node:assert/strict";
import { z } from "zod";
import { createRuntime, defineConnector } from "../../../mod.ts";
import { RETIRE_MAX_MS } from "../../../src/sandbox/retire.ts";

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

/** The processes this one spawned, by pid: state letter (`T`: stopped) and CPU time in ms. */
async function children(): Promise<Map<number, { state: string; cpuMs: number }>> {
  const out = new Map<number, { state: string; cpuMs: number }>();
  for await (const task of Deno.readDir(`/proc/${Deno.pid}/task`)) {
    const kids = await Deno.readTextFile(`/proc/${Deno.pid}/task/${task.name}/children`)
      .catch(() => "");
    for (const pid of kids.trim().split(/\s+/).filter(Boolean).map(Number)) {
      try {
        const stat = await Deno.readTextFile(`/proc/${pid}/stat`);
        let ns = 0;
        for await (const t of Deno.readDir(`/proc/${pid}/task`)) {
          ns += Number(
            (await Deno.readTextFile(`/proc/${pid}/task/${t.name}/schedstat`)).split(" ")[0],
          );
        }
        out.set(pid, { state: stat.slice(stat.lastIndexOf(")") + 2)[0], cpuMs: ns / 1e6 });
      } catch {
        continue; // gone meanwhile
      }
    }
  }
  return out;
}

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
  const stoppedPids = async () =>
    [...(await children())].filter(([, c]) => c.state === "T").map(([pid]) => pid);
  let stopped = await stoppedPids();
  for (let i = 0; stopped.length === 0 && i < 100; i++) {
    await new Promise((r) => setTimeout(r, 5));
    stopped = await stoppedPids();
  }
  assert.equal(stopped.length, 1, "the answered run's child is not stopped");
  const before = (await children()).get(stopped[0])!;
  await new Promise((r) => setTimeout(r, RETIRE_MAX_MS / 4));
  // Still stopped (it ran nothing meanwhile), or killed already: either way its timer never fired.
  const after = (await children()).get(stopped[0]);
  if (after) {
    assert.equal(after.state, "T");
    const burnt = after.cpuMs - before.cpuMs;
    assert.ok(burnt < 5, `the stopped child ran ${burnt.toFixed(1)} ms of CPU after its answer`);
  }
  // It is killed within the bound though the other run still goes on.
  const until = performance.now() + 2_000;
  while ((await children()).has(stopped[0]) && performance.now() < until) {
    await new Promise((r) => setTimeout(r, 10));
  }
  hold.resolve();
  assert.equal((await long).status, "completed");
  assert.equal((await children()).has(stopped[0]), false, "the stopped child is still there");
});
