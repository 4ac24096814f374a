/**
 * How the OpenAPI document describes `/mcp`, the MCP front door, and `/`, the
 * operator console: they are not routes of the table (the MCP SDK's handler
 * and the console's files answer them), so they are written out here.
 *
 * @module
 */

/** The MCP front door: Streamable HTTP, stateless (one JSON-RPC message per POST). */
export const MCP_OPERATION: Record<string, unknown> = {
  operationId: "postMcp",
  summary:
    "MCP front door (Streamable HTTP): tools execute, search, describe, result, wait, the code executor",
  tags: ["mcp"],
  requestBody: {
    required: true,
    content: {
      "application/json": { schema: { type: "object", description: "A JSON-RPC 2.0 message" } },
    },
  },
  responses: {
    "200": {
      description: "The JSON-RPC answer (JSON, or an event stream when the client accepts one)",
    },
    "202": { description: "Notifications, and the client's replies to the server's questions" },
    "401": { description: "No valid API key (WWW-Authenticate: Bearer)" },
    "405": { description: "GET and DELETE: this server keeps no MCP sessions" },
  },
};

/** The operator console's page (its files are under `/console/`); it holds no data. */
export const CONSOLE_OPERATION: Record<string, unknown> = {
  operationId: "getConsole",
  summary: "The operator console: an HTML page that drives this API with the caller's key",
  tags: ["console"],
  security: [],
  responses: {
    "200": { description: "The page", content: { "text/html": { schema: { type: "string" } } } },
    "304": { description: "Not modified (ETag)" },
  },
};
