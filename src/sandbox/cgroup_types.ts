/**
 * The shapes every cgroup guard shares (cgroup.ts picks one): a child's group, the limits it
 * takes, and the controllers a guard enforces.
 *
 * @module
 */
import type { GroupSweep } from "./cgroup_sweep.ts";

/** Where cgroup hierarchies are mounted. */
export const CGROUP_ROOT = "/sys/fs/cgroup";

/** Which guard bounds a child's memory. */
export type MemoryGuardKind = "cgroup-v2" | "cgroup-v1" | "heap-only";

/**
 * Tasks (threads count) one child may have, and the most a run may ask for (`maxPids`).
 * Deno starts about 15 threads; Web Workers add a few each. Enough for that, and a stop to a
 * thread bomb.
 */
export const CHILD_PIDS_MAX = 128;

/**
 * The CFS period of a child's CPU quota, in µs (the kernel's default). A run's `cpuPercent`
 * becomes a quota of `percent × period / 100` µs per period: 1 % is 1 ms, the kernel's least.
 */
export const CPU_PERIOD_US = 100_000;

/** A controller a guard may bound a child with. */
export type LimitController = "memory" | "cpu" | "pids";

/** The cgroup limits of one child's run. */
export interface GroupLimits {
  /** The memory limit, in bytes. */
  memoryBytes: number;
  /** Tasks (processes and threads) the child may have (default {@link CHILD_PIDS_MAX}). */
  maxPids?: number;
  /** Percent of one CPU (100 per core); absent: no quota. */
  cpuPercent?: number;
}

/**
 * How a new process puts itself in its groups before it runs anything else: it writes `0`
 * (itself) into each `tasks` file (cgroup v1). A thread that moves itself takes no lock
 * shared with every fork on the machine, while the host's write of a pid does: that lock held
 * for a move stalls the host's own spawns and threads for milliseconds.
 */
export interface SelfJoin {
  /** `tasks` files the process must join, or stop before it runs anything. */
  readonly required: readonly string[];
  /** `tasks` files it tries first, going on if one refuses (the children's low-share CPU group). */
  readonly optional: readonly string[];
  /** Notes the process that joined, for the group's later moves. */
  joined(pid: number): void;
}

/** One child's control group. */
export interface ChildGroup {
  /** Moves a process into the group (before it runs any user code). */
  add(pid: number): Promise<void>;
  /** Where the guard lets a new process join by itself ({@link SelfJoin}) instead of {@link add}. */
  selfJoin?(): SelfJoin;
  /** Sets the memory limit in bytes. */
  setMemory(bytes: number): Promise<void>;
  /**
   * Sets every limit of `limits` that differs from the group's now (no cgroup operation for
   * one that is unchanged; a CPU quota group is made only when a quota is first asked for).
   * Throws when the memory limit cannot be set; returns the controllers whose limit could not
   * be set (missing on this host, or a write refused), so the run can say so.
   */
  apply(limits: GroupLimits): Promise<LimitController[]>;
  /** True when the kernel killed something in this group for memory. */
  oomKilled(): Promise<boolean>;
  /** True when a fork or a new thread in this group was refused at its pids limit. */
  pidsLimitHit(): Promise<boolean>;
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
  /** Which limits this guard enforces on this host (the rest are reported, not enforced). */
  readonly enforces: Readonly<Record<LimitController, boolean>>;
  /** A group with `memoryBytes` and, where enforced, `more`'s pids limit and CPU quota. */
  create(
    memoryBytes: number,
    more?: Omit<GroupLimits, "memoryBytes">,
  ): Promise<ChildGroup | undefined>;
  /** Removes the parent group this guard made. */
  dispose(): Promise<void>;
}

/** The number in `key N` of a cgroup events file (`memory.events`, `pids.events`), or 0. */
export function eventCount(text: string | undefined, key: string): number {
  const m = new RegExp(`^${key} (\\d+)`, "m").exec(text ?? "");
  return m ? Number(m[1]) : 0;
}

/** The quota, in µs per {@link CPU_PERIOD_US}, for `percent` of one CPU. */
export function cpuQuotaUs(percent: number): number {
  return Math.round((percent * CPU_PERIOD_US) / 100);
}

/** The controllers whose limit `limits` sets that the guard cannot enforce. */
export function unenforced(
  enforces: Readonly<Record<LimitController, boolean>>,
  limits: GroupLimits,
): LimitController[] {
  const out: LimitController[] = [];
  if (!enforces.memory) out.push("memory");
  if (!enforces.pids) out.push("pids");
  if (limits.cpuPercent !== undefined && !enforces.cpu) out.push("cpu");
  return out;
}

let counter = 0;
/** A fresh name for one child's group. */
export function nextName(): string {
  return `c${++counter}-${crypto.randomUUID().slice(0, 8)}`;
}

/** Says what a sweep removed, for the guard's reason. */
export function sweptText(sweep: GroupSweep): string {
  if (sweep.groups === 0 && sweep.processes === 0) return "";
  return `; swept ${sweep.groups} group(s) of dead hosts, killing ${sweep.processes} process(es)`;
}
