/**
 * MCP servers as connectors: `mcpConnector()` over stdio or Streamable
 * HTTP, with reconnects, tool list changes and the resource, prompt and
 * completion handle.
 *
 * @module
 */
export { McpConnector, mcpConnector } from "./connector.ts";
export { RECONNECT_BACKOFF_MAX_MS, RECONNECT_DELAY_MS } from "./session_keeper.ts";
export { MAX_ERROR_TEXT_CHARS, MCP_ERROR_CODES } from "./errors.ts";
export {
  DEFAULT_STARTUP_TIMEOUT_MS,
  type McpApprovalOptions,
  type McpCommonOptions,
  type McpHttpOptions,
  type McpStdioOptions,
} from "./options.ts";
export { GRACEFUL_EXIT_MS, STDERR_TAIL_CHARS, TERM_GRACE_MS } from "./process_transport.ts";
export type { ToolsChangedListener } from "./tool_list.ts";
export { MAX_LIST_PAGES, type McpTool } from "./tools.ts";
