/**
 * The runtime: `createRuntime()` wiring the capabilities below into one
 * {@link Runtime}, its options and defaults, and retention.
 *
 * @module
 */
export { createRuntime } from "./runtime.ts";
export type { ProgramsApi } from "./programs.ts";
export {
  DEFAULT_DURABILITY,
  DEFAULT_POOL_SIZE,
  type DurabilityOptions,
  MAX_PREWARM,
  type PythonOptions,
  type RuntimeOptions,
  type SandboxOptions,
  type WorkspaceOptions,
} from "./options.ts";
export {
  DEFAULT_EXECUTION_RETAIN_MS,
  type PruneExecutionsOptions,
  type RetentionApi,
  type RetentionOptions,
} from "./retention.ts";
export type {
  Runtime,
  RuntimeCapabilities,
  RuntimeHealth,
  WorkspaceCapabilities,
} from "./types.ts";
export {
  type File,
  type PutFile,
  type StageOptions,
  type StageReport,
  withRunEnv,
  type WorkspaceEngine,
  type WorkspaceEngineOptions,
  type WorkspaceFS,
  type WorkspaceHandle,
  type WorkspaceManager,
  type WorkspacePolicy,
  type WorkspaceRunner,
} from "./workspace_engine.ts";
