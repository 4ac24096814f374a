/**
 * The engine: `createRuntime()`, durable executions, limits, and the
 * execute envelope.
 *
 * @module
 */
export {
  approve,
  expirePaused,
  pending,
  recoverInterrupted,
  reject,
  resolve,
  rollback,
  type RollbackReport,
} from "./control.ts";
export { Catalogue, type Description } from "./catalogue.ts";
export { Checker, TYPECHECK_MODES, type TypecheckMode } from "./checker.ts";
export { executeChecked, toDiagnostic } from "./checked.ts";
export { type DiscoveryApi, type InNamespace, type RunSnippetOptions } from "./discovery_api.ts";
export { EventHub, type ExecutionEvent, type ExecutionListener } from "./events.ts";
export { executionsApi, MAX_PAGE } from "./executions_api.ts";
export { checkNamespace, DEFAULT_NAMESPACE, NAMESPACE_PATTERN } from "./namespace.ts";
export { type DurabilitySettings, Engine, type EngineParts } from "./engine.ts";
export { describeForModel, MAX_LISTED_CONNECTORS } from "./model_prompt.ts";
export { PLATFORM_METHODS, type PlatformHost } from "./platform.ts";
export {
  MAX_SNIPPET_DESCRIPTION_CHARS,
  type PreparedSnippet,
  type SaveSnippetOptions,
  SNIPPET_NAME,
  type SnippetDetails,
  type SnippetInfo,
  Snippets,
} from "./snippets.ts";
export { classifyExit, encodedBytes } from "./exit.ts";
export { CallJournal, canonicalJson, durableJson, type JournalDecision } from "./journal.ts";
export {
  configureLimits,
  DEFAULT_LIMITS,
  DEFAULT_MAX_LIMITS,
  LIMIT_NAMES,
  type Limits,
  resolveLimits,
} from "./limits.ts";
export { LogBuffer } from "./logs.ts";
export { type Decision, type Outcome, Pass, type PassEvent, type PassOptions } from "./pass.ts";
export { createRuntime } from "./runtime.ts";
export {
  DEFAULT_DURABILITY,
  DEFAULT_POOL_SIZE,
  type DurabilityOptions,
  type ExecutionDetails,
  type ExecutionSummary,
  type LogPage,
  type Runtime,
  type RuntimeCapabilities,
  type RuntimeOptions,
  type SandboxOptions,
} from "./runtime_types.ts";
export { type CodeForm, MAX_CODE_CHARS, type PreparedSource, prepareSource } from "./source.ts";
export type {
  CallRecord,
  CompletedResult,
  Diagnostic,
  ErrorResult,
  ExecuteHooks,
  ExecuteRequest,
  ExecuteResult,
  ExecutionMeta,
  ExecutionPolicy,
  LogEntry,
  PausedResult,
  PendingAction,
} from "./types.ts";
