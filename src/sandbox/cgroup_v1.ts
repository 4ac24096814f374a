/**
 * The cgroup v1 guard, for hosts that mount the v1 controllers one hierarchy each (as some
 * container hosts do): per child a `memory` group and a `pids` group; every child of the host
 * in one low-weight `cpu` group, and a run that asks for a CPU quota in a group of its own
 * below it, made only then. A new child joins its groups itself ({@link ChildGroup.selfJoin}),
 * which takes no lock the host's own spawns wait for.
 *
 * @module
 */
import { join } from "node:path";
import { exists, makeDir, readText, removeDir, write } from "./cgroup_fs.ts";
import { parentGroupName, sweepDeadGroups } from "./cgroup_sweep.ts";
import {
  CGROUP_ROOT,
  CHILD_PIDS_MAX,
  type ChildGroup,
  CPU_PERIOD_US,
  cpuQuotaUs,
  eventCount,
  type GroupLimits,
  type LimitController,
  type MemoryGuard,
  nextName,
  sweptText,
} from "./cgroup_types.ts";

/**
 * The CPU weight of all of a host's children together, against the host's own 1024 (cgroup v1
 * `cpu.shares`). It only matters when the CPUs are contended: then the host's event loop (the
 * deadlines of every run, the answers to every call) goes first, and children share the rest.
 * Measured on 2 cores with 50 pooled runs at once: the host's longest stall fell from 145–280 ms
 * to 11–30 ms.
 */
export const CHILD_CPU_SHARES = 64;

/** The host's shared cpu group, and whether a group below it takes a CFS quota. */
interface CpuParent {
  dir: string;
  quota: boolean;
}

/** The v1 guard, or why there is none. */
export async function detectV1(self: Map<string, string>): Promise<MemoryGuard | string> {
  const memRel = self.get("memory");
  const pidsRel = self.get("pids");
  if (memRel === undefined) return "no cgroup v1 memory controller for this process";
  const swept = await sweepDeadGroups(join(CGROUP_ROOT, "memory", memRel));
  for (const [controller, rel] of [["pids", pidsRel], ["cpu", self.get("cpu")]]) {
    if (rel === undefined) continue;
    const more = await sweepDeadGroups(join(CGROUP_ROOT, controller!, rel));
    swept.groups += more.groups;
    swept.processes += more.processes;
  }
  const name = parentGroupName();
  const cpu = await lowerCpuShare(self.get("cpu"), name);
  const memParent = join(CGROUP_ROOT, "memory", memRel, name);
  const pidsParent = pidsRel === undefined ? undefined : join(CGROUP_ROOT, "pids", pidsRel, name);
  try {
    await makeDir(memParent, true);
    if (pidsParent) await makeDir(pidsParent, true).catch(() => {});
    // Probe: a limit must be writable, not just the directory.
    const probe = join(memParent, "probe");
    await makeDir(probe);
    await write(join(probe, "memory.limit_in_bytes"), String(256 * 1024 * 1024));
    await removeDir(probe);
  } catch (err) {
    await removeDir(memParent);
    if (pidsParent) await removeDir(pidsParent);
    if (cpu) await removeDir(cpu.dir);
    return `cannot create cgroup v1 groups: ${(err as Error).message}`;
  }
  const pidsOk = pidsParent !== undefined && (await exists(pidsParent));
  const swap = await hasSwap();
  const extras = [
    pidsOk ? "with pids" : "no pids controller",
    cpu ? `cpu shares ${CHILD_CPU_SHARES} of the host's 1024` : "no cpu controller",
    ...(cpu && !cpu.quota ? ["no cpu quota"] : []),
    ...(swap ? [] : ["no swap"]),
  ];
  return {
    kind: "cgroup-v1",
    reason: `cgroup v1 at ${memParent} (${extras.join(", ")})${sweptText(swept)}`,
    enforces: { memory: true, pids: pidsOk, cpu: cpu?.quota === true },
    create: (memoryBytes, more = {}) =>
      childGroup({ memParent, pidsParent: pidsOk ? pidsParent : undefined, cpu, swap }, {
        memoryBytes,
        maxPids: more.maxPids ?? CHILD_PIDS_MAX,
        ...(more.cpuPercent !== undefined ? { cpuPercent: more.cpuPercent } : {}),
      }),
    async dispose() {
      await removeDir(memParent);
      if (pidsParent) await removeDir(pidsParent);
      if (cpu) await removeDir(cpu.dir);
    },
  };
}

