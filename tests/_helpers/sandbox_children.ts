/**
 * Sandbox children for tests below the engine: the environment Cordon gives them (its empty
 * working directory and DENO_DIR, no cgroup) and a spawn with small default limits.
 */
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { detectMemoryGuard } from "../../src/sandbox/cgroup.ts";
import { type ChildEnvironment, SandboxChild } from "../../src/sandbox/child.ts";

/** The limits these tests give a child's streams. */
export const TEST_STREAM_LIMITS = { maxFrameBytes: 1 << 20, maxOutputBytes: 1 << 24 };

/** Cordon's child environment, with `guestEntry` (default: the repository's guest). */
export async function childEnvironment(guestEntry?: string): Promise<ChildEnvironment> {
  const base = join(tmpdir(), "cordon");
  await Deno.mkdir(join(base, "empty"), { recursive: true });
  return {
    denoPath: Deno.execPath(),
    guestEntry: guestEntry ??
      fileURLToPath(new URL("../../src/sandbox/guest/entry.ts", import.meta.url)),
    denoDir: join(base, "deno"),
    cwd: join(base, "empty"),
    memoryGuard: await detectMemoryGuard("off"),
    allowPrivateNetwork: false,
  };
}

/** Spawns a child in `env` (default: {@link childEnvironment}) with a 64 MiB heap. */
export async function spawnTestChild(env?: ChildEnvironment): Promise<SandboxChild> {
  return await SandboxChild.spawn({
    env: env ?? await childEnvironment(),
    policy: { heapMiB: 64, netAllow: [] },
    limits: TEST_STREAM_LIMITS,
    memoryBytes: 1 << 28,
  });
}
