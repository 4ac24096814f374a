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
} from "./execution/control.ts";
export {
  ARTIFACT_NAME,
  ARTIFACT_SCHEME,
  type ArtifactRef,
  checkArtifactName,
  isArtifactName,
  MAX_ARTIFACT_NAME_CHARS,
  parseArtifactRef,
} from "./artifacts/ref.ts";
export {
  type ArtifactContent,
  type ArtifactInfo,
  type ArtifactPage,
  artifactsApi,
  type ArtifactsOptions,
  DEFAULT_ARTIFACT_MAX_BYTES,
  type DeleteArtifactOptions,
  type ListArtifactsOptions,
  type SaveArtifactOptions,
} from "./artifacts/api.ts";
export { Catalogue, type Description } from "./catalogue/catalogue.ts";
export {
  type CodeBlock,
  type CodeRunner,
  executeCode,
  type ExecuteCodeRequest,
  type ExecuteCodeResult,
  extractCodeBlocks,
  type ExtractCodeBlocksOptions,
  SUPPORTED_LANGUAGES,
} from "./code/executor.ts";
export {
  createRedactor,
  MIN_SECRET_VALUE_LENGTH,
  type Redact,
  redactCredentials,
  type RedactorOptions,
  redactValue,
} from "./logs/redact.ts";
export { Checker, TYPECHECK_MODES, type TypecheckMode } from "./typecheck/checker.ts";
export { executeChecked, toDiagnostic } from "./discovery/checked.ts";
export { type DiscoveryApi, type InNamespace, type RunSnippetOptions } from "./discovery/api.ts";
export { EventHub, type ExecutionEvent, type ExecutionListener } from "./execution/events.ts";
export { executionsApi } from "./execution/records.ts";
export { MAX_PAGE } from "./common/paging.ts";
export { checkNamespace, DEFAULT_NAMESPACE, NAMESPACE_PATTERN } from "./common/namespace.ts";
export { type DurabilitySettings, Engine, type EngineParts } from "./execution/engine.ts";
export { describeForModel, MAX_LISTED_CONNECTORS } from "./catalogue/model_prompt.ts";
export { PLATFORM_METHODS, type PlatformHost } from "./discovery/platform.ts";
export {
  MAX_SNIPPET_DESCRIPTION_CHARS,
  type PreparedSnippet,
  type SaveSnippetOptions,
  SNIPPET_NAME,
  type SnippetDetails,
  type SnippetInfo,
  Snippets,
} from "./snippets/snippets.ts";
export { classifyExit, encodedBytes } from "./execution/exit.ts";
export { CallJournal, canonicalJson, durableJson, type JournalDecision } from "./execution/journal.ts";
export {
  configureLimits,
  DEFAULT_LIMITS,
  DEFAULT_MAX_LIMITS,
  LIMIT_NAMES,
  type Limits,
  resolveLimits,
} from "./execution/limits.ts";
export { LogBuffer } from "./logs/buffer.ts";
export { type Decision, type Outcome, Pass, type PassEvent, type PassOptions } from "./execution/pass.ts";
export { createRuntime } from "./runtime/runtime.ts";
export {
  compileGlob,
  type Glob,
  MAX_GLOB_CHARS,
  MAX_OUTPUT_GLOBS,
  WORKSPACE_DEFAULTS,
  type WorkspaceOutput,
  type WorkspaceOutputs,
  type WorkspaceReport,
  type WorkspaceRequest,
} from "./workspaces/workspace.ts";
export { DEFAULT_SESSIONS, type SessionInfo, type SessionSettings } from "./sessions/manager.ts";
export { type RecoveryPage, type SessionsApi } from "./sessions/api.ts";
export {
  DEFAULT_DURABILITY,
  DEFAULT_EXECUTION_RETAIN_MS,
  DEFAULT_LOG_RETAIN_MS,
  DEFAULT_POOL_SIZE,
  type DurabilityOptions,
  type ExecutionDetails,
  type ExecutionSummary,
  type LogOptions,
  type LogPage,
  type PruneExecutionsOptions,
  type RedactOptions,
  type RetentionOptions,
  type Runtime,
  type RuntimeCapabilities,
  type RuntimeHealth,
  type RuntimeOptions,
  type SandboxOptions,
} from "./runtime/types.ts";
export { type CodeForm, MAX_CODE_CHARS, type PreparedSource, prepareSource } from "./source/source.ts";
export {
  type BundleStats,
  checkPackages,
  type PackageList,
  PackageSet,
  type PackageSetOptions,
  type PackageStats,
  packageStats,
} from "./packages/mod.ts";
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
} from "./execution/types.ts";
