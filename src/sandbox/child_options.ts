/**
 * What `SandboxChild.spawn` (child.ts) is given: where children run and what they may
 * write, the per-child stream limits, and the policy and memory of one spawn.
 *
 * @module
 */
import type { MemoryGuard } from "./cgroup.ts";
import type { OrphanGuard } from "./orphan_guard.ts";
import type { LanguageFiles } from "./languages.ts";
import type { SandboxPolicy } from "./policy.ts";

/** Where children run and what they may write. */
export interface ChildEnvironment {
  /** The Deno binary (the host's own by default). */
  denoPath: string;
  /** The trusted guest entry file. */
  guestEntry: string;
  /** Cordon's own DENO_DIR. */
  denoDir: string;
  /** An empty directory to run in. */
  cwd: string;
  memoryGuard: MemoryGuard;
  allowPrivateNetwork: boolean;
  /** The host's own addresses, denied to children that may reach allowed hosts. */
  denyAddresses?: readonly string[];
  /** Ties each child's life to the host's (absent: children are started unguarded). */
  orphanGuard?: OrphanGuard;
}

/** Per-child stream limits, fixed at spawn. */
export interface ChildStreamLimits {
  maxFrameBytes: number;
  maxOutputBytes: number;
}

/** Options for {@link SandboxChild.spawn}. */
export interface SpawnChildOptions {
  env: ChildEnvironment;
  policy: SandboxPolicy;
  limits: ChildStreamLimits;
  /** Memory limit for the child's cgroup, if one is made. */
  memoryBytes: number;
  /** What the policy's language needs besides (Pyodide's files for Python). */
  files?: LanguageFiles;
  /** Tasks the child may have, where the cgroup `pids` controller is enforced (default 128). */
  maxPids?: number;
  /** Percent of one CPU the child may use, where a CPU quota is enforced; absent: no quota. */
  cpuPercent?: number;
  /** A run waits for this child (not a pool's): it skips the guest's rehearsal. */
  noRehearsal?: boolean;
}
