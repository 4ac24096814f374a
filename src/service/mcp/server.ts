/**
 * {@link createMcpFront}: a runtime as an MCP server with three tools,
 * `execute`, `search` and `describe`.
 *
 * @module
 */
import { registerProgramTools } from "./programs.ts";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { CLIENT_INFO } from "../../connectors/mcp/session.ts";
import type { Runtime } from "../../engine/runtime/types.ts";
import type { ExecuteRequest } from "../../engine/execution/types.ts";
import {
  describeToolResult,
  errorToolResult,
  executeToolResult,
  searchToolResult,
} from "./render.ts";
import {
  DESCRIBE_INPUT,
  type DescribeArgs,
  EXECUTE_INPUT,
  EXECUTE_OUTPUT,
  type ExecuteArgs,
  SEARCH_INPUT,
  type SearchArgs,
} from "./schemas.ts";

/** Options for {@link createMcpFront}, `mcpHttpHandler()` and `serveMcpStdio()`. */
export interface McpFrontOptions {
  /** The namespace executions run in and whose snippets search and describe see. */
  namespace?: string;
  /** The server name clients see (default `cordon`). */
  name?: string;
  /** The server version clients see (default Cordon's). */
  version?: string;
  /**
   * Admission of `execute` runs: waits for a slot and returns the function that gives it back,
   * or throws a typed error (`too_many_requests`) that the tool answers as an error result. The
   * service passes its gate, so MCP runs count against the same `concurrency` as HTTP runs.
   */
  admit?: () => Promise<() => void>;
}

/** Appended to the runtime's model description: the front offers discovery without a run. */
const DISCOVERY_HINT =
  "Outside a program, this server's `search` and `describe` tools answer the same questions.";

/**
 * Builds an MCP server over `runtime` with three tools:
 *
 * - `execute` runs code (`{ code, input?, timeoutMs? }`). Its description is
 *   {@link Runtime.modelDescription}: what the sandbox offers and the
 *   connectors by name; the model finds tools and their TypeScript
 *   signatures with `search` and `describe`. The result is the execution
 *   result with the documented run meta only as `structuredContent` (the tool's
 *   `outputSchema`) and one readable text block; `isError` when the run
 *   ended in `error` or `rejected`. A paused run is not an error: its
 *   pending calls are decided through the HTTP API.
 * - `search` (`{ query, limit?, cursor? }`) ranks tools and snippets.
 * - `describe` (`{ path }`) gives one tool's or snippet's signature; an
 *   unknown path is an error result with its code (`tool_not_found`, …).
 *
 * The description is read once, here: a server built before the runtime's
 * tools change keeps the old one (the stateless HTTP handler builds a new
 * server per request, so it stays current).
 *
 * @example
 * ```ts
 * import { createRuntime } from "../../../mod.ts";
 * import { createMcpFront } from "./mod.ts";
 *
 * await using runtime = await createRuntime({ db: ":memory:", pool: { size: 0 } });
 * const server = await createMcpFront(runtime, { name: "my-tools" });
 * await server.close();
 * ```
 */
export async function createMcpFront(
  runtime: Runtime,
  options: McpFrontOptions = {},
): Promise<McpServer> {
  const inNamespace = options.namespace === undefined ? {} : { namespace: options.namespace };
  const server = new McpServer({
    name: options.name ?? "cordon",
    version: options.version ?? CLIENT_INFO.version,
  });
  const description = `${await runtime.modelDescription(inNamespace)}\n${DISCOVERY_HINT}`;

  server.registerTool("execute", {
    title: "Run TypeScript with the tools",
    description,
    inputSchema: EXECUTE_INPUT,
    outputSchema: EXECUTE_OUTPUT,
    // The code may call any tool, including ones that write or reach the world.
    annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: true },
  }, async (
    { code, language, input, timeoutMs, session, sessionId }: ExecuteArgs,
    extra: { _meta?: { [key: string]: unknown } },
  ) => {
    const request: ExecuteRequest = { code, ...inNamespace };
    // W3C trace context as MCP carries it: `params._meta.traceparent` (ignored when malformed).
    const traceparent = extra?._meta?.traceparent;
    if (typeof traceparent === "string") request.traceparent = traceparent;
    if (language !== undefined) request.language = language;
    if (input !== undefined) request.input = input;
    if (timeoutMs !== undefined) request.timeoutMs = timeoutMs;
    if (session !== undefined) request.session = session;
    if (sessionId !== undefined) request.sessionId = sessionId;
    let leave: (() => void) | undefined;
    try {
      leave = await options.admit?.();
      return executeToolResult(await runtime.execute(request));
    } catch (err) {
      // Refused at the gate, or a malformed request: there is no execution to report.
      return errorToolResult(err, false);
    } finally {
      leave?.();
    }
  });

  registerProgramTools(server, runtime, inNamespace, options.admit);

  server.registerTool("search", {
    title: "Search tools and snippets",
    description:
      "Rank the tools and saved snippets the `execute` program can call for a query; returns paths for `describe`.",
    inputSchema: SEARCH_INPUT,
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  }, async ({ query, limit, cursor }: SearchArgs) => {
    try {
      return searchToolResult(await runtime.search(query, { limit, cursor, ...inNamespace }));
    } catch (err) {
      return errorToolResult(err);
    }
  });

  server.registerTool("describe", {
    title: "Describe a tool or snippet",
    description:
      "The exact TypeScript signature, input and output types and an example call of `connector.tool` or `snippet:name`.",
    inputSchema: DESCRIBE_INPUT,
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  }, async ({ path }: DescribeArgs) => {
    try {
      return describeToolResult(await runtime.describe(path, inNamespace));
    } catch (err) {
      return errorToolResult(err);
    }
  });

  return server;
}
