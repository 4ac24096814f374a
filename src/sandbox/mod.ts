/**
 * The sandbox: policy, flags, cgroups, the child process and the pool, the languages a child
 * runs, and Pyodide's files for Python children.
 * `guest/` runs inside the child and is not exported.
 *
 * @module
 */
export {
  CHILD_PIDS_MAX,
  type ChildGroup,
  detectMemoryGuard,
  type MemoryGuard,
  type MemoryGuardKind,
} from "./cgroup.ts";
export {
  type ChildEnvironment,
  type ChildExit,
  type ChildHandlers,
  type ChildStreamLimits,
  MAX_STDERR_BYTES,
  SandboxChild,
  type SpawnChildOptions,
} from "./child.ts";
export { childArgs, type ChildArgsOptions, runLocation } from "./flags.ts";
export {
  isTypeScript,
  type Language,
  type LanguageEntry,
  type LanguageFiles,
  languageOf,
  LANGUAGES,
} from "./languages.ts";
export {
  findPyodideDir,
  PYODIDE_VERSION,
  PythonFiles,
  type PythonFilesOptions,
} from "./pyodide.ts";
export {
  type CommandLine,
  detectOrphanGuard,
  type DetectOrphanGuardOptions,
  noOrphanGuard,
  type OrphanGuard,
  type OrphanGuardKind,
  PARENT_DEATH_SIGNAL,
  SETPRIV_PATHS,
} from "./orphan_guard.ts";
export {
  DENIED_NET_RANGES,
  MAX_NET_ALLOW_HOSTS,
  normalizeNetAllow,
  policyKey,
  type SandboxPolicy,
} from "./policy.ts";
export { ChildPool, type ChildPoolOptions } from "./pool.ts";
export * from "./protocol.ts";
