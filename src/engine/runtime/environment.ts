/**
 * Where a runtime's children run on this host: the folders (Cordon's own
 * DENO_DIR, an empty working directory, the guest's files, packages,
 * workspaces), and the guards found for memory and orphans, after sweeping
 * what dead hosts left behind.
 *
 * @module
 */
import { tmpdir } from "node:os";
import { join } from "node:path";
import { detectMemoryGuard, type MemoryGuard } from "../../sandbox/cgroup.ts";
import type { ChildEnvironment } from "../../sandbox/child.ts";
import { concealPath, GUEST_NAME } from "../../sandbox/guest/conceal.ts";
import { guestEntry } from "../../sandbox/guest_files.ts";
import { bundledGuest, GUEST_BUNDLE_ENTRY } from "../packages/guest_bundle.ts";
import { makeFdRoom } from "../../sandbox/fd_room.ts";
import { detectOrphanGuard, type OrphanGuard } from "../../sandbox/orphan_guard.ts";
import { hostDeniedAddresses } from "../../sandbox/policy.ts";
import { sweepDeadRuns } from "../../sandbox/run_ledger.ts";
import type { SandboxOptions } from "./options.ts";

/** The runtime's folders on this host. */
export interface RuntimeFolders {
  /** Everything else lives under it (a `cordon` folder in the temp dir). */
  base: string;
  /** Cordon's own DENO_DIR for children. */
  denoDir: string;
  /** The empty working directory children start in. */
  cwd: string;
  /** The guest's entry module: its bundle, or its own entry when it cannot be bundled. */
  guest: string;
  /** Where allowed packages are installed and bundled. */
  packages: string;
  /** Where workspaces live. */
  workspaces: string;
}

/** Makes the folders and writes the guest; nothing is opened yet, so nothing needs closing. */
export async function runtimeFolders(sandbox: SandboxOptions): Promise<RuntimeFolders> {
  const base = join(tmpdir(), "cordon");
  const denoDir = sandbox.denoDir ?? join(base, "deno");
  const cwd = join(base, "empty");
  await Deno.mkdir(denoDir, { recursive: true });
  await Deno.mkdir(cwd, { recursive: true });
  const guest = await runnableGuest(join(base, "guest"));
  return {
    base,
    denoDir,
    cwd,
    guest,
    packages: join(base, "packages"),
    workspaces: join(base, "workspaces"),
  };
}

/** The guest's bundle (see guest_bundle.ts), its folder named as the guest in child errors. */
async function runnableGuest(cacheDir: string): Promise<string> {
  const entry = await guestEntry(cacheDir);
  try {
    const bundle = await bundledGuest(entry, cacheDir);
    concealPath(bundle.slice(0, -GUEST_BUNDLE_ENTRY.length), GUEST_NAME);
    return bundle;
  } catch {
    // The modules themselves run as well, only a few ms slower to boot.
    return entry;
  }
}

/**
 * The guards this host allows. Finding the memory guard also sweeps the control groups dead
 * hosts left; then what the runs of dead hosts stored under their --location goes (their
 * children are gone). Meanwhile the host's descriptor table is grown, on another thread, so a
 * burst of children never waits for its growth on the event loop (fd_room.ts).
 */
export async function hostGuards(
  sandbox: SandboxOptions,
  denoDir: string,
): Promise<{ memoryGuard: MemoryGuard; orphanGuard: OrphanGuard }> {
  const room = makeFdRoom();
  const memoryGuard = await detectMemoryGuard(sandbox.cgroups ?? "auto");
  const orphanGuard = await detectOrphanGuard();
  await sweepDeadRuns(denoDir);
  await room;
  return { memoryGuard, orphanGuard };
}

/** What every child of this runtime is spawned with. */
export function childEnvironment(
  sandbox: SandboxOptions,
  folders: RuntimeFolders,
  guards: { memoryGuard: MemoryGuard; orphanGuard: OrphanGuard },
): ChildEnvironment {
  return {
    denoPath: sandbox.denoPath ?? Deno.execPath(),
    guestEntry: folders.guest,
    denoDir: folders.denoDir,
    cwd: folders.cwd,
    memoryGuard: guards.memoryGuard,
    orphanGuard: guards.orphanGuard,
    allowPrivateNetwork: sandbox.allowPrivateNetwork ?? false,
    denyAddresses: hostDeniedAddresses(),
  };
}
