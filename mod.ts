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
  type CallRecord,
  type CodeForm,
  type CompletedResult,
  type ExecuteHooks,
  createRuntime,
  DEFAULT_DURABILITY,
  DEFAULT_LIMITS,
  DEFAULT_MAX_LIMITS,
  DEFAULT_NAMESPACE,
  type Description,
  type Diagnostic,
  type DiscoveryApi,
  type ErrorResult,
  type ExecuteRequest,
  type ExecuteResult,
  type ExecutionDetails,
  type ExecutionEvent,
  type ExecutionListener,
  type ExecutionMeta,
  type ExecutionPolicy,
  type ExecutionSummary,
  type InNamespace,
  type Limits,
  type LogEntry,
  type LogPage,
  type PausedResult,
  type PendingAction,
  type RollbackReport,
  type RunSnippetOptions,
  type Runtime,
  type RuntimeCapabilities,
  type RuntimeOptions,
  type SandboxOptions,
  type SaveSnippetOptions,
  type SnippetDetails,
  type SnippetInfo,
  type TypecheckMode,
} from "./src/engine/mod.ts";
export {
  type Connector,
  type ConnectorCheck,
  type ConnectorHandle,
  type ConnectorInfo,
  defineConnector,
  type DefineConnectorOptions,
  httpConnector,
  type HttpConnectorOptions,
  type JsonSchema,
  type McpConnector,
  mcpConnector,
  type McpHttpOptions,
  type McpStdioOptions,
  openApiConnector,
  type OpenApiConnectorOptions,
  type Page,
  type PromptInfo,
  type ResourceInfo,
  type ResourceTemplateInfo,
  stateConnector,
  type StateConnectorOptions,
  type Tool,
  type ToolAnnotations,
  type ToolContext,
  type ToolDefinition,
  type ToolInfo,
  toolSetConnector,
  type ToolSetConnectorOptions,
} from "./src/connectors/mod.ts";
export {
  CordonError,
  ERROR_CODES,
  type ErrorCode,
  type ErrorInfo,
  type SourceLocation,
} from "./src/errors.ts";
export { type MemoryGuardKind } from "./src/sandbox/cgroup.ts";
export type { CallState, PendingNeed } from "./src/store/calls.ts";
export type { ExecutionStatus } from "./src/store/executions.ts";
