/**
 * Memory and process limits beyond the V8 heap cap. `--max-old-space-size`
 * bounds the JS heap only; ArrayBuffers and Wasm memory escape it. Where the
 * host can create control groups, each child goes into its own with a
 * memory limit and a pids limit. cgroup v2 is preferred; a host that mounts
 * only the v1 memory and pids controllers (as some container hosts do) gets
 * those; anything else runs with the heap cap alone, and says so.
 *
 * @module
 */
import { join } from "node:path";
import { exists, makeDir, readText, removeDir, write } from "./cgroup_fs.ts";
import { type GroupSweep, parentGroupName, sweepDeadGroups } from "./cgroup_sweep.ts";

/** Which guard bounds a child's memory. */
export type MemoryGuardKind = "cgroup-v2" | "cgroup-v1" | "heap-only";

/**
 * Tasks (threads count) one child may have. Deno starts about 15 threads;
 * Web Workers add a few each. Enough for that, and a stop to a thread bomb.
 */
export const CHILD_PIDS_MAX = 128;

/** One child's control group. */
export interface ChildGroup {
  /** Moves a process into the group (before it runs any user code). */
  add(pid: number): Promise<void>;
  /** Sets the memory limit in bytes. */
  setMemory(bytes: number): Promise<void>;
  /** True when the kernel killed something in this group for memory. */
  oomKilled(): Promise<boolean>;
  /** Peak memory use in bytes, if the kernel reports it. */
  peakBytes(): Promise<number | undefined>;
  /** Removes the group (its processes must have exited). */
  remove(): Promise<void>;
}

/** Creates child groups, or none. */
export interface MemoryGuard {
  readonly kind: MemoryGuardKind;
  /** Why this kind was chosen (what was tried). */
  readonly reason: string;
  create(memoryBytes: number): Promise<ChildGroup | undefined>;
  /** Removes the parent group this guard made. */
  dispose(): Promise<void>;
}

const CGROUP_ROOT = "/sys/fs/cgroup";

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

let counter = 0;
function nextName(): string {
  return `c${++counter}-${crypto.randomUUID().slice(0, 8)}`;
}

/** Says what a sweep removed, for the guard's reason. */
function sweptText(sweep: GroupSweep): string {
  if (sweep.groups === 0 && sweep.processes === 0) return "";
  return `; swept ${sweep.groups} group(s) of dead hosts, killing ${sweep.processes} process(es)`;
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
  return {
    kind: "cgroup-v2",
    reason: `cgroup v2 at ${parent}${sweptText(swept)}`,
    async create(memoryBytes) {
      const dir = join(parent, nextName());
      await makeDir(dir);
      await write(join(dir, "memory.max"), String(memoryBytes));
      await write(join(dir, "memory.swap.max"), "0").catch(() => {});
      await write(join(dir, "pids.max"), String(CHILD_PIDS_MAX));
      return {
        add: (pid) => write(join(dir, "cgroup.procs"), String(pid)),
        setMemory: (bytes) => write(join(dir, "memory.max"), String(bytes)),
        async oomKilled() {
          const events = (await readText(join(dir, "memory.events"))) ?? "";
          const m = /oom_kill (\d+)/.exec(events);
          return m !== null && Number(m[1]) > 0;
        },
        async peakBytes() {
          const peak = await readText(join(dir, "memory.peak"));
          return peak ? Number(peak.trim()) : undefined;
        },
        remove: () => removeDir(dir),
      };
    },
    dispose: () => removeDir(parent),
  };
}

