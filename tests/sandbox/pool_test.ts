import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { detectMemoryGuard } from "../../src/sandbox/cgroup.ts";
import { type ChildEnvironment, SandboxChild } from "../../src/sandbox/child.ts";
import { ChildPool } from "../../src/sandbox/pool.ts";
import { assertNoSandboxChildren } from "../_helpers/processes.ts";

async function environment(): Promise<ChildEnvironment> {
  const base = join(tmpdir(), "cordon");
  await Deno.mkdir(join(base, "empty"), { recursive: true });
  return {
    denoPath: Deno.execPath(),
    guestEntry: fileURLToPath(new URL("../../src/sandbox/guest/entry.ts", import.meta.url)),
    denoDir: join(base, "deno"),
    cwd: join(base, "empty"),
    memoryGuard: await detectMemoryGuard("off"),
    allowPrivateNetwork: false,
  };
}

const limits = { maxFrameBytes: 1 << 20, maxOutputBytes: 1 << 24 };

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
