/**
 * Cordon: run model-written TypeScript in a locked-down Deno sandbox that
 * calls your tools.
 *
 * @example
 * ```ts
 * import { z } from "zod";
 * import { createRuntime, defineConnector } from "@cordon/runtime";
 *
 * const math = defineConnector({
 *   name: "math",
 *   description: "Arithmetic",
 *   tools: {
 *     add: {
 *       description: "Add two numbers",
 *       input: z.object({ a: z.number(), b: z.number() }),
 *       output: z.number(),
 *       execute: ({ a, b }) => a + b,
 *     },
 *   },
 * });
 * await using runtime = await createRuntime({ connectors: [math], db: ":memory:" });
 * const out = await runtime.execute({ code: "return await math.add({ a: 1, b: 2 })" });
 * ```
 *
 * @module
 */
export {
  ARTIFACT_NAME,
  type ArtifactContent,
  type ArtifactInfo,
  type ArtifactPage,
  type ArtifactRef,
  type ArtifactsOptions,
  DEFAULT_ARTIFACT_MAX_BYTES,
  type DeleteArtifactOptions,
  type ListArtifactsOptions,
  parseArtifactRef,
  type SaveArtifactOptions,
} from "./src/engine/mod.ts";
export { type BundleStats, type PackageStats, packageStats } from "./src/engine/mod.ts";
export {
  type BlockSpec,
  buildBlockSpec,
  type CodeBlock,
  type CodeBlockDelimiter,
  type CodeRunner,
  createRedactor,
  DEFAULT_CODE_BLOCK_DELIMITER,
  DEFAULT_EXEC_FILE_MODE,
  DEFAULT_EXECUTION_RETAIN_MS,
  DEFAULT_LOG_RETAIN_MS,
  DEFAULT_SCRIPT_FILE_MODE,
  executeCode,
  type ExecuteCodeRequest,
  type ExecuteCodeResult,
  extractCodeBlock,
  extractCodeBlocks,
  type ExtractCodeBlocksOptions,
  INLINE_SOURCE_DIR,
  type LogOptions,
  MIN_SECRET_VALUE_LENGTH,
  type Redact,
  redactCredentials,
  type RedactOptions,
  type RedactorOptions,
  redactValue,
  SUPPORTED_LANGUAGES,
} from "./src/engine/mod.ts";
export {
  type ArtifactsApi,
  type CallRecord,
  type CodeForm,
  type CompletedResult,
  type ControlApi,
  createRuntime,
  DEFAULT_DURABILITY,
  DEFAULT_LIMITS,
  DEFAULT_MAX_LIMITS,
  DEFAULT_NAMESPACE,
  type Description,
  type Diagnostic,
  type DiscoveryApi,
  type DurabilityOptions,
  type DurabilitySettings,
  type ErrorResult,
  type ExecuteHooks,
  type ExecuteRequest,
  type ExecuteResult,
  type ExecutionDetails,
  type ExecutionEvent,
  type ExecutionList,
  type ExecutionListener,
  type ExecutionMeta,
  type ExecutionPolicy,
  type ExecutionsApi,
  type ExecutionSummary,
  type InNamespace,
  type Limits,
  type LogEntry,
  type LogPage,
  MAX_PREWARM,
  type PausedResult,
  type PendingAction,
  type PruneExecutionsOptions,
  type PythonOptions,
  type RetentionApi,
  type RetentionOptions,
  type RollbackReport,
  type RunSnippetOptions,
  type Runtime,
  type RuntimeCapabilities,
  type RuntimeHealth,
  type RuntimeOptions,
  type SandboxOptions,
  type SaveSnippetOptions,
  type Snippet,
  type SnippetDetails,
  type SnippetInfo,
  type TypecheckMode,
} from "./src/engine/mod.ts";
export {
  type BodyKind,
  type Connector,
  type ConnectorCheck,
  type ConnectorHandle,
  type ConnectorInfo,
  defineConnector,
  type DefineConnectorOptions,
  type HostAuth,
  httpConnector,
  type HttpConnectorOptions,
  type JsonSchema,
  type McpApprovalOptions,
  type McpCommonOptions,
  type McpConnector,
  mcpConnector,
  type McpHttpOptions,
  type McpStdioOptions,
  type OpenApiBody,
  openApiConnector,
  type OpenApiConnectorOptions,
  type OpenApiOperation,
  type OpenApiParameter,
  type Page,
  type ParameterLocation,
  type PromptInfo,
  type ResourceInfo,
  type ResourceTemplateInfo,
  type SearchDocument,
  type SearchHit,
  type SearchPage,
  stateConnector,
  type StateConnectorOptions,
  type Tool,
  type ToolAnnotations,
  type ToolContext,
  type ToolDefinition,
  type ToolInfo,
  type ToolsChangedListener,
  toolSetConnector,
  type ToolSetConnectorOptions,
  type Validation,
} from "./src/connectors/mod.ts";
export {
  CordonError,
  ERROR_CODES,
  type ErrorCode,
  type ErrorInfo,
  type SourceLocation,
} from "./src/errors.ts";
export { type MemoryGuardKind } from "./src/sandbox/cgroup.ts";
export { type OrphanGuardKind } from "./src/sandbox/orphan_guard.ts";
export type { LogLevel } from "./src/sandbox/protocol.ts";
export type { CallState, PendingNeed } from "./src/store/calls.ts";
export { type Db, type DbResult, openDb, type StoreHealth } from "./src/store/client.ts";
export type { RecoveryClass } from "./src/store/sessions.ts";
export {
  WORKSPACE_DEFAULTS,
  type WorkspaceOutput,
  type WorkspaceOutputs,
  type WorkspaceReport,
  type WorkspaceRequest,
} from "./src/engine/mod.ts";
export {
  type CodeModeRecoveryClassification,
  type CodeModeRecoveryEntry,
  DEFAULT_SESSIONS,
  type RecoveryDiagnostic,
  type RecoveryEntry,
  type RecoveryPage,
  type SessionInfo,
  type SessionsApi,
  type SessionSettings,
} from "./src/engine/mod.ts";
export type { ExecutionStatus } from "./src/store/executions.ts";