async function detectV1(self: Map<string, string>): Promise<MemoryGuard | string> {
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
  const cpuParent = await lowerCpuShare(self.get("cpu"), name);
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
    if (cpuParent) await removeDir(cpuParent);
    return `cannot create cgroup v1 groups: ${(err as Error).message}`;
  }
  const pidsOk = pidsParent !== undefined && (await exists(pidsParent));
  const swap = await hasSwap();
  const extras = [
    pidsOk ? "with pids" : "no pids controller",
    cpuParent ? `cpu shares ${CHILD_CPU_SHARES} of the host's 1024` : "no cpu controller",
    ...(swap ? [] : ["no swap"]),
  ];
  return {
    kind: "cgroup-v1",
    reason: `cgroup v1 at ${memParent} (${extras.join(", ")})${sweptText(swept)}`,
    async create(memoryBytes) {
      const name = nextName();
      const mem = join(memParent, name);
      await makeDir(mem);
      const setMemory = async (bytes: number) => {
        await write(join(mem, "memory.limit_in_bytes"), String(bytes));
        // With swap accounting, swap must be bounded too (it must be ≥ the limit). A host with
        // no swap at start-up is spared the write (one cgroup operation of eight per child).
        if (swap) {
          await write(join(mem, "memory.memsw.limit_in_bytes"), String(bytes)).catch(() => {});
        }
      };
      await setMemory(memoryBytes);
      let pids: string | undefined;
      if (pidsOk) {
        pids = join(pidsParent!, name);
        await makeDir(pids);
        await write(join(pids, "pids.max"), String(CHILD_PIDS_MAX));
      }
      return {
        async add(pid) {
          await write(join(mem, "cgroup.procs"), String(pid));
          if (pids) await write(join(pids, "cgroup.procs"), String(pid));
          // Best effort: a child outside the low-share group only competes harder for the CPU.
          if (cpuParent) await write(join(cpuParent, "cgroup.procs"), String(pid)).catch(() => {});
        },
        setMemory,
        async oomKilled() {
          const control = (await readText(join(mem, "memory.oom_control"))) ?? "";
          const m = /oom_kill (\d+)/.exec(control);
          if (m !== null && Number(m[1]) > 0) return true;
          const failcnt = Number((await readText(join(mem, "memory.failcnt")))?.trim() ?? 0);
          return failcnt > 0;
        },
        async peakBytes() {
          const peak = await readText(join(mem, "memory.max_usage_in_bytes"));
          return peak ? Number(peak.trim()) : undefined;
        },
        async remove() {
          await removeDir(mem);
          if (pids) await removeDir(pids);
        },
      };
    },
    async dispose() {
      await removeDir(memParent);
      if (pidsParent) await removeDir(pidsParent);
      if (cpuParent) await removeDir(cpuParent);
    },
  };
}

/**
 * The CPU weight of all of a host's children together, against the host's own 1024 (cgroup v1
 * `cpu.shares`). It only matters when the CPUs are contended: then the host's event loop (the
 * deadlines of every run, the answers to every call) goes first, and children share the rest.
 * Measured on 2 cores with 50 pooled runs at once: the host's longest stall fell from 145–280 ms
 * to 11–30 ms.
 */
export const CHILD_CPU_SHARES = 64;

/**
 * Makes the group every child of this host joins for the CPU, with {@link CHILD_CPU_SHARES};
 * undefined where the cpu controller is missing or not writable (children then compete with the
 * host as equals, as they did before).
 */
async function lowerCpuShare(rel: string | undefined, name: string): Promise<string | undefined> {
  if (rel === undefined) return undefined;
  const dir = join(CGROUP_ROOT, "cpu", rel, name);
  try {
    await makeDir(dir, true);
    await write(join(dir, "cpu.shares"), String(CHILD_CPU_SHARES));
    return dir;
  } catch {
    await removeDir(dir);
    return undefined;
  }
}

/** True unless /proc/meminfo says this host has no swap at all. */
async function hasSwap(): Promise<boolean> {
  const meminfo = await Deno.readTextFile("/proc/meminfo").catch(() => "");
  const total = /^SwapTotal:\s+(\d+)/m.exec(meminfo);
  return total === null || Number(total[1]) > 0;
}

function heapOnly(reason: string): MemoryGuard {
  return {
    kind: "heap-only",
    reason,
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
