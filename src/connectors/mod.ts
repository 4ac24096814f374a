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
