/**
 * Cordon as an MCP server: a client (an agent, an IDE) sees three tools,
 * `execute` to run TypeScript that calls the runtime's connectors, and
 * `search` and `describe` to find them, served over Streamable HTTP
 * ({@link mcpHttpHandler}) or stdio ({@link serveMcpStdio}).
 *
 * @example
 * ```ts
 * import { createRuntime } from "../../../mod.ts";
 * import { mcpHttpHandler } from "./mod.ts";
 *
 * await using runtime = await createRuntime({ db: ":memory:", pool: { size: 0 } });
 * const handler = mcpHttpHandler(runtime, { namespace: "team-a" });
 * // Mount it: app.all("/mcp", (c) => handler(c.req.raw)), or Deno.serve(handler).
 * ```
 *
 * @module
 */
export { createMcpFront, type McpFrontOptions } from "./server.ts";
export { mcpHttpHandler } from "./http.ts";
export { serveMcpStdio } from "./stdio.ts";
export { EXECUTIONS_API_PATH } from "./render.ts";
