/**
 * What a run leaves on disk until its child exits: Deno keeps a run's
 * `localStorage` (and `caches`) under `DENO_DIR/location_data/<hash of its
 * --location>`, and the host wipes that when the child is gone. A host that
 * is killed wipes nothing, and the hash does not say whose run it was. So
 * each host notes its live runs in a ledger folder named by its tag
 * (host_tag.ts); a starting host wipes the runs noted by dead hosts.
 *
 * @module
 */
import { join } from "node:path";
import { sha256Hex } from "../hash.ts";
import { runLocation } from "./flags.ts";
import { formatHostTag, ownerIsDead, parseHostTag } from "./host_tag.ts";

/** The ledger folder inside Cordon's own `DENO_DIR` (Deno itself never looks there). */
export const RUN_LEDGER_DIR = "cordon_runs";

/** The folders Deno may fill for a run's location. */
export async function locationDataDirs(denoDir: string, runId: string): Promise<string[]> {
  const hash = await sha256Hex(runLocation(runId));
  const base = join(denoDir, "location_data");
  return [join(base, hash), join(base, "web_cache", hash)];
}

function hostDir(denoDir: string, tag = formatHostTag()): string {
  return join(denoDir, RUN_LEDGER_DIR, tag);
}

/** Notes a run before its child starts. */
export async function noteRun(denoDir: string, runId: string): Promise<void> {
  const dir = hostDir(denoDir);
  await Deno.mkdir(dir, { recursive: true });
  await Deno.writeTextFile(join(dir, runId), "");
}

/** Deletes what a run stored under its location (`localStorage`, the Cache API blocker). */
export async function wipeLocation(dirs: readonly string[]): Promise<void> {
  for (const dir of dirs) await Deno.remove(dir, { recursive: true }).catch(() => {});
}

/**
 * Wipes a run's location data, then forgets the run: in that order, so a host that dies in
 * between leaves a note the next host acts on.
 */
export async function retireRun(
  denoDir: string,
  runId: string,
  dirs: readonly string[],
): Promise<void> {
  await wipeLocation(dirs);
  await forgetRun(denoDir, runId);
}

/** Forgets a run once its location data is wiped (or it never started). */
export async function forgetRun(denoDir: string, runId: string): Promise<void> {
  if (!runId) return;
  await Deno.remove(join(hostDir(denoDir), runId)).catch(() => {});
}

/** What {@link sweepDeadRuns} removed. */
export interface RunSweep {
  /** Dead hosts whose ledgers were emptied. */
  hosts: number;
  /** Runs whose location data was wiped. */
  runs: number;
}

const RUN_ID = /^[0-9a-f-]{36}$/;

/**
 * Wipes the location data of every run a dead host noted, then its ledger.
 * Live hosts' ledgers (and anything in doubt) are left alone. Never throws.
 */
export async function sweepDeadRuns(denoDir: string): Promise<RunSweep> {
  const sweep: RunSweep = { hosts: 0, runs: 0 };
  const root = join(denoDir, RUN_LEDGER_DIR);
  const dead: string[] = [];
  try {
    for await (const entry of Deno.readDir(root)) {
      const tag = parseHostTag(entry.name);
      if (entry.isDirectory && tag && ownerIsDead(tag)) dead.push(entry.name);
    }
  } catch {
    return sweep;
  }
  for (const name of dead) {
    const dir = hostDir(denoDir, name);
    try {
      for await (const entry of Deno.readDir(dir)) {
        if (!RUN_ID.test(entry.name)) continue;
        await wipeLocation(await locationDataDirs(denoDir, entry.name));
        sweep.runs++;
      }
      await Deno.remove(dir, { recursive: true });
      sweep.hosts++;
    } catch {
      // Another starting host swept it first.
    }
  }
  return sweep;
}
