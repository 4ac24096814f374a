/**
 * The engine: `createRuntime()`, limits, and the execute envelope.
 *
 * @module
 */
export { classifyExit, encodedBytes, runPass, type RunPassOptions } from "./execution.ts";
export {
  configureLimits,
  DEFAULT_LIMITS,
  DEFAULT_MAX_LIMITS,
  LIMIT_NAMES,
  type Limits,
  resolveLimits,
} from "./limits.ts";
export { LogBuffer } from "./logs.ts";
export {
  createRuntime,
  DEFAULT_POOL_SIZE,
  type Runtime,
  type RuntimeCapabilities,
  type RuntimeOptions,
  type SandboxOptions,
} from "./runtime.ts";
export { type CodeForm, MAX_CODE_CHARS, type PreparedSource, prepareSource } from "./source.ts";
export type {
  CallRecord,
  CompletedResult,
  Diagnostic,
  ErrorResult,
  ExecuteRequest,
  ExecuteResult,
  ExecutionMeta,
  ExecutionPolicy,
  LogEntry,
} from "./types.ts";
