/**
 * {@link mcpHttpHandler}: the MCP front over Streamable HTTP, stateless.
 *
 * @module
 */
import { readAtMost } from "../../bytes.ts";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { Runtime } from "../../engine/runtime/types.ts";
import { deliverReplies, isReply, RepliedTransport } from "./replies.ts";
import { createMcpFront, elicitsForms, type McpFrontOptions } from "./server.ts";

/** The largest MCP message body read (bytes); the service's own body limit is usually lower. */
export const MAX_MCP_BODY_BYTES = 4 * 1024 * 1024;
/**
 * Marks a client that declared form elicitation, at the end of the `Mcp-Session-Id` the handler
 * gives at `initialize`. The id is random and the server keeps nothing: the client carries what
 * it declared back on every request, and a new server per request reads it there.
 */
const ELICITS_MARK = ".e";

function jsonRpcError(status: number, code: number, message: string): Response {
  const body = { jsonrpc: "2.0", error: { code, message }, id: null };
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json" },
  });
}

/**
 * The answer to GET and DELETE, as the SDK's stateless example gives it: with
 * no session there is no stream to open (GET) and none to end (DELETE).
 * Clients treat 405 on either as "not offered".
 */
function methodNotAllowed(): Response {
  const res = jsonRpcError(405, -32000, "Method not allowed.");
  res.headers.set("allow", "POST");
  return res;
}

/** The body as JSON, read up to {@link MAX_MCP_BODY_BYTES}; a JSON-RPC error response otherwise. */
async function readBody(req: Request): Promise<unknown | Response> {
  const bytes = await readAtMost(req.body, MAX_MCP_BODY_BYTES);
  if (bytes === undefined) {
    return jsonRpcError(413, -32000, `The body is larger than ${MAX_MCP_BODY_BYTES} bytes`);
  }
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return jsonRpcError(400, -32700, "Parse error: Invalid JSON");
  }
}

/** The `initialize` request in a body, if there is one. */
function initializeOf(messages: unknown[]): { params?: { capabilities?: object } } | undefined {
  return messages.find((m) =>
    typeof m === "object" && m !== null && (m as { method?: unknown }).method === "initialize"
  ) as { params?: { capabilities?: object } } | undefined;
}

/**
 * `body` (the response's stream) passed through; `done` runs once when it ends or the client
 * goes away, whichever is first.
 */
function untilEnd(body: ReadableStream<Uint8Array>, done: () => void): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let ended = false;
  const end = () => {
    if (!ended) (ended = true), done();
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done: over, value } = await reader.read();
        if (over) {
          controller.close();
          end();
        } else controller.enqueue(value);
      } catch (err) {
        controller.error(err);
        end();
      }
    },
    async cancel(reason) {
      end();
      await reader.cancel(reason).catch(() => {});
    },
  });
}

/**
 * A fetch-style handler serving the MCP front (see `createMcpFront()`) over
 * Streamable HTTP at whatever path it is mounted on, e.g. with Hono:
 * `app.all("/mcp", (c) => handler(c.req.raw))`.
 *
 * It is stateless: each POST gets a new server and transport, closed when the request's
 * answer ends. A client that accepts `text/event-stream` gets its answers on an SSE stream,
 * which also carries progress notifications and the front's questions (`elicitation/create`)
 * about paused calls; the client's replies come back as POSTs of their own and are handed to
 * the server that asked (in this process). A client that accepts only `application/json` gets
 * plain JSON, and no questions. The client's capabilities ride in the `Mcp-Session-Id` given at
 * `initialize`, which the server does not keep. GET and DELETE answer 405. A long `execute`
 * holds its request open until the run ends or pauses. Origin and Host checks (DNS rebinding)
 * are the mounting server's job.
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
  const owner = options.namespace ?? "default";
  return async (req) => {
    if (req.method !== "POST") return methodNotAllowed();
    const body = await readBody(req);
    if (body instanceof Response) return body;
    const messages = Array.isArray(body) ? body : [body];
    // A client's replies to the front's questions: to the server that asked.
    if (messages.length > 0 && messages.every(isReply)) {
      deliverReplies(messages, owner);
      return new Response(null, { status: 202 });
    }
    const accept = req.headers.get("accept") ?? "";
    const sse = accept.includes("text/event-stream");
    const init = initializeOf(messages);
    const session = init
      ? `${crypto.randomUUID()}${elicitsForms(init.params?.capabilities) ? ELICITS_MARK : ""}`
      : undefined;
    const carried = req.headers.get("mcp-session-id") ?? "";
    const server = await createMcpFront(runtime, {
      ...options,
      clientElicits: sse && carried.endsWith(ELICITS_MARK),
    });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: !sse,
    });
    let closed = false;
    const close = () => {
      if (!closed) (closed = true), void server.close().catch(() => {});
    };
    try {
      await server.connect(new RepliedTransport(transport, owner));
      // The SDK wants both types accepted; a JSON-only client gets JSON all the same.
      const headers = new Headers(req.headers);
      headers.set("accept", "application/json, text/event-stream");
      const forwarded = new Request(req.url, { method: "POST", headers });
      const res = await transport.handleRequest(forwarded, { parsedBody: body });
      if (session) res.headers.set("mcp-session-id", session);
      const streaming = res.body &&
        res.headers.get("content-type")?.startsWith("text/event-stream");
      if (!streaming) {
        close();
        return res;
      }
      return new Response(untilEnd(res.body!, close), res);
    } catch (err) {
      close();
      throw err;
    }
  };
}