/** One child's groups under the host's parents, with `initial` limits set. */
async function childGroup(
  at: { memParent: string; pidsParent?: string; cpu?: CpuParent; swap: boolean },
  initial: GroupLimits,
): Promise<ChildGroup> {
  const name = nextName();
  const mem = join(at.memParent, name);
  const now: GroupLimits = { ...initial, cpuPercent: undefined };
  await makeDir(mem);
  const setMemory = async (bytes: number) => {
    await write(join(mem, "memory.limit_in_bytes"), String(bytes));
    // With swap accounting, swap must be bounded too (it must be ≥ the limit). A host with
    // no swap at start-up is spared the write (one cgroup operation of eight per child).
    if (at.swap) {
      await write(join(mem, "memory.memsw.limit_in_bytes"), String(bytes)).catch(() => {});
    }
    now.memoryBytes = bytes;
  };
  await setMemory(initial.memoryBytes);
  const pids = at.pidsParent ? join(at.pidsParent, name) : undefined;
  if (pids) {
    await makeDir(pids);
    await write(join(pids, "pids.max"), String(now.maxPids));
  }
  /** The child's own quota group (made on the first quota), its process, and whether it is in. */
  let quotaDir: string | undefined;
  let pid: number | undefined;
  let inQuota = false;
  const setQuota = async (percent: number | undefined): Promise<void> => {
    if (!at.cpu?.quota) throw new Error("no cpu quota on this host");
    if (!quotaDir) {
      await makeDir(join(at.cpu.dir, name));
      quotaDir = join(at.cpu.dir, name);
      await write(join(quotaDir, "cpu.cfs_period_us"), String(CPU_PERIOD_US));
    }
    const quota = percent === undefined ? "-1" : String(cpuQuotaUs(percent));
    await write(join(quotaDir, "cpu.cfs_quota_us"), quota);
    now.cpuPercent = percent;
    // A pooled child already runs (in the shared group): it moves, every thread with it.
    if (pid !== undefined && !inQuota) {
      await write(join(quotaDir, "cgroup.procs"), String(pid));
      inQuota = true;
    }
  };
  // A cold child that asks for a quota starts in its own group: no move later.
  if (initial.cpuPercent !== undefined) await setQuota(initial.cpuPercent).catch(() => {});
  const group: ChildGroup = {
    async add(p) {
      // The low-share group first: until it is in, a booting child weighs as much as the host.
      // Best effort: a child outside the low-share group only competes harder for the CPU; one
      // outside its quota group is reported as not bounded (`apply`).
      if (at.cpu) {
        await write(join(quotaDir ?? at.cpu.dir, "cgroup.procs"), String(p), true).then(
          () => inQuota = quotaDir !== undefined,
          () => {},
        );
      }
      await write(join(mem, "cgroup.procs"), String(p), true);
      if (pids) await write(join(pids, "cgroup.procs"), String(p), true);
      pid = p;
    },
    selfJoin: () => {
      // A quota group made for this child must hold it, as its other groups must; the shared
      // low-share group is best effort, as a move into it is.
      const required = [mem, ...(pids ? [pids] : []), ...(quotaDir ? [quotaDir] : [])];
      return {
        required: required.map((dir) => join(dir, "tasks")),
        optional: at.cpu && !quotaDir ? [join(at.cpu.dir, "tasks")] : [],
        joined(p) {
          pid = p;
          inQuota = quotaDir !== undefined;
        },
      };
    },
    setMemory,
    async apply(limits) {
      const failed: LimitController[] = [];
      if (limits.memoryBytes !== now.memoryBytes) await setMemory(limits.memoryBytes);
      const max = limits.maxPids ?? CHILD_PIDS_MAX;
      if (max !== now.maxPids) {
        const set = pids ? write(join(pids, "pids.max"), String(max)) : Promise.reject();
        await set.then(() => now.maxPids = max, () => failed.push("pids"));
      }
      const percent = limits.cpuPercent;
      if (percent !== now.cpuPercent || (percent !== undefined && !inQuota)) {
        await setQuota(percent).catch(() => {
          if (percent !== undefined) failed.push("cpu");
        });
      }
      return failed;
    },
    async oomKilled() {
      const control = await readText(join(mem, "memory.oom_control"));
      if (eventCount(control, "oom_kill") > 0) return true;
      const failcnt = Number((await readText(join(mem, "memory.failcnt")))?.trim() ?? 0);
      return failcnt > 0;
    },
    async pidsLimitHit() {
      return pids !== undefined && eventCount(await readText(join(pids, "pids.events")), "max") > 0;
    },
    async peakBytes() {
      const peak = await readText(join(mem, "memory.max_usage_in_bytes"));
      return peak ? Number(peak.trim()) : undefined;
    },
    async remove() {
      await removeDir(mem);
      if (pids) await removeDir(pids);
      if (quotaDir) await removeDir(quotaDir);
    },
  };
  return group;
}

/**
 * Makes the group every child of this host joins for the CPU, with {@link CHILD_CPU_SHARES},
 * and probes whether a group below it takes a CFS quota; undefined where the cpu controller is
 * missing or not writable (children then compete with the host as equals, as they did before).
 */
async function lowerCpuShare(
  rel: string | undefined,
  name: string,
): Promise<CpuParent | undefined> {
  if (rel === undefined) return undefined;
  const dir = join(CGROUP_ROOT, "cpu", rel, name);
  try {
    await makeDir(dir, true);
    await write(join(dir, "cpu.shares"), String(CHILD_CPU_SHARES));
  } catch {
    await removeDir(dir);
    return undefined;
  }
  const probe = join(dir, "probe");
  const quota = await makeDir(probe).then(
    () => write(join(probe, "cpu.cfs_quota_us"), String(cpuQuotaUs(50))),
  ).then(() => true, () => false);
  await removeDir(probe);
  return { dir, quota };
}

/** True unless /proc/meminfo says this host has no swap at all. */
async function hasSwap(): Promise<boolean> {
  const meminfo = await Deno.readTextFile("/proc/meminfo").catch(() => "");
  const total = /^SwapTotal:\s+(\d+)/m.exec(meminfo);
  return total === null || Number(total[1]) > 0;
}
