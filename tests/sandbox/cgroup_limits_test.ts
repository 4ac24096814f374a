/**
 * A child's pids limit and CPU quota, on real groups where this host has them: set at create or
 * later (a pooled child's run), a quota group made only when one is asked for, refusals at the
 * pids limit seen, and nothing claimed where a controller is missing.
 */
import assert from "node:assert/strict";
import {
  CHILD_PIDS_MAX,
  CPU_PERIOD_US,
  detectMemoryGuard,
  type MemoryGuard,
} from "../../src/sandbox/cgroup.ts";
import { childEnvironment, spawnTestChild } from "../_helpers/sandbox_children.ts";

/** The group path of `pid` in the v1 hierarchy of `controller`. */
async function v1Path(pid: number, controller: string): Promise<string | undefined> {
  const text = await Deno.readTextFile(`/proc/${pid}/cgroup`);
  return new RegExp(`^\\d+:[^:]*\\b${controller}\\b[^:]*:(.*)$`, "m").exec(text)?.[1];
}

const read = async (path: string) => (await Deno.readTextFile(path)).trim();

/** Runs `body` with a v1 guard enforcing pids and cpu, or skips where this host has none. */
async function withV1(body: (guard: MemoryGuard) => Promise<void>): Promise<void> {
  const guard = await detectMemoryGuard("auto");
  try {
    if (guard.kind !== "cgroup-v1" || !guard.enforces.pids || !guard.enforces.cpu) {
      // Nothing to enforce with here: the guard says so, and the not-enforced path is tested.
      assert.ok(guard.kind !== "cgroup-v1" || /no pids|no cpu/.test(guard.reason), guard.reason);
      return;
    }
    await body(guard);
  } finally {
    await guard.dispose();
  }
}

function sleeper(): Deno.ChildProcess {
  return new Deno.Command("sleep", { args: ["5"] }).spawn();
}

Deno.test("a child's pids limit and CPU quota are set on its groups, the quota group only when asked", async () => {
  await withV1(async (guard) => {
    assert.deepEqual(guard.enforces, { memory: true, cpu: true, pids: true });
    const group = (await guard.create(64 << 20))!;
    const proc = sleeper();
    try {
      await group.add(proc.pid);
      const pids = await v1Path(proc.pid, "pids");
      assert.equal(Number(await read(`/sys/fs/cgroup/pids${pids}/pids.max`)), CHILD_PIDS_MAX);
      // No quota asked: the child sits in the shared group, and no group of its own was made.
      const shared = (await v1Path(proc.pid, "cpu"))!;
      assert.match(shared, /cordon-[\d-]+-[0-9a-f]{8}$/);
      const below = [...Deno.readDirSync(`/sys/fs/cgroup/cpu${shared}`)].filter((e) =>
        e.isDirectory
      );
      assert.deepEqual(below, []);
      // A pooled child's run: its limits are set before it runs, the process moved.
      assert.deepEqual(
        await group.apply({ memoryBytes: 64 << 20, maxPids: 20, cpuPercent: 20 }),
        [],
      );
      assert.equal(Number(await read(`/sys/fs/cgroup/pids${pids}/pids.max`)), 20);
      const own = (await v1Path(proc.pid, "cpu"))!;
      assert.ok(own.startsWith(`${shared}/c`), own);
      assert.equal(Number(await read(`/sys/fs/cgroup/cpu${own}/cpu.cfs_quota_us`)), 20_000);
      assert.equal(Number(await read(`/sys/fs/cgroup/cpu${own}/cpu.cfs_period_us`)), CPU_PERIOD_US);
      // A later run without a quota (a session's next execution) lifts it.
      assert.deepEqual(await group.apply({ memoryBytes: 64 << 20, maxPids: 20 }), []);
      assert.equal(Number(await read(`/sys/fs/cgroup/cpu${own}/cpu.cfs_quota_us`)), -1);
      proc.kill("SIGKILL");
      await proc.status;
      await group.remove();
      await assert.rejects(Deno.stat(`/sys/fs/cgroup/cpu${own}`), Deno.errors.NotFound);
    } finally {
      try {
        proc.kill("SIGKILL");
      } catch { /* gone */ }
      await proc.status;
      await group.remove();
    }
  });
});

Deno.test("a cold child asking for a quota starts in its quota group; a refusal at its pids limit is seen", async () => {
  await withV1(async (guard) => {
    const group = (await guard.create(64 << 20, { maxPids: 3, cpuPercent: 150 }))!;
    // Three sleepers at once in a shell: the shell and two fit, the third fork is refused.
    const shell = new Deno.Command("sh", {
      args: ["-c", "read x; sleep 1 & sleep 1 & sleep 1 & wait"],
      stdin: "piped",
      stderr: "piped",
    }).spawn();
    try {
      await group.add(shell.pid);
      const own = (await v1Path(shell.pid, "cpu"))!;
      assert.match(own, /cordon-[\d-]+-[0-9a-f]{8}\/c\d+-/);
      assert.equal(Number(await read(`/sys/fs/cgroup/cpu${own}/cpu.cfs_quota_us`)), 150_000);
      assert.equal(await group.pidsLimitHit(), false);
      const w = shell.stdin.getWriter();
      await w.write(new TextEncoder().encode("go\n"));
      await w.close();
      const out = await shell.output();
      assert.match(new TextDecoder().decode(out.stderr), /fork|resource|Cannot/i);
      assert.equal(await group.pidsLimitHit(), true);
    } finally {
      try {
        shell.kill("SIGKILL");
      } catch { /* gone */ }
      await shell.status;
      await group.remove();
    }
  });
});

Deno.test("without a guard a child enforces nothing, and says which limits it was asked for", async () => {
  const env = await childEnvironment();
  assert.deepEqual(env.memoryGuard.enforces, { memory: false, cpu: false, pids: false });
  await using child = await spawnTestChild(env);
  assert.deepEqual(await child.applyLimits({ memoryBytes: 1 << 28, maxPids: 32 }), [
    "memory",
    "pids",
  ]);
  assert.deepEqual(
    await child.applyLimits({ memoryBytes: 1 << 28, maxPids: 32, cpuPercent: 20 }),
    ["memory", "pids", "cpu"],
  );
  assert.equal(await child.pidsLimitHit(), false);
});
