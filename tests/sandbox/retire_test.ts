import assert from "node:assert/strict";
import { SandboxChild } from "../../src/sandbox/child.ts";
import { RETIRE_MAX_MS, Retirer } from "../../src/sandbox/retire.ts";
import { assertNoSandboxChildren, processState as stateOf } from "../_helpers/processes.ts";
import { childEnvironment, TEST_STREAM_LIMITS as limits } from "../_helpers/sandbox_children.ts";

/** Real children, ready, and a retirer that counts them as running until they exit. */
async function children(n: number) {
  const env = await childEnvironment();
  const all = await Promise.all(
    Array.from(
      { length: n },
      () =>
        SandboxChild.spawn({
          env,
          policy: { heapMiB: 64, netAllow: [] },
          limits,
          memoryBytes: 1 << 28,
        }),
    ),
  );
  await Promise.all(all.map((c) => c.ready));
  const retirer = new Retirer(() => all.filter((c) => c.running).length);
  for (const c of all) c.exited.then(() => retirer.settle());
  return { all, retirer };
}

Deno.test("Retirer kills the last child running a turn later, unstopped", async () => {
  const { all: [only], retirer } = await children(1);
  retirer.retire(only);
  // The kill's cost comes after the run's result is on its way: not in this turn.
  assert.equal(only.running, true);
  assert.equal(retirer.size, 1);
  const exit = await only.exited;
  assert.equal(exit.signal, "SIGKILL");
  assert.equal(retirer.size, 0);
  await assertNoSandboxChildren();
});

Deno.test("Retirer stops a child while another runs, and kills both once none runs", async () => {
  const { all: [first, second], retirer } = await children(2);
  retirer.retire(first);
  // Stopped, not dead: none of its threads runs, and the kernel has not torn it down.
  assert.equal(first.alive, true);
  let state = await stateOf(first.pid);
  for (let i = 0; state !== "T" && i < 100; i++) {
    await new Promise((r) => setTimeout(r, 2));
    state = await stateOf(first.pid);
  }
  assert.equal(state, "T");
  assert.equal(retirer.size, 1);
  assert.equal(await stateOf(second.pid) === "T", false, "the child still running was stopped");
  // The last one running ends: both go, after a turn.
  retirer.retire(second);
  const [a, b] = await Promise.all([first.exited, second.exited]);
  assert.equal(a.signal, "SIGKILL");
  assert.equal(b.signal, "SIGKILL");
  assert.equal(retirer.size, 0);
  await assertNoSandboxChildren();
});

Deno.test("Retirer kills a stopped child within RETIRE_MAX_MS though others keep running", async () => {
  const { all: [done, running], retirer } = await children(2);
  const at = performance.now();
  retirer.retire(done);
  await done.exited;
  const waited = performance.now() - at;
  assert.ok(waited >= RETIRE_MAX_MS - 5, `killed after ${waited} ms, before the bound`);
  assert.ok(waited < RETIRE_MAX_MS + 1_000, `killed after ${waited} ms`);
  assert.equal(running.alive, true);
  running.kill();
  await running.exited;
  await assertNoSandboxChildren();
});

Deno.test("Retirer.flush() kills every stopped child now; a child gone already is not kept", async () => {
  const { all: [a, b, c], retirer } = await children(3);
  retirer.retire(a);
  b.kill();
  await b.exited;
  retirer.retire(b); // gone: nothing to stop
  assert.equal(retirer.size, 1);
  retirer.flush();
  await a.exited;
  assert.equal(retirer.size, 0);
  assert.equal(c.alive, true);
  c.kill();
  await c.exited;
  await assertNoSandboxChildren();
});
