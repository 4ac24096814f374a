import assert from "node:assert/strict";
import { CHILD_CPU_SHARES, CHILD_PIDS_MAX, detectMemoryGuard } from "../../src/sandbox/cgroup.ts";

Deno.test("detectMemoryGuard('off') relies on the heap cap and says why", async () => {
  const guard = await detectMemoryGuard("off");
  assert.equal(guard.kind, "heap-only");
  assert.match(guard.reason, /off/);
  assert.equal(await guard.create(1 << 28), undefined);
});

Deno.test("detectMemoryGuard('auto') makes groups that hold a process, when the host allows", async () => {
  const guard = await detectMemoryGuard("auto");
  assert.ok(guard.reason.length > 0);
  if (guard.kind === "heap-only") {
    // Nothing to create here: the reason says what was tried.
    assert.match(guard.reason, /cgroup/);
    return;
  }
  const group = (await guard.create(64 * 1024 * 1024))!;
  const sleeper = new Deno.Command("sleep", { args: ["5"] }).spawn();
  try {
    await group.add(sleeper.pid);
    const self = await Deno.readTextFile(`/proc/${sleeper.pid}/cgroup`);
    assert.match(self, /cordon-\d+-\d+-\d+-[0-9a-f]{8}\/c\d+-/);
    assert.equal(await group.oomKilled(), false);
  } finally {
    sleeper.kill("SIGKILL");
    await sleeper.status;
    await group.remove();
    await guard.dispose();
  }
  assert.ok(CHILD_PIDS_MAX >= 32);
});

Deno.test("two guards in one process do not share a parent: disposing one leaves the other working", async () => {
  const a = await detectMemoryGuard("auto");
  const b = await detectMemoryGuard("auto");
  try {
    if (a.kind === "heap-only") return assert.equal(b.kind, "heap-only");
    assert.notEqual(a.reason, b.reason);
    await a.dispose();
    const group = (await b.create(64 * 1024 * 1024))!;
    assert.ok(group, "the second guard still makes groups");
    await group.remove();
  } finally {
    await a.dispose().catch(() => {});
    await b.dispose();
  }
});

Deno.test("children share one low-weight CPU group, so the host's event loop goes first", async () => {
  const guard = await detectMemoryGuard("auto");
  if (guard.kind !== "cgroup-v1" || !/cpu shares/.test(guard.reason)) {
    // This host has no writable cpu controller: the reason says so.
    assert.match(guard.reason, /cgroup|cpu/);
    return;
  }
  const groups = [(await guard.create(64 << 20))!, (await guard.create(64 << 20))!];
  const sleepers = groups.map(() => new Deno.Command("sleep", { args: ["5"] }).spawn());
  try {
    for (let i = 0; i < 2; i++) await groups[i].add(sleepers[i].pid);
    const cpuPaths = await Promise.all(sleepers.map(async (s) => {
      const text = await Deno.readTextFile(`/proc/${s.pid}/cgroup`);
      return /^\d+:[^:]*\bcpu\b[^:]*:(.*)$/m.exec(text)?.[1];
    }));
    assert.ok(cpuPaths[0]?.match(/cordon-\d+-\d+-\d+-[0-9a-f]{8}$/), String(cpuPaths[0]));
    assert.equal(cpuPaths[0], cpuPaths[1]);
    const shares = await Deno.readTextFile(`/sys/fs/cgroup/cpu${cpuPaths[0]}/cpu.shares`);
    assert.equal(Number(shares.trim()), CHILD_CPU_SHARES);
  } finally {
    for (const s of sleepers) s.kill("SIGKILL");
    await Promise.all(sleepers.map((s) => s.status));
    for (const g of groups) await g.remove();
    await guard.dispose();
  }
});

Deno.test("a cgroup v1 guard on a host without swap says so and still limits memory", async () => {
  const guard = await detectMemoryGuard("auto");
  try {
    if (guard.kind !== "cgroup-v1") return; // Nothing to check on this host.
    const meminfo = await Deno.readTextFile("/proc/meminfo");
    const swapKiB = Number(/^SwapTotal:\s+(\d+)/m.exec(meminfo)?.[1] ?? 1);
    assert.equal(/no swap/.test(guard.reason), swapKiB === 0, guard.reason);
    const group = (await guard.create(48 << 20))!;
    try {
      await group.setMemory(32 << 20);
      const dir = /cgroup v1 at (\S+)/.exec(guard.reason)![1];
      const mine = [...Deno.readDirSync(dir)].filter((e) => e.isDirectory).map((e) => e.name);
      const limits = await Promise.all(
        mine.map((n) => Deno.readTextFile(`${dir}/${n}/memory.limit_in_bytes`)),
      );
      assert.ok(limits.some((l) => Number(l) === 32 << 20), limits.join(","));
    } finally {
      await group.remove();
    }
  } finally {
    await guard.dispose();
  }
});
