/**
 * Which of a run's limits the host enforces with a cgroup (memory, tasks, CPU quota), setting
 * them on its child before the run starts, and the typed error for a run that met its task
 * limit. A limit the host cannot enforce does not stop the run: it is named in
 * `meta.limitsNotEnforced`.
 *
 * @module
 */
import { type ErrorInfo, errorInfo } from "../../errors.ts";
import { CHILD_PIDS_MAX, type LimitController, type MemoryGuard } from "../../sandbox/cgroup.ts";
import type { SandboxChild } from "../../sandbox/child.ts";
import type { Limits } from "./limits.ts";
import type { Outcome } from "./pass_options.ts";

const MiB = 1024 * 1024;

/** A limit a cgroup controller enforces. */
export type GuardedLimit = "memoryMiB" | "cpuPercent" | "maxPids";

/** The limit each controller enforces. */
const LIMIT_OF: Readonly<Record<LimitController, GuardedLimit>> = {
  memory: "memoryMiB",
  cpu: "cpuPercent",
  pids: "maxPids",
};

/** Which of the cgroup-enforced limits `guard` enforces on this host. */
export function enforcedLimits(guard: MemoryGuard): Record<GuardedLimit, boolean> {
  return {
    memoryMiB: guard.enforces.memory,
    cpuPercent: guard.enforces.cpu,
    maxPids: guard.enforces.pids,
  };
}

/** What a child's cgroup is given for `limits`. */
export function groupLimits(
  limits: Limits,
): { memoryBytes: number; maxPids: number; cpuPercent?: number } {
  return {
    memoryBytes: limits.memoryMiB * MiB,
    // A row stored before `maxPids` existed runs under the built-in bound.
    maxPids: limits.maxPids ?? CHILD_PIDS_MAX,
    ...(limits.cpuPercent !== undefined ? { cpuPercent: limits.cpuPercent } : {}),
  };
}

/**
 * Sets the run's memory, task and CPU limits on its child, before it runs any user code (a
 * pooled child was spawned with the defaults); returns the limits not enforced, in order.
 */
export async function applyRunLimits(child: SandboxChild, limits: Limits): Promise<GuardedLimit[]> {
  const missing = new Set((await child.applyLimits(groupLimits(limits))).map((c) => LIMIT_OF[c]));
  return (["memoryMiB", "cpuPercent", "maxPids"] as const).filter((l) => missing.has(l));
}

/** The `limit_exceeded` error of a run that could not start a thread or process. */
export function pidsError(maxPids: number, cause?: string): ErrorInfo {
  return errorInfo(
    "limit_exceeded",
    `The script tried to run more than ${maxPids} threads and processes (maxPids) at once`,
    { limit: "maxPids", maxPids, ...(cause ? { cause } : {}) },
  );
}

/**
 * A failed run whose child was refused a thread at its task limit fails as that limit (the
 * script saw `WouldBlock`, or the runtime died for want of a thread); any other outcome stands.
 * Asked only of a failed run: one cgroup read.
 */
export async function taskLimitOutcome(
  child: SandboxChild,
  outcome: Outcome,
  maxPids: number | undefined,
): Promise<Outcome> {
  if (outcome.ok) return outcome;
  const { code, message } = outcome.error;
  if (code !== "script_error" && code !== "sandbox_crashed") return outcome;
  const hit = child.alive ? await child.pidsLimitHit() : (await child.exited).pidsLimitHit;
  return hit ? { ok: false, error: pidsError(maxPids ?? CHILD_PIDS_MAX, message) } : outcome;
}
