import assert from "node:assert/strict";
import { type ChildEnvironment, SandboxChild } from "../../src/sandbox/child.ts";
import { ChildPool, REFILL_DELAY_MS } from "../../src/sandbox/pool.ts";
import { assertNoSandboxChildren } from "../_helpers/processes.ts";
import { childEnvironment, TEST_STREAM_LIMITS as limits } from "../_helpers/sandbox_children.ts";

const environment = () => childEnvironment();

Deno.test("ChildPool keeps its size, hands each child out once and refills", async () => {
  const env = await environment();
  let spawned = 0;
  {
    await using pool = new ChildPool({
      size: 2,
      spawn: () => {
        spawned++;
        return SandboxChild.spawn({
          env,
          policy: { heapMiB: 64, netAllow: [] },
          limits,
          memoryBytes: 1 << 28,
        });
      },
    });
    await pool.warm();
    assert.equal(pool.idleCount, 2);
    const a = pool.take()!;
    const b = pool.take()!;
    assert.ok(a && b && a !== b && a.pid !== b.pid);
    await a.ready;
    assert.equal(a.alive, true);
    await pool.warm();
    const c = pool.take()!;
    assert.ok(c !== a && c !== b);
    assert.equal(spawned >= 4, true);
    for (const child of [a, b, c]) child.kill();
    await Promise.all([a.exited, b.exited, c.exited]);
  }
  await assertNoSandboxChildren();
});

Deno.test("ChildPool replaces a child that dies while idle", async () => {
  const env = await environment();
  {
    await using pool = new ChildPool({
      size: 1,
      spawn: () =>
        SandboxChild.spawn({
          env,
          policy: { heapMiB: 64, netAllow: [] },
          limits,
          memoryBytes: 1 << 28,
        }),
    });
    await pool.warm();
    const first = pool.take()!;
    await pool.warm();
    // Kill the idle one from outside, as an OOM killer would.
    const idle = pool.take()!;
    Deno.kill(idle.pid, "SIGKILL");
    const exit = await idle.exited;
    assert.equal(exit.signal, "SIGKILL");
    await pool.warm();
    const next = pool.take()!;
    assert.ok(next && next.alive && next !== idle);
    for (const c of [first, next]) c.kill();
    await Promise.all([first.exited, next.exited]);
  }
  await assertNoSandboxChildren();
});

Deno.test("ChildPool backs off and retries when spawning fails", async () => {
  let tries = 0;
  const errors: unknown[] = [];
  {
    await using pool = new ChildPool({
      size: 1,
      spawn: () => {
        tries++;
        return Promise.reject(new Error("no deno"));
      },
      onSpawnError: (e) => errors.push(e),
    });
    await new Promise((r) => setTimeout(r, 600));
    assert.equal(pool.take(), undefined);
  }
  // One try, then a retry every 250 ms: a few, not a hot loop.
  assert.ok(tries >= 2 && tries <= 5, String(tries));
  assert.equal(errors.length, tries);
});

Deno.test("SandboxChild.kill() records why and the exit says so", async () => {
  const env = await environment();
  const child = await SandboxChild.spawn({
    env,
    policy: { heapMiB: 64, netAllow: [] },
    limits,
    memoryBytes: 1 << 28,
  });
  await child.ready;
  child.kill({ code: "sandbox_timeout", message: "too slow" });
  const exit = await child.exited;
  assert.equal(exit.signal, "SIGKILL");
  assert.deepEqual(exit.killedFor, { code: "sandbox_timeout", message: "too slow" });
  await assertNoSandboxChildren();
});

/** A spawn that counts how many of its children are booting at once (spawned, not ready). */
function countingSpawn(env: ChildEnvironment) {
  const counts = { spawned: 0, booting: 0, maxBooting: 0 };
  const spawn = async () => {
    counts.spawned++;
    counts.booting++;
    counts.maxBooting = Math.max(counts.maxBooting, counts.booting);
    const child = await SandboxChild.spawn({
      env,
      policy: { heapMiB: 64, netAllow: [] },
      limits,
      memoryBytes: 1 << 28,
    });
    Promise.race([child.ready, child.exited]).then(() => counts.booting--);
    return child;
  };
  return { counts, spawn };
}

async function until(check: () => boolean, ms = 20_000): Promise<void> {
  const end = performance.now() + ms;
  while (!check()) {
    if (performance.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 10));
  }
}

Deno.test("ChildPool refills in the background at most `refill` booting children at a time", async () => {
  const env = await environment();
  const { counts, spawn } = countingSpawn(env);
  const taken: SandboxChild[] = [];
  {
    await using pool = new ChildPool({ size: 3, spawn, refill: 1 });
    await until(() => pool.idleCount === 3 && counts.booting === 0);
    for (let i = 0; i < 3; i++) taken.push(pool.take()!);
    await until(() => pool.idleCount === 3 && counts.booting === 0);
    assert.equal(counts.spawned, 6);
    assert.equal(counts.maxBooting, 1, "more than one child booted at once while refilling");
  }
  for (const c of taken) c.kill();
  await Promise.all(taken.map((c) => c.exited));
  await assertNoSandboxChildren();
});

