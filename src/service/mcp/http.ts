/**
 * {@link mcpHttpHandler}: the MCP front over Streamable HTTP, stateless.
 *
 * @module
 */
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { Runtime } from "../../engine/runtime/types.ts";
import { createMcpFront, type McpFrontOptions } from "./server.ts";

/**
 * The answer to GET and DELETE, as the SDK's stateless example gives it: with
 * no session there is no stream to open (GET) and none to end (DELETE).
 * Clients treat 405 on either as "not offered".
 */
function methodNotAllowed(): Response {
  const body = {
    jsonrpc: "2.0",
    error: { code: -32000, message: "Method not allowed." },
    id: null,
  };
  return new Response(JSON.stringify(body), {
    status: 405,
    headers: { allow: "POST", "content-type": "application/json" },
  });
}

/**
 * A fetch-style handler serving the MCP front (see `createMcpFront()`) over
 * Streamable HTTP at whatever path it is mounted on, e.g. with Hono:
 * `app.all("/mcp", (c) => handler(c.req.raw))`.
 *
 * It is stateless: each POST gets a new server and transport, answered
 * with plain JSON (no SSE stream), and both are closed once the response is
 * ready, so nothing outlives a request. GET and DELETE answer 405. A long
 * `execute` holds its request open until the run ends or pauses. Origin and
 * Host checks (DNS rebinding) are the mounting server's job.
 *
 * @example
 * ```ts
 * import { createRuntime } from "../../../mod.ts";
 * import { mcpHttpHandler } from "./mod.ts";
 *
 * await using runtime = await createRuntime({ db: ":memory:", pool: { size: 0 } });
 * const handler = mcpHttpHandler(runtime);
 * const res = await handler(new Request("http://localhost/mcp", { method: "GET" }));
 * console.assert(res.status === 405);
 * ```
 */
export function mcpHttpHandler(
  runtime: Runtime,
  options: McpFrontOptions = {},
): (req: Request) => Promise<Response> {
  return async (req) => {
    if (req.method !== "POST") return methodNotAllowed();
    const server = await createMcpFront(runtime, options);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    try {
      await server.connect(transport);
      // With JSON responses this settles once every answer of the request is written.
      return await transport.handleRequest(req);
    } finally {
      await server.close();
    }
  };
}
