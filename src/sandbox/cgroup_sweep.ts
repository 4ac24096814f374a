/**
 * Control groups a dead host left. A host that is SIGKILLed cannot remove
 * its groups, and a child it started may still run in one. Each host names
 * its parent group after itself (`cordon-<pid>-<start>-<pidns>-<random>`,
 * see host_tag.ts), so a starting host can tell a live neighbour's groups
 * (left alone) from a dead one's: their processes are killed and the
 * directories removed.
 *
 * @module
 */
import { join } from "node:path";
import { formatHostTag, legacyOwnerIsDead, ownerIsDead, parseHostTag } from "./host_tag.ts";

/** What a sweep removed. */
export interface GroupSweep {
  /** Parent groups of dead hosts removed. */
  groups: number;
  /** Processes still running in them, killed. */
  processes: number;
}

/**
 * How long a sweep waits for a killed group to empty before it moves on
 * (SIGKILL lands in microseconds; a process in uninterruptible sleep may
 * take longer, and the next host's sweep tries again).
 */
export const SWEEP_WAIT_MS = 2_000;

const OWNED = /^cordon-(\d+-\d+-\d+)-[0-9a-f]{8}$/;
/** Names from before tags had a start time: `cordon-<pid>-<hex>`. */
const LEGACY = /^cordon-(\d+)-[0-9a-f]{8}$/;

/** A parent group name of this host's own (random suffix: runtimes in one process never share one). */
export function parentGroupName(): string {
  return `cordon-${formatHostTag()}-${crypto.randomUUID().slice(0, 8)}`;
}

/** True when `name` is a Cordon parent group whose host has certainly exited. */
export function isDeadHostGroup(name: string): boolean {
  const owned = OWNED.exec(name);
  if (owned) {
    const tag = parseHostTag(owned[1]);
    return tag !== undefined && ownerIsDead(tag);
  }
  const legacy = LEGACY.exec(name);
  return legacy !== null && legacyOwnerIsDead(Number(legacy[1]));
}

async function readProcs(dir: string): Promise<number[]> {
  try {
    const text = await Deno.readTextFile(join(dir, "cgroup.procs"));
    return text.split("\n").filter(Boolean).map(Number).filter(Number.isSafeInteger);
  } catch {
    return [];
  }
}

async function subgroups(dir: string): Promise<string[]> {
  const out: string[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) {
      if (entry.isDirectory) out.push(join(dir, entry.name));
    }
  } catch {
    // Gone already (another host swept it).
  }
  return out;
}

/** Kills everything in `dir` and below, then removes the directories; returns processes killed. */
async function removeGroup(dir: string, deadline: number): Promise<number> {
  let killed = 0;
  for (const sub of await subgroups(dir)) killed += await removeGroup(sub, deadline);
  const procs = await readProcs(dir);
  // cgroup v2 (Linux ≥ 5.14) kills the whole group at once, forks in flight included.
  const viaKill = await Deno.writeTextFile(join(dir, "cgroup.kill"), "1", { create: false }).then(
    () => true,
    () => false,
  );
  for (const pid of viaKill ? [] : procs) {
    try {
      Deno.kill(pid, "SIGKILL");
    } catch {
      // Exited meanwhile.
    }
  }
  killed += procs.length;
  while (true) {
    try {
      await Deno.remove(dir);
      return killed;
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) return killed;
      if (Date.now() > deadline) return killed;
    }
    // A process is removed from its group as it exits; v1 has no cgroup.kill for stragglers.
    for (const pid of viaKill ? [] : await readProcs(dir)) {
      try {
        Deno.kill(pid, "SIGKILL");
      } catch {
        // Exited meanwhile.
      }
    }
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * Removes the parent groups of dead hosts found directly under `dir`,
 * killing what still runs in them. Live hosts' groups, and anything whose
 * owner cannot be judged, are left alone. Never throws.
 */
export async function sweepDeadGroups(dir: string): Promise<GroupSweep> {
  const sweep: GroupSweep = { groups: 0, processes: 0 };
  const names: string[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) {
      if (entry.isDirectory && isDeadHostGroup(entry.name)) names.push(entry.name);
    }
  } catch {
    return sweep;
  }
  const deadline = Date.now() + SWEEP_WAIT_MS;
  for (const name of names) {
    sweep.processes += await removeGroup(join(dir, name), deadline);
    try {
      await Deno.stat(join(dir, name));
    } catch {
      sweep.groups++;
    }
  }
  return sweep;
}