Deno.test("ChildPool.prewarm(n) boots several at once, then the pool shrinks back to its size", async () => {
  const env = await environment();
  const { counts, spawn } = countingSpawn(env);
  const taken: SandboxChild[] = [];
  {
    await using pool = new ChildPool({ size: 1, spawn });
    await pool.prewarm(4);
    assert.equal(pool.idleCount, 4);
    assert.ok(counts.maxBooting > 1, "prewarm booted one child at a time");
    for (let i = 0; i < 4; i++) taken.push(pool.take()!);
    assert.ok(taken.every((c) => c !== undefined));
    await until(() => pool.idleCount === 1 && counts.booting === 0);
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(pool.idleCount, 1, "the pool refilled past its size");
    assert.equal(pool.target, 1);
  }
  for (const c of taken) c.kill();
  await Promise.all(taken.map((c) => c.exited));
  await assertNoSandboxChildren();
});

Deno.test("ChildPool boots at most one child per CPU while it refills by default", async () => {
  const env = await environment();
  const { counts, spawn } = countingSpawn(env);
  const taken: SandboxChild[] = [];
  const size = navigator.hardwareConcurrency + 2;
  {
    await using pool = new ChildPool({ size, spawn });
    await until(() => pool.idleCount === size && counts.booting === 0, 60_000);
    for (let i = 0; i < size; i++) taken.push(pool.take()!);
    await until(() => pool.idleCount === size && counts.booting === 0, 60_000);
    assert.ok(counts.maxBooting <= navigator.hardwareConcurrency, `${counts.maxBooting} at once`);
  }
  for (const c of taken) c.kill();
  await Promise.all(taken.map((c) => c.exited));
  await assertNoSandboxChildren();
});

Deno.test("ChildPool replaces a taken child once its run is over, or a little later, not during it, even the last", async () => {
  const env = await environment();
  const { counts, spawn } = countingSpawn(env);
  const taken: SandboxChild[] = [];
  {
    await using pool = new ChildPool({ size: 2, spawn });
    await pool.warm();
    assert.equal(counts.spawned, 2);
    // Another child still waits: no spawn while the taken one's run goes on.
    const first = pool.take()!;
    taken.push(first);
    await new Promise((r) => setTimeout(r, REFILL_DELAY_MS / 5));
    assert.equal(counts.spawned, 2, "the replacement started while the run went on");
    // Its run over (the process gone), the replacement starts at once.
    first.kill();
    await first.exited;
    await until(() => counts.spawned === 3, 1_000);
    await pool.warm();
    // A run that goes on: the replacement starts after the delay anyway.
    const long = pool.take()!;
    taken.push(long);
    const at = performance.now();
    await until(() => counts.spawned === 4, 5_000);
    assert.ok(performance.now() - at >= REFILL_DELAY_MS - 5, "replaced before the delay");
    assert.equal(long.alive, true);
    await pool.warm();
    // A pool emptied by runs still under way waits for them too: a burst's runs start first.
    taken.push(pool.take()!, pool.take()!);
    await new Promise((r) => setTimeout(r, REFILL_DELAY_MS / 5));
    assert.equal(counts.spawned, 4, "the refill started while the runs that emptied it went on");
    // A run that finds it empty starts the refill at once.
    assert.equal(pool.take(), undefined);
    assert.equal(counts.spawned, 6);
  }
  for (const c of taken) c.kill();
  await Promise.all(taken.map((c) => c.exited));
  await assertNoSandboxChildren();
});

Deno.test("ChildPool.takeOrWait() hands a spawn under way to the run that found the pool empty", async () => {
  const env = await environment();
  const { counts, spawn } = countingSpawn(env);
  const taken: SandboxChild[] = [];
  {
    await using pool = new ChildPool({ size: 1, spawn });
    await pool.warm();
    const first = pool.takeOrWait();
    assert.ok(first && !(first instanceof Promise), "a waiting child is handed out at once");
    taken.push(first);
    // The pool is empty and its refill is under way: the next run waits for that child.
    const landing = pool.takeOrWait();
    assert.ok(landing instanceof Promise);
    // Nothing more is coming for a third run: it spawns its own.
    assert.equal(pool.takeOrWait(), undefined);
    const second = await landing;
    assert.ok(second && second !== first);
    taken.push(second);
    assert.equal(pool.idleCount, 0, "the landed child went to the run, not to the pool");
    await second.ready;
    assert.equal(second.alive, true);
    // The pool, short of one, refills behind.
    await pool.warm();
    assert.equal(pool.idleCount, 1);
    assert.equal(counts.spawned, 3);
  }
  for (const c of taken) c.kill();
  await Promise.all(taken.map((c) => c.exited));
  await assertNoSandboxChildren();
});

Deno.test("ChildPool.takeOrWait() lets the run go when the spawn it waits for fails or the pool closes", async () => {
  const failing = Promise.withResolvers<SandboxChild>();
  const pool = new ChildPool({ size: 1, spawn: () => failing.promise, onSpawnError: () => {} });
  const waiting = pool.takeOrWait();
  assert.ok(waiting instanceof Promise);
  failing.reject(new Error("no deno"));
  assert.equal(await waiting, undefined);
  await pool.close();

  const pending = Promise.withResolvers<SandboxChild>();
  const closingPool = new ChildPool({
    size: 1,
    spawn: () => pending.promise,
    onSpawnError: () => {},
  });
  const closing = closingPool.takeOrWait();
  assert.ok(closing instanceof Promise);
  const closed = closingPool.close();
  assert.equal(await closing, undefined, "the run waits for nothing once the pool closes");
  assert.equal(closingPool.takeOrWait(), undefined, "a closed pool has nothing coming");
  pending.reject(new Error("gone")); // close() waits for the spawn under way to land
  await closed;
});
