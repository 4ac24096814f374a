/**
 * Starting one sandbox child's process: its command line, its run noted in the ledger with the
 * Cache API blocked, its cgroup (joined by the child itself where the guard allows), the orphan
 * guard's wrapper, and the clean-up when any of it fails. {@link launchChild} returns a process
 * that runs no user code yet; `SandboxChild` (child.ts) takes it from there.
 *
 * @module
 */
import { dirname } from "node:path";
import type { ChildGroup } from "./cgroup.ts";
import type { ChildEnvironment, SpawnChildOptions } from "./child_options.ts";
import { childArgs } from "./flags.ts";
import { locationDataDirs, noteRun, retireRun } from "./run_ledger.ts";
import { inSpawnLane } from "./spawn_lane.ts";
import { JOIN_SHELL, joinCommand } from "./self_join.ts";

/** A started child process, with its cgroup and its run's id and storage. */
export interface LaunchedChild {
  process: Deno.ChildProcess;
  group: ChildGroup | undefined;
  run: { id: string; location: readonly string[] };
}

/**
 * A sandbox child's process as it is started: in the sandbox's folder, with nothing of the
 * host's environment but Deno's cache, every stream piped.
 */
export function sandboxCommand(
  env: Pick<ChildEnvironment, "cwd" | "denoDir">,
  program: string,
  args: readonly string[],
): Deno.Command {
  return new Deno.Command(program, {
    args: [...args],
    cwd: env.cwd,
    clearEnv: true,
    env: { DENO_DIR: env.denoDir, DENO_NO_UPDATE_CHECK: "1", NO_COLOR: "1" },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  });
}

/** Spawns the child's process and puts it in its own cgroup (if any). */
export async function launchChild(options: SpawnChildOptions): Promise<LaunchedChild> {
  const { env, policy } = options;
  const runId = crypto.randomUUID();
  const args = childArgs({
    policy,
    guestEntry: env.guestEntry,
    runId,
    allowPrivateNetwork: env.allowPrivateNetwork,
    denyAddresses: env.denyAddresses,
    files: options.files,
    noRehearsal: options.noRehearsal,
  });
  const location = await locationDataDirs(env.denoDir, runId);
  // Noted before it starts: should this host die, the next one wipes the run's storage.
  await Promise.all([blockCacheStorage(location[1]), noteRun(env.denoDir, runId)]);
  const group = await env.memoryGuard.create(options.memoryBytes, {
    ...(options.maxPids !== undefined ? { maxPids: options.maxPids } : {}),
    ...(options.cpuPercent !== undefined ? { cpuPercent: options.cpuPercent } : {}),
  });
  // Where the guard allows, the child joins its groups itself before Deno starts.
  const join = group?.selfJoin && env.denoPath.startsWith("/") && await isProgram(JOIN_SHELL)
    ? group.selfJoin()
    : undefined;
  const inner = join ? joinCommand(join, env.denoPath, args) : { program: env.denoPath, args };
  const command = env.orphanGuard?.wrap(inner.program, inner.args) ?? inner;
  let process: Deno.ChildProcess;
  try {
    // Under a wrapper (setpriv, the join shell) a missing Deno must still fail the spawn.
    if (command.program !== env.denoPath && env.denoPath.startsWith("/")) {
      await assertProgram(env.denoPath);
    }
    process = await inSpawnLane(() => sandboxCommand(env, command.program, command.args).spawn());
  } catch (err) {
    await group?.remove();
    await retireRun(env.denoDir, runId, location);
    throw err;
  }
  if (join) {
    join.joined(process.pid);
  } else if (group) {
    // The guest runs no user code until its first frame, so moving it now
    // is in time. If the move fails, the child must not run unguarded.
    try {
      await group.add(process.pid);
    } catch (err) {
      try {
        process.kill("SIGKILL");
      } catch { /* already gone */ }
      await process.status;
      await group.remove();
      await retireRun(env.denoDir, runId, location);
      throw err;
    }
  }
  return { process, group, run: { id: runId, location } };
}

/** Programs already seen to exist, so a spawn costs one stat per binary, not one per child. */
const knownPrograms = new Set<string>();

/** Throws `NotFound` (as a direct spawn would) unless `path` is a file. */
async function assertProgram(path: string): Promise<void> {
  if (knownPrograms.has(path)) return;
  if (!(await Deno.stat(path)).isFile) {
    throw new Deno.errors.NotFound(`Cannot run ${path}: not a file`);
  }
  knownPrograms.add(path);
}

/** True when `path` is a file to run (remembered once seen, as {@link assertProgram} does). */
async function isProgram(path: string): Promise<boolean> {
  return await assertProgram(path).then(() => true, () => false);
}

/**
 * Puts an empty file where the run's Cache API storage would go, so `caches.open()` fails in
 * the child and in every Worker it starts. The Cache API writes to the host's disk whatever
 * `--deny-write` says, with no quota (measured: 190 MiB from one run); `localStorage` has
 * Deno's own cap (10 MiB per origin, measured) and is left alone.
 */
async function blockCacheStorage(cacheDir: string): Promise<void> {
  await Deno.mkdir(dirname(cacheDir), { recursive: true });
  await Deno.writeFile(cacheDir, new Uint8Array());
}
