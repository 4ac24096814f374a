/**
 * Connectors: the shared types, `defineConnector` (zod), and the registry.
 *
 * @module
 */
export { defineConnector, type DefineConnectorOptions, type ToolDefinition } from "./define.ts";
export {
  type CallOptions,
  type CallOutcome,
  ConnectorRegistry,
  DEFAULT_CONNECTOR_CONCURRENCY,
  DEFAULT_TOOL_TIMEOUT_MS,
  RESERVED_NAMES,
} from "./registry.ts";
export type { SearchDocument, SearchHit, SearchPage } from "./search.ts";
export { Semaphore } from "./semaphore.ts";
export type {
  Connector,
  ConnectorCheck,
  ConnectorHandle,
  ConnectorInfo,
  JsonSchema,
  Page,
  PromptInfo,
  ResourceInfo,
  ResourceTemplateInfo,
  Tool,
  ToolAnnotations,
  ToolContext,
  ToolInfo,
  Validation,
} from "./types.ts";
export {
  type BodyKind,
  type HostAuth,
  listOperations,
  type OpenApiBody,
  openApiConnector,
  type OpenApiConnectorOptions,
  type OpenApiOperation,
  type OpenApiParameter,
  type ParameterLocation,
  type SkippedOperation,
} from "./openapi/mod.ts";
export { toolSetConnector, type ToolSetConnectorOptions } from "./toolset.ts";
export {
  DEFAULT_HTTP_MAX_REDIRECTS,
  DEFAULT_HTTP_MAX_RESPONSE_BYTES,
  DEFAULT_HTTP_TIMEOUT_MS,
  DEFAULT_STATE_LIST_LIMIT,
  DEFAULT_STATE_MAX_KEY_LENGTH,
  DEFAULT_STATE_MAX_KEYS,
  DEFAULT_STATE_MAX_VALUE_BYTES,
  httpConnector,
  type HttpConnectorOptions,
  MAX_HTTP_URL_LENGTH,
  MAX_STATE_LIST_LIMIT,
  stateConnector,
  type StateConnectorOptions,
} from "./builtin/mod.ts";
export {
  type McpApprovalOptions,
  type McpCommonOptions,
  McpConnector,
  mcpConnector,
  type McpHttpOptions,
  type McpStdioOptions,
  type McpTool,
  type ToolsChangedListener,
} from "./mcp/mod.ts";
