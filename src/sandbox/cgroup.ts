/**
 * Memory, process and CPU limits beyond the V8 heap cap. `--max-old-space-size`
 * bounds the JS heap only; ArrayBuffers and Wasm memory escape it. Where the
 * host can create control groups, each child goes into its own with a
 * memory limit and a pids limit, and into a CPU quota group when its run asks
 * for one. cgroup v2 is preferred; a host that mounts only the v1 controllers
 * (as some container hosts do) gets those (cgroup_v1.ts); anything else runs with the
 * heap cap alone, and says so: {@link MemoryGuard.enforces} names what is bounded.
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
import { CHILD_CPU_SHARES, detectV1 } from "./cgroup_v1.ts";

export {
  CHILD_CPU_SHARES,
  CHILD_PIDS_MAX,
  type ChildGroup,
  CPU_PERIOD_US,
  cpuQuotaUs,
  eventCount,
  type GroupLimits,
  type LimitController,
  type MemoryGuard,
};
export { type MemoryGuardKind, type SelfJoin, unenforced } from "./cgroup_types.ts";

/** Parses /proc/self/cgroup into controller → path. */
function parseSelfCgroups(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split("\n")) {
    const [id, controllers, path] = line.split(":");
    if (path === undefined) continue;
    if (id === "0" && controllers === "") out.set("", path);
    for (const c of controllers.split(",")) if (c) out.set(c, path);
  }
  return out;
}

async function detectV2(self: Map<string, string>): Promise<MemoryGuard | string> {
  const rel = self.get("");
  if (rel === undefined) return "no cgroup v2 hierarchy for this process";
  let mount = CGROUP_ROOT;
  if (!(await exists(join(mount, "cgroup.controllers")))) mount = join(CGROUP_ROOT, "unified");
  const here = join(mount, rel);
  const controllers = (await readText(join(here, "cgroup.controllers"))) ?? "";
  if (!/\bmemory\b/.test(controllers) || !/\bpids\b/.test(controllers)) {
    return `cgroup v2 offers "${controllers.trim()}" here, not memory and pids`;
  }
  // A dead host's groups sit beside the one this host makes.
  const swept = await sweepDeadGroups(here);
  const parent = join(here, parentGroupName());
  try {
    await makeDir(parent, true);
    await write(join(parent, "cgroup.subtree_control"), "+memory +pids");
  } catch (err) {
    await removeDir(parent);
    return `cannot delegate cgroup v2 controllers: ${(err as Error).message}`;
  }
  // CPU quotas are a bonus: a host that does not delegate `cpu` still bounds memory and pids.
  const cpu = /\bcpu\b/.test(controllers) &&
    await write(join(parent, "cgroup.subtree_control"), "+cpu").then(() => true, () => false);
  return {
    kind: "cgroup-v2",
    reason: `cgroup v2 at ${parent}${cpu ? " with cpu" : ", no cpu controller"}${sweptText(swept)}`,
    enforces: { memory: true, pids: true, cpu },
    async create(memoryBytes, more = {}) {
      const dir = join(parent, nextName());
      await makeDir(dir);
      await write(join(dir, "memory.max"), String(memoryBytes));
      await write(join(dir, "memory.swap.max"), "0").catch(() => {});
      const now: GroupLimits = { memoryBytes, maxPids: more.maxPids ?? CHILD_PIDS_MAX };
      await write(join(dir, "pids.max"), String(now.maxPids));
      const group: ChildGroup = {
        add: (pid) => write(join(dir, "cgroup.procs"), String(pid), true),
        setMemory: async (bytes) => {
          await write(join(dir, "memory.max"), String(bytes));
          now.memoryBytes = bytes;
        },
        async apply(limits) {
          const failed: LimitController[] = [];
          if (limits.memoryBytes !== now.memoryBytes) await group.setMemory(limits.memoryBytes);
          const pids = limits.maxPids ?? CHILD_PIDS_MAX;
          if (pids !== now.maxPids) {
            await write(join(dir, "pids.max"), String(pids)).then(
              () => now.maxPids = pids,
              () => failed.push("pids"),
            );
          }
          if (limits.cpuPercent !== now.cpuPercent) {
            const quota = limits.cpuPercent === undefined ? "max" : cpuQuotaUs(limits.cpuPercent);
            // Without the controller there is no quota to set, and none to lift.
            const set = cpu
              ? write(join(dir, "cpu.max"), `${quota} ${CPU_PERIOD_US}`)
              : Promise.reject();
            await set.then(() => now.cpuPercent = limits.cpuPercent, () => {
              if (limits.cpuPercent !== undefined) failed.push("cpu");
            });
          }
          return failed;
        },
        async oomKilled() {
          return eventCount(await readText(join(dir, "memory.events")), "oom_kill") > 0;
        },
        async pidsLimitHit() {
          return eventCount(await readText(join(dir, "pids.events")), "max") > 0;
        },
        async peakBytes() {
          const peak = await readText(join(dir, "memory.peak"));
          return peak ? Number(peak.trim()) : undefined;
        },
        remove: () => removeDir(dir),
      };
      if (more.cpuPercent !== undefined && cpu) await group.apply({ ...now, ...more });
      return group;
    },
    dispose: () => removeDir(parent),
  };
}

function heapOnly(reason: string): MemoryGuard {
  return {
    kind: "heap-only",
    reason,
    enforces: { memory: false, cpu: false, pids: false },
    create: () => Promise.resolve(undefined),
    dispose: () => Promise.resolve(),
  };
}

/**
 * Finds the best memory guard this host allows. `mode: "off"` skips
 * detection (heap cap only).
 */
export async function detectMemoryGuard(mode: "auto" | "off" = "auto"): Promise<MemoryGuard> {
  if (mode === "off" || Deno.build.os !== "linux") {
    return heapOnly(
      mode === "off" ? "cgroups turned off by configuration" : `cgroups are Linux only`,
    );
  }
  const selfText = await readText("/proc/self/cgroup");
  if (!selfText) return heapOnly("cannot read /proc/self/cgroup");
  const self = parseSelfCgroups(selfText);
  const v2 = await detectV2(self);
  if (typeof v2 !== "string") return v2;
  const v1 = await detectV1(self);
  if (typeof v1 !== "string") return v1;
  return heapOnly(`${v2}; ${v1}`);
}
